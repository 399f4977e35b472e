//! One placed file of a mosaic array: its offset, extent and block along each mosaic axis.

use super::view::Rect;
use std::collections::HashSet;
use vzplan_core::{ArrayLayout, EdgeStorage};

/// One tile's view of one axis.
#[derive(Clone, Copy)]
pub(super) struct Ax {
    pub(super) o: u64,
    pub(super) n: u64,
    pub(super) b: u64,
}

impl Ax {
    pub(super) fn end(&self) -> u64 {
        self.o + self.n
    }
    pub(super) fn nblocks(&self) -> u64 {
        if self.b == 0 {
            0
        } else {
            self.n.div_ceil(self.b)
        }
    }
    /// Global positions of the tile's edges and block boundaries.
    pub(super) fn boundaries(&self) -> Vec<u64> {
        let mut v: Vec<u64> = (0..self.nblocks()).map(|k| self.o + k * self.b).collect();
        v.push(self.end());
        v
    }
}

pub(super) struct Tile<'a> {
    pub(super) src: usize,
    pub(super) url: &'a str,
    pub(super) a: &'a ArrayLayout,
    pub(super) ax: [Ax; 2],
    /// Blocks (tile grid, rows × columns) dropped in favour of later tiles.
    pub(super) dropped: HashSet<[u64; 2]>,
    pub(super) covered: bool,
    /// The tools that rewrite the file, for fixes.
    pub(super) rewriter: vzplan_core::Rewriter,
}

impl Tile<'_> {
    pub(super) fn rect(&self) -> Rect {
        Rect {
            r0: self.ax[0].o,
            r1: self.ax[0].end(),
            c0: self.ax[1].o,
            c1: self.ax[1].end(),
        }
    }
    pub(super) fn padded(&self, m: usize) -> bool {
        self.a.chunks.edges == EdgeStorage::Padded
            && self.ax[m].b > 0
            && !self.ax[m].n.is_multiple_of(self.ax[m].b)
    }
    /// Whether any kept block has index `k` along axis `m`.
    pub(super) fn kept_along(&self, m: usize, k: u64) -> bool {
        let other = self.ax[1 - m].nblocks();
        (0..other).any(|j| {
            let key = if m == 0 { [k, j] } else { [j, k] };
            !self.dropped.contains(&key)
        })
    }
}

/// Whether axis `k` of `a` is the row axis of its blocks: every earlier axis has block 1, so a
/// range of rows of a block is a byte range of its decoded (unfiltered) bytes.
pub(super) fn row_axis(a: &ArrayLayout, k: usize) -> bool {
    a.chunks.block.iter().take(k).all(|&b| b == 1)
}

/// Bytes of one row along axis `k` of a block.
pub(super) fn row_bytes(a: &ArrayLayout, k: usize) -> u64 {
    a.chunks.block.iter().skip(k + 1).product::<u64>() * a.dtype.size as u64
}
