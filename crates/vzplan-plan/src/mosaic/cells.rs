//! The cells of a mosaic (between consecutive global cuts): which tile owns each (the last in
//! input order), the gaps no tile covers, and the chunks — each kept block of each tile at the
//! cells it owns, a row range of it where a cut splits a strip or a padded block is rescued.

#![allow(clippy::needless_range_loop)]

use super::georef::mosaic_attrs;
use super::padded::Padding;
use super::state::{fill_words, Mosaic};
use super::tile::{row_bytes, Tile};
use super::view::Rect;
use crate::combine::place::base_plan;
use crate::rules::{grid::validate, padded::own_axis};
use crate::{display_file, ArrayPlan, Finding, FindingKind, Severity};
use std::collections::BTreeMap;
use vzplan_core::{AxisEdges, ChunkData, DataRef};

/// The cells of the global grid of the mosaic axes.
pub(super) struct Cells {
    /// Cells per axis.
    ncell: [usize; 2],
    /// The tile owning each cell (row-major), if any.
    owner: Vec<Option<usize>>,
    /// The cell index that starts at each cut, per axis.
    cell_of: [BTreeMap<u64, usize>; 2],
}

impl Cells {
    /// Which tile covers each cell (the last one in input order).
    pub(super) fn new(tiles: &[Tile], cuts: &[Vec<u64>; 2]) -> Cells {
        // Which tile covers each cell (the last one in input order).
        let ncell = [
            cuts[0].len().saturating_sub(1),
            cuts[1].len().saturating_sub(1),
        ];
        let mut owner: Vec<Option<usize>> = vec![None; ncell[0] * ncell[1]];
        let mut cell_of = [BTreeMap::new(), BTreeMap::new()];
        for m in 0..2 {
            for (i, &c) in cuts[m].iter().enumerate() {
                cell_of[m].insert(c, i);
            }
        }
        for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
            let (Some(&y0), Some(&y1), Some(&x0), Some(&x1)) = (
                cell_of[0].get(&t.ax[0].o),
                cell_of[0].get(&t.ax[0].end()),
                cell_of[1].get(&t.ax[1].o),
                cell_of[1].get(&t.ax[1].end()),
            ) else {
                continue;
            };
            for cy in y0..y1 {
                for cx in x0..x1 {
                    owner[cy * ncell[1] + cx] = Some(ti);
                }
            }
        }
        Cells {
            ncell,
            owner,
            cell_of,
        }
    }
}

impl Mosaic<'_, '_> {
    /// Reports the gaps: runs of uncovered cells per row, merged down when they match.
    pub(super) fn gaps(&mut self, cells: &Cells, cuts: &[Vec<u64>; 2]) {
        let (path, dims) = (self.path, self.dims);
        let Cells { ncell, owner, .. } = cells;
        let (view, findings) = (&mut self.view, &mut *self.findings);
        // Gaps: runs of uncovered cells per row, merged down when they match.
        let mut gaps: Vec<Rect> = Vec::new();
        for cy in 0..ncell[0] {
            let mut cx = 0;
            while cx < ncell[1] {
                if owner[cy * ncell[1] + cx].is_some() {
                    cx += 1;
                    continue;
                }
                let s = cx;
                while cx < ncell[1] && owner[cy * ncell[1] + cx].is_none() {
                    cx += 1;
                }
                let r = Rect {
                    r0: cuts[0][cy],
                    r1: cuts[0][cy + 1],
                    c0: cuts[1][s],
                    c1: cuts[1][cx],
                };
                if let Some(g) = gaps
                    .iter_mut()
                    .find(|g| g.r1 == r.r0 && g.c0 == r.c0 && g.c1 == r.c1)
                {
                    g.r1 = r.r1;
                } else {
                    gaps.push(r);
                }
            }
        }
        let fill = fill_words(self.a0);
        for g in &gaps {
            findings.push(
                Finding::new(
                    FindingKind::Gap,
                    Severity::Warning,
                    format!(
                        "no tile covers {}: missing chunks, read as the fill value {fill}",
                        g.describe(dims)
                    ),
                )
                .array(path)
                .fix(
                    "nothing to do if no data exists there; otherwise add the tiles that cover it",
                ),
            );
        }
        view.gaps = gaps;
    }

    /// The planned array: each kept block of each tile, at the cells it owns.
    pub(super) fn chunks(
        &mut self,
        cells: &Cells,
        cuts: &[Vec<u64>; 2],
        padding: Padding,
    ) -> Option<ArrayPlan> {
        let (path, k, a0, shape) = (self.path, self.k, self.a0, self.shape);
        let Cells {
            ncell,
            owner,
            cell_of,
        } = cells;
        let (edges, prefix) = padding;
        let (tiles, findings) = (&self.tiles, &mut *self.findings);
        // The chunks: each kept block of each tile, at the cells it owns.
        let mut p = base_plan(path, a0);
        for m in 0..2 {
            p.shape[k[m]] = shape[m];
        }
        p.files = tiles.iter().filter(|t| !t.covered).count();
        for i in 0..a0.shape.len() {
            if let Some(m) = k.iter().position(|&x| x == i) {
                p.edges.push(AxisEdges::from(if edges[m].is_empty() {
                    vec![1]
                } else {
                    edges[m].clone()
                }));
                continue;
            }
            p.edges.push(own_axis(a0, i));
        }
        if let Some(t0) = tiles.first() {
            mosaic_attrs(&mut p.attrs, t0, shape);
        }
        for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
            let grid = t.a.chunks.grid_shape(&t.a.shape);
            for e in &t.a.chunks.entries {
                if e.index.len() != grid.len() || e.index.iter().zip(&grid).any(|(i, &g)| i >= g) {
                    continue;
                }
                let bi = [e.index.at(k[0]), e.index.at(k[1])];
                if t.dropped.contains(&bi) {
                    continue;
                }
                // The cells this block spans, per axis, as (cell, row range within the block).
                let mut spans: [Vec<(usize, u64, u64)>; 2] = [vec![], vec![]];
                for m in 0..2 {
                    let ax = t.ax[m];
                    let s = ax.o + bi[m] * ax.b;
                    let end = (s + ax.b).min(ax.end());
                    let Some(&c0) = cell_of[m].get(&s) else {
                        continue;
                    };
                    let mut c = c0;
                    while c + 1 < cuts[m].len() && cuts[m][c] < end {
                        spans[m].push((c, cuts[m][c] - s, cuts[m][c + 1].min(end) - s));
                        c += 1;
                    }
                }
                for &(cy, y0, y1) in &spans[0] {
                    for &(cx, _, _) in &spans[1] {
                        if owner[cy * ncell[1] + cx] != Some(ti) {
                            continue;
                        }
                        let mut key = e.index.to_vec();
                        key[k[0]] = cy as u64;
                        key[k[1]] = cx as u64;
                        // Rows cut out of the block: a split strip or a rescued padded block.
                        let whole = spans[0].len() == 1 && !prefix[ti][0];
                        let data = if whole {
                            e.data.to_owned()
                        } else {
                            let rb = row_bytes(t.a, k[0]);
                            let (o, l) = (y0 * rb, (y1 - y0) * rb);
                            match e.data {
                                DataRef::Ref { offset, length } if o + l <= length => {
                                    ChunkData::Ref {
                                        offset: offset + o,
                                        length: l,
                                    }
                                }
                                DataRef::Inline(d) if (o + l) as usize <= d.len() => {
                                    ChunkData::Inline(d[o as usize..(o + l) as usize].to_vec())
                                }
                                _ => {
                                    findings.push(
                                        Finding::error(
                                            FindingKind::InvalidGrid,
                                            "a block is shorter than the rows it should hold",
                                        )
                                        .file(t.url)
                                        .array(path)
                                        .at(format!("block {:?}", e.index))
                                        .fix(format!(
                                            "check {}: rewrite it from a good copy, or leave it out",
                                            display_file(t.url)
                                        )),
                                    );
                                    return None;
                                }
                            }
                        };
                        p.chunks
                            .push(&key, t.a.chunks.entries.source_or(&e, t.src), data, 0);
                    }
                }
            }
        }
        p.chunks.sort_by_index();
        validate(&p, findings).then_some(p)
    }
}
