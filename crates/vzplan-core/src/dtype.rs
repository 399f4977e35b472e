//! Element types, with their byte order, and their Zarr v3 `data_type` names.
//!
//! See the [Zarr v3 core data types](https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html#data-types).
//! Byte order is not part of a Zarr v3 data type; it goes to the `bytes` codec
//! (`{"name": "bytes", "configuration": {"endian": "big"}}`).

use serde::{Deserialize, Serialize};

/// Byte order of multi-byte elements as stored in the source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    pub fn as_str(self) -> &'static str {
        match self {
            Endian::Little => "little",
            Endian::Big => "big",
        }
    }
}

/// What kind of value an element is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Bool,
    Int,
    UInt,
    Float,
    /// Fixed-length byte strings (HDF5 fixed strings, netCDF `char` arrays' last axis is kept as an axis).
    String,
    /// Complex numbers: two IEEE floats (real, imaginary) of `size / 2` bytes each.
    Complex,
    /// Variable-length UTF-8 text (Zarr v3 `string`, `vlen-utf8` codec). `size` is 0: elements
    /// have no fixed size, and such arrays are always written inline.
    Text,
    /// A record of numbers packed in order (Zarr v3 `struct`, zarr-python >= 3.1): `size` is the
    /// record's bytes; the fields are the array's (`ArrayLayout::fields`).
    Struct,
}

/// An element type: kind, size in bytes and byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DType {
    pub kind: Kind,
    pub size: usize,
    pub endian: Endian,
}

impl DType {
    pub const fn new(kind: Kind, size: usize, endian: Endian) -> Self {
        DType { kind, size, endian }
    }

    /// The Zarr v3 `data_type` JSON value, or `None` for a type Zarr cannot name.
    pub fn zarr_data_type(&self) -> Option<serde_json::Value> {
        use serde_json::json;
        let name = match (self.kind, self.size) {
            (Kind::Bool, 1) => "bool",
            (Kind::Int, 1) => "int8",
            (Kind::Int, 2) => "int16",
            (Kind::Int, 4) => "int32",
            (Kind::Int, 8) => "int64",
            (Kind::UInt, 1) => "uint8",
            (Kind::UInt, 2) => "uint16",
            (Kind::UInt, 4) => "uint32",
            (Kind::UInt, 8) => "uint64",
            (Kind::Float, 2) => "float16",
            (Kind::Float, 4) => "float32",
            (Kind::Float, 8) => "float64",
            (Kind::Complex, 8) => "complex64",
            (Kind::Complex, 16) => "complex128",
            (Kind::Text, _) => "string",
            (Kind::String, n) if n > 0 => {
                // zarr-python's fixed-length byte string type (numpy `S<n>`).
                return Some(json!({"name": "null_terminated_bytes",
                                   "configuration": {"length_bytes": n}}));
            }
            _ => return None,
        };
        Some(json!(name))
    }

    /// The numpy dtype string (`<f4`, `>i2`, `|S8`), used in reports and by the read-back scripts.
    pub fn numpy_str(&self) -> String {
        if self.kind == Kind::Text {
            return "|O".to_string(); // numpy (h5py, netCDF4-python) reads it as objects
        }
        let order = if self.size == 1 || matches!(self.kind, Kind::String | Kind::Struct) {
            '|'
        } else if self.endian == Endian::Big {
            '>'
        } else {
            '<'
        };
        let code = match self.kind {
            Kind::Bool => 'b',
            Kind::Int => 'i',
            Kind::UInt => 'u',
            Kind::Float => 'f',
            Kind::String => 'S',
            Kind::Complex => 'c',
            Kind::Text => 'O',
            Kind::Struct => 'V',
        };
        format!("{order}{code}{}", self.size)
    }

    /// Decodes one element (`bytes.len() == size`) as f64, for coordinate checks. Strings give `None`.
    pub fn decode_f64(&self, bytes: &[u8]) -> Option<f64> {
        // Sizes come from files (and layout files): a size of 0 or above 8 is no number.
        if bytes.len() != self.size || !(1..=8).contains(&self.size) || self.kind == Kind::Complex {
            return None;
        }
        let mut b = [0u8; 8];
        match self.endian {
            Endian::Little => b[..self.size].copy_from_slice(bytes),
            Endian::Big => {
                for (i, v) in bytes.iter().rev().enumerate() {
                    b[i] = *v;
                }
            }
        }
        // b now holds the value little-endian in its first `size` bytes.
        let u = u64::from_le_bytes(b);
        Some(match (self.kind, self.size) {
            (Kind::Bool, 1) => (u != 0) as u8 as f64,
            (Kind::UInt, _) => u as f64,
            (Kind::Int, n) => {
                let shift = 64 - 8 * n as u32;
                (((u << shift) as i64) >> shift) as f64
            }
            (Kind::Float, 4) => f32::from_bits(u as u32) as f64,
            (Kind::Float, 8) => f64::from_bits(u),
            _ => return None,
        })
    }

    /// Encodes one value in this dtype and byte order; `None` unless it is exactly representable.
    pub fn encode_f64(&self, v: f64) -> Option<Vec<u8>> {
        let le: Vec<u8> = match (self.kind, self.size) {
            (Kind::Float, 8) => v.to_le_bytes().to_vec(),
            (Kind::Float, 4) => {
                let f = v as f32;
                (f as f64 == v || v.is_nan()).then_some(())?;
                f.to_le_bytes().to_vec()
            }
            (Kind::Int, n @ (1 | 2 | 4 | 8)) => {
                let bits = 8 * n as u32;
                let (lo, hi) = (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1));
                (v.fract() == 0.0 && v >= lo && v < hi).then_some(())?;
                (v as i64).to_le_bytes()[..n].to_vec()
            }
            (Kind::UInt, n @ (1 | 2 | 4 | 8)) => {
                (v.fract() == 0.0 && v >= 0.0 && v < 2f64.powi(8 * n as i32)).then_some(())?;
                (v as u64).to_le_bytes()[..n].to_vec()
            }
            _ => return None,
        };
        Some(match self.endian {
            Endian::Little => le,
            Endian::Big => le.into_iter().rev().collect(),
        })
    }

    /// Decodes a whole buffer of elements as f64 (trailing partial element ignored).
    pub fn decode_all_f64(&self, bytes: &[u8]) -> Option<Vec<f64>> {
        if self.size == 0 {
            return None;
        }
        // The common coordinate types in a loop of their own: a time axis of a few thousand
        // values per file is decoded when planning and again when writing.
        let little = self.endian == Endian::Little;
        match (self.kind, self.size, little) {
            (Kind::Float, 8, true) => return Some(each(bytes, f64::from_le_bytes)),
            (Kind::Float, 8, false) => return Some(each(bytes, f64::from_be_bytes)),
            (Kind::Float, 4, true) => return Some(each(bytes, |b| f32::from_le_bytes(b) as f64)),
            (Kind::Int, 4, true) => return Some(each(bytes, |b| i32::from_le_bytes(b) as f64)),
            (Kind::Int, 8, true) => return Some(each(bytes, |b| i64::from_le_bytes(b) as f64)),
            _ => {}
        }
        bytes
            .chunks_exact(self.size)
            .map(|e| self.decode_f64(e))
            .collect()
    }
}

/// `f` over each `N`-byte element of `bytes` (a partial element at the end is ignored, as
/// `chunks_exact` does for the other types).
fn each<const N: usize>(bytes: &[u8], f: impl Fn([u8; N]) -> f64) -> Vec<f64> {
    bytes
        .chunks_exact(N)
        .map(|e| {
            let mut b = [0u8; N];
            b.copy_from_slice(e);
            f(b)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed loops of `decode_all_f64` agree with the element-wise decoder on every type.
    #[test]
    fn decode_all_agrees_with_decode_one() {
        let bytes: Vec<u8> = (0..67u32).map(|i| (i * 37 + 11) as u8).collect();
        for kind in [Kind::Float, Kind::Int, Kind::UInt] {
            for size in [1, 2, 4, 8] {
                for endian in [Endian::Little, Endian::Big] {
                    let t = DType::new(kind, size, endian);
                    let one: Option<Vec<f64>> =
                        bytes.chunks_exact(size).map(|e| t.decode_f64(e)).collect();
                    let all = t.decode_all_f64(&bytes);
                    let bits = |v: Option<Vec<f64>>| {
                        v.map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
                    };
                    assert_eq!(bits(all), bits(one), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn decodes_both_byte_orders() {
        let be = DType::new(Kind::Int, 2, Endian::Big);
        assert_eq!(be.decode_f64(&[0xff, 0xfe]), Some(-2.0));
        let le = DType::new(Kind::Float, 4, Endian::Little);
        assert_eq!(le.decode_f64(&1.5f32.to_le_bytes()), Some(1.5));
        let u = DType::new(Kind::UInt, 8, Endian::Big);
        assert_eq!(u.decode_f64(&7u64.to_be_bytes()), Some(7.0));
        assert_eq!(be.numpy_str(), ">i2");
        assert_eq!(be.encode_f64(-2.0), Some(vec![0xff, 0xfe]));
        assert_eq!(be.encode_f64(0.5), None);
        assert_eq!(be.encode_f64(40000.0), None);
        assert_eq!(le.encode_f64(1.5), Some(1.5f32.to_le_bytes().to_vec()));
        assert_eq!(le.encode_f64(0.1), None);
        // Sizes from an untrusted layout file: no panic, no number.
        assert_eq!(
            DType::new(Kind::Float, 9, Endian::Little).decode_f64(&[0; 9]),
            None
        );
        assert_eq!(
            DType::new(Kind::Int, 9, Endian::Big).decode_f64(&[0; 9]),
            None
        );
        assert_eq!(DType::new(Kind::Int, 0, Endian::Big).decode_f64(&[]), None);
        assert_eq!(
            DType::new(Kind::String, 8, Endian::Little).numpy_str(),
            "|S8"
        );
        let c = DType::new(Kind::Complex, 16, Endian::Big);
        assert_eq!(c.numpy_str(), ">c16");
        assert_eq!(c.zarr_data_type(), Some(serde_json::json!("complex128")));
        assert_eq!(c.decode_f64(&[0; 16]), None);
        let t = DType::new(Kind::Text, 0, Endian::Little);
        assert_eq!(t.zarr_data_type(), Some(serde_json::json!("string")));
        assert_eq!(t.decode_all_f64(&[]), None);
    }
}
