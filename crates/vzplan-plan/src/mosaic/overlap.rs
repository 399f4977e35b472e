//! Overlaps: chunks partition the array, so where two tiles cover the same pixels the later file
//! wins (GDAL VRT's rule) when the overlap is whole blocks of the earlier tile, which are dropped;
//! otherwise the array cannot be planned.

#![allow(clippy::needless_range_loop)]

use super::state::{axis_word, Mosaic};
use super::view::{OverlapView, TileStatus};
use crate::{display_file, Finding, FindingKind, Severity};

impl Mosaic<'_, '_> {
    /// Resolves or reports every overlap between two tiles; marks tiles left with no block.
    pub(super) fn overlaps(&mut self) {
        let (path, dims) = (self.path, self.dims);
        let (tiles, view, bad, ok, findings) = (
            &mut self.tiles,
            &mut self.view,
            &mut self.bad,
            &mut self.ok,
            &mut *self.findings,
        );
        // Overlaps: the later file wins where the overlap is whole blocks of the earlier tile.
        for i in 0..tiles.len() {
            for j in i + 1..tiles.len() {
                let Some(r) = tiles[i].rect().intersect(&tiles[j].rect()) else {
                    continue;
                };
                let ti = &tiles[i];
                let lo = [r.r0, r.c0];
                let hi = [r.r1, r.c1];
                let mut inside = None;
                for m in 0..2 {
                    let ax = ti.ax[m];
                    for &pos in &[lo[m], hi[m]] {
                        if pos != ax.o && pos != ax.end() && !(pos - ax.o).is_multiple_of(ax.b) {
                            inside = Some((m, pos, (pos - ax.o) / ax.b));
                        }
                    }
                }
                let (fi, fj) = (display_file(ti.url), display_file(tiles[j].url));
                view.overlaps.push(OverlapView {
                    earlier: ti.src,
                    later: tiles[j].src,
                    rect: r,
                    resolved: inside.is_none(),
                });
                match inside {
                    None => {
                        let b = [0, 1].map(|m| {
                            (
                                (lo[m] - ti.ax[m].o) / ti.ax[m].b,
                                (hi[m] - ti.ax[m].o).div_ceil(ti.ax[m].b),
                            )
                        });
                        let mut n = 0;
                        for by in b[0].0..b[0].1 {
                            for bx in b[1].0..b[1].1 {
                                if tiles[i].dropped.insert([by, bx]) {
                                    n += 1;
                                }
                            }
                        }
                        findings.push(
                            Finding::new(
                                FindingKind::OverlapResolved,
                                Severity::Info,
                                format!("overlaps {fj} ({}); resolved as GDAL VRT does, the last file wins: {n} whole block(s) of this file are dropped", r.describe(dims)),
                            )
                            .file(tiles[i].url)
                            .array(path),
                        );
                        bad.entry(i).or_insert(TileStatus::OverlapResolved);
                    }
                    Some((m, pos, blk)) => {
                        *ok = false;
                        findings.push(
                            Finding::error(
                                FindingKind::Overlap,
                                format!(
                                    "overlaps {fj} ({}); two chunks cannot cover the same pixels, and the overlap does not end on this file's block boundaries, so its blocks cannot simply be dropped (the later file would win, as in GDAL VRT)",
                                    r.describe(dims)
                                ),
                            )
                            .file(ti.url)
                            .array(path)
                            .at(format!("{} {pos} falls inside block {blk} along {} of {fi}", axis_word(dims, m), axis_word(dims, m)))
                            .fix(format!("crop {fi} or {fj} so that they meet without overlap (`gdal_translate -srcwin …`), or mosaic them with `gdalwarp`/`gdal_merge`")),
                        );
                        bad.insert(i, TileStatus::Overlap);
                        bad.entry(j).or_insert(TileStatus::Overlap);
                    }
                }
            }
        }

        for t in tiles.iter_mut() {
            let total = t.ax[0].nblocks() * t.ax[1].nblocks();
            t.covered = total > 0 && t.dropped.len() as u64 >= total;
        }
    }
}
