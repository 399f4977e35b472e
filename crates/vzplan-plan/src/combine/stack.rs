//! Files stacked along a new leading axis (`--stack-dim`), one chunk per file along it.

use super::place::{base_plan, push_file};
use super::single::single_or_patch;
use crate::rules::{grid::validate, masks::check_masks_or_patch, padded::own_axis};
use crate::{ArrayPlan, Finding};
use vzplan_core::{ArrayLayout, AxisEdges, ChunkData, ChunkList, SourceLayout};

/// Files stacked along a new leading axis, one chunk per file along it.
pub(crate) fn stacked(
    path: &str,
    dim: &str,
    present: &[(usize, &ArrayLayout)],
    layouts: &[SourceLayout],
    tables: &mut [ChunkList],
    patch: bool,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let a0 = present[0].1;
    let inline = present.iter().all(|(_, a)| a.values.is_some());
    if inline && present.iter().all(|(_, a)| a.values == a0.values) {
        // The same coordinate in every file: not stacked.
        let (src, a) = present[0];
        let entries = std::mem::take(&mut tables[src]);
        return single_or_patch(path, src, &layouts[src].url, a, entries, patch, findings);
    }
    let mut p = base_plan(path, a0);
    p.dims.insert(0, dim.to_string());
    p.shape.insert(0, present.len() as u64);
    p.edges.push(AxisEdges::regular(present.len() as u64, 1));
    p.edges.extend((0..a0.shape.len()).map(|i| own_axis(a0, i)));
    p.files = present.len();
    if inline {
        // Coordinates that differ per file: one inline chunk per file.
        p.codecs = Vec::new();
        p.edges.truncate(1);
        p.edges
            .extend(a0.shape.iter().map(|&n| AxisEdges::from(vec![n.max(1)])));
        for (f, (src, a)) in present.iter().enumerate() {
            let mut key = vec![f as u64];
            key.extend(std::iter::repeat_n(0, a.shape.len()));
            let data = ChunkData::Inline(a.values.clone().unwrap_or_default());
            p.chunks.push(&key, *src, data, 0);
        }
        return validate(&p, findings).then_some(p);
    }
    // Sized once: no doubling of millions of references.
    let n = present.iter().map(|&(src, _)| tables[src].len()).sum();
    p.chunks = ChunkList::with_capacity(p.shape.len(), n);
    for (f, &(src, a)) in present.iter().enumerate() {
        if !check_masks_or_patch(path, &layouts[src].url, &tables[src], patch, findings) {
            return None;
        }
        push_file(
            &mut p,
            a,
            src,
            std::mem::take(&mut tables[src]),
            Some(f as u64),
        );
    }
    validate(&p, findings).then_some(p)
}
