//! Object headers, HDF5 spec IV.A.1: version 1 (8-byte aligned messages, continuation blocks
//! without signature) and version 2 (`OHDR` prefix, `OCHK` continuation blocks), plus the
//! resolution of shared messages (IV.A.2, "Shared Message" encoding) that point at a committed
//! object header.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::chunks::checksum::verify;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use bytes::Bytes;
use std::borrow::Cow;

pub const MSG_CONTINUATION: u16 = 0x0010;
/// Caps that keep corrupt files from making the reader loop or allocate without bound.
const MAX_BLOCKS: usize = 1024;
const MAX_MESSAGES: usize = 65_536;

/// One header message: type, flags and its raw body, borrowed from its header's block.
#[derive(Debug, Clone, Copy)]
pub struct Msg<'a> {
    pub mtype: u16,
    pub flags: u8,
    pub data: &'a [u8],
}

impl Msg<'_> {
    /// Flag bit 1: the body is a shared-message reference, not the message itself.
    pub fn is_shared(&self) -> bool {
        self.flags & 0x02 != 0
    }
}

/// Where a message lies: its header's block `block`, bytes `at..at + len`. Positions rather than
/// `Bytes` slices: a netCDF-4 file has ~80 messages, and each slice's reference count would be
/// an atomic add and subtract.
#[derive(Debug, Clone, Copy)]
struct Entry {
    mtype: u16,
    flags: u8,
    block: u32,
    at: u32,
    len: u32,
}

#[derive(Debug, Clone, Default)]
pub struct ObjHeader {
    pub version: u8,
    /// The blocks read (first block, continuation blocks), the messages' bytes. Where a block is
    /// a view of the reader's cache, it keeps the buffer of at most 1 MiB it lies in alive.
    blocks: smallvec::SmallVec<[Bytes; 2]>,
    msgs: Vec<Entry>,
    held: u64,
}

impl ObjHeader {
    /// Bytes held: the blocks read (however little of them the messages use) and the entries.
    pub fn bytes(&self) -> u64 {
        let entry = std::mem::size_of::<Entry>() as u64;
        self.held
            .saturating_add(entry.saturating_mul(self.msgs.len() as u64))
    }
    fn msg(&self, e: &Entry) -> Msg<'_> {
        let (at, len) = (e.at as usize, e.len as usize);
        Msg {
            mtype: e.mtype,
            flags: e.flags,
            // Positions were taken inside the block when it was parsed.
            data: self.blocks[e.block as usize]
                .get(at..at + len)
                .unwrap_or(&[]),
        }
    }
    pub fn first(&self, mtype: u16) -> Option<Msg<'_>> {
        self.msgs
            .iter()
            .find(|m| m.mtype == mtype)
            .map(|e| self.msg(e))
    }
    pub fn all(&self, mtype: u16) -> impl Iterator<Item = Msg<'_>> {
        self.msgs
            .iter()
            .filter(move |m| m.mtype == mtype)
            .map(|e| self.msg(e))
    }
    /// Whether the header has continuation blocks (read), besides its first block.
    pub fn continued(&self) -> bool {
        self.blocks.len() > 1
    }
    /// Keeps `block` and returns its number, for the entries parsed from it.
    fn hold(&mut self, block: Bytes) -> Result<u32> {
        self.held = self.held.saturating_add(block.len() as u64);
        if block.len() > u32::MAX as usize {
            return Err(Error::malformed("object header block over 4 GiB"));
        }
        self.blocks.push(block);
        Ok(self.blocks.len() as u32 - 1)
    }
}

/// Bytes read at an object header's address before its size is known (most headers fit).
pub const FIRST_READ: u64 = 4096;

/// Bytes of parsed headers that [`read_many`] keeps at once, and of continuation blocks it asks
/// for ahead: a window of children costs at most this much memory however large its headers
/// claim to be; the headers past it are read when their objects are visited.
const MANY_BYTES: u64 = 8 << 20;

/// What else to ask for with a batch of headers: `first`, ranges known before the headers
/// (sent with their first bytes), and `of`, the ranges a header's parsed blocks point at (sent
/// with the continuation blocks: a chunk index's root, say, is known from the first block).
pub struct Along<'f> {
    pub first: &'f [(u64, u64)],
    pub of: &'f HintsOf<'f>,
}

/// Appends the ranges a parsed header points at to the list it is given.
pub type HintsOf<'f> = dyn Fn(&ObjHeader, &mut Vec<(u64, u64)>) + 'f;

/// Reads several object headers in a few batches instead of up to three round trips each on
/// object storage ([`Ctx::prefetch`]): their first bytes, then the continuation blocks their
/// first blocks name (netCDF-4 writers put attributes added after the data there, near the end
/// of the file) together with what `along` asks for from those first blocks, then each header
/// is finished (continuations of continuations one by one). Returns the headers of a prefix of
/// `addrs`, within [`MANY_BYTES`].
pub fn read_many(ctx: &Ctx, addrs: &[u64], along: &Along) -> Vec<(u64, Result<ObjHeader>)> {
    let hints = ctx.prefetches();
    if hints {
        let mut firsts: Vec<(u64, u64)> = addrs.iter().map(|&a| (a, FIRST_READ)).collect();
        firsts.extend_from_slice(along.first);
        ctx.prefetch(&firsts);
    }
    let mut kept = 0u64;
    let mut started: Vec<(u64, Result<Partial>)> = Vec::with_capacity(addrs.len());
    for &a in addrs {
        if kept > MANY_BYTES {
            break;
        }
        let p = start(ctx, a);
        kept += p.as_ref().map_or(0, |p| p.out.bytes());
        started.push((a, p));
    }
    if hints {
        let mut ahead = MANY_BYTES;
        let mut next: Vec<(u64, u64)> = Vec::new();
        for &(a, l) in started
            .iter()
            .filter_map(|(_, p)| p.as_ref().ok())
            .flat_map(|p| &p.pending)
        {
            if l <= ahead {
                ahead -= l;
                next.push((a, l));
            }
        }
        for p in started.iter().filter_map(|(_, p)| p.as_ref().ok()) {
            (along.of)(&p.out, &mut next);
        }
        next.sort_unstable();
        ctx.prefetch(&next);
    }
    let (mut out, mut done) = (Vec::with_capacity(started.len()), 0u64);
    for (a, p) in started {
        if done > MANY_BYTES {
            break;
        }
        let h = p.and_then(|p| p.finish(ctx));
        done += h.as_ref().map_or(0, |h| h.bytes());
        out.push((a, h));
    }
    out
}

/// Reads the object header at `addr` with all its continuation blocks.
pub fn read(ctx: &Ctx, addr: u64) -> Result<ObjHeader> {
    start(ctx, addr)?.finish(ctx)
}

/// A header whose first block is parsed, its continuation blocks not yet.
struct Partial {
    out: ObjHeader,
    /// (address, length) of the continuation blocks still to parse.
    pending: Pending,
    /// The header's address: a continuation block there (or at a block already read) is a cycle.
    addr: u64,
    /// The header's flags when it is version 2.
    v2flags: Option<u8>,
}

impl Partial {
    /// Reads and parses the continuation blocks, those they name included.
    fn finish(self, ctx: &Ctx) -> Result<ObjHeader> {
        let Partial {
            mut out,
            mut pending,
            addr,
            v2flags,
        } = self;
        if pending.is_empty() {
            return Ok(out); // most headers: no set of blocks seen to build
        }
        // A header has a block or two: a short list, not a hash set (one allocation a header).
        let mut seen: smallvec::SmallVec<[u64; 8]> = smallvec::smallvec![addr];
        // The blocks of one header do not overlap, so together they fit in the file.
        let mut read = 0u64;
        while let Some((a, len)) = pending.pop() {
            if seen.len() > MAX_BLOCKS {
                return Err(Error::malformed(
                    "too many object header continuation blocks",
                ));
            }
            read = read.saturating_add(len);
            if read > ctx.r.size() {
                return Err(Error::malformed(
                    "object header continuation blocks larger than the file",
                ));
            }
            // At most MAX_BLOCKS addresses, each compared with the others once.
            if seen.contains(&a) {
                return Err(Error::malformed(format!(
                    "object header continuation cycle at {a:#x}"
                )));
            }
            seen.push(a);
            let block = ctx.read_bytes(a, len)?;
            if let Some(_flags) = v2flags {
                if !block.starts_with(b"OCHK") || block.len() < 8 {
                    return Err(Error::malformed(format!(
                        "continuation block at {a:#x} has no OCHK signature"
                    )));
                }
                // Signature, messages, then a 4-byte checksum.
                verify(&block, block.len() - 4, "object header continuation block")?;
            }
            let len = block.len();
            let b = out.hold(block)?;
            match v2flags {
                Some(flags) => parse_v2((b, 4, len - 4), flags, ctx, &mut out, &mut pending)?,
                None => parse_v1((b, 0, len), ctx, &mut out, &mut pending)?,
            }
        }
        Ok(out)
    }
}

/// Reads and parses the first block of the object header at `addr`.
fn start(ctx: &Ctx, addr: u64) -> Result<Partial> {
    if ctx.is_undef(addr) {
        return Err(Error::malformed("object header at the undefined address"));
    }
    let head = ctx.read_upto(addr, FIRST_READ)?;
    let mut out = ObjHeader::default();
    let mut pending = Pending::new();
    let v2flags = if head.starts_with(b"OHDR") {
        out.version = 2;
        let mut c = ctx.cur(&head);
        c.skip(4)?;
        let v = c.u8()?;
        if v != 2 {
            return Err(Error::malformed(format!("object header version {v}")));
        }
        let flags = c.u8()?;
        if flags & 0x20 != 0 {
            c.skip(16)?; // access, modification, change, birth times
        }
        if flags & 0x10 != 0 {
            c.skip(4)?; // max compact / min dense attribute counts
        }
        let size = c.uint(1 << (flags & 3))?;
        let start = c.pos();
        // Prefix and chunk #0 are followed by their checksum (Jenkins lookup3).
        let total = (start as u64)
            .checked_add(size)
            .and_then(|t| t.checked_add(4))
            .ok_or_else(|| Error::malformed("object header size overflows"))?;
        let whole = ctx.read_bytes(addr, total)?;
        let end = whole.len() - 4;
        verify(&whole, end, "object header")?;
        let b = out.hold(whole)?;
        parse_v2((b, start, end), flags, ctx, &mut out, &mut pending)?;
        Some(flags)
    } else {
        out.version = 1;
        let mut c = ctx.cur(&head);
        let v = c.u8()?;
        if v != 1 {
            return Err(Error::malformed(format!(
                "object header at {addr:#x}: version {v} (no OHDR signature either)"
            )));
        }
        c.skip(1)?;
        let _nmsgs = c.u16()?;
        c.skip(4)?; // reference count
        let size = c.u32()? as u64;
        // The prefix is 12 bytes, padded to 16 so that messages stay 8-byte aligned.
        let block = ctx.read_bytes(addr.saturating_add(16), size)?;
        let end = block.len();
        let b = out.hold(block)?;
        parse_v1((b, 0, end), ctx, &mut out, &mut pending)?;
        None
    };
    Ok(Partial {
        out,
        pending,
        addr,
        v2flags,
    })
}

/// (address, length) of continuation blocks: a header names one or two, kept without allocating
/// (as its blocks are).
type Pending = smallvec::SmallVec<[(u64, u64); 2]>;

/// A block of a header to parse: its number in [`ObjHeader::blocks`] and the byte range the
/// messages occupy (after a signature, before a checksum).
type Span = (u32, usize, usize);

/// Records a message parsed at `at` (bytes `body`) of block `b`, or queues the block a
/// continuation message names.
fn push(
    msgs: &mut Vec<Entry>,
    (mtype, flags, b, at): (u16, u8, u32, usize),
    body: &[u8],
    ctx: &Ctx,
    pending: &mut Pending,
) -> Result<()> {
    if msgs.len() >= MAX_MESSAGES {
        return Err(Error::malformed("too many object header messages"));
    }
    if mtype == MSG_CONTINUATION {
        let mut c = ctx.cur(body);
        let a = c.offset()?;
        let l = c.length()?;
        if pending.len() >= MAX_BLOCKS {
            return Err(Error::malformed(
                "too many object header continuation blocks",
            ));
        }
        // Continuations are processed in order of appearance (stack: push reversed later).
        pending.insert(0, (a, l));
        return Ok(());
    }
    // Blocks are at most 4 GiB ([`ObjHeader::hold`]), so positions inside them fit.
    msgs.push(Entry {
        mtype,
        flags,
        block: b,
        at: at as u32,
        len: body.len() as u32,
    });
    Ok(())
}

fn parse_v1(
    (b, base, end): Span,
    ctx: &Ctx,
    out: &mut ObjHeader,
    pending: &mut Pending,
) -> Result<()> {
    let block = out.blocks[b as usize].get(base..end).unwrap_or(&[]);
    let mut c = ctx.cur(block);
    while c.remaining() >= 8 {
        let mtype = c.u16()?;
        let size = c.u16()? as usize;
        let flags = c.u8()?;
        c.skip(3)?;
        let e = (mtype, flags, b, base + c.pos());
        let body = c.bytes(size)?;
        // Messages are aligned on 8-byte boundaries (relative to the block start).
        let aligned = c.pos().div_ceil(8) * 8;
        if aligned <= block.len() {
            c.seek(aligned)?;
        }
        if mtype != 0 {
            push(&mut out.msgs, e, body, ctx, pending)?;
        }
    }
    Ok(())
}

fn parse_v2(
    (b, base, end): Span,
    hflags: u8,
    ctx: &Ctx,
    out: &mut ObjHeader,
    pending: &mut Pending,
) -> Result<()> {
    let block = out.blocks[b as usize].get(base..end).unwrap_or(&[]);
    let hdr = if hflags & 0x04 != 0 { 6 } else { 4 };
    // Counted first, so that the list grows once per block rather than by doubling.
    let mut c = ctx.cur(block);
    let mut count = 0usize;
    while c.remaining() >= hdr {
        let mtype = c.u8()?;
        let size = c.u16()? as usize;
        if c.skip(hdr - 3).and_then(|_| c.skip(size)).is_err() {
            break;
        }
        count += usize::from(mtype != 0);
    }
    // The first block's list has room for a continuation block's few messages too (most
    // netCDF-4 headers have one, holding the attributes written after the data).
    let slack = if out.msgs.is_empty() { 8 } else { 0 };
    out.msgs.reserve((count + slack).min(MAX_MESSAGES));
    let mut c = ctx.cur(block);
    while c.remaining() >= hdr {
        let mtype = c.u8()? as u16;
        let size = c.u16()? as usize;
        let flags = c.u8()?;
        if hflags & 0x04 != 0 {
            c.skip(2)?; // creation order
        }
        let e = (mtype, flags, b, base + c.pos());
        let body = c.bytes(size)?;
        if mtype != 0 {
            push(&mut out.msgs, e, body, ctx, pending)?;
        }
    }
    Ok(())
}

/// Where a shared message lives (IV.A.2 shared message encoding, versions 1–3).
pub enum SharedRef {
    /// In another object header (a committed datatype, usually).
    ObjectHeader(u64),
    /// In the shared object header message heap (SOHM): not supported.
    Heap,
}

pub fn shared_ref(ctx: &Ctx, data: &[u8]) -> Result<SharedRef> {
    let mut c = ctx.cur(data);
    let version = c.u8()?;
    let stype = c.u8()?;
    match version {
        1 => {
            c.skip(6)?;
            Ok(SharedRef::ObjectHeader(c.offset()?))
        }
        2 => Ok(SharedRef::ObjectHeader(c.offset()?)),
        3 => match stype {
            1 => Ok(SharedRef::Heap),
            2 => Ok(SharedRef::ObjectHeader(c.offset()?)),
            t => Err(Error::malformed(format!("shared message type {t}"))),
        },
        v => Err(Error::malformed(format!("shared message version {v}"))),
    }
}

/// The body of message `mtype` of `oh`, following a shared-message reference into the committed
/// object it points at (one level: a committed object's own message is never shared again).
/// Borrowed from the header unless it was shared.
pub fn resolved<'a>(ctx: &Ctx, msg: Msg<'a>) -> Result<Cow<'a, [u8]>> {
    if !msg.is_shared() {
        return Ok(Cow::Borrowed(msg.data));
    }
    match shared_ref(ctx, msg.data)? {
        SharedRef::Heap => Err(Error::unsupported(format!(
            "message type {:#06x} stored in the shared object header message heap",
            msg.mtype
        ))),
        SharedRef::ObjectHeader(a) => {
            let oh = read(ctx, a)?;
            match oh.first(msg.mtype) {
                Some(m) if !m.is_shared() => Ok(Cow::Owned(m.data.to_vec())),
                _ => Err(Error::malformed(format!(
                    "shared message {:#06x} not found in the object header at {a:#x}",
                    msg.mtype
                ))),
            }
        }
    }
}
