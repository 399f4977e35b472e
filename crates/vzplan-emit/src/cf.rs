//! CF attributes in the form xarray expects in a Zarr v3 store.
//!
//! xarray (`backends/zarr.py`, `FillValueCoder`, 2026.9) stores the CF `_FillValue` attribute of a
//! Zarr v3 array encoded by the array's data type and decodes it the same way on read:
//! floats as base64 of the value packed as a little-endian float64 (NaN and infinities too), integers
//! as JSON integers, booleans as JSON booleans, fixed-length byte strings as base64 of the bytes.
//! A plain number for a float array makes `xr.open_zarr` fail ("Failed to decode fill_value").
//! `missing_value` does not go through that coder: xarray writes it as a plain attribute and CF
//! decoding reads it as one, so it stays as the source has it.

use base64::Engine;
use serde_json::{json, Value};
use vzplan_core::{DType, Kind};

/// One attribute value as a number: JSON numbers, and the non-finite floats the readers write as
/// `"NaN"`, `"Infinity"`, `"-Infinity"`.
fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// `_FillValue` as xarray's `FillValueCoder.encode` writes it for an array of `dtype`, or `None` when
/// the value does not fit that form (left as it is).
pub fn encode_fill_value(value: &Value, dtype: &DType) -> Option<Value> {
    // netCDF allows a one-element attribute array; xarray's coder takes a scalar.
    let value = match value {
        Value::Array(a) if a.len() == 1 => a.first()?,
        v => v,
    };
    let b64 = &base64::engine::general_purpose::STANDARD;
    match dtype.kind {
        Kind::Float => {
            let f = as_f64(value)?;
            Some(json!(b64.encode(f.to_le_bytes())))
        }
        Kind::Int | Kind::UInt => match value {
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(value.clone()),
            // xarray writes int(value): an integral float attribute becomes an integer.
            Value::Number(n) => {
                let f = n.as_f64()?;
                (f.fract() == 0.0 && f.abs() < 9.2e18).then(|| json!(f as i64))
            }
            _ => None,
        },
        Kind::Bool => match value {
            Value::Bool(b) => Some(json!(b)),
            Value::Number(n) => Some(json!(n.as_f64()? != 0.0)),
            _ => None,
        },
        Kind::String => match value {
            Value::String(s) => Some(json!(b64.encode(s.as_bytes()))),
            _ => None,
        },
        // xarray encodes each part of a complex fill value like a float.
        Kind::Complex => match value {
            Value::Array(parts) if parts.len() == 2 => {
                let re = as_f64(parts.first()?)?;
                let im = as_f64(parts.get(1)?)?;
                Some(json!([
                    b64.encode(re.to_le_bytes()),
                    b64.encode(im.to_le_bytes())
                ]))
            }
            _ => None,
        },
        // Variable-length strings and records: xarray's coder has no form for them.
        Kind::Text | Kind::Struct => None,
    }
}

/// The attributes with `_FillValue` encoded for xarray (see the module comment).
pub fn xarray_attrs(
    attrs: &serde_json::Map<String, Value>,
    dtype: &DType,
) -> serde_json::Map<String, Value> {
    let mut out = attrs.clone();
    if let Some(v) = attrs.get("_FillValue") {
        if let Some(enc) = encode_fill_value(v, dtype) {
            out.insert("_FillValue".into(), enc);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use vzplan_core::Endian;

    fn f(kind: Kind, size: usize) -> DType {
        DType::new(kind, size, Endian::Little)
    }

    // Expected strings from Python: base64.standard_b64encode(struct.pack("<d", x)).decode().
    #[test]
    fn floats_are_base64_little_endian_f64() {
        let f4 = f(Kind::Float, 4);
        // 1e20 as float32 widened to float64, as the readers hold it.
        let v = json!(1.0000000200408773e20);
        assert_eq!(encode_fill_value(&v, &f4), Some(json!("AAAAgB2vFUQ=")));
        assert_eq!(
            encode_fill_value(&json!(-999.0), &f(Kind::Float, 8)),
            Some(json!("AAAAAAA4j8A="))
        );
        assert_eq!(
            encode_fill_value(&json!("NaN"), &f4),
            Some(json!("AAAAAAAA+H8="))
        );
        assert_eq!(
            encode_fill_value(&json!("-Infinity"), &f4),
            Some(json!("AAAAAAAA8P8="))
        );
        assert_eq!(
            encode_fill_value(&json!([0]), &f4),
            Some(json!("AAAAAAAAAAA="))
        );
        assert_eq!(encode_fill_value(&json!("x"), &f4), None);
    }

    #[test]
    fn ints_bools_and_bytes() {
        let i2 = f(Kind::Int, 2);
        assert_eq!(encode_fill_value(&json!(-32767), &i2), Some(json!(-32767)));
        assert_eq!(encode_fill_value(&json!(-999.0), &i2), Some(json!(-999)));
        assert_eq!(encode_fill_value(&json!(0.5), &i2), None);
        assert_eq!(
            encode_fill_value(&json!(255), &f(Kind::UInt, 1)),
            Some(json!(255))
        );
        assert_eq!(
            encode_fill_value(&json!(1), &f(Kind::Bool, 1)),
            Some(json!(true))
        );
        assert_eq!(
            encode_fill_value(&json!("ab"), &f(Kind::String, 4)),
            Some(json!("YWI="))
        );
    }

    #[test]
    fn only_fill_value_changes() {
        let mut a = serde_json::Map::new();
        a.insert("_FillValue".into(), json!(1.5));
        a.insert("missing_value".into(), json!(1.5));
        a.insert("units".into(), json!("K"));
        let out = xarray_attrs(&a, &f(Kind::Float, 8));
        assert_eq!(out["_FillValue"], json!("AAAAAAAA+D8="));
        assert_eq!(out["missing_value"], json!(1.5));
        assert_eq!(out["units"], json!("K"));
    }
}
