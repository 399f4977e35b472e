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

/// The edge lengths of one axis as runs of equal lengths `(length, count)`, never expanded: an
/// axis of 2^40 chunks of 1 (a valid HDF5 file of 1.4 KB) is one run, not 8 TiB of lengths.
/// Adjacent runs of the same length are always merged, so equal axes compare equal.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct AxisEdges {
    runs: Vec<(u64, u64)>,
}

impl From<Vec<u64>> for AxisEdges {
    fn from(v: Vec<u64>) -> Self {
        let mut e = AxisEdges::default();
        for x in v {
            e.push_run(x, 1);
        }
        e
    }
}

impl AxisEdges {
    /// A regular axis of `len` elements cut every `chunk` (the last edge overhangs if need be).
    pub fn regular(len: u64, chunk: u64) -> Self {
        let mut e = AxisEdges::default();
        if chunk > 0 {
            e.push_run(chunk, len.div_ceil(chunk).max(1));
        }
        e
    }
    /// Appends `count` edges of `length` (nothing when `count` is 0).
    pub fn push_run(&mut self, length: u64, count: u64) {
        if count == 0 {
            return;
        }
        match self.runs.last_mut() {
            Some((l, c)) if *l == length => *c = c.saturating_add(count),
            _ => self.runs.push((length, count)),
        }
    }
    /// Appends one edge.
    pub fn push(&mut self, length: u64) {
        self.push_run(length, 1);
    }
    /// Appends the edges of `other`.
    pub fn extend(&mut self, other: &AxisEdges) {
        for &(l, c) in &other.runs {
            self.push_run(l, c);
        }
    }
    /// The runs `(length, count)`, in order.
    pub fn runs(&self) -> &[(u64, u64)] {
        &self.runs
    }
    /// The number of edges (chunks along the axis).
    pub fn count(&self) -> u64 {
        self.runs.iter().fold(0u64, |a, r| a.saturating_add(r.1))
    }
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
    /// The sum of the edge lengths (saturating at 2^64 - 1).
    pub fn sum(&self) -> u64 {
        self.runs
            .iter()
            .fold(0u64, |a, &(l, c)| a.saturating_add(l.saturating_mul(c)))
    }
    /// The edges, expanded: only for axes known to be short (tests, small drawings).
    pub fn to_vec(&self) -> Vec<u64> {
        self.runs
            .iter()
            .flat_map(|&(l, c)| std::iter::repeat_n(l, c as usize))
            .collect()
    }
    /// The start offset of chunk `i` (saturating), or `None` past the last chunk.
    pub fn start_of(&self, i: u64) -> Option<u64> {
        let (mut start, mut first) = (0u64, 0u64);
        for &(l, c) in &self.runs {
            if i < first.saturating_add(c) {
                return Some(start.saturating_add((i - first).saturating_mul(l)));
            }
            start = start.saturating_add(l.saturating_mul(c));
            first = first.saturating_add(c);
        }
        None
    }
    /// Checks the rules vzplan keeps: lengths ≥ 1, sum ≥ len, no edge wholly past the end.
    pub fn validate(&self, axis: usize, len: u64) -> Result<(), GridError> {
        if self.runs.is_empty() {
            return Err(GridError::Empty { axis });
        }
        // Wide arithmetic: 2^64 - 1 edges of 2^64 - 1 elements is a valid question.
        let (mut start, mut index) = (0u128, 0u128);
        let len128 = len as u128;
        for &(e, c) in &self.runs {
            if e == 0 {
                return Err(GridError::Zero { axis });
            }
            let (e, c) = (e as u128, c as u128);
            // The first edge of this run starting at or past the end (a zero-length axis keeps
            // its one edge at index 0).
            let mut j = if start >= len128 {
                0
            } else {
                (len128 - start).div_ceil(e)
            };
            if len == 0 && index == 0 {
                j = j.max(1);
            }
            if j < c {
                return Err(GridError::PastEnd {
                    axis,
                    index: usize::try_from(index + j).unwrap_or(usize::MAX),
                    start: u64::try_from(start + j * e).unwrap_or(u64::MAX),
                    len,
                });
            }
            start += e * c;
            index += c;
        }
        if start < len128 {
            return Err(GridError::TooShort {
                axis,
                sum: start as u64,
                len,
            });
        }
        Ok(())
    }
    /// All edges equal: the axis can be written as a bare integer.
    pub fn regular_step(&self) -> Option<u64> {
        match self.runs.as_slice() {
            [(l, _)] => Some(*l),
            _ => None,
        }
    }
}

/// One axis as `chunk_shapes` JSON: a bare integer when all edges are equal, else RLE runs
/// (`[[365, 3], 366]`), a run only where it is shorter than the values it replaces.
pub fn edges_to_json(edges: &AxisEdges) -> Value {
    if let Some(step) = edges.regular_step() {
        return json!(step);
    }
    let out = edges
        .runs
        .iter()
        .map(|&(l, n)| if n >= 2 { json!([l, n]) } else { json!(l) })
        .collect();
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
            let mut out = AxisEdges::default();
            for it in items {
                match it {
                    Value::Array(pair) if pair.len() == 2 => {
                        let (size, count) = (pos(&pair[0])?, pos(&pair[1])?);
                        out.push_run(size, count);
                    }
                    _ => out.push(pos(it)?),
                }
            }
            Ok(out)
        }
        _ => Err(GridError::Malformed(v.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leap_years_compress_to_runs() {
        let e = AxisEdges::from(vec![366, 365, 365, 365, 366, 365]);
        assert_eq!(edges_to_json(&e), json!([366, [365, 3], 366, 365]));
        assert_eq!(edges_from_json(&edges_to_json(&e), 2192).unwrap(), e);
        assert_eq!(edges_to_json(&AxisEdges::from(vec![30, 30, 30])), json!(30));
        assert_eq!(
            edges_to_json(&AxisEdges::from(vec![30, 30, 10])),
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
            assert_eq!(edges_from_json(&j, 6).unwrap().to_vec(), want);
        }
        assert!(edges_from_json(&json!([0]), 6).is_err());
        assert!(edges_from_json(&json!([[3, 0]]), 6).is_err());
        assert!(edges_from_json(&json!("x"), 6).is_err());
    }

    #[test]
    fn validation_rejects_short_and_trailing_edges() {
        assert!(AxisEdges::from(vec![4, 2]).validate(0, 6).is_ok());
        assert!(AxisEdges::from(vec![4, 4]).validate(0, 6).is_ok());
        assert_eq!(
            AxisEdges::from(vec![4, 4, 4]).validate(0, 6),
            Err(GridError::PastEnd {
                axis: 0,
                index: 2,
                start: 8,
                len: 6
            })
        );
        assert!(matches!(
            AxisEdges::from(vec![2, 2]).validate(1, 6),
            Err(GridError::TooShort { .. })
        ));
        assert!(AxisEdges::from(vec![]).validate(0, 6).is_err());
    }

    #[test]
    fn huge_axes_stay_runs() {
        // 2^40 chunks of 1: one run, validated and written without expanding it.
        let e = AxisEdges::regular(1 << 40, 1);
        assert_eq!(e.runs(), &[(1, 1 << 40)]);
        assert_eq!(e.count(), 1 << 40);
        assert!(e.validate(0, 1 << 40).is_ok());
        assert_eq!(edges_to_json(&e), json!(1));
        let mut m = AxisEdges::regular(u64::MAX, 1 << 20);
        m.push(3);
        assert_eq!(m.sum(), u64::MAX);
        assert!(matches!(
            m.validate(0, u64::MAX),
            Err(GridError::PastEnd { .. })
        ));
        assert_eq!(m.start_of(2), Some(2 << 20));
        assert_eq!(
            edges_from_json(&json!([[7, u64::MAX]]), 5).unwrap().count(),
            u64::MAX
        );
        // Merged runs compare equal however they were built.
        let mut a = AxisEdges::from(vec![365, 365]);
        a.extend(&AxisEdges::from(vec![365, 366]));
        assert_eq!(a, AxisEdges::from(vec![365, 365, 365, 366]));
        assert_eq!(a.runs(), &[(365, 3), (366, 1)]);
        // An overhanging edge right after a run that ends exactly at the length.
        assert_eq!(
            AxisEdges::from(vec![2, 2, 2]).validate(0, 4),
            Err(GridError::PastEnd {
                axis: 0,
                index: 2,
                start: 4,
                len: 4
            })
        );
        assert!(AxisEdges::from(vec![4]).validate(0, 0).is_ok());
        assert!(AxisEdges::from(vec![4, 4]).validate(0, 0).is_err());
    }
}
