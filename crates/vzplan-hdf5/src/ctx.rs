//! Low-level primitives shared by every part of the reader: the file context (sizes of offsets and
//! lengths from the superblock, the base address) and a bounds-checked little-endian cursor.
//! "All metadata fields are stored in little-endian byte order" (HDF5 format spec, II.A).
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::error::{Error, Result};
use vzplan_io::RangeRead;

/// Hash sets and maps keyed by file addresses (which come from untrusted bytes): foldhash,
/// seeded per process, cheaper than SipHash for the many lookups of a scan.
pub type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The file being read plus the superblock's address and length widths.
pub struct Ctx<'a> {
    pub r: &'a dyn RangeRead,
    /// "Size of Offsets" (bytes per address).
    pub so: u8,
    /// "Size of Lengths".
    pub sl: u8,
    /// Base address: every address in the file is relative to it.
    pub base: u64,
}

impl<'a> Ctx<'a> {
    /// Reads `len` bytes at file address `addr` (relative to the base address).
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>> {
        let abs = self
            .base
            .checked_add(addr)
            .ok_or_else(|| Error::malformed(format!("address {addr:#x} overflows")))?;
        Ok(self.r.read_at(abs, len)?)
    }
    /// [`Ctx::read`] as shared bytes: a slice of the reader's cached buffer where it can be (the
    /// object headers, whose messages are kept as slices of their block).
    pub fn read_bytes(&self, addr: u64, len: u64) -> Result<bytes::Bytes> {
        let abs = self
            .base
            .checked_add(addr)
            .ok_or_else(|| Error::malformed(format!("address {addr:#x} overflows")))?;
        Ok(self.r.read_bytes(abs, len)?)
    }
    /// Reads up to `len` bytes at `addr`, fewer if the file ends first (for speculative reads of
    /// structures whose size is only known after parsing their start), as shared bytes
    /// ([`Ctx::read_bytes`]).
    pub fn read_upto(&self, addr: u64, len: u64) -> Result<bytes::Bytes> {
        let abs = self.base.saturating_add(addr);
        let size = self.r.size();
        if abs >= size {
            return Err(Error::malformed(format!(
                "address {addr:#x} is past the end of the file ({size} bytes)"
            )));
        }
        Ok(self.r.read_bytes(abs, len.min(size - abs))?)
    }
    /// [`Ctx::read_upto`] for several structures at once, in one batch: on object storage the
    /// reads go out concurrently (and coalesced), so a whole B-tree level costs one round trip.
    pub fn read_many_upto(&self, reqs: &[(u64, u64)]) -> Result<Vec<bytes::Bytes>> {
        let size = self.r.size();
        let mut ranges = Vec::with_capacity(reqs.len());
        for &(addr, len) in reqs {
            let abs = self.base.saturating_add(addr);
            if abs >= size {
                return Err(Error::malformed(format!(
                    "address {addr:#x} is past the end of the file ({size} bytes)"
                )));
            }
            ranges.push((abs, len.min(size - abs)));
        }
        Ok(self.r.read_many_bytes(&ranges)?)
    }
    /// Asks for several structures at once ([`RangeRead::prefetch`]) so that the reads that
    /// follow find them in the block cache: on object storage, one round trip for a whole level
    /// of an index instead of one per node. A hint only: ranges are cut at the end of the file
    /// (as the speculative reads they serve are), those starting past it left out (the read that
    /// needs them reports the error).
    pub fn prefetch(&self, reqs: &[(u64, u64)]) {
        if !self.r.prefetches() {
            return;
        }
        let size = self.r.size();
        let ranges: Vec<(u64, u64)> = reqs
            .iter()
            .filter_map(|&(addr, len)| {
                let abs = self.base.checked_add(addr)?;
                (abs < size).then(|| (abs, len.min(size - abs)))
            })
            .collect();
        if ranges.len() > 1 {
            self.r.prefetch(&ranges);
        }
    }
    /// Whether [`Ctx::prefetch`] reaches a cache: where it does not (a small file read whole),
    /// the walks need not work out their hints.
    pub fn prefetches(&self) -> bool {
        self.r.prefetches()
    }
    /// The "undefined address" (all bits set in Size of Offsets bytes).
    pub fn undef(&self) -> u64 {
        if self.so >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.so as u32)) - 1
        }
    }
    pub fn is_undef(&self, addr: u64) -> bool {
        addr == self.undef()
    }
    pub fn cur<'b>(&self, buf: &'b [u8]) -> Cur<'b> {
        Cur::new(buf, self.so, self.sl)
    }
    /// Absolute file offset of an address, for chunk references.
    pub fn abs(&self, addr: u64) -> u64 {
        self.base.saturating_add(addr)
    }
}

/// A bounds-checked little-endian reader over a byte slice. Every read that would pass the end
/// returns [`Error::Truncated`] instead of panicking.
#[derive(Clone)]
pub struct Cur<'b> {
    buf: &'b [u8],
    pos: usize,
    so: u8,
    sl: u8,
}

impl<'b> Cur<'b> {
    pub fn new(buf: &'b [u8], so: u8, sl: u8) -> Self {
        Cur {
            buf,
            pos: 0,
            so,
            sl,
        }
    }
    /// Size of Offsets of this cursor.
    pub fn so(&self) -> u8 {
        self.so
    }
    /// Size of Lengths of this cursor.
    pub fn sl(&self) -> u8 {
        self.sl
    }
    pub fn pos(&self) -> usize {
        self.pos
    }
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }
    pub fn buf(&self) -> &'b [u8] {
        self.buf
    }
    pub fn seek(&mut self, pos: usize) -> Result<()> {
        if pos > self.buf.len() {
            return Err(Error::Truncated {
                what: "seek",
                need: pos,
                have: self.buf.len(),
            });
        }
        self.pos = pos;
        Ok(())
    }
    pub fn bytes(&mut self, n: usize) -> Result<&'b [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        match end {
            Some(end) => {
                let s = &self.buf[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(Error::Truncated {
                what: "field",
                need: self.pos.saturating_add(n),
                have: self.buf.len(),
            }),
        }
    }
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(self.uint(2)? as u16)
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(self.uint(4)? as u32)
    }
    pub fn u64(&mut self) -> Result<u64> {
        self.uint(8)
    }
    /// An unsigned little-endian integer of `n` bytes (0..=8).
    pub fn uint(&mut self, n: usize) -> Result<u64> {
        if n > 8 {
            return Err(Error::malformed(format!("integer field of {n} bytes")));
        }
        let b = self.bytes(n)?;
        // The widths of nearly every field, without the byte loop (index walks read millions).
        Ok(match *b {
            [a, b, c, d, e, f, g, h] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
            [a, b, c, d] => u32::from_le_bytes([a, b, c, d]) as u64,
            [a, b] => u16::from_le_bytes([a, b]) as u64,
            _ => b
                .iter()
                .enumerate()
                .fold(0u64, |v, (i, x)| v | (*x as u64) << (8 * i)),
        })
    }
    /// An address ("Size of Offsets" bytes).
    pub fn offset(&mut self) -> Result<u64> {
        self.uint(self.so as usize)
    }
    /// A length ("Size of Lengths" bytes).
    pub fn length(&mut self) -> Result<u64> {
        self.uint(self.sl as usize)
    }
    /// Checks a 4-byte signature such as `TREE`, `OHDR`, `FAHD`.
    pub fn sig(&mut self, want: &[u8; 4]) -> Result<()> {
        let got = self.bytes(4)?;
        if got != want {
            return Err(Error::malformed(format!(
                "expected signature {:?}, found {:?}",
                String::from_utf8_lossy(want),
                String::from_utf8_lossy(got)
            )));
        }
        Ok(())
    }
}

/// Bytes needed to encode `v` (at least 1): the width HDF5 uses for "variable-size" fields.
pub fn bytes_needed(v: u64) -> usize {
    (((64 - v.leading_zeros()) as usize).div_ceil(8)).max(1)
}
