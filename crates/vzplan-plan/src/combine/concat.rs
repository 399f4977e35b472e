//! Files concatenated along one axis, each contributing its own cuts (the rectilinear grid's
//! reason to exist); a file's padded last block is rescued as a byte prefix or patched when the
//! rules allow (see [`crate::rules::padded`]).

use super::place::{base_plan, inline_coord, push_block};
use crate::fix::Target;
use crate::rules::padded::{cut_axis, own_axis, rechunk_fix, AxisCut};
use crate::rules::{grid::validate, masks::check_masks_or_patch};
use crate::{ArrayPlan, Finding, FindingKind, Severity};
use vzplan_core::{
    ArrayLayout, AxisEdges, ChunkData, ChunkList, DataRef, KeyRef, Move, SourceLayout,
};

/// Files concatenated along axis `k`, each contributing its own cuts.
pub(crate) fn concatenated(
    path: &str,
    k: usize,
    present: &[(usize, &ArrayLayout)],
    layouts: &[SourceLayout],
    tables: &mut [ChunkList],
    patch: bool,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let a0 = present[0].1;
    let total: u64 = present.iter().map(|(_, a)| a.shape[k]).sum();

    // Coordinates with values in every file: one inline chunk of the concatenated values.
    if a0.shape.len() == 1 && present.iter().all(|(_, a)| a.values.is_some()) {
        let n = present
            .iter()
            .map(|(_, a)| a.values.as_ref().map_or(0, Vec::len))
            .sum();
        let mut v = Vec::with_capacity(n);
        for (_, a) in present {
            v.extend_from_slice(a.values.as_deref().unwrap_or(&[]));
        }
        return Some(inline_coord(path, a0, v, total, present.len()));
    }

    let mut p = base_plan(path, a0);
    p.shape[k] = total;
    p.files = present.len();
    // Sized once: no doubling of millions of references.
    let n = present.iter().map(|&(src, _)| tables[src].len()).sum();
    p.chunks = ChunkList::with_capacity(p.shape.len(), n);
    let mut along = AxisEdges::default();
    let mut ok = true;
    let last_file = present.len() - 1;
    for (f, &(src, a)) in present.iter().enumerate() {
        let part = FilePart {
            path,
            src,
            url: &layouts[src].url,
            target: Target {
                url: &layouts[src].url,
                rewriter: layouts[src].rewriter,
            },
            a,
            k,
            last: f == last_file,
            patch,
        };
        let entries = std::mem::take(&mut tables[src]);
        match part.place(entries, &mut p, along.count(), findings) {
            Some(edges) => along.extend(&edges),
            None => ok = false,
        }
    }
    if !ok {
        return None;
    }
    for i in 0..a0.shape.len() {
        if i == k {
            p.edges.push(if along.is_empty() {
                AxisEdges::from(vec![1])
            } else {
                along.clone()
            });
            continue;
        }
        p.edges.push(own_axis(a0, i));
    }
    validate(&p, findings).then_some(p)
}

/// One file's share of a concatenated array.
struct FilePart<'a> {
    path: &'a str,
    src: usize,
    url: &'a str,
    /// The file, for fixes.
    target: Target<'a>,
    a: &'a ArrayLayout,
    /// The concat axis.
    k: usize,
    /// The file is the last along the axis, so its last block may overhang.
    last: bool,
    patch: bool,
}

impl FilePart<'_> {
    /// Places the file's blocks at `offset` chunks along the axis; returns the edges it adds, or
    /// `None` (with an error finding) when it cannot be placed.
    fn place(
        &self,
        entries: ChunkList,
        p: &mut ArrayPlan,
        offset: u64,
        findings: &mut Vec<Finding>,
    ) -> Option<AxisEdges> {
        if !check_masks_or_patch(self.path, self.url, &entries, self.patch, findings) {
            return None;
        }
        let (n, b) = (self.a.shape[self.k], self.a.chunks.block[self.k]);
        match cut_axis(n, b, self.a.chunks.edges, self.last) {
            AxisCut::Edges(edges) => {
                self.push_all(entries, p, offset, edges.count(), None);
                Some(edges)
            }
            AxisCut::NeedsPrefix(edges, r) => {
                self.padded_tail(entries, p, offset, edges, r, findings)
            }
        }
    }

    /// Pushes every block inside the file's extent; with `keep_last`, the last block along the
    /// axis keeps only that many rows (a patch).
    fn push_all(
        &self,
        entries: ChunkList,
        p: &mut ArrayPlan,
        offset: u64,
        nblocks: u64,
        keep_last: Option<u64>,
    ) {
        let grid = self.a.chunks.grid_shape(&self.a.shape);
        if keep_last.is_none() && entries.is_plain() && self.k < grid.len() {
            // No patch to record: the columns are appended as they are, the index moved.
            let mut limits = grid.clone();
            limits[self.k] = nblocks;
            let m = Move {
                source: self.src,
                lead: None,
                axis: self.k,
                shift: offset,
                limits: &limits,
            };
            p.chunks.extend_moved(&entries, &m);
            return;
        }
        let block = &self.a.chunks.block;
        let mut key = Vec::with_capacity(grid.len());
        for e in &entries {
            let last = e.index.get(self.k) == Some(nblocks - 1);
            if !concat_key(e.index, self.k, offset, nblocks, &grid, &mut key) {
                continue;
            }
            let keep = keep_last.filter(|_| last).map(|r| {
                let mut keep = block.clone();
                keep[self.k] = r;
                keep
            });
            let src = entries.source_or(&e, self.src);
            push_block(p, &key, src, e.data, e.filter_mask, block, keep);
        }
    }

    /// The file's last block along the axis holds `r` rows and is stored padded, yet another file
    /// follows: referenced as a byte prefix when unfiltered along axis 0, patched with `--patch`,
    /// else an error.
    fn padded_tail(
        &self,
        entries: ChunkList,
        p: &mut ArrayPlan,
        offset: u64,
        edges: AxisEdges,
        r: u64,
        findings: &mut Vec<Finding>,
    ) -> Option<AxisEdges> {
        let (a, k, path, url) = (self.a, self.k, self.path, self.url);
        let dim = &a.dims[k].name;
        let (n, b) = (a.shape[k], a.chunks.block[k]);
        let nblocks = edges.count();
        let full = a.block_bytes();
        let rescuable = k == 0
            && a.codecs.is_empty()
            && entries
                .iter()
                .filter(|e| e.index.get(k) == Some(nblocks - 1))
                .all(|e| match e.data {
                    DataRef::Ref { length, .. } => length == full,
                    DataRef::Inline(d) => d.len() as u64 == full,
                });
        if !rescuable && self.patch {
            // Repair: decode the padded blocks, keep their first r rows, re-encode inline.
            findings.push(
                Finding::new(
                    FindingKind::Patched,
                    Severity::Info,
                    format!(
                        "last chunk along {dim} holds {r} of {b} rows and is stored padded: its first {r} rows re-encoded inline"
                    ),
                )
                .file(url)
                .array(path)
                .at(format!("chunk {} along {dim}", nblocks - 1)),
            );
            self.push_all(entries, p, offset, nblocks, Some(r));
            return Some(edges);
        }
        if !rescuable {
            let why = if !a.codecs.is_empty() {
                "it is compressed, so its first rows cannot be cut out"
            } else if k != 0 {
                "the padding is not along the first axis, so the rows are not a byte prefix"
            } else {
                "its stored size is not a whole block"
            };
            findings.push(
                Finding::error(
                    FindingKind::PaddedInteriorChunk,
                    format!(
                        "last chunk along {dim} holds {r} of {b} rows and is stored padded; it would sit in the middle of the combined array, and {why}"
                    ),
                )
                .file(url)
                .array(path)
                .at(format!("{dim} {}..{} of the file, chunk {} along {dim}", n - r, n, nblocks - 1))
                .fix(format!("pass --patch to re-encode it inline, or {}", rechunk_fix(self.target, a, k, n))),
            );
            return None;
        }
        // Rescue: an unfiltered block padded along axis 0 holds its first r rows as a prefix.
        let row_bytes: u64 = a.chunks.block[1..].iter().product::<u64>() * a.dtype.size as u64;
        let cut = r * row_bytes;
        findings.push(
            Finding::new(
                FindingKind::RescuedPrefix,
                Severity::Info,
                format!(
                    "last chunk along {dim} holds {r} of {b} rows, stored padded but unfiltered: referenced as its first {cut} bytes"
                ),
            )
            .file(url)
            .array(path)
            .at(format!("chunk {} along {dim}", nblocks - 1)),
        );
        let grid = a.chunks.grid_shape(&a.shape);
        let mut key = Vec::with_capacity(grid.len());
        for e in &entries {
            let last = e.index.get(k) == Some(nblocks - 1);
            if !concat_key(e.index, k, offset, nblocks, &grid, &mut key) {
                continue;
            }
            let data = match e.data {
                DataRef::Ref { offset, .. } if last => ChunkData::Ref {
                    offset,
                    length: cut,
                },
                DataRef::Inline(d) if last => {
                    ChunkData::Inline(d[..d.len().min(cut as usize)].to_vec())
                }
                data => data.to_owned(),
            };
            p.chunks
                .push(&key, entries.source_or(&e, self.src), data, 0);
        }
        Some(edges)
    }
}

/// Writes the combined grid key of a file's block into `key`; false for a block outside the
/// file's extent. `grid` is the file's own block grid shape.
fn concat_key(
    index: KeyRef<'_>,
    k: usize,
    offset: u64,
    nblocks: u64,
    grid: &[u64],
    key: &mut Vec<u64>,
) -> bool {
    key.clear();
    if index.len() != grid.len() {
        return false;
    }
    for (i, (ix, &g)) in index.iter().zip(grid).enumerate() {
        if i == k {
            if ix >= nblocks {
                return false;
            }
            key.push(ix + offset);
        } else if ix >= g {
            return false;
        } else {
            key.push(ix);
        }
    }
    true
}
