//! Decoders of the header messages the reader needs (HDF5 spec IV.A.2): dataspace (0x0001),
//! link info (0x0002), datatype (0x0003), fill value old/new (0x0004/0x0005), link (0x0006),
//! data layout (0x0008), filter pipeline (0x000B), attribute (0x000C), symbol table (0x0011),
//! attribute info (0x0015).
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::ctx::{Ctx, Cur};
use crate::error::{Error, Result};

pub const DATASPACE: u16 = 0x0001;
pub const LINK_INFO: u16 = 0x0002;
pub const DATATYPE: u16 = 0x0003;
pub const FILL_OLD: u16 = 0x0004;
pub const FILL: u16 = 0x0005;
pub const LINK: u16 = 0x0006;
pub const EXTERNAL: u16 = 0x0007;
pub const LAYOUT: u16 = 0x0008;
pub const FILTERS: u16 = 0x000B;
pub const ATTRIBUTE: u16 = 0x000C;
pub const SYMBOL_TABLE: u16 = 0x0011;
pub const ATTR_INFO: u16 = 0x0015;

/// Largest rank HDF5 allows (H5S_MAX_RANK).
const MAX_RANK: usize = 32;

/// IV.A.2.b Dataspace. `max` is `u64::MAX` for an unlimited axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataspace {
    /// Inline up to rank 4: every dataset and attribute has a dataspace (no allocation for it).
    pub dims: smallvec::SmallVec<[u64; 4]>,
    pub max: smallvec::SmallVec<[u64; 4]>,
    /// The null dataspace (no elements at all).
    pub null: bool,
}

impl Dataspace {
    pub fn nelems(&self) -> Option<u64> {
        if self.null {
            return Some(0);
        }
        self.dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d))
    }
}

pub fn dataspace(c: &mut Cur) -> Result<Dataspace> {
    let version = c.u8()?;
    let rank = c.u8()? as usize;
    let flags = c.u8()?;
    if rank > MAX_RANK {
        return Err(Error::malformed(format!("dataspace rank {rank}")));
    }
    let mut null = false;
    match version {
        1 => c.skip(5)?,
        2 => {
            let t = c.u8()?;
            null = t == 2;
        }
        v => return Err(Error::malformed(format!("dataspace version {v}"))),
    }
    let mut dims = smallvec::SmallVec::with_capacity(rank);
    for _ in 0..rank {
        dims.push(c.length()?);
    }
    let mut max = dims.clone();
    if flags & 1 != 0 {
        for m in max.iter_mut() {
            let v = c.length()?;
            // UNLIMITED is all bits set in Size of Lengths bytes.
            *m = if v == all_ones(c) { u64::MAX } else { v };
        }
    }
    Ok(Dataspace { dims, max, null })
}

fn all_ones(c: &Cur) -> u64 {
    let w = c.sl() as u32;
    if w >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * w)) - 1
    }
}

pub use crate::types::{class_name, datatype, Datatype};

/// Fill value: `None` = undefined, `Some(empty)` = default (zeros), `Some(bytes)` = the value.
pub fn fill_new(c: &mut Cur) -> Result<Option<Vec<u8>>> {
    let version = c.u8()?;
    match version {
        1 | 2 => {
            c.skip(2)?; // allocation time, write time
            let defined = c.u8()?;
            // As the HDF5 library reads it: the size only when a value is defined (old writers
            // left an undefined 0xFFFFFFFF there), and as a signed number (-1: no value).
            if defined == 0 {
                return Ok(Some(Vec::new()));
            }
            match usize::try_from(c.u32()? as i32) {
                Ok(size) => Ok(Some(c.bytes(size)?.to_vec())),
                Err(_) => Ok(Some(Vec::new())),
            }
        }
        3 => {
            let flags = c.u8()?;
            if flags & 0x20 != 0 {
                let size = c.u32()? as usize;
                Ok(Some(c.bytes(size)?.to_vec()))
            } else if flags & 0x10 != 0 {
                Ok(None)
            } else {
                Ok(Some(Vec::new()))
            }
        }
        v => Err(Error::malformed(format!("fill value message version {v}"))),
    }
}

/// Whether HDF5 writes the fill value into a chunk's unwritten elements when it allocates the
/// chunk: fill time "on allocation", or "if set" with a user-defined value (never when "never" or
/// when the value is undefined).
pub fn fill_written(c: &mut Cur) -> Result<bool> {
    match c.u8()? {
        1 | 2 => {
            c.skip(1)?; // allocation time
            let time = c.u8()?;
            let defined = c.u8()?;
            Ok(defined != 0 && (time == 0 || time == 2))
        }
        3 => {
            let flags = c.u8()?;
            let time = (flags >> 2) & 3;
            let (undefined, user) = (flags & 0x10 != 0, flags & 0x20 != 0);
            Ok(!undefined && (time == 0 || (time == 2 && user)))
        }
        v => Err(Error::malformed(format!("fill value message version {v}"))),
    }
}

pub fn fill_old(c: &mut Cur) -> Result<Vec<u8>> {
    let size = c.u32()? as usize;
    Ok(c.bytes(size)?.to_vec())
}

/// One filter of IV.A.2.l Filter Pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub id: u16,
    pub flags: u16,
    pub name: String,
    pub values: Vec<u32>,
}

pub fn filters(c: &mut Cur) -> Result<Vec<Filter>> {
    let version = c.u8()?;
    let n = c.u8()? as usize;
    if n > 32 {
        return Err(Error::malformed(format!("filter pipeline of {n} filters")));
    }
    match version {
        1 => c.skip(6)?,
        2 => {}
        v => return Err(Error::malformed(format!("filter pipeline version {v}"))),
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id = c.u16()?;
        let name_len = if version == 1 || id >= 256 {
            c.u16()? as usize
        } else {
            0
        };
        let flags = c.u16()?;
        let nvals = c.u16()? as usize;
        let mut name = String::new();
        if name_len > 0 {
            let raw = c.bytes(name_len)?;
            name = cstr(raw);
            if version == 1 {
                // Padded to a multiple of eight (the length includes the padding already when
                // written by the library, but be tolerant).
                let pad = name_len.div_ceil(8) * 8 - name_len;
                c.skip(pad)?;
            }
        }
        let mut values = Vec::with_capacity(nvals.min(c.remaining() / 4));
        for _ in 0..nvals {
            values.push(c.u32()?);
        }
        if version == 1 && nvals % 2 == 1 {
            c.skip(4)?;
        }
        out.push(Filter {
            id,
            flags,
            name,
            values,
        });
    }
    Ok(out)
}

pub use crate::text::{cstr, cstr_cow, lossy, name_cstr, name_str, until_nul, utf8_cow};

/// IV.A.2.i Data Layout.
#[derive(Debug, Clone, PartialEq)]
pub enum Layout {
    Compact(Vec<u8>),
    Contiguous {
        addr: u64,
        size: Option<u64>,
    },
    Chunked {
        version: u8,
        flags: u8,
        /// Chunk dims without the trailing element-size dimension.
        chunk: Vec<u64>,
        elem_size: u64,
        index: ChunkIndex,
        addr: u64,
    },
    /// The mappings of a virtual dataset, in a global heap object: its collection's address
    /// and its index there.
    Virtual {
        heap: u64,
        index: u32,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum ChunkIndex {
    BTree1,
    Single { filtered: Option<(u64, u32)> },
    Implicit,
    FixedArray,
    ExtensibleArray,
    BTree2,
}

pub const DONT_FILTER_PARTIAL_BOUND_CHUNKS: u8 = 0x01;
pub const SINGLE_INDEX_WITH_FILTER: u8 = 0x02;

pub fn layout(c: &mut Cur) -> Result<Layout> {
    let version = c.u8()?;
    match version {
        1 | 2 => {
            let ndims = c.u8()? as usize;
            let class = c.u8()?;
            c.skip(5)?;
            if ndims > MAX_RANK + 1 {
                return Err(Error::malformed(format!("layout dimensionality {ndims}")));
            }
            let addr = if class != 0 { c.offset()? } else { 0 };
            let mut dims = Vec::with_capacity(ndims);
            for _ in 0..ndims {
                dims.push(c.u32()? as u64);
            }
            match class {
                0 => {
                    let size = c.u32()? as usize;
                    Ok(Layout::Compact(c.bytes(size)?.to_vec()))
                }
                1 => Ok(Layout::Contiguous { addr, size: None }),
                2 => {
                    let elem_size = dims.pop().unwrap_or(0);
                    Ok(Layout::Chunked {
                        version,
                        flags: 0,
                        chunk: dims,
                        elem_size,
                        index: ChunkIndex::BTree1,
                        addr,
                    })
                }
                k => Err(Error::malformed(format!("layout class {k}"))),
            }
        }
        3..=5 => {
            let class = c.u8()?;
            match class {
                0 => {
                    let size = c.u16()? as usize;
                    Ok(Layout::Compact(c.bytes(size)?.to_vec()))
                }
                1 => {
                    let addr = c.offset()?;
                    let size = c.length()?;
                    Ok(Layout::Contiguous {
                        addr,
                        size: Some(size),
                    })
                }
                2 if version == 3 => {
                    let ndims = c.u8()? as usize;
                    if ndims == 0 || ndims > MAX_RANK + 1 {
                        return Err(Error::malformed(format!("layout dimensionality {ndims}")));
                    }
                    let addr = c.offset()?;
                    let mut dims = Vec::with_capacity(ndims);
                    for _ in 0..ndims {
                        dims.push(c.u32()? as u64);
                    }
                    let elem_size = dims.pop().unwrap_or(0);
                    Ok(Layout::Chunked {
                        version,
                        flags: 0,
                        chunk: dims,
                        elem_size,
                        index: ChunkIndex::BTree1,
                        addr,
                    })
                }
                2 => {
                    let flags = c.u8()?;
                    let ndims = c.u8()? as usize;
                    if ndims == 0 || ndims > MAX_RANK + 1 {
                        return Err(Error::malformed(format!("layout dimensionality {ndims}")));
                    }
                    let w = c.u8()? as usize;
                    if !(1..=8).contains(&w) {
                        return Err(Error::malformed(format!("layout dimension width {w}")));
                    }
                    let mut dims = Vec::with_capacity(ndims);
                    for _ in 0..ndims {
                        dims.push(c.uint(w)?);
                    }
                    let elem_size = dims.pop().unwrap_or(0);
                    let itype = c.u8()?;
                    let index = match itype {
                        1 => {
                            let filtered = if flags & SINGLE_INDEX_WITH_FILTER != 0 {
                                let size = c.length()?;
                                let mask = c.u32()?;
                                Some((size, mask))
                            } else {
                                None
                            };
                            ChunkIndex::Single { filtered }
                        }
                        2 => ChunkIndex::Implicit,
                        3 => {
                            c.skip(1)?; // page bits
                            ChunkIndex::FixedArray
                        }
                        4 => {
                            c.skip(5)?; // max bits, index elements, min pointers, min elements, page bits
                            ChunkIndex::ExtensibleArray
                        }
                        5 => {
                            c.skip(6)?; // node size, split and merge percent
                            ChunkIndex::BTree2
                        }
                        t => return Err(Error::malformed(format!("chunk index type {t}"))),
                    };
                    let addr = c.offset()?;
                    Ok(Layout::Chunked {
                        version,
                        flags,
                        chunk: dims,
                        elem_size,
                        index,
                        addr,
                    })
                }
                3 => Ok(Layout::Virtual {
                    heap: c.offset()?,
                    index: c.u32()?,
                }),
                k => Err(Error::malformed(format!("layout class {k}"))),
            }
        }
        v => Err(Error::malformed(format!("data layout message version {v}"))),
    }
}

/// IV.A.2.g Link message, reduced to what group traversal needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub name: String,
    pub corder: Option<u64>,
    pub target: Target,
}

/// Where a link leads (IV.A.2.g, "Link Type").
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// An object header's address.
    Hard(u64),
    /// A path, absolute or relative to the link's group.
    Soft(String),
    /// An object in another file: the file's name as written, and the object's path there.
    External { file: String, path: String },
    /// A user-defined link type.
    Other(u8),
}

impl Link {
    /// The object header address of a hard link.
    pub fn hard(&self) -> Option<u64> {
        match self.target {
            Target::Hard(a) => Some(a),
            _ => None,
        }
    }
}

pub fn link(c: &mut Cur) -> Result<Link> {
    let version = c.u8()?;
    if version != 1 {
        return Err(Error::malformed(format!("link message version {version}")));
    }
    let flags = c.u8()?;
    let ltype = if flags & 0x08 != 0 { c.u8()? } else { 0 };
    let corder = if flags & 0x04 != 0 {
        Some(c.u64()?)
    } else {
        None
    };
    if flags & 0x10 != 0 {
        c.skip(1)?; // character set
    }
    let nlen = c.uint(1 << (flags & 3))? as usize;
    let name = name_str(c.bytes(nlen)?);
    let target = match ltype {
        0 => Target::Hard(c.offset()?),
        1 => {
            let n = c.u16()? as usize;
            Target::Soft(name_str(c.bytes(n)?))
        }
        64 => {
            // A version-and-flags byte, then the file's name and the object's path, each
            // NUL-terminated.
            let n = c.u16()? as usize;
            let v = c.bytes(n)?;
            let mut parts = v.get(1..).unwrap_or_default().split(|&b| b == 0);
            let file = name_str(parts.next().unwrap_or_default());
            let path = name_str(parts.next().unwrap_or_default());
            Target::External { file, path }
        }
        t => Target::Other(t),
    };
    Ok(Link {
        name,
        corder,
        target,
    })
}

/// IV.A.2.c Link Info: where dense links live.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkInfo {
    pub corder_tracked: bool,
    pub heap: u64,
    pub name_btree: u64,
    pub corder_btree: Option<u64>,
}

pub fn link_info(c: &mut Cur) -> Result<LinkInfo> {
    let version = c.u8()?;
    if version != 0 {
        return Err(Error::malformed(format!("link info version {version}")));
    }
    let flags = c.u8()?;
    if flags & 1 != 0 {
        c.skip(8)?; // maximum creation index
    }
    let heap = c.offset()?;
    let name_btree = c.offset()?;
    let corder_btree = if flags & 2 != 0 {
        Some(c.offset()?)
    } else {
        None
    };
    Ok(LinkInfo {
        corder_tracked: flags & 1 != 0,
        heap,
        name_btree,
        corder_btree,
    })
}

/// IV.A.2.v Attribute Info: where dense attributes live.
#[derive(Debug, Clone, PartialEq)]
pub struct AttrInfo {
    pub heap: u64,
    pub name_btree: u64,
    pub corder_btree: Option<u64>,
}

pub fn attr_info(c: &mut Cur) -> Result<AttrInfo> {
    let version = c.u8()?;
    if version != 0 {
        return Err(Error::malformed(format!(
            "attribute info version {version}"
        )));
    }
    let flags = c.u8()?;
    if flags & 1 != 0 {
        c.skip(2)?; // maximum creation index
    }
    let heap = c.offset()?;
    let name_btree = c.offset()?;
    let corder_btree = if flags & 2 != 0 {
        Some(c.offset()?)
    } else {
        None
    };
    Ok(AttrInfo {
        heap,
        name_btree,
        corder_btree,
    })
}

/// IV.A.2.m Attribute: name, type, space and raw data.
#[derive(Debug, Clone)]
pub struct Attribute<'a> {
    /// Borrowed from the message body when it is UTF-8: not an allocation for each of the ~20
    /// attributes of a small netCDF-4 file.
    pub name: std::borrow::Cow<'a, str>,
    pub dtype: Datatype,
    /// The datatype's stored element size (for vlen types the size of the in-object element).
    pub elem_size: u32,
    pub space: Dataspace,
    /// The values' bytes: borrowed from the message body where the header holds it.
    pub data: std::borrow::Cow<'a, [u8]>,
}

impl Attribute<'_> {
    /// The attribute with its own copy of the values (of a body that does not outlive it).
    pub fn into_owned(self) -> Attribute<'static> {
        Attribute {
            name: std::borrow::Cow::Owned(self.name.into_owned()),
            data: std::borrow::Cow::Owned(self.data.into_owned()),
            ..self
        }
    }
}

pub fn attribute<'a>(ctx: &Ctx, body: &'a [u8]) -> Result<Attribute<'a>> {
    let mut c = ctx.cur(body);
    let version = c.u8()?;
    let flags = if version == 1 {
        c.skip(1)?;
        0
    } else {
        c.u8()?
    };
    if !(1..=3).contains(&version) {
        return Err(Error::malformed(format!(
            "attribute message version {version}"
        )));
    }
    let name_size = c.u16()? as usize;
    let dt_size = c.u16()? as usize;
    let ds_size = c.u16()? as usize;
    if version == 3 {
        c.skip(1)?; // character set of the name
    }
    let pad = |n: usize| if version == 1 { n.div_ceil(8) * 8 } else { n };
    let name = cstr_cow(c.bytes(pad(name_size))?);
    let dt_raw = c.bytes(pad(dt_size))?;
    let ds_raw = c.bytes(pad(ds_size))?;
    if flags & 0x02 != 0 {
        return Err(Error::unsupported(format!(
            "attribute {name:?} with a shared dataspace"
        )));
    }
    // Flag bit 0: the datatype field is a shared-message reference (a committed datatype).
    let dt_owned;
    let dt_raw = if flags & 0x01 != 0 {
        let m = crate::ohdr::Msg {
            mtype: DATATYPE,
            flags: 0x02,
            data: dt_raw,
        };
        dt_owned = crate::ohdr::resolved(ctx, m)?;
        &dt_owned[..]
    } else {
        dt_raw
    };
    let mut dc = ctx.cur(dt_raw);
    let dtype = datatype(&mut dc)?;
    let elem_size = {
        let mut t = ctx.cur(dt_raw);
        t.skip(4)?;
        t.u32()?
    };
    let mut sc = ctx.cur(ds_raw);
    let space = dataspace(&mut sc)?;
    let n = space
        .nelems()
        .ok_or_else(|| Error::malformed("attribute element count overflows"))?;
    let len = n
        .checked_mul(elem_size as u64)
        .filter(|&l| l <= c.remaining() as u64)
        .ok_or_else(|| {
            Error::malformed(format!("attribute {name:?}: data larger than the message"))
        })?;
    let at = c.pos();
    c.skip(len as usize)?;
    let data = std::borrow::Cow::Borrowed(&body[at..at + len as usize]);
    Ok(Attribute {
        name,
        dtype,
        elem_size,
        space,
        data,
    })
}
