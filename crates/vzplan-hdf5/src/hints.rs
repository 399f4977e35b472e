//! What reading an object will ask for, as far as its object header tells before the object is
//! read: the root of its chunk index, the values of a small 1-D contiguous dataset (a coordinate
//! variable's), the global heap collections its variable-length attributes point into. The group
//! walk asks for these of a whole window of children in one batch ([`crate::ctx::Ctx::prefetch`]),
//! together with the continuation blocks of their headers, so that on object storage they cost
//! one round trip between them instead of one each, one after another.
//!
//! Hints only: nothing here fails, a message that does not parse gives no hint, and the readers
//! that follow check everything again.

use crate::coords::MAX_VALUES;
use crate::ctx::Ctx;
use crate::messages::{self as m, Layout};
use crate::ohdr::ObjHeader;
use crate::types::Datatype;

/// Bytes asked for at a global heap collection: the least a collection takes (III.E), which
/// holds the object references of a netCDF-4 file's `DIMENSION_LIST`s.
const COLLECTION: u64 = 4096;

/// Collections hinted per header: a variable's attributes point into one or two.
const MAX_COLLECTIONS: usize = 16;

/// Appends to `out` the ranges reading the object of `oh` will need first (see the module).
pub(crate) fn ranges(ctx: &Ctx, oh: &ObjHeader, out: &mut Vec<(u64, u64)>) {
    if let Some(r) = crate::chunks::index_start(ctx, oh) {
        out.push(r);
    }
    if let Some(r) = small_values(ctx, oh) {
        out.push(r);
    }
    collections(ctx, oh, out);
}

/// The stored values of a 1-D contiguous dataset small enough for `crate::coords` to decode:
/// a coordinate variable's values, read right after its header.
fn small_values(ctx: &Ctx, oh: &ObjHeader) -> Option<(u64, u64)> {
    let space = oh.first(m::DATASPACE).filter(|s| !s.is_shared())?;
    let space = m::dataspace(&mut ctx.cur(space.data)).ok()?;
    if space.dims.len() != 1 {
        return None;
    }
    let lay = oh.first(m::LAYOUT).filter(|l| !l.is_shared())?;
    match m::layout(&mut ctx.cur(lay.data)).ok()? {
        Layout::Contiguous {
            addr,
            size: Some(size),
        } if size > 0 && size <= MAX_VALUES && !ctx.is_undef(addr) => Some((addr, size)),
        _ => None,
    }
}

/// The global heap collections the variable-length values of `oh`'s (compact, unshared)
/// attributes point into.
fn collections(ctx: &Ctx, oh: &ObjHeader, out: &mut Vec<(u64, u64)>) {
    let mut found: smallvec::SmallVec<[u64; 4]> = smallvec::SmallVec::new();
    for msg in oh.all(m::ATTRIBUTE).filter(|a| !a.is_shared()) {
        let Ok(a) = m::attribute(ctx, msg.data) else {
            continue;
        };
        if !matches!(a.dtype, Datatype::VlenStr | Datatype::VlenSeq(_)) || a.elem_size == 0 {
            continue;
        }
        // Each element: length (4), collection address, object index (4).
        for elem in a.data.chunks_exact(a.elem_size as usize) {
            let mut c = ctx.cur(elem);
            let (Ok(len), Ok(addr)) = (c.u32(), c.offset()) else {
                break;
            };
            if len == 0 || addr == 0 || ctx.is_undef(addr) || found.contains(&addr) {
                continue;
            }
            if found.len() >= MAX_COLLECTIONS {
                break;
            }
            found.push(addr);
        }
    }
    out.extend(found.into_iter().map(|a| (a, COLLECTION)));
}
