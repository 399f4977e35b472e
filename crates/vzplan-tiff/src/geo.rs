//! GeoTIFF 1.1 (OGC 19-008r4): model tags → array attributes.
//!
//! Spec: OGC GeoTIFF Standard 1.1, <https://docs.ogc.org/is/19-008r4/19-008r4.html>.
//!
//! Raw tags are kept under their names (`ModelPixelScale` 33550, `ModelTiepoint` 33922,
//! `ModelTransformation` 34264, `GeoKeyDirectory` 34735, `GeoDoubleParams` 34736,
//! `GeoAsciiParams` 34737), the keys decoded into `GeoKeys` (key id → value), and from them:
//! - `spatial:transform` `[a, b, c, d, e, f]` with `x = a*col + b*row + c`, `y = d*col + e*row + f`
//!   (the zarr-conventions `spatial` order, same as GDAL's geotransform reordered / rasterio's
//!   `Affine`): from ModelTransformation (its first two rows), else from ModelPixelScale + the first
//!   ModelTiepoint (`a = sx, e = -sy, c = X - i*sx, f = Y + j*sy`);
//! - `spatial:dimensions` `["y", "x"]`, `spatial:shape` `[h, w]`, and `spatial:registration`
//!   `"pixel"` (RasterPixelIsArea, the default) or `"node"` (GTRasterTypeGeoKey 1025 = 2,
//!   RasterPixelIsPoint: the transform is kept as stored, mapping pixel centres);
//! - `proj:code` `"EPSG:n"` from ProjectedCSTypeGeoKey (3072) or GeographicTypeGeoKey (2048) when
//!   it is an EPSG code (1…32766; 32767 is "user-defined").
//!
//! GeoTIFF 1.1: <https://docs.ogc.org/is/19-008r4/19-008r4.html>

use crate::ifd::{Ifd, Tiff};
use crate::ReadError;
use serde_json::{json, Map, Value};

pub(crate) const GEO_TAGS: [(u16, &str); 6] = [
    (33550, "ModelPixelScale"),
    (33922, "ModelTiepoint"),
    (34264, "ModelTransformation"),
    (34735, "GeoKeyDirectory"),
    (34736, "GeoDoubleParams"),
    (34737, "GeoAsciiParams"),
];

pub(crate) fn num(v: f64) -> Value {
    if v.is_nan() {
        json!("NaN")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else if v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

fn list(v: &[f64]) -> Value {
    if v.len() == 1 {
        num(v[0])
    } else {
        Value::Array(v.iter().map(|&x| num(x)).collect())
    }
}

/// Adds the GeoTIFF attributes of `ifd` (an image of `h` × `w` pixels) to `attrs`.
/// Returns whether the IFD had any GeoTIFF tag.
pub(crate) fn geo_attrs(
    t: &Tiff,
    ifd: &Ifd,
    h: u64,
    w: u64,
    attrs: &mut Map<String, Value>,
) -> Result<bool, ReadError> {
    let mut any = false;
    let mut scale = None;
    let mut tie = None;
    let mut mtx = None;
    let mut keys: Vec<u64> = Vec::new();
    let mut doubles: Vec<f64> = Vec::new();
    let mut ascii = String::new();
    for (tag, name) in GEO_TAGS {
        let Some(e) = ifd.get(tag) else { continue };
        any = true;
        match tag {
            34737 => {
                ascii = t.ascii(e)?;
                attrs.insert(name.into(), json!(ascii));
            }
            34735 => {
                keys = t.uints(e)?;
                attrs.insert(name.into(), json!(keys));
            }
            _ => {
                let v = t.floats(e)?;
                attrs.insert(name.into(), list(&v));
                match tag {
                    33550 => scale = Some(v),
                    33922 => tie = Some(v),
                    34264 => mtx = Some(v),
                    _ => doubles = v,
                }
            }
        }
    }
    if !any {
        return Ok(false);
    }
    // GeoKeyDirectory: header (version, revision, minor, count), then 4 shorts per key.
    // The key count is the file's word: only the keys present are looked at (a count of 2^60
    // over a few keys was a hang found by fuzzing).
    let present = keys.len().saturating_sub(4) / 4;
    let count = keys
        .get(3)
        .map(|&n| usize::try_from(n).unwrap_or(usize::MAX).min(present));
    let key_value = |id: u64| -> Option<u64> {
        (0..count?).find_map(|k| {
            let e = keys.get(4 + 4 * k..8 + 4 * k)?;
            (e[0] == id && e[1] == 0).then_some(e[3])
        })
    };
    if let Some(n) = count {
        let decoded = decode_keys(&keys, n, &doubles, &ascii);
        attrs.insert("GeoKeys".into(), Value::Object(decoded));
    }
    let transform = if let Some(m) = mtx.filter(|m| m.len() >= 8) {
        Some([m[0], m[1], m[3], m[4], m[5], m[7]])
    } else if let (Some(s), Some(tp)) =
        (scale.filter(|s| s.len() >= 2), tie.filter(|t| t.len() >= 6))
    {
        let (sx, sy) = (s[0], s[1]);
        let (i, j, x, y) = (tp[0], tp[1], tp[3], tp[4]);
        Some([sx, 0.0, x - i * sx, 0.0, -sy, y + j * sy])
    } else {
        None
    };
    if let Some(tr) = transform {
        if tr.iter().all(|v| v.is_finite()) {
            let point = key_value(1025) == Some(2);
            set_spatial(attrs, tr, h, w, point);
        }
    }
    if let Some(c) = epsg_code(key_value(1024), key_value(3072), key_value(2048)) {
        attrs.insert("proj:code".into(), json!(format!("EPSG:{c}")));
    }
    Ok(true)
}

/// The image's CRS as an EPSG code, from GTModelTypeGeoKey (1024), ProjectedCSTypeGeoKey (3072)
/// and GeographicTypeGeoKey (2048). A projected image's CRS is its projected one: when that is
/// user-defined (32767) there is no code, even though its geographic base has one (GDAL writes
/// `+proj=robin +datum=WGS84` as a user-defined PCS on EPSG:4326).
fn epsg_code(model: Option<u64>, proj: Option<u64>, geog: Option<u64>) -> Option<u64> {
    let epsg = |c: Option<u64>| c.filter(|c| (1..32767).contains(c));
    match model {
        Some(2) => epsg(geog),
        Some(1) => epsg(proj),
        _ if proj.is_some() => epsg(proj),
        _ => epsg(geog),
    }
}

/// The first `n` keys of a GeoKeyDirectory decoded by id: a value in the directory itself, a run
/// of GeoDoubleParams, or a piece of GeoAsciiParams. Keys may point at the same run again and
/// again, so the values decoded in all are bounded by twice the parameters present (and a few
/// more): a file of 1 MB could otherwise make billions of values (found in review).
fn decode_keys(keys: &[u64], n: usize, doubles: &[f64], ascii: &str) -> Map<String, Value> {
    let chars: Vec<char> = ascii.chars().collect();
    let mut budget = 2 * (doubles.len() + chars.len()) + 64;
    let mut decoded = Map::new();
    for k in 0..n {
        let Some(e) = keys.get(4 + 4 * k..8 + 4 * k) else {
            break;
        };
        let (id, loc, count, off) = (e[0], e[1], e[2] as usize, e[3] as usize);
        let v = match loc {
            0 => json!(off),
            34736 => match doubles.get(off..off.saturating_add(count)) {
                Some(d) if d.len() <= budget => {
                    budget -= d.len();
                    list(d)
                }
                _ => continue,
            },
            34737 => {
                let len = chars.len();
                let piece = &chars[off.min(len)..off.saturating_add(count).min(len)];
                if piece.len() > budget {
                    continue;
                }
                budget -= piece.len();
                let s: String = piece.iter().collect();
                json!(s.trim_end_matches('|'))
            }
            _ => continue,
        };
        decoded.insert(id.to_string(), v);
    }
    decoded
}

pub(crate) fn set_spatial(
    attrs: &mut Map<String, Value>,
    tr: [f64; 6],
    h: u64,
    w: u64,
    point: bool,
) {
    attrs.insert("spatial:dimensions".into(), json!(["y", "x"]));
    attrs.insert("spatial:transform".into(), json!(tr));
    attrs.insert("spatial:shape".into(), json!([h, w]));
    attrs.insert(
        "spatial:registration".into(),
        json!(if point { "node" } else { "pixel" }),
    );
}

/// For an overview without its own georeferencing: the parent's transform scaled to its size,
/// the parent's CRS (`proj:code`, `GeoKeys`) and scale and offset.
pub(crate) fn inherit(
    parent: &Map<String, Value>,
    ph: u64,
    pw: u64,
    h: u64,
    w: u64,
    attrs: &mut Map<String, Value>,
) {
    let Some(tr) = parent.get("spatial:transform").and_then(|v| v.as_array()) else {
        return;
    };
    let t: Vec<f64> = tr.iter().filter_map(|v| v.as_f64()).collect();
    if t.len() != 6 || h == 0 || w == 0 {
        return;
    }
    let (fx, fy) = (pw as f64 / w as f64, ph as f64 / h as f64);
    let point = parent.get("spatial:registration").and_then(|v| v.as_str()) == Some("node");
    set_spatial(
        attrs,
        [t[0] * fx, t[1] * fy, t[2], t[3] * fx, t[4] * fy, t[5]],
        h,
        w,
        point,
    );
    // The GeoKeys carry a user-defined CRS; the scale and offset apply to every level (GDAL
    // writes them on the full-resolution image only).
    for k in ["proj:code", "GeoKeys", "scale_factor", "add_offset"] {
        if let (Some(v), false) = (parent.get(k), attrs.contains_key(k)) {
            attrs.insert(k.into(), v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_projected_image_with_a_user_defined_crs_has_no_epsg_code() {
        use super::epsg_code;
        assert_eq!(epsg_code(Some(1), Some(32767), Some(4326)), None);
        assert_eq!(epsg_code(Some(1), Some(32633), Some(4326)), Some(32633));
        assert_eq!(epsg_code(Some(2), None, Some(4326)), Some(4326));
        assert_eq!(epsg_code(Some(2), Some(32633), Some(4326)), Some(4326));
        assert_eq!(epsg_code(None, Some(32767), Some(4326)), None);
        assert_eq!(epsg_code(None, None, Some(4326)), Some(4326));
    }

    use super::*;

    /// A directory header for `n` keys, then the keys.
    fn directory(keys: &[[u64; 4]]) -> Vec<u64> {
        let mut v = vec![1, 1, 0, keys.len() as u64];
        v.extend(keys.iter().flatten());
        v
    }

    #[test]
    fn keys_decode_by_where_their_values_are() {
        let keys = directory(&[[1024, 0, 1, 2], [2049, 34737, 7, 0], [2057, 34736, 2, 1]]);
        let got = decode_keys(&keys, 3, &[1.0, 6378137.0, 298.25], "WGS 84|");
        assert_eq!(got["1024"], json!(2));
        assert_eq!(got["2049"], json!("WGS 84"));
        assert_eq!(got["2057"], list(&[6378137.0, 298.25]));
        // Past the end of the parameters: a run is skipped, a piece of text is cut short.
        let keys = directory(&[[1, 34736, 5, 2], [2, 34737, 50, 4]]);
        let got = decode_keys(&keys, 2, &[1.0, 2.0, 3.0], "WGS 84|");
        assert!(!got.contains_key("1"));
        assert_eq!(got["2"], json!("84"));
    }

    #[test]
    fn keys_pointing_at_one_run_again_and_again_decode_a_bounded_number_of_values() {
        let doubles = vec![0.5; 100];
        let text = "x".repeat(100);
        let many: Vec<[u64; 4]> = (0..10_000)
            .map(|id| match id % 2 {
                0 => [id, 34736, 100, 0],
                _ => [id, 34737, 100, 0],
            })
            .collect();
        let got = decode_keys(&directory(&many), many.len(), &doubles, &text);
        let values: usize = got
            .values()
            .map(|v| match v {
                Value::Array(a) => a.len(),
                Value::String(s) => s.len(),
                _ => 1,
            })
            .sum();
        assert!(values <= 2 * 200 + 64, "{values} values decoded");
        assert!(got.len() >= 4, "the first keys still decode");
    }
}
