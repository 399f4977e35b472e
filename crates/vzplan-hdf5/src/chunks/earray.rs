//! Extensible Array index (format spec VII.D, index type 4), for one unlimited dimension.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! Structure: `EAHD` header → `EAIB` index block (the first `index elements` entries inline, the
//! addresses of the data blocks of the first super blocks, then secondary block addresses) →
//! `EASB` secondary blocks (data block addresses, plus a page-initialised bitmap when their data
//! blocks are paged) → `EADB` data blocks (entries, or, when paged, the pages follow the block
//! prefix contiguously, each `page entries + checksum`).
//!
//! The spec gives the fields but not the geometry, which follows from the header parameters:
//! super block `u` (0-based) holds `2^floor(u/2)` data blocks of `2^floor((u+1)/2) * min elements`
//! entries; there are `1 + max_bits - log2(min elements)` super blocks; the first
//! `2*log2(min pointers)` of them have their data blocks addressed directly from the index block
//! (`2*(min pointers - 1)` addresses); the rest have one secondary block each. A data block is
//! paged when it holds more than `2^page bits` entries; a secondary block's page bitmap then
//! takes `ceil(pages per block / 8)` bytes per data block. "Block Offset" fields take
//! `ceil(max_bits / 8)` bytes and count entries after the index block's inline ones. These rules are checked against h5py-written fixtures.
//!
//! Entry `i` is the chunk whose swizzled index (unlimited dimension moved to the front, the
//! other dimensions row-major over their maximum chunk grid) is `i`.

use super::{checksum, decode_entry, entry_layout, finish, product, scaled_to_offset, unravel};
use super::{Geometry, RawChunk};
use crate::ctx::{Ctx, Cur};
use crate::error::{Error, Result};

struct Ea<'c, 'a> {
    ctx: &'c Ctx<'a>,
    geo: &'c Geometry,
    header_addr: u64,
    client: u8,
    width: Option<usize>,
    entry_size: u64,
    full: u64,
    off_size: usize,
    page_n: u64,
    unlim: usize,
    /// Maximum chunk grid of the other dimensions, in order.
    others: Vec<u64>,
    n_others: u64,
    out: Vec<RawChunk>,
}

impl Ea<'_, '_> {
    fn push(&mut self, i: u64, c: &mut Cur) -> Result<()> {
        let (addr, size, mask) = decode_entry(c, self.width, self.full)?;
        if self.ctx.is_undef(addr) {
            return Ok(());
        }
        let rest = unravel(i % self.n_others, &self.others);
        let mut scaled = Vec::with_capacity(rest.len() + 1);
        scaled.extend_from_slice(&rest[..self.unlim]);
        scaled.push(i / self.n_others);
        scaled.extend_from_slice(&rest[self.unlim..]);
        self.out.push(RawChunk {
            offset: scaled_to_offset(&scaled, self.geo)?,
            addr,
            size,
            filter_mask: mask,
        });
        Ok(())
    }

    /// Checks the common prefix of index, secondary and data blocks.
    fn prefix(&self, c: &mut Cur, sig: &[u8; 4], at: u64) -> Result<()> {
        c.sig(sig)?;
        let (v, cl, h) = (c.u8()?, c.u8()?, c.offset()?);
        if v != 0 || cl != self.client || h != self.header_addr {
            return Err(Error::malformed(format!(
                "extensible array block at {at:#x}: version {v}, client {cl}, header {h:#x}"
            )));
        }
        Ok(())
    }

    fn dblk_prefix(&self) -> u64 {
        4 + 1 + 1 + self.ctx.so as u64 + self.off_size as u64
    }

    /// Bytes of a data block of `n` entries, with its checksum(s); `None` when that overflows.
    fn dblk_len(&self, n: u64, paged: bool) -> Option<u64> {
        if paged {
            let page_len = self.page_n.checked_mul(self.entry_size)?;
            let pages = (n / self.page_n).checked_mul(page_len.checked_add(4)?)?;
            (self.dblk_prefix() + 4).checked_add(pages)
        } else {
            n.checked_mul(self.entry_size)?
                .checked_add(self.dblk_prefix() + 4)
        }
    }

    /// Reads the data block at `addr` holding entries `first..first+n`. `pages` is the page
    /// bitmap and bit offset of this block's pages when the block is paged.
    fn data_block(
        &mut self,
        addr: u64,
        first: u64,
        n: u64,
        pages: Option<(&[u8], u64)>,
    ) -> Result<()> {
        let prefix = self.dblk_prefix();
        let overflow = || Error::malformed("extensible array data block size overflows");
        match pages {
            None => {
                let len = self.dblk_len(n, false).ok_or_else(overflow)?;
                let buf = self.ctx.read(addr, len)?;
                let mut c = self.ctx.cur(&buf);
                self.prefix(&mut c, b"EADB", addr)?;
                c.skip(self.off_size)?;
                checksum::verify(&buf, len as usize - 4, "extensible array data block")?;
                for i in first..first.saturating_add(n) {
                    self.push(i, &mut c)?;
                }
            }
            Some((bitmap, bit0)) => {
                let npages = n / self.page_n;
                let page_len = self.page_n * self.entry_size;
                let len = self.dblk_len(n, true).ok_or_else(overflow)?;
                // One read for the block prefix and all of its pages.
                let buf = self.ctx.read(addr, len)?;
                let mut c = self.ctx.cur(&buf);
                self.prefix(&mut c, b"EADB", addr)?;
                c.skip(self.off_size)?;
                checksum::verify(&buf, prefix as usize, "extensible array data block")?;
                for p in 0..npages {
                    let bit = bit0 + p;
                    let init = bitmap
                        .get((bit / 8) as usize)
                        .is_some_and(|b| b & (0x80 >> (bit % 8)) != 0);
                    if !init {
                        continue;
                    }
                    let start = (prefix + 4 + p * (page_len + 4)) as usize;
                    let page = buf
                        .get(start..start + page_len as usize + 4)
                        .ok_or_else(|| {
                            Error::malformed("extensible array page outside its block")
                        })?;
                    checksum::verify(page, page_len as usize, "extensible array data block page")?;
                    let mut pc = self.ctx.cur(page);
                    let f = first + p * self.page_n;
                    for i in f..f.saturating_add(self.page_n) {
                        self.push(i, &mut pc)?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn log2_exact(v: u64, what: &str) -> Result<u32> {
    if v == 0 || !v.is_power_of_two() {
        return Err(Error::malformed(format!(
            "extensible array: {what} = {v} is not a power of two"
        )));
    }
    Ok(v.trailing_zeros())
}

/// The `EAHD` header fields the walk needs.
struct Header {
    client: u8,
    entry_size: u64,
    max_bits: u8,
    idx_elmts: u64,
    min_elmts: u64,
    min_ptrs: u64,
    page_bits: u8,
    iblk: u64,
}

/// Bytes of the `EAHD` header, checksum included.
pub(super) fn header_len(so: u64, sl: u64) -> u64 {
    4 + 8 + 6 * sl + so + 4
}

/// Reads and checksums the `EAHD` header at `header_addr`.
fn header(ctx: &Ctx, header_addr: u64) -> Result<Header> {
    let so = ctx.so as u64;
    let hbuf = ctx.read(header_addr, header_len(so, ctx.sl as u64))?;
    let mut c = ctx.cur(&hbuf);
    c.sig(b"EAHD")?;
    let version = c.u8()?;
    if version != 0 {
        return Err(Error::unsupported(format!(
            "extensible array header version {version}"
        )));
    }
    let client = c.u8()?;
    let entry_size = u64::from(c.u8()?);
    let max_bits = c.u8()?;
    let idx_elmts = u64::from(c.u8()?);
    let min_elmts = u64::from(c.u8()?);
    let min_ptrs = u64::from(c.u8()?);
    let page_bits = c.u8()?;
    for _ in 0..5 {
        c.length()?; // block counts and sizes, max index set: statistics only
    }
    let _num_elmts = c.length()?;
    let iblk = c.offset()?;
    checksum::verify(&hbuf, c.pos(), "extensible array header")?;
    Ok(Header {
        client,
        entry_size,
        max_bits,
        idx_elmts,
        min_elmts,
        min_ptrs,
        page_bits,
        iblk,
    })
}

/// The header's parameters against the dataset: client and entry size, bit widths, and powers of
/// two. Returns log2 of the data block min elements and of the secondary block min pointers.
fn check_header(h: &Header, want_entry: u64, geo: &Geometry) -> Result<(u32, u32)> {
    let (client, entry_size, max_bits, page_bits) =
        (h.client, h.entry_size, h.max_bits, h.page_bits);
    if client != u8::from(geo.filtered) || entry_size != want_entry {
        return Err(Error::malformed(format!(
            "extensible array: client {client}, element size {entry_size}; expected client {}, \
             element size {want_entry} (filtered = {}, layout v{})",
            u8::from(geo.filtered),
            geo.filtered,
            geo.layout_version
        )));
    }
    if max_bits == 0 || max_bits > 64 || page_bits >= 64 {
        return Err(Error::malformed(format!(
            "extensible array: max bits {max_bits}, page bits {page_bits}"
        )));
    }
    let min_elmts_log = log2_exact(h.min_elmts, "data block min elements")?;
    let min_ptrs_log = log2_exact(h.min_ptrs, "secondary block min data pointers")?;
    if min_elmts_log > u32::from(max_bits) {
        return Err(Error::malformed(
            "extensible array: data blocks larger than the array",
        ));
    }
    Ok((min_elmts_log, min_ptrs_log))
}

/// The super blocks in order: (number, data blocks, entries per data block). Super block `u`
/// has `2^floor(u/2)` data blocks of `2^ceil(u/2) × min elements` entries; the walk stops where
/// that count overflows.
fn super_blocks(h: &Header, nsblks: u64) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
    (0..nsblks).map_while(|u| {
        let dnel = (1u64 << u.div_ceil(2)).checked_mul(h.min_elmts)?;
        Some((u, 1u64 << (u / 2), dnel))
    })
}

pub fn extensible_array(ctx: &Ctx, header_addr: u64, geo: &Geometry) -> Result<Vec<RawChunk>> {
    geo.check()?;
    let h = header(ctx, header_addr)?;
    let (width, want_entry) = entry_layout(ctx, geo)?;
    let (min_elmts_log, min_ptrs_log) = check_header(&h, want_entry, geo)?;

    let max_grid = geo.max_grid();
    let unlim: Vec<usize> = (0..max_grid.len())
        .filter(|&d| max_grid[d].is_none())
        .collect();
    let [unlim] = unlim[..] else {
        return Err(Error::malformed(format!(
            "extensible array chunk index needs exactly one unlimited dimension, found {}",
            unlim.len()
        )));
    };
    let others: Vec<u64> = max_grid.iter().flatten().copied().collect();
    let n_others = product(&others)?;
    if n_others == 0 {
        return Ok(Vec::new());
    }
    if ctx.is_undef(h.iblk) {
        return Ok(Vec::new());
    }
    let mut ea = Ea {
        ctx,
        geo,
        header_addr,
        client: h.client,
        width,
        entry_size: h.entry_size,
        full: geo.chunk_bytes()?,
        off_size: usize::from(h.max_bits).div_ceil(8),
        page_n: 1u64 << h.page_bits,
        unlim,
        others,
        n_others,
        out: Vec::new(),
    };

    let nsblks = 1 + u64::from(h.max_bits) - u64::from(min_elmts_log);
    let iblock_sblks = 2 * u64::from(min_ptrs_log);
    let n_dblk_addrs = 2 * (h.min_ptrs - 1);
    let n_sblk_addrs = nsblks.saturating_sub(iblock_sblks);
    let (dblk_addrs, sblk_addrs) = ea.index_block(&h, n_dblk_addrs, n_sblk_addrs)?;
    ea.prefetch_blocks(&h, &dblk_addrs, &sblk_addrs, (nsblks, iblock_sblks));

    // Walk the super blocks in order; `first` is the index of the next block's first entry.
    let mut first = h.idx_elmts;
    let mut dblk_i = 0usize;
    for (u, ndblks, dnel) in super_blocks(&h, nsblks) {
        let paged = dnel > ea.page_n;
        if u < iblock_sblks {
            for _ in 0..ndblks {
                let addr = dblk_addrs.get(dblk_i).copied().unwrap_or(ctx.undef());
                dblk_i += 1;
                if !ctx.is_undef(addr) {
                    if paged {
                        return Err(Error::unsupported(
                            "extensible array with paged data blocks in the index block",
                        ));
                    }
                    ea.data_block(addr, first, dnel, None)?;
                }
                first = first.saturating_add(dnel);
            }
            continue;
        }
        let sblk = sblk_addrs
            .get((u - iblock_sblks) as usize)
            .copied()
            .unwrap_or(ctx.undef());
        if !ctx.is_undef(sblk) {
            ea.secondary_block(sblk, ndblks, dnel, first)?;
        }
        first = first.saturating_add(ndblks.saturating_mul(dnel));
    }
    let out = std::mem::take(&mut ea.out);
    finish(ctx, geo, out)
}

impl Ea<'_, '_> {
    /// Reads the array's blocks ahead of the walk, one batch per level ([`Ctx::prefetch`]): the
    /// index block's data blocks with the secondary blocks, then the secondary blocks' data
    /// blocks. On object storage that is two round trips instead of one per block. Best effort:
    /// whatever does not parse is left to the walk to report.
    fn prefetch_blocks(
        &self,
        h: &Header,
        dblks: &[u64],
        sblks: &[u64],
        (nsblks, in_iblock): (u64, u64),
    ) {
        let undef = |a: u64| self.ctx.is_undef(a);
        let (mut level, mut secondaries) = (Vec::new(), Vec::new());
        let mut dblk_i = 0usize;
        for (u, ndblks, dnel) in super_blocks(h, nsblks) {
            if u < in_iblock {
                let len = self.dblk_len(dnel, false).unwrap_or(0);
                let n = usize::try_from(ndblks).unwrap_or(usize::MAX);
                let here = dblks.iter().skip(dblk_i).take(n);
                level.extend(here.filter(|&&a| !undef(a)).map(|&a| (a, len)));
                dblk_i = dblk_i.saturating_add(n);
            } else if let Some(&sblk) = sblks.get((u - in_iblock) as usize) {
                if !undef(sblk) {
                    level.push((sblk, self.sblk_len(ndblks, dnel).0.saturating_add(4)));
                    secondaries.push((sblk, ndblks, dnel));
                }
            }
        }
        self.ctx.prefetch(&level);
        let mut next = Vec::new();
        for (sblk, ndblks, dnel) in secondaries {
            let (Ok((_, addrs)), Some(len)) = (
                self.secondary_addrs(sblk, ndblks, dnel),
                self.dblk_len(dnel, dnel > self.page_n),
            ) else {
                break;
            };
            next.extend(addrs.into_iter().filter(|&a| !undef(a)).map(|a| (a, len)));
        }
        self.ctx.prefetch(&next);
    }

    /// Reads the `EAIB` index block: pushes its inline entries and returns the addresses of the
    /// data blocks and secondary blocks it holds.
    fn index_block(
        &mut self,
        h: &Header,
        n_dblk_addrs: u64,
        n_sblk_addrs: u64,
    ) -> Result<(Vec<u64>, Vec<u64>)> {
        let ctx = self.ctx;
        let so = ctx.so as u64;
        let ilen = 4 + 1 + 1 + so + h.idx_elmts * h.entry_size + (n_dblk_addrs + n_sblk_addrs) * so;
        let ibuf = ctx.read(h.iblk, ilen + 4)?;
        let mut c = ctx.cur(&ibuf);
        self.prefix(&mut c, b"EAIB", h.iblk)?;
        checksum::verify(&ibuf, ilen as usize, "extensible array index block")?;
        for i in 0..h.idx_elmts {
            self.push(i, &mut c)?;
        }
        let mut dblk_addrs = Vec::new();
        for _ in 0..n_dblk_addrs {
            dblk_addrs.push(c.offset()?);
        }
        let mut sblk_addrs = Vec::new();
        for _ in 0..n_sblk_addrs {
            sblk_addrs.push(c.offset()?);
        }
        Ok((dblk_addrs, sblk_addrs))
    }

    /// Bytes of the `EASB` secondary block of `ndblks` data blocks of `dnel` entries, without
    /// its checksum, and of its page bitmap.
    fn sblk_len(&self, ndblks: u64, dnel: u64) -> (u64, u64) {
        let paged = dnel > self.page_n;
        let npages = if paged { dnel / self.page_n } else { 0 };
        // One byte-rounded bitmap per data block, but bits are numbered across the whole
        // buffer as `block * pages + page` (most significant bit first).
        let bitmap_len = ndblks.saturating_mul(npages.div_ceil(8));
        let slen = (4 + 1 + 1 + self.ctx.so as u64 + self.off_size as u64)
            .saturating_add(bitmap_len)
            .saturating_add(ndblks.saturating_mul(self.ctx.so as u64));
        (slen, bitmap_len)
    }

    /// Reads the `EASB` secondary block at `sblk`: its page bitmap and data block addresses.
    fn secondary_addrs(&self, sblk: u64, ndblks: u64, dnel: u64) -> Result<(Vec<u8>, Vec<u64>)> {
        let ctx = self.ctx;
        let (slen, bitmap_len) = self.sblk_len(ndblks, dnel);
        let sbuf = ctx.read(sblk, slen.saturating_add(4))?;
        let mut c = ctx.cur(&sbuf);
        self.prefix(&mut c, b"EASB", sblk)?;
        c.skip(self.off_size)?;
        let bitmap = c.bytes(bitmap_len as usize)?.to_vec();
        checksum::verify(&sbuf, slen as usize, "extensible array secondary block")?;
        // `ndblks` addresses fit in the block just read.
        let addrs = (0..ndblks).map(|_| c.offset()).collect::<Result<_>>()?;
        Ok((bitmap, addrs))
    }

    /// Reads the `EASB` secondary block at `sblk` (`ndblks` data blocks of `dnel` entries, the
    /// first starting at entry `first`) and the data blocks it addresses.
    fn secondary_block(&mut self, sblk: u64, ndblks: u64, dnel: u64, first: u64) -> Result<()> {
        let paged = dnel > self.page_n;
        let npages = if paged { dnel / self.page_n } else { 0 };
        let (bitmap, addrs) = self.secondary_addrs(sblk, ndblks, dnel)?;
        for (k, addr) in (0u64..).zip(addrs) {
            if !self.ctx.is_undef(addr) {
                let pages = paged.then_some((bitmap.as_slice(), k * npages));
                self.data_block(addr, first.saturating_add(k * dnel), dnel, pages)?;
            }
        }
        Ok(())
    }
}
