//! GDAL_METADATA (tag 42112): GDAL's per-dataset and per-band metadata as a small XML document,
//! of which the band scale and offset are read, as GDAL's `GetScale`/`GetOffset` return them:
//!
//! ```xml
//! <GDALMetadata>
//!   <Item name="OFFSET" sample="0" role="offset">-10</Item>
//!   <Item name="SCALE" sample="0" role="scale">0.5</Item>
//! </GDALMetadata>
//! ```
//!
//! They become CF `scale_factor` and `add_offset`, which xarray applies as rioxarray's
//! `mask_and_scale=True` applies GDAL's. CF has one of each per variable: when the bands differ,
//! the lists are kept as `scales` and `offsets` (rioxarray's names for the same case) and the
//! caller is told, since a reader would then see the stored values unscaled.

use serde_json::{json, Map, Value};

/// Largest GDAL_METADATA read: GDAL writes a few KiB; the items are searched in this much.
const MAX_LEN: usize = 1 << 20;

/// Adds `scale_factor`/`add_offset` (or `scales`/`offsets`) for `bands` bands to `attrs`.
/// Returns why the per-band values could not be carried, if they could not.
pub(crate) fn scale_offset(
    xml: &str,
    bands: u64,
    attrs: &mut Map<String, Value>,
) -> Option<String> {
    let xml = xml.get(..MAX_LEN.min(xml.len())).unwrap_or(xml);
    let n = usize::try_from(bands).unwrap_or(0).min(1 << 16);
    let (mut scales, mut offsets) = (vec![None; n], vec![None; n]);
    let mut rest = xml;
    while let Some(start) = rest.find("<Item") {
        let item = &rest[start..];
        let Some(close) = item.find("</Item>") else {
            break;
        };
        let Some(gt) = item[..close].find('>') else {
            break;
        };
        let (head, body) = (&item[..gt], item[gt + 1..close].trim());
        rest = &item[close + 7..];
        let role = attr(head, "role").or_else(|| attr(head, "name"));
        let list = match role.map(str::to_ascii_lowercase).as_deref() {
            Some("scale") => &mut scales,
            Some("offset") => &mut offsets,
            _ => continue,
        };
        let (Some(s), Ok(v)) = (attr(head, "sample"), body.parse::<f64>()) else {
            continue;
        };
        if let Some(slot) = s.parse::<usize>().ok().and_then(|i| list.get_mut(i)) {
            *slot = Some(v);
        }
    }
    let mut problem = None;
    for (values, cf, plural, default) in [
        (&scales, "scale_factor", "scales", 1.0),
        (&offsets, "add_offset", "offsets", 0.0),
    ] {
        if values.iter().all(Option::is_none) {
            continue;
        }
        let v: Vec<f64> = values.iter().map(|x| x.unwrap_or(default)).collect();
        if v.iter().all(|&x| x == v[0]) {
            attrs.insert(cf.into(), json!(v[0]));
        } else {
            attrs.insert(plural.into(), json!(v));
            problem = Some(format!(
                "the bands have different {plural} ({v:?}); CF has one {cf} per variable, so \
                 the values read unscaled (the list is kept as '{plural}')"
            ));
        }
    }
    problem
}

/// The value of `name="…"` in an XML start tag.
fn attr<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = head.find(&key)? + key.len();
    let len = head[at..].find('"')?;
    Some(&head[at..at + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    const GDAL: &str = r#"<GDALMetadata>
  <Item name="OFFSET" sample="0" role="offset">-10</Item>
  <Item name="SCALE" sample="0" role="scale">0.5</Item>
  <Item name="OFFSET" sample="1" role="offset">-10</Item>
  <Item name="SCALE" sample="1" role="scale">0.5</Item>
  <Item name="DESCRIPTION" sample="1" role="description">nir</Item>
</GDALMetadata>
"#;

    #[test]
    fn one_scale_for_all_bands_is_cf() {
        let mut m = Map::new();
        assert_eq!(scale_offset(GDAL, 2, &mut m), None);
        assert_eq!(m["scale_factor"], json!(0.5));
        assert_eq!(m["add_offset"], json!(-10.0));
    }

    #[test]
    fn different_scales_are_kept_as_a_list_and_said() {
        let mut m = Map::new();
        let xml = GDAL.replacen(">0.5<", ">2<", 1);
        let p = scale_offset(&xml, 2, &mut m).unwrap();
        assert!(p.contains("different scales"), "{p}");
        assert_eq!(m["scales"], json!([2.0, 0.5]));
        assert!(!m.contains_key("scale_factor"));
        assert_eq!(m["add_offset"], json!(-10.0));
    }

    #[test]
    fn other_items_and_broken_xml_add_nothing() {
        for xml in [
            "",
            "<GDALMetadata><Item name=\"SCALE\" sample=\"9\">2</Item>",
            "<Item",
        ] {
            let mut m = Map::new();
            assert_eq!(scale_offset(xml, 1, &mut m), None);
            assert!(m.is_empty(), "{xml}");
        }
    }
}
