//! The rectilinear chunk grid: one list of chunk edge lengths per axis.
//!
//! Spec: zarr-extensions, [`chunk-grids/rectilinear`](https://github.com/zarr-developers/zarr-extensions/tree/main/chunk-grids/rectilinear).
//! In `zarr.json`:
//! ```json
//! {"name": "rectilinear",
//!  "configuration": {"kind": "inline", "chunk_shapes": [[366, [365, 3], 366], 18, 36]}}
//! ```
//! Each axis is a bare integer (a regular axis: repeat until the sum reaches the length), or a list
//! of lengths and `[length, count]` runs. Every chunk decodes at its full listed length; only the last
//! chunk of an axis may reach past the array's end. vzplan never writes an edge lying wholly past the
//! end: zarr-python ignores such edges while zarrs counts them as grid cells.

use serde_json::{json, Value};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GridError {
    #[error("axis {axis}: chunk edges sum to {sum}, less than the array length {len}")]
    TooShort { axis: usize, sum: u64, len: u64 },
    #[error("axis {axis}: edge {index} starts at {start}, wholly past the array length {len}")]
    PastEnd {
        axis: usize,
        index: usize,
        start: u64,
        len: u64,
    },
    #[error("axis {axis}: an edge length of 0")]
    Zero { axis: usize },
    #[error("axis {axis}: no chunk edges")]
    Empty { axis: usize },
    #[error("malformed chunk_shapes entry: {0}")]
    Malformed(String),
}

/// The edge lengths of one axis, expanded.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct AxisEdges(pub Vec<u64>);

impl AxisEdges {
    /// A regular axis of `len` elements cut every `chunk` (the last edge overhangs if need be).
    pub fn regular(len: u64, chunk: u64) -> Self {
        if chunk == 0 {
            return AxisEdges(Vec::new());
        }
        AxisEdges(vec![chunk; len.div_ceil(chunk).max(1) as usize])
    }
    pub fn sum(&self) -> u64 {
        self.0.iter().sum()
    }
    /// The start offset of every chunk.
    pub fn starts(&self) -> Vec<u64> {
        let mut acc = 0;
        self.0
            .iter()
            .map(|e| {
                let s = acc;
                acc += e;
                s
            })
            .collect()
    }
    /// Checks the rules vzplan keeps: lengths ≥ 1, sum ≥ len, no edge wholly past the end.
    pub fn validate(&self, axis: usize, len: u64) -> Result<(), GridError> {
        if self.0.is_empty() {
            return Err(GridError::Empty { axis });
        }
        let mut start = 0u64;
        for (index, &e) in self.0.iter().enumerate() {
            if e == 0 {
                return Err(GridError::Zero { axis });
            }
            if start >= len && !(len == 0 && index == 0) {
                return Err(GridError::PastEnd {
                    axis,
                    index,
                    start,
                    len,
                });
            }
            start += e;
        }
        if start < len {
            return Err(GridError::TooShort {
                axis,
                sum: start,
                len,
            });
        }
        Ok(())
    }
    /// All edges equal: the axis can be written as a bare integer.
    pub fn regular_step(&self) -> Option<u64> {
        let first = *self.0.first()?;
        self.0.iter().all(|&e| e == first).then_some(first)
    }
}

/// One axis as `chunk_shapes` JSON: a bare integer when all edges are equal, else RLE runs
/// (`[[365, 3], 366]`), a run only where it is shorter than the values it replaces.
pub fn edges_to_json(edges: &AxisEdges) -> Value {
    if let Some(step) = edges.regular_step() {
        return json!(step);
    }
    let mut out = Vec::new();
    let mut i = 0;
    let v = &edges.0;
    while i < v.len() {
        let mut j = i + 1;
        while j < v.len() && v[j] == v[i] {
            j += 1;
        }
        let n = j - i;
        if n >= 2 {
            out.push(json!([v[i], n]));
        } else {
            out.push(json!(v[i]));
        }
        i = j;
    }
    Value::Array(out)
}

/// Parses one `chunk_shapes` entry back into edges; a bare integer expands to cover `len`.
pub fn edges_from_json(v: &Value, len: u64) -> Result<AxisEdges, GridError> {
    let pos = |x: &Value| -> Result<u64, GridError> {
        x.as_u64()
            .filter(|&n| n >= 1)
            .ok_or_else(|| GridError::Malformed(x.to_string()))
    };
    match v {
        Value::Number(_) => Ok(AxisEdges::regular(len, pos(v)?)),
        Value::Array(items) => {
            let mut out = Vec::new();
            for it in items {
                match it {
                    Value::Array(pair) if pair.len() == 2 => {
                        let (size, count) = (pos(&pair[0])?, pos(&pair[1])?);
                        if count > 1 << 32 {
                            return Err(GridError::Malformed(it.to_string()));
                        }
                        out.extend(std::iter::repeat_n(size, count as usize));
                    }
                    _ => out.push(pos(it)?),
                }
            }
            Ok(AxisEdges(out))
        }
        _ => Err(GridError::Malformed(v.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leap_years_compress_to_runs() {
        let e = AxisEdges(vec![366, 365, 365, 365, 366, 365]);
        assert_eq!(edges_to_json(&e), json!([366, [365, 3], 366, 365]));
        assert_eq!(edges_from_json(&edges_to_json(&e), 2192).unwrap(), e);
        assert_eq!(edges_to_json(&AxisEdges(vec![30, 30, 30])), json!(30));
        assert_eq!(
            edges_to_json(&AxisEdges(vec![30, 30, 10])),
            json!([[30, 2], 10])
        );
    }

    #[test]
    fn the_extension_example_expands() {
        // zarr-extensions rectilinear README example, shape 6 on every axis.
        let cases = [
            (json!(4), vec![4, 4]),
            (json!([1, 2, 3]), vec![1, 2, 3]),
            (json!([[4, 2]]), vec![4, 4]),
            (json!([[1, 3], 3]), vec![1, 1, 1, 3]),
            (json!([4, 4, 4]), vec![4, 4, 4]),
        ];
        for (j, want) in cases {
            assert_eq!(edges_from_json(&j, 6).unwrap().0, want);
        }
        assert!(edges_from_json(&json!([0]), 6).is_err());
        assert!(edges_from_json(&json!([[3, 0]]), 6).is_err());
        assert!(edges_from_json(&json!("x"), 6).is_err());
    }

    #[test]
    fn validation_rejects_short_and_trailing_edges() {
        assert!(AxisEdges(vec![4, 2]).validate(0, 6).is_ok());
        assert!(AxisEdges(vec![4, 4]).validate(0, 6).is_ok());
        assert_eq!(
            AxisEdges(vec![4, 4, 4]).validate(0, 6),
            Err(GridError::PastEnd {
                axis: 0,
                index: 2,
                start: 8,
                len: 6
            })
        );
        assert!(matches!(
            AxisEdges(vec![2, 2]).validate(1, 6),
            Err(GridError::TooShort { .. })
        ));
        assert!(AxisEdges(vec![]).validate(0, 6).is_err());
    }
}
