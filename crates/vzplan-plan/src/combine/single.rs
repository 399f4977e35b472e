//! An array taken from one file, on its own regular grid.

use super::place::{base_plan, inline_coord, push_file};
use crate::rules::{grid::validate, masks::check_masks_or_patch, padded::own_axis};
use crate::{ArrayPlan, Finding};
use vzplan_core::{ArrayLayout, ChunkList};

/// An array from one file, on its own regular grid.
pub(crate) fn single(
    path: &str,
    src: usize,
    url: &str,
    a: &ArrayLayout,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    single_or_patch(path, src, url, a, a.chunks.entries.clone(), false, findings)
}

/// As [`single`]; with `patch`, blocks with filters skipped become patches.
pub(crate) fn single_or_patch(
    path: &str,
    src: usize,
    url: &str,
    a: &ArrayLayout,
    entries: ChunkList,
    patch: bool,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    if let (Some(v), 1) = (&a.values, a.shape.len()) {
        return Some(inline_coord(path, a, v.clone(), a.shape[0], 1));
    }
    if !check_masks_or_patch(path, url, &entries, patch, findings) {
        return None;
    }
    let mut p = base_plan(path, a);
    p.edges = (0..a.shape.len()).map(|i| own_axis(a, i)).collect();
    push_file(&mut p, a, src, entries, None);
    validate(&p, findings).then_some(p)
}
