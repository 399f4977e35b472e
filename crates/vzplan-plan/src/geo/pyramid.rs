//! A COG's pyramid as the zarr-conventions **multiscales** convention (v1), so that readers can
//! find the levels and how they relate instead of guessing from group names.
//!
//! The levels must be sibling groups: xarray's `open_datatree` requires every group to align
//! with its parents' dimensions, so a root that held the full-resolution image (`y` of 384) could
//! not have an overview group (`y` of 192) below it. A georeferenced page 0 with georeferenced
//! overviews therefore moves into group `0` (array `0/0`, beside `overview_1/0`, …), and the root
//! group describes the pyramid:
//! ```json
//! "multiscales": {"layout": [
//!   {"asset": "0", "transform": {"scale": [1.0, 1.0], "translation": [0.0, 0.0]},
//!    "spatial:transform": [30.0, 0.0, 500000.0, 0.0, -30.0, 4600000.0], "spatial:shape": [384, 512]},
//!   {"asset": "overview_1", "derived_from": "0",
//!    "transform": {"scale": [2.0, 2.0], "translation": [0.0, 0.0]}, …}]},
//! "spatial:dimensions": ["y", "x"], "spatial:bbox": […], "proj:code": "EPSG:32633"
//! ```
//! Every overview is `derived_from` the full resolution (GDAL computes overviews from the base
//! image unless told otherwise, and the file does not say); `scale` is the ratio of its pixel size
//! to the base's and `translation` the shift of its origin, both per axis in the order of
//! `spatial:dimensions`, as the spatial convention composes them. The registrations in
//! `zarr_conventions` are the emitter's (`vzplan-emit`'s `zarr.rs`).

use super::{grid_of, Grid};
use crate::Plan;
use serde_json::{json, Map, Value};

/// The group the full-resolution level moves into, and the page's array name within it.
const BASE: &str = "0";

/// The levels' groups (`0`, `overview_1`, …) when page 0 of the plan is a georeferenced pyramid,
/// after moving the page into group [`BASE`]; `None` (nothing moved) otherwise.
pub(super) fn regroup(p: &mut Plan) -> Option<Vec<String>> {
    if p.mosaic_dims.is_some() {
        return None;
    }
    let at = |path: &str| p.arrays.iter().position(|a| a.path == path);
    let base = at(BASE)?;
    grid_of(&p.arrays[base])?;
    let mut levels = vec![BASE.to_string()];
    while let Some(i) = at(&format!("overview_{}/{BASE}", levels.len())) {
        if grid_of(&p.arrays[i]).is_none() {
            break;
        }
        levels.push(format!("overview_{}", levels.len()));
    }
    let taken = p
        .arrays
        .iter()
        .any(|a| a.path.starts_with(&format!("{BASE}/")))
        || p.groups.iter().any(|g| g.path == BASE);
    if levels.len() < 2 || taken || p.attrs.contains_key("multiscales") {
        return None;
    }
    p.arrays[base].path = format!("{BASE}/{BASE}");
    Some(levels)
}

/// Writes the `multiscales`, `spatial:` and `proj:` attributes of the root group for `levels`.
pub(super) fn describe(p: &mut Plan, levels: &[String]) {
    let grids: Vec<Grid> = levels
        .iter()
        .filter_map(|g| {
            let path = format!("{g}/{BASE}");
            p.arrays.iter().find(|a| a.path == path).and_then(grid_of)
        })
        .collect();
    let Some(base) = grids.first().filter(|_| grids.len() == levels.len()) else {
        return;
    };
    let layout: Vec<Value> = levels
        .iter()
        .zip(&grids)
        .enumerate()
        .map(|(i, (asset, g))| {
            let mut entry = Map::new();
            entry.insert("asset".into(), json!(asset));
            if i > 0 {
                entry.insert("derived_from".into(), json!(BASE));
            }
            let (scale, translation) = relative(base, g);
            entry.insert(
                "transform".into(),
                json!({"scale": scale, "translation": translation}),
            );
            entry.insert("spatial:transform".into(), json!(g.transform));
            entry.insert("spatial:shape".into(), json!([g.h, g.w]));
            Value::Object(entry)
        })
        .collect();
    let attrs = &mut p.attrs;
    attrs.insert("multiscales".into(), json!({ "layout": layout }));
    attrs.insert("spatial:dimensions".into(), json!(base.dims));
    attrs.insert("spatial:bbox".into(), json!(bbox(base)));
    let registration = if base.point { "node" } else { "pixel" };
    attrs.insert("spatial:registration".into(), json!(registration));
    if let Some(code) = &base.crs.0 {
        attrs.insert("proj:code".into(), code.clone());
    }
}

/// `scale` and `translation` of a level relative to the base, as `[y, x]`: the ratio of the pixel
/// sizes (the lengths of the transform's row and column steps, so rotated grids too) and the
/// shift of the origin.
fn relative(base: &Grid, g: &Grid) -> ([f64; 2], [f64; 2]) {
    let [a0, b0, c0, d0, e0, f0] = base.transform;
    let [a, b, c, d, e, f] = g.transform;
    let ratio = |n: f64, m: f64| if m == 0.0 { 1.0 } else { n / m };
    let sy = ratio(b.hypot(e), b0.hypot(e0));
    let sx = ratio(a.hypot(d), a0.hypot(d0));
    ([sy, sx], [f - f0, c - c0])
}

/// `[xmin, ymin, xmax, ymax]` of the grid: the outer pixel corners, or for a node-registered grid
/// the outer cells' centres (the spatial convention's `spatial:bbox`).
fn bbox(g: &Grid) -> [f64; 4] {
    let [a, b, c, d, e, f] = g.transform;
    let (h, w) = match g.point {
        true => (g.h.saturating_sub(1) as f64, g.w.saturating_sub(1) as f64),
        false => (g.h as f64, g.w as f64),
    };
    let corners = [(0.0, 0.0), (w, 0.0), (0.0, h), (w, h)];
    let xs = corners.map(|(col, row)| a * col + b * row + c);
    let ys = corners.map(|(col, row)| d * col + e * row + f);
    let min = |v: [f64; 4]| v.into_iter().fold(f64::INFINITY, f64::min);
    let max = |v: [f64; 4]| v.into_iter().fold(f64::NEG_INFINITY, f64::max);
    [min(xs), min(ys), max(xs), max(ys)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(transform: [f64; 6], h: u64, w: u64, point: bool) -> Grid {
        Grid {
            transform,
            point,
            h,
            w,
            dims: ["y".into(), "x".into()],
            bands: None,
            crs: (None, None),
        }
    }

    #[test]
    fn overviews_scale_by_their_pixel_size_from_one_origin() {
        let base = grid([30.0, 0.0, 5e5, 0.0, -30.0, 4.6e6], 384, 512, false);
        let half = grid([60.0, 0.0, 5e5, 0.0, -60.0, 4.6e6], 192, 256, false);
        assert_eq!(relative(&base, &half), ([2.0, 2.0], [0.0, 0.0]));
        assert_eq!(
            bbox(&base),
            [5e5, 4.6e6 - 384.0 * 30.0, 5e5 + 512.0 * 30.0, 4.6e6]
        );
        // Node registration: the outer cells' centres.
        let node = grid([1.0, 0.0, 0.0, 0.0, -1.0, 10.0], 11, 11, true);
        assert_eq!(bbox(&node), [0.0, 0.0, 10.0, 10.0]);
        // A degenerate base divides by nothing.
        let flat = grid([0.0; 6], 1, 1, false);
        assert_eq!(relative(&flat, &half).0, [1.0, 1.0]);
    }
}
