//! Padded blocks in a mosaic: a block stored padded may only be the last chunk of its axis of the
//! combined array; an unfiltered block padded along rows is referenced as its byte prefix.

#![allow(clippy::needless_range_loop)]

use super::state::{axis_word, Mosaic};
use super::tile::{row_axis, row_bytes, Tile};
use super::view::TileStatus;
use crate::fix::{self, Target};
use crate::{Finding, FindingKind, Severity};
use std::collections::BTreeMap;
use vzplan_core::{DataRef, Rewriter};

/// Per axis, the chunk edges of the combined grid; per tile and axis, whether its last block is
/// referenced as a byte prefix.
pub(super) type Padding = ([Vec<u64>; 2], Vec<[bool; 2]>);

impl Mosaic<'_, '_> {
    /// Applies the padded-block rule along both axes.
    pub(super) fn padded(&mut self, cuts: &[Vec<u64>; 2]) -> Padding {
        let (path, k, dims, shape) = (self.path, self.k, self.dims, self.shape);
        let (tiles, bad, ok, findings) = (
            &self.tiles,
            &mut self.bad,
            &mut self.ok,
            &mut *self.findings,
        );
        // Padded blocks: only the last chunk of the combined axis, else a byte prefix (rows, raw).
        let mut edges: [Vec<u64>; 2] =
            [0, 1].map(|m| cuts[m].windows(2).map(|w| w[1] - w[0]).collect());
        let mut prefix: Vec<[bool; 2]> = vec![[false; 2]; tiles.len()];
        for m in 0..2 {
            let n = shape[m];
            let Some(&c_last) = cuts[m].iter().rev().nth(1) else {
                continue;
            };
            let at_end: Vec<usize> = (0..tiles.len())
                .filter(|&ti| {
                    !tiles[ti].covered
                        && tiles[ti].ax[m].end() == n
                        && tiles[ti].kept_along(m, tiles[ti].ax[m].nblocks().saturating_sub(1))
                })
                .collect();
            let exact_end = at_end.iter().any(|&ti| !tiles[ti].padded(m));
            let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
            for &ti in &at_end {
                let ax = tiles[ti].ax[m];
                if tiles[ti].padded(m) && ax.o + (ax.nblocks() - 1) * ax.b == c_last {
                    *counts.entry(ax.b).or_default() += 1;
                }
            }
            let e_last = if exact_end {
                n - c_last
            } else {
                counts
                    .iter()
                    .max_by_key(|(_, c)| **c)
                    .map(|(b, _)| *b)
                    .unwrap_or(n - c_last)
            };
            if let Some(l) = edges[m].last_mut() {
                *l = e_last;
            }
            for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
                if !t.padded(m) || !t.kept_along(m, t.ax[m].nblocks() - 1) {
                    continue;
                }
                let ax = t.ax[m];
                let start = ax.o + (ax.nblocks() - 1) * ax.b;
                if ax.end() == n && start == c_last && ax.b == e_last {
                    bad.entry(ti).or_insert(TileStatus::Padded);
                    continue;
                }
                let r = ax.end() - start;
                let full = t.a.block_bytes();
                let rescuable = row_axis(t.a, k[m])
                    && t.a.codecs.is_empty()
                    && t.a.chunks.entries.iter().all(|e| match e.data {
                        DataRef::Ref { length, .. } => length == full,
                        DataRef::Inline(d) => d.len() as u64 == full,
                    });
                let d = axis_word(dims, m);
                let where_ = format!(
                    "{d} {start}..{} of the mosaic, block {} along {d} of the file",
                    ax.end(),
                    ax.nblocks() - 1
                );
                if rescuable {
                    prefix[ti][m] = true;
                    bad.entry(ti).or_insert(TileStatus::Padded);
                    findings.push(
                        Finding::new(
                            FindingKind::RescuedPrefix,
                            Severity::Info,
                            format!("its last block along {d} holds {r} of {} rows, stored padded but unfiltered: referenced as its first {} bytes", ax.b, r * row_bytes(t.a, k[m])),
                        )
                        .file(t.url)
                        .array(path)
                        .at(where_),
                    );
                } else {
                    *ok = false;
                    bad.insert(ti, TileStatus::PaddedInterior);
                    let why = if ax.end() == n {
                        format!("it ends the mosaic, but the last chunk along {d} is {e_last} long there (other tiles end it too)")
                    } else {
                        format!("the tile ends at {d} {}, inside the mosaic ({n} long), so this chunk would not be last on its axis", ax.end())
                    };
                    let rows_per_strip = t.ax[0].b;
                    findings.push(
                        Finding::error(
                            FindingKind::PaddedInteriorChunk,
                            format!("its last block along {d} holds {r} of {} pixels and is stored padded; {why}, and a padded chunk may only be the last on its axis", ax.b),
                        )
                        .file(t.url)
                        .array(path)
                        .at(where_)
                        .fix(strips_fix(t, rows_per_strip, ax.n, d))
                    );
                }
            }
        }
        (edges, prefix)
    }
}

/// Rewrite a tile whose padded block sits inside the mosaic: as strips (never padded), or with
/// a block that divides its extent along `d`.
fn strips_fix(t: &Tile, rows: u64, n: u64, d: &str) -> String {
    let target = Target {
        url: t.url,
        rewriter: t.rewriter,
    };
    let cmd = match t.rewriter {
        Rewriter::Gdal => target.command(
            &format!("gdal_translate -co TILED=NO -co BLOCKYSIZE={rows}"),
            "strips",
        ),
        _ => {
            let mut block = t.a.chunks.block.clone();
            for (b, dim) in block.iter_mut().zip(&t.a.dims) {
                if dim.name == d {
                    *b = n;
                }
            }
            fix::rechunk(target, t.a, &block)
        }
    };
    format!("rewrite it as strips or with one block along {d}, which are not padded (`{cmd}`), or with a block that divides its {n} {d} pixels, or place it last along {d}")
}
