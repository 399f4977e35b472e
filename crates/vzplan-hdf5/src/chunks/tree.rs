//! Tree-shaped chunk indexes: the version 1 B-tree of node type 1 (format spec III.A.1, used with
//! layout messages v1–v3) and the version 2 B-tree with record types 10/11 (III.A.2 and VII.E).
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! v1 B-tree chunk keys are "Size of chunk in bytes" (4), "Filter mask" (4) and D+1 64-bit
//! *element* offsets, the last (the datatype dimension) always 0; key i is the least chunk of
//! child i, and level-0 children are chunk addresses. v2 B-tree records are `Address`,
//! [`Chunk Size`, `Filter Mask` (4)] (type 11 only), then one 8-byte *scaled* offset per dimension
//! (element offset / chunk dimension).

use super::{finish, scaled_to_offset, Geometry, RawChunk};
use crate::btree2;
use crate::ctx::Ctx;
use crate::ctx::HashSet;
use crate::error::{Error, Result};

/// Levels beyond this are corrupt: with 2K ≥ 2 children per node, 64 levels exceed any file.
const MAX_LEVEL: u8 = 64;
/// Entries per node assumed for the first (speculative) read: 2K with the default K = 32.
const DEFAULT_ENTRIES: u64 = 64;

/// Bytes read speculatively at a node of a chunk B-tree over `rank` dimensions: the node header,
/// then 2K entries (a key of `8 + 8 * (rank + 1)` bytes and a child address each) and the last key.
pub(super) fn first_read(so: u64, rank: u64) -> u64 {
    let key_len = 8 + 8 * (rank + 1);
    8 + 2 * so + DEFAULT_ENTRIES * (key_len + so) + key_len
}

struct V1<'c, 'a> {
    ctx: &'c Ctx<'a>,
    geo: &'c Geometry,
    key_len: u64,
    visited: HashSet<u64>,
    out: Vec<RawChunk>,
}

impl V1<'_, '_> {
    /// Reads one level of the tree: every node of it in one batch, then the next level.
    fn level(&mut self, addrs: Vec<u64>, want_level: Option<u8>) -> Result<()> {
        if addrs.is_empty() {
            return Ok(());
        }
        for &addr in &addrs {
            if !self.visited.insert(addr) {
                return Err(Error::malformed(format!(
                    "v1 B-tree: node {addr:#x} reached twice (cycle)"
                )));
            }
        }
        let so = self.ctx.so as u64;
        let head = 8 + 2 * so;
        let entry = self.key_len + so;
        // The size `index_start` hinted at: one formula for both.
        let guess = first_read(so, self.key_len / 8 - 2);
        let reqs: Vec<(u64, u64)> = addrs.iter().map(|&a| (a, guess)).collect();
        let bufs = self.ctx.read_many_upto(&reqs)?;
        // Room for the chunks of this level's leaves at once, as many as their bytes can hold.
        let leaf_entries: usize = bufs
            .iter()
            .filter(|b| b.get(5) == Some(&0))
            .map(|b| match b.get(6..8) {
                Some(&[lo, hi]) => {
                    usize::from(u16::from_le_bytes([lo, hi])).min(b.len() / entry as usize)
                }
                _ => 0,
            })
            .sum();
        self.out.reserve(leaf_entries);
        let mut next = Vec::new();
        let mut next_level = None;
        for (&addr, buf) in addrs.iter().zip(bufs) {
            let (level, children) = self.node(addr, buf, want_level, head, entry)?;
            if level > 0 {
                next_level = Some(level - 1);
                next.extend(children);
            }
        }
        match next_level {
            Some(l) => self.level(next, Some(l)),
            None => Ok(()),
        }
    }

    /// Parses one node (re-reading it whole if the speculative read was short); returns its
    /// level and, for an internal node, its children.
    fn node(
        &mut self,
        addr: u64,
        mut buf: bytes::Bytes,
        want_level: Option<u8>,
        head: u64,
        entry: u64,
    ) -> Result<(u8, Vec<u64>)> {
        let mut c = self.ctx.cur(&buf);
        c.sig(b"TREE")?;
        let (ntype, level, used) = (c.u8()?, c.u8()?, u64::from(c.u16()?));
        if ntype != 1 {
            return Err(Error::malformed(format!(
                "v1 B-tree node {addr:#x} has type {ntype}, expected 1 (chunks)"
            )));
        }
        if level > MAX_LEVEL || want_level.is_some_and(|w| w != level) {
            return Err(Error::malformed(format!(
                "v1 B-tree node {addr:#x} at level {level}, expected {want_level:?}"
            )));
        }
        let need = head + used * entry + self.key_len;
        if (buf.len() as u64) < need {
            buf = self.ctx.read_bytes(addr, need)?;
        }
        let mut c = self.ctx.cur(&buf);
        c.seek(head as usize)?;
        let rank = self.geo.shape.len();
        let mut children = Vec::with_capacity(used as usize);
        // All entries in one bounds check, then fixed fields of each: a key is size (4), filter
        // mask (4), rank + 1 element offsets (8 each); then the child's address.
        let key_len = self.key_len as usize;
        let entries = c.bytes((used * entry) as usize)?;
        for e in entries.chunks_exact(entry as usize) {
            let word = |i: usize| u64::from_le_bytes(e[i..i + 8].try_into().unwrap_or_default());
            let size = u64::from(u32::from_le_bytes(e[..4].try_into().unwrap_or_default()));
            let mask = u32::from_le_bytes(e[4..8].try_into().unwrap_or_default());
            let child = self.ctx.cur(&e[key_len..]).offset()?;
            if level == 0 {
                if word(8 + 8 * rank) != 0 {
                    return Err(Error::malformed(format!(
                        "v1 B-tree key at {addr:#x}: datatype offset {}, expected 0",
                        word(8 + 8 * rank)
                    )));
                }
                let offset = super::offset_from(rank, |d| word(8 + 8 * d));
                if offset.iter().zip(&self.geo.chunk).any(|(o, c)| o % c != 0) {
                    return Err(Error::malformed(format!(
                        "v1 B-tree key {offset:?} is not on a chunk boundary"
                    )));
                }
                if !self.ctx.is_undef(child) {
                    self.out.push(RawChunk {
                        offset,
                        addr: child,
                        size,
                        filter_mask: mask,
                    });
                }
            } else {
                children.push(child);
            }
        }
        Ok((level, children))
    }
}

/// Nodes looked at by one [`prefetch_levels`]: beyond this, the walks read the rest themselves.
const MAX_HINTED_NODES: usize = 16_384;
/// Bytes one [`prefetch_levels`] asks for at most: far below the block cache's budget, so that
/// what it fetches is still cached when the walks come (a level of huge indexes is left to them).
const MAX_HINTED_BYTES: u64 = 16 << 20;

/// Hint: the inner levels of several v1 B-trees (the chunk indexes of a window of datasets,
/// their roots already fetched) asked for together, one batch per level across all of them, so
/// that the walks that follow find their nodes cached: on object storage a window of datasets
/// with two-level indexes costs one more round trip, not one per dataset. `roots`: each root's
/// address and its dataset's rank. Nothing here fails: a node that does not parse, or is larger
/// than the bytes fetched for it, gives no hint, and the walks check everything again.
pub(crate) fn prefetch_levels(ctx: &Ctx, roots: &[(u64, u64)]) {
    let so = ctx.so as u64;
    let mut level: Vec<(u64, u64)> = roots.to_vec();
    let mut seen: HashSet<u64> = HashSet::default();
    let mut bytes = 0u64;
    for _ in 0..MAX_LEVEL {
        let mut next: Vec<(u64, u64)> = Vec::new();
        for &(addr, rank) in &level {
            if seen.len() >= MAX_HINTED_NODES || !seen.insert(addr) {
                continue;
            }
            next.extend(
                inner_children(ctx, addr, rank)
                    .into_iter()
                    .map(|c| (c, rank)),
            );
        }
        if next.is_empty() {
            return;
        }
        let reqs: Vec<(u64, u64)> = next.iter().map(|&(a, r)| (a, first_read(so, r))).collect();
        bytes = bytes.saturating_add(reqs.iter().map(|r| r.1).sum::<u64>());
        if bytes > MAX_HINTED_BYTES {
            return;
        }
        ctx.prefetch(&reqs);
        level = next;
    }
}

/// The children of the inner v1 B-tree node at `addr`, read from the bytes fetched for it (none
/// for a leaf, or for a node that does not parse or is larger than those bytes).
fn inner_children(ctx: &Ctx, addr: u64, rank: u64) -> Vec<u64> {
    let so = ctx.so as u64;
    let Ok(head) = ctx.read_upto(addr, 8) else {
        return Vec::new();
    };
    let mut c = ctx.cur(&head);
    let parsed = (|| {
        Some((
            c.sig(b"TREE").ok(),
            c.u8().ok()?,
            c.u8().ok()?,
            c.u16().ok()?,
        ))
    })();
    let Some((Some(()), 1, level, used)) = parsed else {
        return Vec::new();
    };
    let key_len = 8 + 8 * (rank + 1);
    let entry = key_len + so;
    let start = 8 + 2 * so;
    let need = start + u64::from(used) * entry + key_len;
    if level == 0 || need > first_read(so, rank) {
        return Vec::new();
    }
    let Ok(buf) = ctx.read_upto(addr, need) else {
        return Vec::new();
    };
    (0..u64::from(used))
        .map_while(|i| {
            let at = usize::try_from(start + i * entry + key_len).ok()?;
            ctx.cur(buf.get(at..)?).offset().ok()
        })
        .filter(|&a| !ctx.is_undef(a))
        .collect()
}

/// All chunks of the v1 B-tree (node type 1) whose root node is at `addr`.
pub fn btree1_chunks(ctx: &Ctx, addr: u64, geo: &Geometry) -> Result<Vec<RawChunk>> {
    geo.check()?;
    if ctx.is_undef(addr) {
        return Ok(Vec::new());
    }
    let mut w = V1 {
        ctx,
        geo,
        key_len: 8 + 8 * (geo.shape.len() as u64 + 1),
        visited: HashSet::default(),
        out: Vec::new(),
    };
    w.level(vec![addr], None)?;
    let out = std::mem::take(&mut w.out);
    finish(ctx, geo, out)
}

/// All chunks of the v2 B-tree (record type 10 unfiltered / 11 filtered) whose header is at
/// `header_addr`.
pub fn btree2_chunks(ctx: &Ctx, header_addr: u64, geo: &Geometry) -> Result<Vec<RawChunk>> {
    geo.check()?;
    if ctx.is_undef(header_addr) {
        return Ok(Vec::new());
    }
    let (rtype, recs) = btree2::records(ctx, header_addr)?;
    let want = if geo.filtered { 11 } else { 10 };
    if rtype != want {
        return Err(Error::malformed(format!(
            "chunk v2 B-tree has record type {rtype}, expected {want} (filtered = {})",
            geo.filtered
        )));
    }
    let so = ctx.so as usize;
    let rank = geo.shape.len();
    let width = if geo.filtered {
        Some(geo.filtered_size_width(ctx.so)?)
    } else {
        None
    };
    let rec_len = so + width.map_or(0, |w| w + 4) + 8 * rank;
    let full = geo.chunk_bytes()?;
    let mut out = Vec::with_capacity(recs.len());
    for r in &recs {
        if r.len() != rec_len {
            return Err(Error::malformed(format!(
                "chunk v2 B-tree record of {} bytes, expected {rec_len} (layout v{})",
                r.len(),
                geo.layout_version
            )));
        }
        let mut c = ctx.cur(r);
        let (addr, size, mask) = super::decode_entry(&mut c, width, full)?;
        let mut scaled = Vec::with_capacity(rank);
        for _ in 0..rank {
            scaled.push(c.u64()?);
        }
        if !ctx.is_undef(addr) {
            out.push(RawChunk {
                offset: scaled_to_offset(&scaled, geo)?,
                addr,
                size,
                filter_mask: mask,
            });
        }
    }
    finish(ctx, geo, out)
}
