//! DAP4 attributes → the JSON values `vzplan-hdf5` gives the same HDF5 attributes.
//!
//! ```xml
//! <Attribute name="valid_range" type="Float32"><Value>-1.5</Value><Value>40</Value></Attribute>
//! ```
//! becomes `"valid_range": [-1.5, 40.0]`: numbers as the granule's type holds them (a `Float32`
//! written `1.100000024` is the `f32` nearest it, widened), one value bare, several a list, text
//! as strings. Dropped: what netCDF-4 and the dimension-scale API keep for themselves (the list
//! `vzplan-hdf5` drops), DMR++'s `build_dmrpp_metadata`, and the `origname` / `fullnamepath`
//! pair the HDF5 handler adds when they only repeat the variable's name and path. Any other
//! container, or a value that is not of its type, is an attribute problem.

use serde_json::{Map, Value};

/// The attributes of the DAP4 element `node` (a Dataset, Group or variable at `path`), and why
/// each one left out was.
pub fn read(node: roxmltree::Node, path: &str) -> (Map<String, Value>, Vec<String>) {
    let mut out = Map::new();
    let mut failed = Vec::new();
    for a in node.children().filter(|c| crate::is_dap(*c, "Attribute")) {
        let name = a.attribute("name").unwrap_or_default();
        let kind = a.attribute("type").unwrap_or_default();
        if vzplan_hdf5::attrs::hidden(name) || name == "build_dmrpp_metadata" {
            continue;
        }
        match value(a, kind) {
            Ok(v) if bookkeeping(name, &v, path) => {}
            Ok(v) => {
                out.insert(name.to_string(), v);
            }
            Err(why) => failed.push(format!("attribute {name:?}: {why}")),
        }
    }
    (out, failed)
}

/// The HDF5 handler's `origname` and `fullnamepath`, when they say nothing but where the variable is.
fn bookkeeping(name: &str, v: &Value, path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or(path);
    match name {
        "origname" => v.as_str() == Some(last),
        "fullnamepath" => v.as_str().and_then(|s| s.strip_prefix('/')) == Some(path),
        _ => false,
    }
}

/// The texts of an attribute's values: `<Value>` elements' text (or their `value` attribute).
pub(crate) fn texts<'a>(a: roxmltree::Node<'a, '_>) -> impl Iterator<Item = &'a str> {
    a.children()
        .filter(|c| crate::is_dap(*c, "Value"))
        .map(|v| v.attribute("value").or_else(|| v.text()).unwrap_or(""))
}

fn value(a: roxmltree::Node, kind: &str) -> Result<Value, String> {
    let vals: Vec<Value> = match kind {
        "String" | "URL" => texts(a).map(Value::from).collect(),
        "Container" | "OtherXML" => {
            return Err(format!("a DAP4 {kind}, which HDF5 has no form of"))
        }
        _ => texts(a)
            .map(|t| number(kind, t.trim()))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("a value that is no {kind}"))?,
    };
    Ok(match vals.len() {
        1 => vals.into_iter().next().unwrap_or(Value::Null),
        _ => Value::Array(vals),
    })
}

/// One number of the DAP4 type `kind`, as the granule's type holds it.
pub(crate) fn number(kind: &str, t: &str) -> Option<Value> {
    let int = |lo: i128, hi: i128| {
        let v: i128 = t.parse().ok()?;
        (lo..=hi).contains(&v).then_some(v)
    };
    Some(match kind {
        "Int8" => Value::from(int(i8::MIN.into(), i8::MAX.into())? as i64),
        "Int16" => Value::from(int(i16::MIN.into(), i16::MAX.into())? as i64),
        "Int32" => Value::from(int(i32::MIN.into(), i32::MAX.into())? as i64),
        "Int64" => Value::from(int(i64::MIN.into(), i64::MAX.into())? as i64),
        "Byte" | "UInt8" | "Char" => Value::from(int(0, u8::MAX.into())? as u64),
        "UInt16" => Value::from(int(0, u16::MAX.into())? as u64),
        "UInt32" => Value::from(int(0, u32::MAX.into())? as u64),
        "UInt64" => Value::from(int(0, u64::MAX.into())? as u64),
        "Float32" => vzplan_hdf5::attrs::float_json(float(t)? as f32 as f64),
        "Float64" => vzplan_hdf5::attrs::float_json(float(t)?),
        _ => return None,
    })
}

/// A float as C's `strtod` reads the texts BES writes (`nan`, `-inf`, `9.96921e+36`, `-9999.`).
pub(crate) fn float(t: &str) -> Option<f64> {
    let t = t.trim();
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "nan" | "inf" | "infinity") {
        let v = if unsigned == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        };
        return Some(if lower.starts_with('-') { -v } else { v });
    }
    if t.len() > 64 {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_checked_against_their_type() {
        assert_eq!(number("Int8", "-128"), Some(Value::from(-128)));
        assert_eq!(number("Int8", "128"), None);
        assert_eq!(
            number("UInt64", "18446744073709551615"),
            Some(Value::from(u64::MAX))
        );
        assert_eq!(number("UInt16", "-1"), None);
        assert_eq!(
            number("Float32", "1.100000024"),
            Some(vzplan_hdf5::attrs::float_json(1.1f32 as f64))
        );
        assert_eq!(
            number("Float64", "-9999."),
            Some(vzplan_hdf5::attrs::float_json(-9999.0))
        );
        assert_eq!(number("Float64", "nan"), Some(Value::from("NaN")));
        assert_eq!(number("Float32", "-inf"), Some(Value::from("-Infinity")));
        assert_eq!(number("Float64", "x"), None);
        assert_eq!(number("Structure", "1"), None);
    }
}
