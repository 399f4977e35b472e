//! Local heaps (HDF5 spec III.D, `HEAP`: names of symbol-table groups) and global heap
//! collections (III.E, `GCOL`: variable-length data such as vlen strings and the object
//! references of `DIMENSION_LIST`).
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::ctx::Ctx;
use crate::ctx::HashMap;
use crate::error::{Error, Result};
use std::cell::RefCell;
use std::rc::Rc;

/// The data segment of a local heap.
pub struct LocalHeap {
    data: Vec<u8>,
}

impl LocalHeap {
    pub fn read(ctx: &Ctx, addr: u64) -> Result<Self> {
        let head = ctx.read(addr, 8 + 2 * ctx.sl as u64 + ctx.so as u64)?;
        let mut c = ctx.cur(&head);
        c.sig(b"HEAP")?;
        let v = c.u8()?;
        if v != 0 {
            return Err(Error::malformed(format!("local heap version {v}")));
        }
        c.skip(3)?;
        let size = c.length()?;
        c.length()?; // free list head
        let data_addr = c.offset()?;
        // `read` checks the range against the file size before allocating.
        let data = ctx.read(data_addr, size)?;
        Ok(LocalHeap { data })
    }
    /// The null-terminated string at `offset` of the data segment.
    pub fn name(&self, offset: u64) -> Result<String> {
        let o = usize::try_from(offset)
            .ok()
            .filter(|&o| o < self.data.len())
            .ok_or_else(|| Error::malformed(format!("local heap offset {offset} out of range")))?;
        Ok(crate::messages::name_cstr(&self.data[o..]))
    }
}

/// One collection: its bytes (a slice of the reader's cached buffer where it can be) and where
/// each object lies in them, by heap object index (ascending; the last of a repeated index
/// wins). Objects are handed out as slices, not copies: many vlen elements may point at one
/// large object, and each look-up must not cost the object's size.
struct Collection {
    buf: bytes::Bytes,
    objs: Vec<(u16, (usize, usize))>,
}

/// Parsed global heap collections, cached by address (a file usually has one or a few).
#[derive(Default)]
pub struct GlobalHeaps {
    cols: RefCell<HashMap<u64, Rc<Collection>>>,
}

impl GlobalHeaps {
    /// Object `index` of the collection at `addr`.
    pub fn get(&self, ctx: &Ctx, addr: u64, index: u32) -> Result<bytes::Bytes> {
        let col = self.collection(ctx, addr)?;
        let found = u16::try_from(index)
            .ok()
            .and_then(|i| col.objs.binary_search_by_key(&i, |o| o.0).ok());
        match found {
            Some(k) => {
                let (_, (at, len)) = col.objs[k];
                Ok(col.buf.slice(at..at + len))
            }
            None => Err(Error::malformed(format!(
                "global heap object {index} missing from the collection at {addr:#x}"
            ))),
        }
    }

    fn collection(&self, ctx: &Ctx, addr: u64) -> Result<Rc<Collection>> {
        if let Some(c) = self.cols.borrow().get(&addr) {
            return Ok(c.clone());
        }
        if self.cols.borrow().len() > 4096 {
            return Err(Error::malformed("too many global heap collections"));
        }
        let head = ctx.read_bytes(addr, 8 + ctx.sl as u64)?;
        let mut c = ctx.cur(&head);
        c.sig(b"GCOL")?;
        let v = c.u8()?;
        if v != 1 {
            return Err(Error::malformed(format!("global heap version {v}")));
        }
        c.skip(3)?;
        let size = c.length()?;
        let buf = ctx.read_bytes(addr, size)?;
        let mut c = ctx.cur(&buf);
        c.skip(8 + ctx.sl as usize)?;
        // A netCDF-4 file's collection holds a dozen or so objects (its DIMENSION_LISTs'):
        // room for them at once.
        let mut objs: Vec<(u16, (usize, usize))> = Vec::with_capacity(16);
        // Each object: index (2), reference count (2), reserved (4), size (L), data padded to 8.
        while c.remaining() >= 8 + ctx.sl as usize {
            let index = c.u16()?;
            if index == 0 {
                break; // free space: the rest of the collection
            }
            c.skip(6)?;
            let osize = c.length()?;
            let n = usize::try_from(osize)
                .ok()
                .filter(|&n| n <= c.remaining())
                .ok_or_else(|| Error::malformed("global heap object larger than its collection"))?;
            objs.push((index, (c.pos(), n)));
            c.skip(n)?;
            let aligned = c.pos().div_ceil(8) * 8;
            if aligned > buf.len() {
                break;
            }
            c.seek(aligned)?;
        }
        by_index(&mut objs);
        let objs = Collection { buf, objs };
        let rc = Rc::new(objs);
        self.cols.borrow_mut().insert(addr, rc.clone());
        Ok(rc)
    }
}

/// Sorts objects by index, keeping the last of a repeated index (as inserting them into a map
/// in file order would); a collection in index order, the usual case, is left as it is.
fn by_index<T>(objs: &mut Vec<(u16, T)>) {
    if objs.windows(2).all(|w| w[0].0 < w[1].0) {
        return;
    }
    // By index, the last of equal ones first, so that dedup keeps it.
    objs.sort_by_key(|o| o.0);
    objs.reverse();
    objs.dedup_by_key(|o| o.0);
    objs.reverse();
}

#[cfg(test)]
mod tests {
    #[test]
    fn by_index_sorts_and_keeps_the_last_of_a_repeated_index() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        super::by_index(&mut v);
        assert_eq!(v, [(1, 'e'), (2, 'd'), (3, 'c')]);
        let mut v = vec![(1, 'a'), (2, 'b'), (5, 'c')];
        super::by_index(&mut v);
        assert_eq!(v, [(1, 'a'), (2, 'b'), (5, 'c')]);
    }
}
