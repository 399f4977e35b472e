//! The padded-chunk rule: a block stored padded may only be the last chunk of its axis of the
//! combined array (zarr-extensions `chunk-grids/rectilinear`; design.md rule 4). Here: the cuts one
//! file contributes along an axis, and the rewrite that makes a file fit.

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

/// A suggested rewrite command for a file whose chunking along `dim` does not fit.
pub(crate) fn rechunk_fix(a: &ArrayLayout, k: usize, len: u64) -> String {
    let nc: Vec<String> = a
        .dims
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let c = if i == k { len } else { a.chunks.block[i] };
            format!("{}/{}", d.name, c)
        })
        .collect();
    let h5: Vec<String> = a
        .chunks
        .block
        .iter()
        .enumerate()
        .map(|(i, &c)| if i == k { len } else { c }.to_string())
        .collect();
    format!(
        "rewrite it with a chunk length along '{}' that divides {len}, e.g. `nccopy -c {} in.nc out.nc` or `h5repack -l {}:CHUNK={} in.h5 out.h5`",
        a.dims[k].name,
        nc.join(","),
        a.path,
        h5.join("x")
    )
}
