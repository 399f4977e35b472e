//! Pixel-centre coordinates from a `spatial:transform`, computed as GDAL and rioxarray compute
//! them, operation for operation, so that the values written inline equal
//! `rioxarray.open_rasterio`'s bit for bit.
//!
//! GDAL's geotransform `[c, a, b, f, d, e]` maps pixel *corners*. A PixelIsPoint raster
//! (`spatial:registration` `node`) stores the transform of pixel centres; GDAL shifts it by half a
//! pixel (`c -= a·0.5 + b·0.5`, `f -= d·0.5 + e·0.5`) unless `GTIFF_POINT_GEO_IGNORE` is set,
//! and rasterio and rioxarray read GDAL's. rioxarray's `affine_to_coords` then forms
//! `T · translation(0.5, 0.5)` and applies it to `(j, 0)` and `(0, i)`, which is
//! `x_j = j·a + ((a·0.5 + b·0.5) + c)` and `y_i = i·e + ((d·0.5 + e·0.5) + f)` in that order of
//! rounding.

/// `spatial:transform` `[a, b, c, d, e, f]` (`x = a·col + b·row + c`, `y = d·col + e·row + f`).
pub(crate) type Transform = [f64; 6];

/// The transform of pixel corners, as GDAL reports it: the stored one for PixelIsArea, shifted
/// back half a pixel for PixelIsPoint.
pub(crate) fn corner_transform(t: Transform, point: bool) -> Transform {
    let [a, b, c, d, e, f] = t;
    if point {
        [a, b, c - (a * 0.5 + b * 0.5), d, e, f - (d * 0.5 + e * 0.5)]
    } else {
        t
    }
}

/// GDAL's six numbers `[c, a, b, f, d, e]` as a space-separated string (the `GeoTransform`
/// attribute GDAL's netCDF driver and rioxarray write), each the shortest decimal that reads
/// back as the same float.
pub(crate) fn gdal_geotransform(t: Transform) -> String {
    let [a, b, c, d, e, f] = t;
    [c, a, b, f, d, e]
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the grid is axis-aligned, as rioxarray decides before writing 1-D `x`/`y`
/// (`affine`'s `is_rectilinear` with its epsilon, and no rotation: `b = d = 0`).
pub(crate) fn axis_aligned(t: Transform) -> bool {
    let [a, b, _, d, e, _] = t;
    const EPS: f64 = 1e-5;
    let rectilinear = (a.abs() < EPS && e.abs() < EPS) || (d.abs() < EPS && b.abs() < EPS);
    rectilinear && b == 0.0 && d == 0.0
}

/// The `x` values of `w` pixel centres for the corner transform `t`.
pub(crate) fn x_centres(t: Transform, w: u64) -> Vec<f64> {
    let [a, b, c, ..] = t;
    let c_half = a * 0.5 + b * 0.5 + c;
    (0..w).map(|j| j as f64 * a + c_half).collect()
}

/// The `y` values of `h` pixel centres for the corner transform `t`.
pub(crate) fn y_centres(t: Transform, h: u64) -> Vec<f64> {
    let [_, _, _, d, e, f] = t;
    let f_half = d * 0.5 + e * 0.5 + f;
    (0..h).map(|i| i as f64 * e + f_half).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_pixels_have_centres_half_a_pixel_in() {
        let t = [30.0, 0.0, 500000.0, 0.0, -30.0, 4600000.0];
        assert_eq!(x_centres(t, 3), vec![500015.0, 500045.0, 500075.0]);
        assert_eq!(y_centres(t, 2), vec![4599985.0, 4599955.0]);
    }

    #[test]
    fn point_pixels_are_shifted_back_to_corners_first() {
        // PixelIsPoint: the stored transform maps centres, so the centres are its grid points.
        let stored = [30.0, 0.0, 500000.0, 0.0, -30.0, 4600000.0];
        let t = corner_transform(stored, true);
        assert_eq!(t, [30.0, 0.0, 499985.0, 0.0, -30.0, 4600015.0]);
        assert_eq!(x_centres(t, 2), vec![500000.0, 500030.0]);
        assert_eq!(y_centres(t, 2), vec![4600000.0, 4599970.0]);
        assert_eq!(corner_transform(stored, false), stored);
    }

    #[test]
    fn centres_round_as_rioxarray_rounds() {
        // 0.1° pixels: `j·a + (a/2 + c)` and `(j + 0.5)·a + c` differ in the last bit for some j;
        // the first is what rioxarray computes.
        let (a, c) = (0.1, -180.0);
        let t = [a, 0.0, c, 0.0, -a, 90.0];
        let x = x_centres(t, 3600);
        let c_half = a * 0.5 + 0.0 * 0.5 + c;
        for (j, v) in x.iter().enumerate() {
            assert_eq!(v.to_bits(), (j as f64 * a + c_half).to_bits());
        }
        assert!(x
            .iter()
            .enumerate()
            .any(|(j, v)| *v != (j as f64 + 0.5) * a + c));
    }

    #[test]
    fn geotransform_is_gdal_order_and_reads_back_exactly() {
        let t = [0.1, 0.0, -180.0, 0.0, -0.1, 90.0];
        let s = gdal_geotransform(t);
        assert_eq!(s, "-180.0 0.1 0.0 90.0 0.0 -0.1");
        let back: Vec<f64> = s.split(' ').map(|v| v.parse().unwrap()).collect();
        assert_eq!(back, vec![-180.0, 0.1, 0.0, 90.0, 0.0, -0.1]);
    }

    #[test]
    fn rotated_grids_have_no_1d_axes() {
        assert!(axis_aligned([30.0, 0.0, 0.0, 0.0, -30.0, 0.0]));
        assert!(!axis_aligned([30.0, 0.5, 0.0, 0.2, -30.0, 0.0]));
    }
}
