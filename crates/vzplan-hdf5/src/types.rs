//! The datatype message (HDF5 spec IV.A.2.d), decoded into [`Datatype`], and the classes beyond
//! plain numbers and strings: bitfield (class 4), compound (class 6), enumerated (class 8) and
//! complex (class 11, HDF5 2.0), and what the model makes of them: a bitfield is the unsigned
//! integer of its size (as h5py reads it), an enum is its base integer type with the names and
//! values in the attributes (as netCDF4-python's `enum_dict`), a compound of two equal floats named
//! `r`/`i` (h5py's complex numbers) or a class-11 complex is `complex64`/`complex128`, and any
//! other compound of plain numbers is a Zarr v3 `struct` (zarr-python >= 3.1 reads it).
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::ctx::{bytes_needed, Cur};
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use vzplan_core::{DType, Endian, Field, Kind};

/// IV.A.2.d Datatype, reduced to what the reader distinguishes.
#[derive(Debug, Clone, PartialEq)]
pub enum Datatype {
    Int {
        size: u32,
        signed: bool,
        be: bool,
    },
    Float {
        size: u32,
        be: bool,
    },
    /// Fixed-length string; `pad`: 0 null-terminated, 1 null-padded, 2 space-padded.
    Str {
        size: u32,
        pad: u8,
    },
    VlenStr,
    VlenSeq(Box<Datatype>),
    /// Enumerated: the base integer type and each member's name and value (`crate::types`).
    Enum {
        base: Box<Datatype>,
        members: Vec<(String, Vec<u8>)>,
    },
    Compound {
        size: u32,
        members: Vec<Member>,
    },
    /// HDF5 2.0 complex class: two IEEE floats of `size / 2` bytes.
    Complex {
        size: u32,
        be: bool,
    },
    /// Reference; `kind` 0 object, 1 region (version 1–3 encodings); `size` bytes each.
    Ref {
        size: u32,
        kind: u8,
        version: u8,
    },
    /// Anything else: class number, size and a reason.
    Other {
        class: u8,
        size: u32,
        what: String,
    },
}

pub fn class_name(class: u8) -> &'static str {
    match class {
        0 => "fixed-point",
        1 => "floating-point",
        2 => "time",
        3 => "string",
        4 => "bitfield",
        5 => "opaque",
        6 => "compound",
        7 => "reference",
        8 => "enumerated",
        9 => "variable-length",
        10 => "array",
        11 => "complex",
        _ => "unknown",
    }
}

impl Datatype {
    pub fn size(&self) -> u32 {
        match self {
            Datatype::Int { size, .. }
            | Datatype::Float { size, .. }
            | Datatype::Str { size, .. }
            | Datatype::Ref { size, .. }
            | Datatype::Other { size, .. }
            | Datatype::Compound { size, .. }
            | Datatype::Complex { size, .. } => *size,
            Datatype::Enum { base, .. } => base.size(),
            // Stored vlen elements: length (4) + global heap ID (address + 4); callers use the
            // size from the message for those, this is only a fallback for 8-byte offsets.
            Datatype::VlenStr | Datatype::VlenSeq(_) => 16,
        }
    }
    pub fn describe(&self) -> String {
        match self {
            Datatype::Other { what, .. } => what.clone(),
            Datatype::VlenStr => "variable-length string datatype".into(),
            Datatype::VlenSeq(_) => "variable-length sequence datatype".into(),
            Datatype::Ref { .. } => "reference datatype".into(),
            Datatype::Int { size, .. } => format!("{size}-byte integer datatype"),
            Datatype::Float { size, .. } => format!("{size}-byte float datatype"),
            Datatype::Str { size, .. } => format!("{size}-byte string datatype"),
            Datatype::Enum { .. } => "enumerated datatype".into(),
            Datatype::Compound { size, .. } => format!("{size}-byte compound datatype"),
            Datatype::Complex { size, .. } => format!("{size}-byte complex datatype"),
        }
    }
}

/// Decodes a datatype at the cursor (which then sits after it, including nested base types).
pub fn datatype(c: &mut Cur) -> Result<Datatype> {
    datatype_depth(c, 0)
}

fn datatype_depth(c: &mut Cur, depth: u32) -> Result<Datatype> {
    if depth > 8 {
        return Err(Error::malformed("datatype nesting too deep"));
    }
    let cv = c.u8()?;
    let class = cv & 0x0f;
    let version = cv >> 4;
    let b0 = c.u8()?;
    let b1 = c.u8()?;
    let _b2 = c.u8()?;
    let size = c.u32()?;
    let other = |what: String| Datatype::Other { class, size, what };
    Ok(match class {
        // A bitfield has the properties of a fixed-point type and no sign: h5py reads it as the
        // unsigned integer of its size.
        0 | 4 => {
            let offset = c.u16()?;
            let precision = c.u16()?;
            let be = b0 & 1 != 0;
            let signed = class == 0 && b0 & 0x08 != 0;
            if !matches!(size, 1 | 2 | 4 | 8) || offset != 0 || precision as u32 != size * 8 {
                other(format!(
                    "{} datatype of {size} bytes with bit offset {offset} and precision {precision}",
                    class_name(class)
                ))
            } else {
                Datatype::Int { size, signed, be }
            }
        }
        1 => {
            let _offset = c.u16()?;
            let _precision = c.u16()?;
            let _epos = c.u8()?;
            let esize = c.u8()?;
            let _mpos = c.u8()?;
            let msize = c.u8()?;
            let _bias = c.u32()?;
            let order = (b0 & 1) | ((b0 >> 5) & 2);
            let ieee = matches!((size, esize, msize), (2, 5, 10) | (4, 8, 23) | (8, 11, 52));
            if order > 1 {
                other("floating-point datatype in VAX byte order".into())
            } else if !ieee {
                other(format!(
                    "floating-point datatype of {size} bytes (exponent {esize} bits, mantissa {msize} bits) that is not IEEE binary16/32/64"
                ))
            } else {
                Datatype::Float {
                    size,
                    be: order == 1,
                }
            }
        }
        3 => Datatype::Str {
            size,
            pad: b0 & 0x0f,
        },
        7 => {
            let kind = b0 & 0x0f;
            if version >= 4 {
                // Revised references (HDF5 1.12+) carry a version and type byte pair.
                Datatype::Ref {
                    size,
                    kind,
                    version,
                }
            } else {
                Datatype::Ref {
                    size,
                    kind,
                    version,
                }
            }
        }
        6 => compound(c, version, (b0, b1), size, &mut |c| {
            datatype_depth(c, depth + 1)
        })?,
        8 => enumeration(c, version, (b0, b1), &mut |c| datatype_depth(c, depth + 1))?,
        11 => complex(c, size, &mut |c| datatype_depth(c, depth + 1))?,
        9 => {
            let vtype = b0 & 0x03;
            let base = datatype_depth(c, depth + 1)?;
            if vtype == 1 {
                Datatype::VlenStr
            } else {
                Datatype::VlenSeq(Box::new(base))
            }
        }
        _ => {
            // The properties of the remaining classes are not needed: callers that hit one of
            // them report the class, and an attribute's data position comes from the sizes
            // given in the attribute message, not from this cursor.
            other(format!("{} datatype", class_name(class)))
        }
    })
}

/// One member of a compound datatype.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub offset: u32,
    pub dtype: Datatype,
}

/// Members of a compound or enum: at most 2^16 by the format; also bounded by the bytes present.
fn member_count(b0: u8, b1: u8, c: &Cur) -> Result<usize> {
    let n = b0 as usize | (b1 as usize) << 8;
    // Every member takes at least two bytes (a name terminator and something after it).
    if n > c.remaining() / 2 + 1 {
        return Err(Error::malformed(format!(
            "{n} datatype members in {} bytes",
            c.remaining()
        )));
    }
    Ok(n)
}

/// A null-terminated name; versions 1 and 2 pad it (with the terminator) to a multiple of eight.
fn name(c: &mut Cur, padded: bool) -> Result<String> {
    let rest = &c.buf()[c.pos()..];
    let end = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| Error::malformed("datatype member name without a terminator"))?;
    let s = crate::text::lossy(&rest[..end]);
    let n = if padded {
        (end + 1).div_ceil(8) * 8
    } else {
        end + 1
    };
    c.skip(n)?;
    Ok(s)
}

type Parse<'a> = &'a mut dyn FnMut(&mut Cur) -> Result<Datatype>;

/// Class 6 properties (the cursor sits after the 8-byte datatype header).
pub fn compound(
    c: &mut Cur,
    version: u8,
    (b0, b1): (u8, u8),
    size: u32,
    sub: Parse,
) -> Result<Datatype> {
    let n = member_count(b0, b1, c)?;
    let mut members = Vec::with_capacity(n);
    for _ in 0..n {
        let name = name(c, version < 3)?;
        let offset = match version {
            1 => {
                let off = c.u32()?;
                let rank = c.u8()?;
                c.skip(3 + 4 + 4 + 16)?; // reserved, permutation, reserved, dimension sizes
                if rank != 0 {
                    return Ok(other(
                        size,
                        "compound datatype with array members (version 1)",
                    ));
                }
                off
            }
            2 => c.u32()?,
            _ => c.uint(bytes_needed(size as u64))? as u32,
        };
        let dtype = sub(c)?;
        members.push(Member {
            name,
            offset,
            dtype,
        });
    }
    Ok(Datatype::Compound { size, members })
}

/// Class 8 properties: base type, names, then values in the base type.
pub fn enumeration(c: &mut Cur, version: u8, (b0, b1): (u8, u8), sub: Parse) -> Result<Datatype> {
    let base = sub(c)?;
    let n = member_count(b0, b1, c)?;
    let mut names = Vec::with_capacity(n);
    for _ in 0..n {
        names.push(name(c, version < 3)?);
    }
    let bs = base.size() as usize;
    let mut members = Vec::with_capacity(n);
    for nm in names {
        members.push((nm, c.bytes(bs)?.to_vec()));
    }
    Ok(Datatype::Enum {
        base: Box::new(base),
        members,
    })
}

/// Class 11 (HDF5 2.0): the base floating-point type of both parts.
pub fn complex(c: &mut Cur, size: u32, sub: Parse) -> Result<Datatype> {
    Ok(match sub(c)? {
        Datatype::Float { size: fs, be } if fs * 2 == size => Datatype::Complex { size, be },
        _ => other(size, "complex datatype whose parts are not IEEE floats"),
    })
}

fn other(size: u32, what: &str) -> Datatype {
    Datatype::Other {
        class: 6,
        size,
        what: what.into(),
    }
}

/// h5py writes complex numbers as a compound `{r, i}` of two equal floats.
pub fn as_complex(dt: &Datatype) -> Option<(u32, bool)> {
    match dt {
        Datatype::Complex { size, be } => Some((*size, *be)),
        Datatype::Compound { size, members } => match members.as_slice() {
            [r, i] if r.name == "r" && i.name == "i" && r.offset == 0 => {
                match (&r.dtype, &i.dtype) {
                    (Datatype::Float { size: a, be }, Datatype::Float { size: b, be: be2 })
                        if a == b && be == be2 && i.offset == *a && *size == 2 * a =>
                    {
                        Some((*size, *be))
                    }
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// The fields of a compound of plain numbers (a Zarr v3 `struct`, zarr-python >= 3.1), with its
/// (single) byte order, or why there are none. Zarr's struct fields are packed in order, so the
/// members must be too.
pub fn struct_fields(dt: &Datatype) -> std::result::Result<(Vec<Field>, bool), String> {
    let Datatype::Compound { size, members } = dt else {
        return Err("not a compound datatype".into());
    };
    let mut fields = Vec::with_capacity(members.len());
    let mut at = 0u32;
    let mut order: Option<bool> = None;
    for m in members {
        if m.offset != at {
            return Err(format!(
                "compound datatype with padding before member {:?} (offset {}, packed at {at}); Zarr struct fields are packed",
                m.name, m.offset
            ));
        }
        let (dtype, be) = match &m.dtype {
            Datatype::Int { size, signed, be } => (
                DType::new(
                    if *signed { Kind::Int } else { Kind::UInt },
                    *size as usize,
                    endian(*be),
                ),
                *be,
            ),
            Datatype::Float { size, be } => {
                (DType::new(Kind::Float, *size as usize, endian(*be)), *be)
            }
            other => {
                return Err(format!(
                    "compound member {:?} is a {}",
                    m.name,
                    other.describe()
                ))
            }
        };
        let member_size = m.dtype.size();
        if member_size > 1 {
            if order.is_some_and(|o| o != be) {
                return Err("compound datatype with members of both byte orders".into());
            }
            order = Some(be);
        }
        fields.push(Field {
            name: m.name.clone(),
            dtype,
        });
        at += member_size;
    }
    if at != *size || members.is_empty() {
        return Err(format!(
            "compound datatype of {size} bytes whose members take {at}"
        ));
    }
    // One byte order for the record (the bytes codec's): single-byte members follow it.
    let be = order.unwrap_or(false);
    for f in &mut fields {
        f.dtype.endian = endian(be);
    }
    Ok((fields, be))
}

/// An enum's names and values as a JSON object (netCDF4-python's `enum_dict`), or `None` when
/// the base type is not an integer.
pub fn enum_dict(dt: &Datatype) -> Option<Map<String, Value>> {
    let Datatype::Enum { base, members } = dt else {
        return None;
    };
    let mut out = Map::new();
    for (n, v) in members {
        out.insert(n.clone(), crate::attrs::num(base, v)?);
    }
    Some(out)
}

/// What the model makes of a dataset's datatype.
pub struct Model {
    pub dtype: DType,
    /// A compound's fields, when it is a Zarr `struct`.
    pub fields: Vec<Field>,
    /// An enum's names and values, for the `enum_dict` attribute.
    pub enum_dict: Option<Map<String, Value>>,
    /// Variable-length strings: written inline (`crate::vlen`).
    pub text: bool,
}

fn endian(be: bool) -> Endian {
    if be {
        Endian::Big
    } else {
        Endian::Little
    }
}

/// The model's element type for a dataset's datatype, or why there is none.
pub fn model(dt: &Datatype) -> std::result::Result<Model, String> {
    let plain = |dtype| Model {
        dtype,
        fields: Vec::new(),
        enum_dict: None,
        text: false,
    };
    Ok(match dt {
        Datatype::Int { size, signed, be } => plain(DType::new(
            if *signed { Kind::Int } else { Kind::UInt },
            *size as usize,
            endian(*be),
        )),
        Datatype::Float { size, be } => plain(DType::new(Kind::Float, *size as usize, endian(*be))),
        Datatype::Str { size, .. } if *size > 0 => {
            plain(DType::new(Kind::String, *size as usize, Endian::Little))
        }
        Datatype::Enum { base, .. } => {
            let mut m = match base.as_ref() {
                b @ Datatype::Int { .. } => model(b)?,
                b => return Err(format!("enumerated datatype over a {}", b.describe())),
            };
            m.enum_dict =
                Some(enum_dict(dt).ok_or("enumerated datatype whose values cannot be decoded")?);
            m
        }
        Datatype::VlenStr => Model {
            dtype: DType::new(Kind::Text, 0, Endian::Little),
            fields: Vec::new(),
            enum_dict: None,
            text: true,
        },
        other => match as_complex(other) {
            Some((size, be)) if matches!(size, 8 | 16) => {
                plain(DType::new(Kind::Complex, size as usize, endian(be)))
            }
            _ if matches!(other, Datatype::Compound { .. }) => match struct_fields(other) {
                Ok((fields, be)) => Model {
                    dtype: DType::new(Kind::Struct, other.size() as usize, endian(be)),
                    fields,
                    enum_dict: None,
                    text: false,
                },
                // Fields are interleaved in each chunk, so they cannot be separate arrays.
                Err(why) => return Err(format!("{} is not supported: {why}", other.describe())),
            },
            _ => return Err(format!("{} is not supported", other.describe())),
        },
    })
}
