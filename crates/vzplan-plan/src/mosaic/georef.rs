//! Placement by georeferencing: a tile's offset from its GeoTIFF `spatial:transform` (GeoTIFF
//! 1.1, ModelPixelScale/ModelTiepoint; north-up only) or from regular 1-D coordinate variables;
//! and the combined array's transform written back.

use super::layout::LayoutEntry;
use super::tile::Tile;
use crate::display_file;
use serde_json::{json, Map, Value};
use vzplan_core::{ArrayLayout, SourceLayout};

/// Dimension pairs (rows, columns) recognised as the mosaic axes.
const DIM_PAIRS: [(&str, &str); 4] = [
    ("y", "x"),
    ("lat", "lon"),
    ("latitude", "longitude"),
    ("rlat", "rlon"),
];

pub(super) fn mosaic_dims(a: &ArrayLayout) -> Option<(usize, usize)> {
    DIM_PAIRS.iter().find_map(|(r, c)| {
        let ky = a.dims.iter().position(|d| d.name == *r)?;
        let kx = a.dims.iter().position(|d| d.name == *c)?;
        (ky < kx).then_some((ky, kx))
    })
}

/// Where the georeferencing of one file says it sits.
struct Geo {
    /// `spatial:transform`, or (for coordinate variables) `[dx, 0, x0, 0, dy, y0]` of pixel
    /// centres.
    t: [f64; 6],
    crs: Option<Value>,
    registration: Option<Value>,
    /// Tolerance in pixels for alignment (float32 coordinates are coarser).
    tol: f64,
    from_coords: bool,
}

pub(super) fn transform_of(a: &ArrayLayout) -> Option<[f64; 6]> {
    let v = a.attrs.get("spatial:transform")?.as_array()?;
    let f: Vec<f64> = v.iter().filter_map(Value::as_f64).collect();
    (f.len() == 6).then(|| [f[0], f[1], f[2], f[3], f[4], f[5]])
}

/// A regular coordinate's first value and step.
pub(super) fn regular(a: &ArrayLayout) -> Option<(f64, f64, f64)> {
    let v = a.values_f64()?;
    let tol = if a.dtype.size <= 4 { 1e-3 } else { 1e-6 };
    match v.len() {
        0 => None,
        1 => Some((v[0], 0.0, tol)),
        n => {
            let step = (v[n - 1] - v[0]) / (n - 1) as f64;
            let ok = step != 0.0
                && step.is_finite()
                && v.iter()
                    .enumerate()
                    .all(|(i, x)| ((v[0] + i as f64 * step) - x).abs() <= tol * step.abs());
            ok.then_some((v[0], step, tol))
        }
    }
}

fn georef(l: &SourceLayout, rows: &str, cols: &str) -> Result<Geo, String> {
    let data = l
        .arrays
        .iter()
        .find(|a| a.dims.iter().any(|d| d.name == rows) && a.dims.iter().any(|d| d.name == cols));
    if let Some(a) = data {
        if let Some(t) = transform_of(a) {
            return Ok(Geo {
                t,
                crs: a.attrs.get("proj:code").cloned(),
                registration: a.attrs.get("spatial:registration").cloned(),
                tol: 1e-6,
                from_coords: false,
            });
        }
    }
    let coord = |d: &str| {
        l.arrays
            .iter()
            .find(|a| a.path == d && a.dims.len() == 1 && a.dims[0].name == d)
    };
    match (coord(rows), coord(cols)) {
        (Some(y), Some(x)) => {
            let (Some((y0, dy, ty)), Some((x0, dx, tx))) = (regular(y), regular(x)) else {
                return Err(format!(
                    "its '{rows}'/'{cols}' coordinates are not regularly spaced, so the tile cannot be placed by them"
                ));
            };
            let units = |a: &ArrayLayout| a.attrs.get("units").cloned();
            Ok(Geo {
                t: [dx, 0.0, x0, 0.0, dy, y0],
                crs: Some(json!([units(y), units(x)])),
                registration: None,
                tol: ty.max(tx),
                from_coords: true,
            })
        }
        _ => Err(format!(
            "no georeferencing (no spatial:transform, no '{rows}'/'{cols}' coordinate variables)"
        )),
    }
}

/// Offsets (row, column) of each file from georeferencing, relative to the first placed file;
/// `Err` = why a file cannot be placed.
pub(super) fn place_geo(
    layouts: &[SourceLayout],
    rows: &str,
    cols: &str,
) -> Vec<Result<[i64; 2], String>> {
    let geos: Vec<Result<Geo, String>> = layouts.iter().map(|l| georef(l, rows, cols)).collect();
    let Some(g0) = geos.iter().find_map(|g| g.as_ref().ok()) else {
        return geos
            .into_iter()
            .map(|g| Err(g.err().unwrap_or_default()))
            .collect();
    };
    let (a0, e0) = (g0.t[0], g0.t[4]);
    let single_px = |a: f64| a == 0.0;
    geos.iter()
        .map(|g| {
            let g = g.as_ref().map_err(|e| e.clone())?;
            let t = g.t;
            if t[1] != 0.0 || t[3] != 0.0 {
                return Err(format!(
                    "its transform {t:?} is rotated or sheared; only north-up tiles can be placed"
                ));
            }
            if g.crs != g0.crs {
                return Err(format!(
                    "its CRS {} differs from {} of the first tile",
                    g.crs.as_ref().map_or("(none)".into(), |c| c.to_string()),
                    g0.crs.as_ref().map_or("(none)".into(), |c| c.to_string())
                ));
            }
            if g.registration != g0.registration {
                return Err("its pixel registration (area/point) differs from the first tile's".into());
            }
            let (a, e) = (
                if single_px(t[0]) { a0 } else { t[0] },
                if single_px(t[4]) { e0 } else { t[4] },
            );
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs().max(1e-300);
            if !close(a, a0) || !close(e, e0) {
                return Err(format!(
                    "its pixel size {a} × {e} differs from {a0} × {e0} of the first tile"
                ));
            }
            let col = (t[2] - g0.t[2]) / a0;
            let row = (t[5] - g0.t[5]) / e0;
            let tol = g.tol.max(g0.tol);
            if (col - col.round()).abs() > tol || (row - row.round()).abs() > tol {
                return Err(format!(
                    "it is not aligned to the first tile's pixels: offset {row:.3} rows, {col:.3} columns"
                ));
            }
            if g.from_coords != g0.from_coords {
                return Err("placed by coordinates here but by a transform in the first tile".into());
            }
            Ok([row.round() as i64, col.round() as i64])
        })
        .collect()
}

pub(super) fn place_explicit(
    layouts: &[SourceLayout],
    entries: &[LayoutEntry],
) -> Vec<Result<[i64; 2], String>> {
    layouts
        .iter()
        .map(|l| {
            let path = display_file(&l.url);
            let base = path.rsplit('/').next().unwrap_or(&path).to_string();
            let hit = entries
                .iter()
                .find(|e| e.path == l.url || e.path == path)
                .or_else(|| {
                    entries
                        .iter()
                        .find(|e| path.ends_with(&format!("/{}", e.path.trim_start_matches("./"))))
                })
                .or_else(|| entries.iter().find(|e| e.path == base));
            match hit {
                Some(e) => Ok([e.row as i64, e.col as i64]),
                None => Err("not listed in the --mosaic-layout file".into()),
            }
        })
        .collect()
}

/// The combined array's georeferencing: the first tile's transform moved to the mosaic origin.
pub(super) fn mosaic_attrs(attrs: &mut Map<String, Value>, t0: &Tile, shape: [u64; 2]) {
    let Some(t) = transform_of(t0.a) else {
        return;
    };
    let (r, c) = (t0.ax[0].o as f64, t0.ax[1].o as f64);
    let (x0, y0) = (t[2] - c * t[0], t[5] - r * t[4]);
    let num = |v: f64| -> Value {
        if v.fract() == 0.0 && v.abs() < 9e15 {
            json!(v as i64)
        } else {
            json!(v)
        }
    };
    attrs.insert(
        "spatial:transform".into(),
        json!([num(t[0]), num(t[1]), num(x0), num(t[3]), num(t[4]), num(y0)]),
    );
    attrs.insert("spatial:shape".into(), json!(shape));
    if let Some(Value::Array(tp)) = attrs.get_mut("ModelTiepoint") {
        if tp.len() >= 6 {
            tp[0] = json!(0);
            tp[1] = json!(0);
            tp[3] = num(x0);
            tp[4] = num(y0);
        }
    }
    if let Some(Value::Array(mt)) = attrs.get_mut("ModelTransformation") {
        if mt.len() >= 8 {
            mt[3] = num(x0);
            mt[7] = num(y0);
        }
    }
}
