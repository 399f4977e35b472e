//! Fixed Array index (format spec VII.C, index type 3): a `FAHD` header and one `FADB` data block
//! holding one entry per chunk of the maximum extent, row-major. When there are more entries than
//! `2^page_bits`, the data block is paged: it holds a bitmap of initialised pages (most
//! significant bit first) and the pages, each `page entries + checksum`, follow it contiguously
//! (the block and its pages are allocated as one). A page whose bit is clear holds no chunks.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use super::{checksum, decode_entry, entry_layout, finish, product, scaled_to_offset, unravel};
use super::{Geometry, RawChunk};
use crate::ctx::Ctx;
use crate::error::{Error, Result};

/// Bytes of the `FAHD` header, checksum included.
pub(super) fn header_len(so: u64, sl: u64) -> u64 {
    4 + 4 + sl + so + 4
}

pub fn fixed_array(ctx: &Ctx, header_addr: u64, geo: &Geometry) -> Result<Vec<RawChunk>> {
    geo.check()?;
    let so = ctx.so as u64;
    let hbuf = ctx.read(header_addr, header_len(so, ctx.sl as u64))?;
    let mut c = ctx.cur(&hbuf);
    c.sig(b"FAHD")?;
    let version = c.u8()?;
    if version != 0 {
        return Err(Error::unsupported(format!(
            "fixed array header version {version}"
        )));
    }
    let client = c.u8()?;
    let entry_size = u64::from(c.u8()?);
    let page_bits = c.u8()?;
    let nelmts = c.length()?;
    let dblk = c.offset()?;
    checksum::verify(&hbuf, c.pos(), "fixed array header")?;

    let (width, want_entry) = entry_layout(ctx, geo)?;
    if client != u8::from(geo.filtered) || entry_size != want_entry {
        return Err(Error::malformed(format!(
            "fixed array: client {client}, entry size {entry_size}; expected client {}, entry size \
             {want_entry} (filtered = {}, layout v{})",
            u8::from(geo.filtered),
            geo.filtered,
            geo.layout_version
        )));
    }
    let max_grid: Vec<u64> = geo
        .max_grid()
        .into_iter()
        .collect::<Option<_>>()
        .ok_or_else(|| Error::malformed("fixed array chunk index with an unlimited dimension"))?;
    let total = product(&max_grid)?;
    if nelmts != total {
        return Err(Error::malformed(format!(
            "fixed array holds {nelmts} entries, the maximum extent has {total} chunks"
        )));
    }
    if ctx.is_undef(dblk) {
        return Ok(Vec::new());
    }
    let full = geo.chunk_bytes()?;
    let bytes_err = || Error::malformed("fixed array data block size overflows");
    let elems_len = nelmts.checked_mul(entry_size).ok_or_else(bytes_err)?;
    let page_n = if page_bits < 64 {
        1u64 << page_bits
    } else {
        u64::MAX
    };
    let paged = nelmts > page_n;
    let npages = if paged { nelmts.div_ceil(page_n) } else { 0 };
    let bitmap_len = npages.div_ceil(8);
    let prefix = 4 + 1 + 1 + so + bitmap_len;
    // One read for the block and all of its pages.
    let total_len = if paged {
        prefix + 4 + elems_len + npages * 4
    } else {
        prefix + elems_len + 4
    };
    let buf = ctx.read(dblk, total_len)?;
    let mut c = ctx.cur(&buf);
    c.sig(b"FADB")?;
    let (v, cl, h) = (c.u8()?, c.u8()?, c.offset()?);
    if v != 0 || cl != client || h != header_addr {
        return Err(Error::malformed(format!(
            "fixed array data block at {dblk:#x}: version {v}, client {cl}, header {h:#x}"
        )));
    }
    let mut out = Vec::new();
    let mut push = |i: u64, c: &mut crate::ctx::Cur| -> Result<()> {
        let (addr, size, mask) = decode_entry(c, width, full)?;
        if !ctx.is_undef(addr) {
            out.push(RawChunk {
                offset: scaled_to_offset(&unravel(i, &max_grid), geo)?,
                addr,
                size,
                filter_mask: mask,
            });
        }
        Ok(())
    };
    if !paged {
        checksum::verify(
            &buf,
            prefix as usize + elems_len as usize,
            "fixed array data block",
        )?;
        for i in 0..nelmts {
            push(i, &mut c)?;
        }
    } else {
        let bitmap = c.bytes(bitmap_len as usize)?;
        checksum::verify(&buf, prefix as usize, "fixed array data block")?;
        let mut pos = prefix as usize + 4;
        for p in 0..npages {
            let first = p * page_n;
            let n = page_n.min(nelmts - first);
            let plen = (n * entry_size) as usize;
            let init = bitmap
                .get((p / 8) as usize)
                .is_some_and(|b| b & (0x80 >> (p % 8)) != 0);
            if init {
                let page = buf.get(pos..pos + plen + 4).ok_or(Error::Truncated {
                    what: "fixed array page",
                    need: pos + plen + 4,
                    have: buf.len(),
                })?;
                checksum::verify(page, plen, "fixed array data block page")?;
                let mut pc = ctx.cur(page);
                for i in first..first + n {
                    push(i, &mut pc)?;
                }
            }
            pos += plen + 4;
        }
    }
    finish(ctx, geo, out)
}
