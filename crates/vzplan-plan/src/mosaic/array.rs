//! The mosaic of one array: its rules run in order over the placed tiles — agreement with the
//! first tile, overlaps (`overlap`), global and staggered cuts (`cuts`), padded blocks
//! (`padded`), gaps and chunks (`cells`) — and, when tiles do not fit, a rewrite suggestion.

use super::cells::Cells;
pub(super) use super::state::Mosaic;
use super::suggest::suggest_rewrite;
use super::tile::{Ax, Tile};
use super::view::{MosaicView, TileStatus, TileView};
use crate::rules::masks::check_masks;
use crate::{display_file, ArrayPlan, Finding, FindingKind};
use std::collections::{BTreeMap, HashSet};
use vzplan_core::{ArrayLayout, SourceLayout};

/// The placed tiles of the array whose rows and columns are axes `k`: `present` are the files
/// with the array, `offsets` where each file sits.
pub(super) fn tiles<'a>(
    k: [usize; 2],
    present: &[(usize, &'a ArrayLayout)],
    offsets: &[Option<[u64; 2]>],
    layouts: &'a [SourceLayout],
) -> Vec<Tile<'a>> {
    present
        .iter()
        .filter_map(|&(src, a)| {
            let o = offsets[src]?;
            Some(Tile {
                src,
                url: &layouts[src].url,
                a,
                ax: [0, 1].map(|m| Ax {
                    o: o[m],
                    n: a.shape[k[m]],
                    b: a.chunks.block.get(k[m]).copied().unwrap_or(1).max(1),
                }),
                dropped: HashSet::new(),
                covered: false,
                rewriter: layouts[src].rewriter,
            })
        })
        .collect()
}

impl<'a, 'f> Mosaic<'a, 'f> {
    pub(super) fn new(
        path: &'a str,
        k: [usize; 2],
        dims: &'a [String; 2],
        a0: &'a ArrayLayout,
        tiles: Vec<Tile<'a>>,
        findings: &'f mut Vec<Finding>,
    ) -> Self {
        let shape = [0, 1].map(|m| tiles.iter().map(|t| t.ax[m].end()).max().unwrap_or(0));
        let view = MosaicView {
            array: path.to_string(),
            dims: dims.clone(),
            shape,
            cuts: [vec![], vec![]],
            tiles: vec![],
            gaps: vec![],
            overlaps: vec![],
            staggered: vec![],
            planned: false,
        };
        Mosaic {
            path,
            k,
            dims,
            a0,
            tiles,
            shape,
            view,
            bad: BTreeMap::new(),
            ok: true,
            findings,
        }
    }

    /// Runs the rules in order. Returns the plan (None when it cannot be planned) and the view.
    pub(super) fn plan(mut self) -> (Option<ArrayPlan>, MosaicView) {
        self.agree_with_first();
        self.overlaps();
        let cut_src = self.global_cuts();
        let cuts = self.view.cuts.clone();
        self.staggered(&cuts, &cut_src);
        let padding = self.padded(&cuts);
        let cells = Cells::new(&self.tiles, &cuts);
        self.gaps(&cells, &cuts);
        self.tile_views();
        if !self.ok {
            suggest_rewrite(self.path, self.dims, &self.tiles, &self.view, self.findings);
            return (None, self.view);
        }
        let p = self.chunks(&cells, &cuts, padding);
        (p, self.view)
    }

    /// Everything but the mosaic axes must match the first tile; no block may skip filters.
    fn agree_with_first(&mut self) {
        let (path, k, a0) = (self.path, self.k, self.a0);
        let (tiles, ok, findings) = (&self.tiles, &mut self.ok, &mut *self.findings);
        // Everything but the mosaic axes must match the first tile.
        for t in &tiles[1..] {
            let a = t.a;
            let why = if a
                .dims
                .iter()
                .map(|d| &d.name)
                .ne(a0.dims.iter().map(|d| &d.name))
            {
                Some(format!(
                    "dimensions ({}) differ from ({}) in the first tile",
                    a.dim_names().join(", "),
                    a0.dim_names().join(", ")
                ))
            } else if a.dtype != a0.dtype {
                Some(format!(
                    "dtype {} differs from {} in the first tile",
                    a.dtype.numpy_str(),
                    a0.dtype.numpy_str()
                ))
            } else if a.codecs != a0.codecs {
                Some("its codecs differ from the first tile's".to_string())
            } else if a.fill_value != a0.fill_value {
                Some("its fill value differs from the first tile's".to_string())
            } else {
                (0..a.shape.len())
                    .filter(|i| !k.contains(i))
                    .find(|&i| {
                        a.shape[i] != a0.shape[i] || a.chunks.block.get(i) != a0.chunks.block.get(i)
                    })
                    .map(|i| {
                        format!(
                            "its length or block along '{}' differs from the first tile's",
                            a.dims[i].name
                        )
                    })
            };
            if let Some(w) = why {
                findings.push(
                    Finding::error(FindingKind::Mismatch, w)
                        .file(t.url)
                        .array(path)
                        .fix("rewrite it with the same data type, codecs, fill value and block shape as the others (e.g. `gdal_translate -co COMPRESS=… -co TILED=…`)"),
                );
                *ok = false;
            }
        }
        for t in tiles.iter() {
            if !check_masks(path, t.url, t.a, findings) {
                *ok = false;
            }
        }
    }

    /// The tiles' statuses for the picture.
    fn tile_views(&mut self) {
        let (tiles, view, bad) = (&self.tiles, &mut self.view, &self.bad);
        // The tiles' statuses for the picture.
        for (ti, t) in tiles.iter().enumerate() {
            let mut dropped: Vec<[u64; 2]> = t.dropped.iter().copied().collect();
            dropped.sort();
            view.tiles.push(TileView {
                source: t.src,
                file: display_file(t.url),
                offset: Some([t.ax[0].o, t.ax[1].o]),
                shape: [t.ax[0].n, t.ax[1].n],
                block: [t.ax[0].b, t.ax[1].b],
                status: bad.get(&ti).copied().unwrap_or(TileStatus::Fits),
                dropped,
            });
        }
    }
}
