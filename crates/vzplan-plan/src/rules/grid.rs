//! The last check before anything is written: the planned grid obeys the rectilinear grid's
//! rules (edges sum to the shape, every chunk key inside the grid and used once).

use crate::{fix, ArrayPlan, Finding, FindingKind};
use vzplan_core::KeyRef;

/// Final check of the grid rules; a failure is a bug, reported rather than written.
pub(crate) fn validate(p: &ArrayPlan, findings: &mut Vec<Finding>) -> bool {
    if p.edges.len() != p.shape.len() {
        findings.push(
            Finding::error(
                FindingKind::InvalidGrid,
                "grid rank differs from the array's",
            )
            .array(&p.path)
            .fix(fix::REPORT_BUG),
        );
        return false;
    }
    for (axis, (e, &n)) in p.edges.iter().zip(&p.shape).enumerate() {
        if let Err(err) = e.validate(axis, n) {
            findings.push(
                Finding::error(FindingKind::InvalidGrid, err.to_string())
                    .array(&p.path)
                    .fix(fix::REPORT_BUG),
            );
            return false;
        }
    }
    let bad = |key: &[u64]| {
        Finding::error(
            FindingKind::InvalidGrid,
            format!("chunk key {key:?} is outside the grid or repeated"),
        )
        .array(&p.path)
        .fix(fix::REPORT_BUG)
    };
    if p.chunks.refused() > 0 {
        let n = p.chunks.refused();
        let e = Finding::error(
            FindingKind::InvalidGrid,
            format!("{n} chunk key(s) of another rank than the array's"),
        );
        findings.push(e.array(&p.path).fix(fix::REPORT_BUG));
        return false;
    }
    let counts: Vec<u64> = p.edges.iter().map(|e| e.count()).collect();
    // One pass over the index column; entry by entry only to name the key outside.
    let inside =
        |key: KeyRef<'_>| key.len() == counts.len() && key.iter().zip(&counts).all(|(k, &n)| k < n);
    if !(p.chunks.rank() == Some(counts.len()) && p.chunks.all_below(&counts)) {
        let mut keys = (0..p.chunks.len()).map(|i| p.chunks.key(i));
        if let Some(key) = keys.find(|&k| !inside(k)) {
            findings.push(bad(&key.to_vec()));
            return false;
        }
    }
    if let Some(key) = repeated(p) {
        findings.push(bad(&key));
        return false;
    }
    true
}

/// A key used twice, if any. Chunks usually come in key order, checked in one pass; otherwise
/// their positions are sorted by key (8 bytes a chunk, where a map of keys took ~40).
fn repeated(p: &ArrayPlan) -> Option<Vec<u64>> {
    let c = &p.chunks;
    if c.keys_increasing() {
        return None;
    }
    let mut order: Vec<usize> = (0..c.len()).collect();
    order.sort_unstable_by(|&a, &b| c.cmp_keys(a, b));
    order
        .windows(2)
        .find(|w| c.cmp_keys(w[0], w[1]).is_eq())
        .map(|w| c.key(w[0]).to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vzplan_core::{AxisEdges, ChunkData, ChunkList, DType, Endian, Kind};

    fn plan(keys: &[[u64; 2]]) -> ArrayPlan {
        ArrayPlan {
            path: "v".into(),
            dims: vec!["y".into(), "x".into()],
            shape: vec![4, 4],
            dtype: DType::new(Kind::Int, 2, Endian::Little),
            fill_value: None,
            attrs: Default::default(),
            codecs: vec![],
            edges: vec![AxisEdges::from(vec![2, 2]), AxisEdges::from(vec![2, 2])],
            chunks: {
                let mut c = ChunkList::new();
                for k in keys {
                    let data = ChunkData::Ref {
                        offset: 0,
                        length: 8,
                    };
                    c.push(k, 0, data, 0);
                }
                c
            },
            files: 1,
            values: None,
            patches: vec![],
            fields: vec![],
        }
    }

    #[test]
    fn repeated_keys_are_found_in_any_order() {
        let mut f = Vec::new();
        assert!(validate(&plan(&[[0, 0], [0, 1], [1, 0], [1, 1]]), &mut f));
        // Concatenated along the last axis: not in key order, still one key each.
        assert!(validate(&plan(&[[0, 0], [1, 0], [0, 1], [1, 1]]), &mut f));
        assert!(f.is_empty());
        assert!(!validate(&plan(&[[1, 1], [0, 0], [1, 0], [0, 0]]), &mut f));
        assert!(f[0].message.contains("[0, 0]"), "{}", f[0].message);
        assert!(!validate(&plan(&[[0, 0], [2, 0]]), &mut f));
    }

    #[test]
    fn a_key_of_another_rank_is_reported_not_written() {
        let mut p = plan(&[[0, 0]]);
        let data = ChunkData::Ref {
            offset: 0,
            length: 8,
        };
        p.chunks.push(&[1], 0, data, 0);
        assert_eq!(p.chunks.len(), 1);
        let mut f = Vec::new();
        assert!(!validate(&p, &mut f));
        assert!(f[0].message.contains("another rank"), "{}", f[0].message);
    }
}
