//! Huge fractal heap objects (HDF5 spec III.G, heap ID type 1): objects larger than the heap's
//! largest managed object are stored on their own in the file. A heap ID wide enough holds the
//! object's address and length itself; otherwise (dense attribute storage uses 8-byte IDs) it
//! holds a key into the heap's v2 B-tree of huge objects (record type 1: address, length, key).
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::ctx::Ctx;
use crate::error::{Error, Result};

/// Largest huge object read (an attribute value; ASCAT's `_NCProperties` is 8 KiB).
const MAX_HUGE: u64 = 64 << 20;

pub fn get(ctx: &Ctx, btree: u64, filtered: bool, id_len: usize, id: &[u8]) -> Result<Vec<u8>> {
    if filtered {
        return Err(Error::unsupported(
            "huge fractal heap objects of a heap with I/O filters",
        ));
    }
    let (so, sl) = (ctx.so as usize, ctx.sl as usize);
    let body = id
        .get(1..)
        .ok_or_else(|| Error::malformed("empty heap ID"))?;
    let (addr, len) = if id_len > so + sl {
        // Direct: address and length in the ID (H5HF__huge_init: id_len - 1 >= so + sl).
        let mut c = ctx.cur(body);
        (c.offset()?, c.length()?)
    } else {
        let key_len = (id_len - 1).min(8);
        let key = ctx.cur(body).uint(key_len)?;
        lookup(ctx, btree, key)?
    };
    if len > MAX_HUGE {
        return Err(Error::unsupported(format!(
            "huge fractal heap object of {len} bytes"
        )));
    }
    ctx.read(addr, len)
}

/// The address and length of the huge object with `key`.
fn lookup(ctx: &Ctx, btree: u64, key: u64) -> Result<(u64, u64)> {
    if ctx.is_undef(btree) {
        return Err(Error::malformed(
            "huge heap object without a huge object B-tree",
        ));
    }
    let (rtype, recs) = crate::idx::records(ctx, btree)?;
    if rtype != 1 {
        return Err(Error::unsupported(format!(
            "huge fractal heap objects indexed by a v2 B-tree of type {rtype}"
        )));
    }
    for rec in recs {
        let mut c = ctx.cur(&rec);
        let (addr, len, k) = (c.offset()?, c.length()?, c.length()?);
        if k == key {
            return Ok((addr, len));
        }
    }
    Err(Error::malformed(format!(
        "huge heap object {key} not in its B-tree"
    )))
}
