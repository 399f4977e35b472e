//! Fractal heaps (HDF5 spec III.G: header `FRHP`, direct blocks `FHDB`, indirect blocks `FHIB`),
//! read-only and by heap ID, for dense link and attribute storage.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! A managed object's ID holds its offset in the heap's linear address space and its length.
//! The address space is laid out by a "doubling table": `width` blocks per row, rows 0 and 1 of
//! the starting block size, each further row twice the previous one. Rows below
//! `max_dblock_rows` are direct blocks; the others are indirect blocks with their own rows.

use crate::ctx::{bytes_needed, Ctx};
use crate::error::{Error, Result};

pub struct FractalHeap {
    id_len: usize,
    has_filters: bool,
    checksum_direct: bool,
    width: u64,
    start_block: u64,
    max_direct: u64,
    max_heap_bits: u16,
    root: u64,
    root_rows: u64,
    off_size: usize,
    len_size: usize,
    /// v2 B-tree of huge objects (those larger than the heap's max managed object size).
    huge_btree: u64,
}

/// Bytes of the `FRHP` header up to its root block's row count (its checksum follows, unless
/// I/O filter information comes first).
pub fn header_len(so: u64, sl: u64) -> u64 {
    4 + 1 + 2 + 2 + 1 + 4 + sl + so + sl + so + 4 * sl + 4 * sl + 2 + 2 * sl + 2 + 2 + so + 2
}

/// The headers of a dense link or attribute store, its fractal heap's and its name index's,
/// asked for in one batch, then the heap's root direct block and the index's root node in the
/// next: each names where the next thing lies, and on object storage each batch is a round trip.
pub fn prefetch_dense(ctx: &Ctx, heap: u64, index: u64) {
    if !ctx.prefetches() {
        return;
    }
    let (so, sl) = (ctx.so as u64, ctx.sl as u64);
    ctx.prefetch(&[
        (heap, header_len(so, sl) + 4),
        (index, crate::btree2::header_len(so, sl)),
    ]);
    let root = FractalHeap::open(ctx, heap)
        .ok()
        .and_then(|h| h.root_direct_block(ctx));
    let node = crate::btree2::header(ctx, index)
        .ok()
        .filter(|h| !ctx.is_undef(h.root))
        .map(|h| (h.root, u64::from(h.node_size)));
    ctx.prefetch(&[root, node].into_iter().flatten().collect::<Vec<_>>());
}

fn log2(v: u64) -> u32 {
    63 - v.max(1).leading_zeros()
}

impl FractalHeap {
    pub fn open(ctx: &Ctx, addr: u64) -> Result<Self> {
        let len = header_len(ctx.so as u64, ctx.sl as u64);
        let buf = ctx.read(addr, len)?;
        let mut c = ctx.cur(&buf);
        c.sig(b"FRHP")?;
        let v = c.u8()?;
        if v != 0 {
            return Err(Error::malformed(format!("fractal heap version {v}")));
        }
        let id_len = c.u16()? as usize;
        let filter_len = c.u16()?;
        let flags = c.u8()?;
        let max_man = c.u32()? as u64;
        c.length()?; // next huge object id
        let huge_btree = c.offset()?;
        c.length()?; // free space in managed blocks
        c.offset()?; // free space manager
        for _ in 0..8 {
            c.length()?; // managed space, allocated, iterator offset, counts and sizes
        }
        let width = c.u16()? as u64;
        let start_block = c.length()?;
        let max_direct = c.length()?;
        let max_heap_bits = c.u16()?;
        c.u16()?; // starting rows of the root indirect block
        let root = c.offset()?;
        let root_rows = c.u16()? as u64;
        if filter_len == 0 {
            // Without I/O filter info, the header checksum follows directly.
            let at = c.pos();
            let full = ctx.read(addr, at as u64 + 4)?;
            crate::chunks::checksum::verify(&full, at, "fractal heap header")?;
        }
        if width == 0
            || width > 65_536
            || !start_block.is_power_of_two()
            || !max_direct.is_power_of_two()
            || max_direct < start_block
            || !(1..=64).contains(&max_heap_bits)
            || id_len == 0
            || id_len > 1024
        {
            return Err(Error::malformed("fractal heap header has impossible sizes"));
        }
        let off_size = (max_heap_bits as usize).div_ceil(8);
        // Length field: the smaller of the widths for the max direct block size and for the
        // max managed object size (library: H5HF_SIZEOF_OFFSET_LEN / H5VM_limit_enc_size).
        let dblk_len = (log2(max_direct) as usize).div_ceil(8);
        let man_len = (log2(max_man) / 8 + 1) as usize;
        let _ = bytes_needed;
        Ok(FractalHeap {
            id_len,
            has_filters: filter_len > 0,
            checksum_direct: flags & 0x02 != 0,
            width,
            start_block,
            max_direct,
            max_heap_bits,
            root,
            root_rows,
            off_size,
            len_size: dblk_len.min(man_len).max(1),
            huge_btree,
        })
    }

    pub fn id_len(&self) -> usize {
        self.id_len
    }

    /// The root block when it is a direct block (a small heap): its address and size.
    fn root_direct_block(&self, ctx: &Ctx) -> Option<(u64, u64)> {
        (self.root_rows == 0 && !ctx.is_undef(self.root)).then_some((self.root, self.start_block))
    }

    /// The object a heap ID names.
    pub fn get(&self, ctx: &Ctx, id: &[u8]) -> Result<Vec<u8>> {
        let b0 = *id
            .first()
            .ok_or_else(|| Error::malformed("empty heap ID"))?;
        if b0 >> 6 != 0 {
            return Err(Error::malformed(format!("heap ID version {}", b0 >> 6)));
        }
        match (b0 >> 4) & 3 {
            0 => {
                let mut c = ctx.cur(id);
                c.skip(1)?;
                let off = c.uint(self.off_size)?;
                let len = c.uint(self.len_size)?;
                self.managed(ctx, off, len)
            }
            1 => crate::fheap_huge::get(ctx, self.huge_btree, self.has_filters, self.id_len, id),
            2 => {
                // Tiny objects live in the ID itself.
                let (len, start) = if self.id_len <= 18 {
                    ((b0 & 0x0f) as usize + 1, 1)
                } else {
                    let b1 = *id.get(1).ok_or_else(|| Error::malformed("short heap ID"))?;
                    (((((b0 & 0x0f) as usize) << 8) | b1 as usize) + 1, 2)
                };
                id.get(start..start + len)
                    .map(|s| s.to_vec())
                    .ok_or_else(|| Error::malformed("tiny heap object longer than its ID"))
            }
            t => Err(Error::malformed(format!("heap ID type {t}"))),
        }
    }

    fn row_size(&self, row: u64) -> u64 {
        if row == 0 {
            self.start_block
        } else {
            self.start_block.saturating_mul(1u64 << (row - 1).min(62))
        }
    }

    fn max_dblock_rows(&self) -> u64 {
        (log2(self.max_direct) - log2(self.start_block)) as u64 + 2
    }

    fn managed(&self, ctx: &Ctx, off: u64, len: u64) -> Result<Vec<u8>> {
        if self.has_filters {
            return Err(Error::unsupported("fractal heap with I/O filters"));
        }
        if ctx.is_undef(self.root) {
            return Err(Error::malformed("fractal heap has no root block"));
        }
        if self.max_heap_bits < 64 && off >= 1u64 << self.max_heap_bits {
            return Err(Error::malformed(
                "heap object offset past the heap's address space",
            ));
        }
        if self.root_rows == 0 {
            return self.read_direct(ctx, self.root, 0, self.start_block, off, len);
        }
        let mut iaddr = self.root;
        let mut nrows = self.root_rows;
        let mut base = 0u64;
        let so = ctx.so as u64;
        let entry_direct = if self.has_filters {
            so + ctx.sl as u64 + 4
        } else {
            so
        };
        for _depth in 0..64 {
            let header = 4 + 1 + so + self.off_size as u64;
            // Walk the rows to find the block covering `off`.
            let mut pos = header;
            let mut boff = base;
            let mut found = None;
            'rows: for row in 0..nrows {
                let bsize = self.row_size(row);
                let direct = row < self.max_dblock_rows();
                for _col in 0..self.width {
                    let end = boff.saturating_add(bsize);
                    if off >= boff && off < end {
                        found = Some((pos, direct, boff, bsize));
                        break 'rows;
                    }
                    boff = end;
                    pos += if direct { entry_direct } else { so };
                }
            }
            let (pos, direct, boff, bsize) = found.ok_or_else(|| {
                Error::malformed(format!(
                    "heap offset {off} not covered by the indirect block"
                ))
            })?;
            let ent = ctx.read(iaddr.saturating_add(pos), so)?;
            let child = ctx.cur(&ent).offset()?;
            if ctx.is_undef(child) {
                return Err(Error::malformed("heap object in an unallocated block"));
            }
            if direct {
                return self.read_direct(ctx, child, boff, bsize, off, len);
            }
            // Child indirect block: its rows follow from its size.
            let first_row_bits = log2(self.start_block) + log2(self.width.next_power_of_two());
            nrows = (log2(bsize).saturating_sub(first_row_bits)) as u64 + 1;
            iaddr = child;
            base = boff;
        }
        Err(Error::malformed(
            "fractal heap indirect blocks nest too deep",
        ))
    }

    fn read_direct(
        &self,
        ctx: &Ctx,
        addr: u64,
        block_off: u64,
        block_size: u64,
        off: u64,
        len: u64,
    ) -> Result<Vec<u8>> {
        let head = ctx.read(addr, 5)?;
        if &head[..4] != b"FHDB" {
            return Err(Error::malformed(
                "fractal heap direct block without FHDB signature",
            ));
        }
        let rel = off - block_off;
        let hdr =
            5 + ctx.so as u64 + self.off_size as u64 + if self.checksum_direct { 4 } else { 0 };
        if rel < hdr || rel.saturating_add(len) > block_size {
            return Err(Error::malformed("heap object outside its direct block"));
        }
        ctx.read(addr.saturating_add(rel), len)
    }
}
