//! The rewrite suggestion: when tiles do not fit, which few files to rewrite, with which block
//! size, and how many bytes that touches.

#![allow(clippy::needless_range_loop)]

use super::tile::{Ax, Tile};
use super::view::{MosaicView, TileStatus};
use crate::fix::Target;
use crate::{display_file, Finding, FindingKind, Severity};
use std::collections::{BTreeMap, BTreeSet};

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A small set of files whose rewriting (with a named block size) lets the rest fit. Greedy:
/// start with the tiles that break a rule, give each the largest block that ends on every cut
/// crossing it, and add any tile that the new blocks break, until nothing changes.
pub(super) fn suggest_rewrite(
    path: &str,
    dims: &[String; 2],
    tiles: &[Tile],
    view: &MosaicView,
    findings: &mut Vec<Finding>,
) {
    let broken = |s: TileStatus| matches!(s, TileStatus::Staggered | TileStatus::PaddedInterior);
    let mut r: BTreeSet<usize> = view
        .tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| broken(t.status))
        .map(|(i, _)| i)
        .collect();
    if r.is_empty() || tiles.iter().any(|t| t.covered) || view.overlaps.iter().any(|o| !o.resolved)
    {
        return;
    }
    let n = [view.shape[0], view.shape[1]];
    let mut blocks: BTreeMap<usize, [u64; 2]> = BTreeMap::new();
    for _ in 0..=tiles.len() + 1 {
        // Cuts: all edges, kept tiles' block boundaries, rewritten tiles' new boundaries.
        let mut cuts: [BTreeSet<u64>; 2] = [BTreeSet::new(), BTreeSet::new()];
        for (i, t) in tiles.iter().enumerate() {
            for m in 0..2 {
                cuts[m].insert(t.ax[m].o);
                cuts[m].insert(t.ax[m].end());
                if !r.contains(&i) {
                    cuts[m].extend(t.ax[m].boundaries());
                } else if let Some(b) = blocks.get(&i) {
                    cuts[m].extend(Ax { b: b[m], ..t.ax[m] }.boundaries());
                }
            }
        }
        let mut changed = false;
        for &i in &r {
            let t = &tiles[i];
            let inside = |m: usize| -> Vec<u64> {
                cuts[m]
                    .iter()
                    .filter(|&&c| c > t.ax[m].o && c < t.ax[m].end())
                    .map(|c| c - t.ax[m].o)
                    .collect()
            };
            let last = [t.ax[0].end() == n[0], t.ax[1].end() == n[1]];
            let ix = inside(1);
            let bx = if ix.is_empty() {
                t.ax[1].n
            } else {
                ix.iter()
                    .fold(if last[1] { 0 } else { t.ax[1].n }, |g, &c| gcd(g, c))
            };
            let iy = inside(0);
            let strips = bx == t.ax[1].n;
            let seed = if strips || last[0] { 0 } else { t.ax[0].n };
            let by = if iy.is_empty() && seed == 0 {
                t.ax[0].n
            } else {
                iy.iter().fold(seed, |g, &c| gcd(g, c))
            };
            let nb = [by.max(1), bx.max(1)];
            if blocks.get(&i) != Some(&nb) {
                blocks.insert(i, nb);
                changed = true;
            }
        }
        // Tiles that the current cuts break join the rewrite set.
        for (i, t) in tiles.iter().enumerate() {
            if r.contains(&i) {
                continue;
            }
            let splittable = t.a.chunks.splittable && t.a.codecs.is_empty();
            let hit = (0..2).any(|m| {
                cuts[m].iter().any(|&c| {
                    c > t.ax[m].o
                        && c < t.ax[m].end()
                        && (c - t.ax[m].o) % t.ax[m].b != 0
                        && !(m == 0 && splittable)
                })
            });
            if hit {
                r.insert(i);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let bytes: u64 = r.iter().map(|&i| tiles[i].a.stored_bytes()).sum();
    let total: u64 = tiles.iter().map(|t| t.a.stored_bytes()).sum();
    let mut cmds = Vec::new();
    let mut names = Vec::new();
    for &i in &r {
        let t = &tiles[i];
        let b = blocks.get(&i).copied().unwrap_or([t.ax[0].n, t.ax[1].n]);
        let f = display_file(t.url);
        let target = Target {
            url: t.url,
            rewriter: t.rewriter,
        };
        names.push(format!(
            "{} ({}×{} blocks)",
            f.rsplit('/').next().unwrap_or(&f),
            b[0],
            b[1]
        ));
        let cmd = if b[1] == t.ax[1].n {
            format!(
                "gdal_translate -co TILED=NO -co BLOCKYSIZE={} {} {}",
                b[0],
                target.file(),
                target.output("retiled")
            )
        } else if b[0] % 16 == 0 && b[1] % 16 == 0 {
            format!(
                "gdal_translate -co TILED=YES -co BLOCKXSIZE={} -co BLOCKYSIZE={} {} {}",
                b[1],
                b[0],
                target.file(),
                target.output("retiled")
            )
        } else {
            format!("{f}: {}×{} blocks are not multiples of 16, which TIFF tiles must be: build one file from the mosaic instead (`gdalbuildvrt m.vrt … && gdal_translate m.vrt m.tif`)", b[0], b[1])
        };
        cmds.push(cmd);
    }
    let word = |m: usize| dims[m].as_str();
    findings.push(
        Finding::new(
            FindingKind::RewriteSuggestion,
            Severity::Warning,
            format!(
                "rewriting {} of {} files makes the rest fit: {}; {} of {} bytes of data would be rewritten (a greedy choice: the files that break a rule plus any that their new blocks would break; not proven minimal). Block sizes are {}×{}",
                r.len(),
                tiles.len(),
                names.join(", "),
                bytes,
                total,
                word(0),
                word(1)
            ),
        )
        .array(path)
        .fix(cmds.join("; ")),
    );
}
