//! Version 2 B-trees (HDF5 format spec III.A.2, "Disk Format: Level 1A2 - Version 2 B-trees"):
//! a `BTHD` header, `BTIN` internal nodes and `BTLF` leaf nodes, each with a lookup3 checksum.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! [`records`] returns the raw records of any record type in key order (an in-order walk:
//! child 0, record 0, child 1, …). Callers decode the record bytes themselves: chunk indexes use
//! types 10/11 (`crate::chunks`), dense link storage types 5/6, dense attribute storage 8/9.
//!
//! The width of the per-child record counts is not stored; it is derived from the node size the
//! way the spec describes ("the least number of bytes required to encode the maximum number of
//! records"): leaf capacity = (node size − 10) / record size; each internal level's capacity uses
//! a pointer triplet of address + record-count width (from the leaf capacity, the largest) +
//! cumulative-count width of the level below (absent just above the leaves).

use crate::chunks::checksum;
use crate::ctx::HashSet;
use crate::ctx::{bytes_needed, Ctx, Cur};
use crate::error::{Error, Result};

/// Signature, version, type and checksum of every node.
const NODE_OVERHEAD: u64 = 10;
/// Depth beyond which a tree is treated as corrupt (a real tree of depth 16 with the minimum
/// fan-out of 2 would already hold 65536 records per root pointer).
const MAX_DEPTH: u16 = 32;

/// The fields of a `BTHD` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub record_type: u8,
    pub node_size: u32,
    pub record_size: u16,
    pub depth: u16,
    pub root: u64,
    pub root_records: u16,
    pub total_records: u64,
}

/// Bytes of the `BTHD` header, checksum included.
pub fn header_len(so: u64, sl: u64) -> u64 {
    4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + so + 2 + sl + 4
}

/// Reads and checks the `BTHD` header at `addr`.
pub fn header(ctx: &Ctx, addr: u64) -> Result<Header> {
    let buf = ctx.read(addr, header_len(ctx.so as u64, ctx.sl as u64))?;
    let mut c = ctx.cur(&buf);
    c.sig(b"BTHD")?;
    let version = c.u8()?;
    if version != 0 {
        return Err(Error::unsupported(format!(
            "v2 B-tree header version {version}"
        )));
    }
    let record_type = c.u8()?;
    let node_size = c.u32()?;
    let record_size = c.u16()?;
    let depth = c.u16()?;
    c.skip(2)?; // split and merge percentages: only matter when writing
    let root = c.offset()?;
    let root_records = c.u16()?;
    let total_records = c.length()?;
    checksum::verify(&buf, c.pos(), "v2 B-tree header")?;
    if record_size == 0 || u64::from(node_size) <= NODE_OVERHEAD + u64::from(record_size) {
        return Err(Error::malformed(format!(
            "v2 B-tree: node size {node_size} cannot hold a record of {record_size} bytes"
        )));
    }
    if depth > MAX_DEPTH {
        return Err(Error::malformed(format!("v2 B-tree depth {depth}")));
    }
    Ok(Header {
        record_type,
        node_size,
        record_size,
        depth,
        root,
        root_records,
        total_records,
    })
}

/// Per-level capacities, indexed by node depth (0 = leaf).
struct Levels {
    /// Bytes of the "Number of Records in Child Node" field (same at every level).
    nrec_width: usize,
    /// Maximum records in one node of each depth.
    max_nrec: Vec<u64>,
    /// Bytes of the "Total Number of Records in Child Node" field of a pointer *to* a node of
    /// each depth (0 for leaves).
    cum_width: Vec<usize>,
}

impl Levels {
    fn new(h: &Header, so: u8) -> Result<Self> {
        let node = u64::from(h.node_size);
        let rec = u64::from(h.record_size);
        let leaf_max = (node - NODE_OVERHEAD) / rec;
        let nrec_width = bytes_needed(leaf_max);
        let mut max_nrec = vec![leaf_max];
        let mut cum_max = vec![leaf_max];
        let mut cum_width = vec![0usize];
        for d in 1..=usize::from(h.depth) {
            let ptr = so as u64 + nrec_width as u64 + cum_width[d - 1] as u64;
            let usable = node.checked_sub(NODE_OVERHEAD + ptr).ok_or_else(|| {
                Error::malformed(format!(
                    "v2 B-tree: node size {node} too small at depth {d}"
                ))
            })?;
            let n = usable / (rec + ptr);
            if n == 0 {
                return Err(Error::malformed(format!(
                    "v2 B-tree: internal nodes of {node} bytes hold no records"
                )));
            }
            let cum = n
                .saturating_add(1)
                .saturating_mul(cum_max[d - 1])
                .saturating_add(n);
            max_nrec.push(n);
            cum_max.push(cum);
            cum_width.push(bytes_needed(cum));
        }
        Ok(Levels {
            nrec_width,
            max_nrec,
            cum_width,
        })
    }
}

struct Walk<'c, 'a> {
    ctx: &'c Ctx<'a>,
    h: Header,
    lv: Levels,
    visited: HashSet<u64>,
    out: Vec<Vec<u8>>,
}

impl Walk<'_, '_> {
    fn node(&mut self, addr: u64, nrec: u64, depth: u16) -> Result<()> {
        if self.ctx.is_undef(addr) {
            return Err(Error::malformed("v2 B-tree: child pointer is undefined"));
        }
        if !self.visited.insert(addr) {
            return Err(Error::malformed(format!(
                "v2 B-tree: node {addr:#x} reached twice (cycle)"
            )));
        }
        let d = usize::from(depth);
        let max = self.lv.max_nrec.get(d).copied().unwrap_or(0);
        if nrec > max {
            return Err(Error::malformed(format!(
                "v2 B-tree: node {addr:#x} claims {nrec} records, capacity {max}"
            )));
        }
        let rec = u64::from(self.h.record_size);
        let recs_len = nrec * rec;
        let body = self.body_len(nrec, depth);
        let buf = self.ctx.read(addr, body + 4)?;
        let mut c = self.ctx.cur(&buf);
        c.sig(if depth == 0 { b"BTLF" } else { b"BTIN" })?;
        let version = c.u8()?;
        let rtype = c.u8()?;
        if version != 0 || rtype != self.h.record_type {
            return Err(Error::malformed(format!(
                "v2 B-tree node {addr:#x}: version {version}, type {rtype} (header type {})",
                self.h.record_type
            )));
        }
        checksum::verify(&buf, body as usize, "v2 B-tree node")?;
        let recs = c.bytes(recs_len as usize)?;
        let rec = rec as usize;
        if depth == 0 {
            self.out.extend(recs.chunks_exact(rec).map(<[u8]>::to_vec));
            return Ok(());
        }
        let children = self.children(&mut c, nrec, depth)?;
        for (i, (child, n)) in children.into_iter().enumerate() {
            self.node(child, n, depth - 1)?;
            if let Some(r) = recs.get(i * rec..(i + 1) * rec) {
                self.out.push(r.to_vec());
            }
        }
        Ok(())
    }
}

impl Walk<'_, '_> {
    /// Bytes of a node of `depth` holding `nrec` records, without its checksum. `nrec` is at
    /// most the depth's capacity, which is at most the node size: no overflow.
    fn body_len(&self, nrec: u64, depth: u16) -> u64 {
        let recs_len = nrec * u64::from(self.h.record_size);
        if depth == 0 {
            return 6 + recs_len;
        }
        let d = usize::from(depth);
        let ptr_len =
            self.ctx.so as u64 + self.lv.nrec_width as u64 + self.lv.cum_width[d - 1] as u64;
        6 + recs_len + (nrec + 1) * ptr_len
    }

    /// The child pointers (address, records) of an internal node, `c` past its records.
    fn children(&self, c: &mut Cur, nrec: u64, depth: u16) -> Result<Vec<(u64, u64)>> {
        let d = usize::from(depth);
        let mut children = Vec::with_capacity(nrec as usize + 1);
        for _ in 0..=nrec {
            let child = c.offset()?;
            let n = c.uint(self.lv.nrec_width)?;
            c.skip(self.lv.cum_width[d - 1])?;
            children.push((child, n));
        }
        Ok(children)
    }

    /// Reads the tree ahead of the walk, one batch per level ([`Ctx::prefetch`]), so that the
    /// walk's node reads are cache hits: on object storage a tree costs a round trip per level,
    /// not per node. Best effort: it stops at the first node it cannot parse (the walk then
    /// reports it), and it reads at most as many nodes as the file can hold.
    fn prefetch_levels(&self, root: u64, nrec: u64, depth: u16) {
        let max_nodes = self.ctx.r.size() / u64::from(self.h.node_size).max(1) + 1;
        let mut seen: HashSet<u64> = HashSet::default();
        let mut level = vec![(root, nrec)];
        for d in (1..=depth).rev() {
            let mut next = Vec::new();
            for &(addr, n) in &level {
                if n > self.lv.max_nrec[usize::from(d)] {
                    return;
                }
                let Ok(buf) = self.ctx.read(addr, self.body_len(n, d) + 4) else {
                    return;
                };
                let mut c = self.ctx.cur(&buf);
                let skip = 6 + n * u64::from(self.h.record_size);
                let Ok(ch) = c
                    .skip(skip as usize)
                    .and_then(|_| self.children(&mut c, n, d))
                else {
                    return;
                };
                next.extend(ch.into_iter().filter(|&(a, _)| seen.insert(a)));
                if next.len() as u64 > max_nodes {
                    return;
                }
            }
            let cap = self.lv.max_nrec[usize::from(d - 1)];
            let reqs: Vec<(u64, u64)> = next
                .iter()
                .filter(|&&(_, n)| n <= cap)
                .map(|&(a, n)| (a, self.body_len(n, d - 1) + 4))
                .collect();
            self.ctx.prefetch(&reqs);
            level = next;
        }
    }
}

/// All records of the v2 B-tree whose header is at `header_addr`, in key order, with the
/// tree's record type. Checksums are verified; cycles, impossible record counts and a total that
/// disagrees with the header are errors.
pub fn records(ctx: &Ctx, header_addr: u64) -> Result<(u8, Vec<Vec<u8>>)> {
    let h = header(ctx, header_addr)?;
    if ctx.is_undef(h.root) {
        return Ok((h.record_type, Vec::new()));
    }
    // Every record occupies record_size bytes of some node in the file.
    let max_total = ctx.r.size() / u64::from(h.record_size);
    if h.total_records > max_total {
        return Err(Error::malformed(format!(
            "v2 B-tree claims {} records; the file can hold at most {max_total}",
            h.total_records
        )));
    }
    let lv = Levels::new(&h, ctx.so)?;
    let rtype = h.record_type;
    let (root, nrec, depth, total) = (h.root, h.root_records, h.depth, h.total_records);
    let mut w = Walk {
        ctx,
        h,
        lv,
        visited: HashSet::default(),
        out: Vec::with_capacity(total as usize),
    };
    w.prefetch_levels(root, u64::from(nrec), depth);
    w.node(root, u64::from(nrec), depth)?;
    if w.out.len() as u64 != total {
        return Err(Error::malformed(format!(
            "v2 B-tree: header says {total} records, nodes hold {}",
            w.out.len()
        )));
    }
    Ok((rtype, w.out))
}
