//! Group membership, HDF5 spec IV.A.2.g/c/r and III.A.1/III.B: symbol-table groups (v1 B-tree of
//! type 0 → `SNOD` symbol nodes, names in a local heap), compact link messages, and dense links
//! (fractal heap + v2 B-tree of type 5, or type 6 when creation order is indexed).
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::ctx::Ctx;
use crate::ctx::HashSet;
use crate::error::{Error, Result};
use crate::fheap::FractalHeap;
use crate::heap::LocalHeap;
use crate::messages::{self as m, Link, Target};
use crate::ohdr::ObjHeader;

/// Symbol table entries per group node cap and B-tree nodes per group cap (corrupt files).
const MAX_NODES: usize = 100_000;

/// The links of a group (hard, soft, external), in the order netCDF-C iterates them: creation
/// order when the group tracks it, name order otherwise.
pub fn links(ctx: &Ctx, oh: &ObjHeader) -> Result<Vec<Link>> {
    let mut out = Vec::new();
    let mut by_corder = false;
    if let Some(st) = oh.first(m::SYMBOL_TABLE) {
        let mut c = ctx.cur(st.data);
        let btree = c.offset()?;
        let heap = c.offset()?;
        out = symbol_table(ctx, btree, heap)?;
    }
    out.reserve(oh.all(m::LINK).count());
    for msg in oh.all(m::LINK) {
        out.push(m::link(&mut ctx.cur(msg.data))?);
    }
    if let Some(li) = oh.first(m::LINK_INFO) {
        let info = m::link_info(&mut ctx.cur(li.data))?;
        by_corder = info.corder_tracked;
        if !ctx.is_undef(info.heap) && !ctx.is_undef(info.name_btree) {
            out.extend(dense(ctx, &info)?);
        }
    }
    if by_corder && out.iter().all(|l| l.corder.is_some()) {
        out.sort_by_key(|l| l.corder);
    } else {
        out.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    }
    Ok(out)
}

fn dense(ctx: &Ctx, info: &m::LinkInfo) -> Result<Vec<Link>> {
    crate::fheap::prefetch_dense(ctx, info.heap, info.name_btree);
    let heap = FractalHeap::open(ctx, info.heap)?;
    let (rtype, recs) = crate::idx::records(ctx, info.name_btree)?;
    // Type 5 record: name hash (4 bytes), heap ID. Type 6: creation order (8 bytes), heap ID.
    let skip = match rtype {
        5 => 4,
        6 => 8,
        t => {
            return Err(Error::malformed(format!(
                "link name index is a v2 B-tree of type {t}"
            )))
        }
    };
    let mut out = Vec::with_capacity(recs.len());
    for rec in recs {
        let id = rec
            .get(skip..)
            .ok_or_else(|| Error::malformed("short link index record"))?;
        let id = &id[..id.len().min(heap.id_len())];
        let body = heap.get(ctx, id)?;
        out.push(m::link(&mut ctx.cur(&body))?);
    }
    Ok(out)
}

fn symbol_table(ctx: &Ctx, btree: u64, heap: u64) -> Result<Vec<Link>> {
    let names = LocalHeap::read(ctx, heap)?;
    let mut out = Vec::new();
    let mut seen = HashSet::default();
    let mut stack = vec![btree];
    let so = ctx.so as u64;
    let sl = ctx.sl as u64;
    while let Some(addr) = stack.pop() {
        if !seen.insert(addr) || seen.len() > MAX_NODES {
            return Err(Error::malformed(format!(
                "group B-tree revisits node {addr:#x} or is too large"
            )));
        }
        let head = ctx.read(addr, 8 + 2 * so)?;
        let mut c = ctx.cur(&head);
        c.sig(b"TREE")?;
        let ntype = c.u8()?;
        if ntype != 0 {
            return Err(Error::malformed(format!(
                "group B-tree node of type {ntype}"
            )));
        }
        let level = c.u8()?;
        let used = c.u16()? as u64;
        let body = ctx.read(addr + 8 + 2 * so, used * (so + sl) + sl)?;
        let mut c = ctx.cur(&body);
        let mut children = Vec::with_capacity(used as usize);
        for _ in 0..used {
            c.length()?; // key: heap offset of the largest name in the child
            children.push(c.offset()?);
        }
        if level > 0 {
            // Depth-first in key order: push reversed so the leftmost child pops first.
            stack.extend(children.into_iter().rev());
        } else {
            for snod in children {
                out.extend(symbol_node(ctx, snod, &names)?);
            }
        }
    }
    Ok(out)
}

fn symbol_node(ctx: &Ctx, addr: u64, names: &LocalHeap) -> Result<Vec<Link>> {
    let head = ctx.read(addr, 8)?;
    let mut c = ctx.cur(&head);
    c.sig(b"SNOD")?;
    let v = c.u8()?;
    if v != 1 {
        return Err(Error::malformed(format!("symbol table node version {v}")));
    }
    c.skip(1)?;
    let n = c.u16()? as u64;
    let esize = 2 * ctx.so as u64 + 24;
    let body = ctx.read(addr + 8, n * esize)?;
    let mut c = ctx.cur(&body);
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let name_off = c.offset()?;
        let ohdr = c.offset()?;
        let cache = c.u32()?;
        c.skip(4)?; // reserved
        let scratch = c.bytes(16)?;
        // Cache type 2: a soft link, whose value sits in the local heap at the offset the
        // scratch pad's first four bytes give (III.C, "Symbol Table Entry").
        let target = match cache {
            2 => {
                let at = u32::from_le_bytes([scratch[0], scratch[1], scratch[2], scratch[3]]);
                Target::Soft(names.name(u64::from(at))?)
            }
            _ => Target::Hard(ohdr),
        };
        out.push(Link {
            name: names.name(name_off)?,
            corder: None,
            target,
        });
    }
    Ok(out)
}
