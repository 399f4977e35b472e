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

/// The objects of one collection, by heap object index: slices of the collection's bytes (of the
/// reader's cached buffer where it can be), not copies. Many vlen elements may point at one large
/// object, and each look-up must not cost the object's size.
type Collection = Rc<HashMap<u16, bytes::Bytes>>;

/// Parsed global heap collections, cached by address (a file usually has one or a few).
#[derive(Default)]
pub struct GlobalHeaps {
    cols: RefCell<HashMap<u64, Collection>>,
}

impl GlobalHeaps {
    /// Object `index` of the collection at `addr`.
    pub fn get(&self, ctx: &Ctx, addr: u64, index: u32) -> Result<bytes::Bytes> {
        let col = self.collection(ctx, addr)?;
        let idx = u16::try_from(index)
            .map_err(|_| Error::malformed(format!("global heap index {index}")))?;
        col.get(&idx).cloned().ok_or_else(|| {
            Error::malformed(format!(
                "global heap object {index} missing from the collection at {addr:#x}"
            ))
        })
    }

    fn collection(&self, ctx: &Ctx, addr: u64) -> Result<Collection> {
        if let Some(c) = self.cols.borrow().get(&addr) {
            return Ok(c.clone());
        }
        if self.cols.borrow().len() > 4096 {
            return Err(Error::malformed("too many global heap collections"));
        }
        let head = ctx.read(addr, 8 + ctx.sl as u64)?;
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
        let mut objs = HashMap::default();
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
            objs.insert(index, buf.slice_ref(c.bytes(n)?));
            let aligned = c.pos().div_ceil(8) * 8;
            if aligned > buf.len() {
                break;
            }
            c.seek(aligned)?;
        }
        let rc = Rc::new(objs);
        self.cols.borrow_mut().insert(addr, rc.clone());
        Ok(rc)
    }
}
