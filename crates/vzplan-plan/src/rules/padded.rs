//! The padded-chunk rule: a block stored padded may only be the last chunk of its axis of the
//! combined array (zarr-extensions `chunk-grids/rectilinear`; design.md rule 4). Here: the cuts one
//! file contributes along an axis, and the rewrite that makes a file fit.

use crate::fix::{self, Target};
use vzplan_core::{ArrayLayout, AxisEdges, EdgeStorage};

/// Edge lengths of one file's blocks along an axis of length `n`.
/// `last_ok`: this file's last block is also the last of the combined axis (it may overhang).
/// Returns the edges and, when the last block is padded and must become exact, its logical length.
pub(crate) enum AxisCut {
    Edges(AxisEdges),
    /// Edges whose last one is a padded block cut to its logical extent (only valid if rescued).
    NeedsPrefix(AxisEdges, u64),
}

/// The edges of axis `i` of one file's array, as the last (possibly overhanging) on that axis.
pub(crate) fn own_axis(a: &ArrayLayout, i: usize) -> AxisEdges {
    let n = a.shape[i];
    let b = a.chunks.block.get(i).copied().unwrap_or(n);
    match cut_axis(n, b, a.chunks.edges, true) {
        AxisCut::Edges(e) if !e.is_empty() => e,
        // A zero-length axis still needs one edge in zarr.json.
        _ => AxisEdges::from(vec![b.max(1)]),
    }
}

pub(crate) fn cut_axis(n: u64, b: u64, storage: EdgeStorage, last_ok: bool) -> AxisCut {
    if b == 0 || n == 0 {
        return AxisCut::Edges(AxisEdges::default());
    }
    // Runs, never one entry per block: the block count comes from the file.
    let (q, r) = (n / b, n % b);
    let mut e = AxisEdges::default();
    e.push_run(b, q);
    if r == 0 {
        return AxisCut::Edges(e);
    }
    match storage {
        EdgeStorage::Exact => {
            e.push(r);
            AxisCut::Edges(e)
        }
        EdgeStorage::Padded if last_ok => {
            e.push(b);
            AxisCut::Edges(e)
        }
        EdgeStorage::Padded => {
            e.push(r);
            AxisCut::NeedsPrefix(e, r)
        }
    }
}

/// A suggested rewrite for a file whose chunking along axis `k` (of length `len`) does not fit:
/// one chunk along it, the file's own chunks elsewhere.
pub(crate) fn rechunk_fix(t: Target, a: &ArrayLayout, k: usize, len: u64) -> String {
    let mut block = a.chunks.block.clone();
    if let Some(b) = block.get_mut(k) {
        *b = len;
    }
    format!(
        "rewrite it with a chunk length along '{}' that divides {len}, e.g. `{}`",
        a.dims[k].name,
        fix::rechunk(t, a, &block)
    )
}
