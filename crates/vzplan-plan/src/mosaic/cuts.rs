//! The global cuts of a mosaic: along each axis, the union of every kept tile's edges and block
//! boundaries (a rectilinear grid is one list of cuts per axis). A cut crossing a tile must fall
//! on one of its block boundaries, or on a row of an uncompressed strip, else it is staggered.

#![allow(clippy::needless_range_loop)]

use super::state::{axis_word, Mosaic};
use super::tile::row_axis;
use super::view::{StaggerView, TileStatus};
use crate::{display_file, Finding, FindingKind};
use std::collections::BTreeMap;

/// Who made each cut, per axis: the tile and whether it is that tile's edge.
pub(super) type CutSources = [BTreeMap<u64, (usize, bool)>; 2];

impl Mosaic<'_, '_> {
    /// Sets the view's cuts; returns who made each.
    pub(super) fn global_cuts(&mut self) -> CutSources {
        let (tiles, view) = (&self.tiles, &mut self.view);
        // Global cuts: every kept tile's edges and block boundaries; remember who made each.
        let mut cut_src: [BTreeMap<u64, (usize, bool)>; 2] = [BTreeMap::new(), BTreeMap::new()];
        for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
            for m in 0..2 {
                for pos in t.ax[m].boundaries() {
                    let edge = pos == t.ax[m].o || pos == t.ax[m].end();
                    let e = cut_src[m].entry(pos).or_insert((ti, edge));
                    if edge && !e.1 {
                        *e = (ti, true);
                    }
                }
            }
        }
        for m in 0..2 {
            cut_src[m].entry(0).or_insert((usize::MAX, true));
        }
        let cuts: [Vec<u64>; 2] = [0, 1].map(|m| cut_src[m].keys().copied().collect());
        view.cuts = cuts;
        cut_src
    }

    /// Reports every cut that falls inside a kept block of a tile that cannot be split there.
    pub(super) fn staggered(&mut self, cuts: &[Vec<u64>; 2], cut_src: &CutSources) {
        let (path, k, dims) = (self.path, self.k, self.dims);
        let (tiles, view, bad, ok, findings) = (
            &self.tiles,
            &mut self.view,
            &mut self.bad,
            &mut self.ok,
            &mut *self.findings,
        );
        // Staggered cuts.
        for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
            for m in 0..2 {
                let ax = t.ax[m];
                let splittable = t.a.chunks.splittable
                    && t.a.codecs.is_empty()
                    && row_axis(t.a, k[m])
                    && !t.padded(m);
                for &c in cuts[m].iter().filter(|&&c| c > ax.o && c < ax.end()) {
                    let local = c - ax.o;
                    if local % ax.b == 0 {
                        continue;
                    }
                    let blk = local / ax.b;
                    if !t.kept_along(m, blk) {
                        continue;
                    }
                    if splittable {
                        continue;
                    }
                    *ok = false;
                    let (who, edge) = cut_src[m].get(&c).copied().unwrap_or((usize::MAX, true));
                    let from = match tiles.get(who) {
                        Some(_) if who == ti => "its own".to_string(),
                        Some(w) => format!(
                            "the {} of {}",
                            if edge { "edge" } else { "block boundary" },
                            display_file(w.url)
                        ),
                        None => "the array's start".into(),
                    };
                    let from = if from == "its own" {
                        "a block boundary of this file".to_string()
                    } else {
                        from
                    };
                    let d = axis_word(dims, m);
                    let (bs, be) = (blk * ax.b, ((blk + 1) * ax.b).min(ax.n));
                    findings.push(
                        Finding::error(
                            FindingKind::StaggeredCut,
                            format!(
                                "the grid is cut at {d} {c} ({from}), which falls inside block {blk} along {d} ({d} {bs}..{be} of the file), stored as one piece"
                            ),
                        )
                        .file(t.url)
                        .array(path)
                        .at(format!("{d} {c} of the mosaic, {local} in the file, block {blk} along {d}"))
                        .fix("rewrite the file with blocks that end on every cut (see the rewrite suggestion), or crop the tiles so that they line up"),
                    );
                    view.staggered.push(StaggerView {
                        source: t.src,
                        axis: m,
                        position: c,
                        block: blk,
                    });
                    bad.insert(ti, TileStatus::Staggered);
                }
            }
        }
    }
}
