//! The header grammar of `Unidata/netcdf-c:docs/file_format_specifications.md` ("The Format in
//! Detail"), with the CDF-5 changes of PnetCDF's CDF-5 specification: in CDF-5 every `NON_NEG`
//! (numrecs, list lengths, name lengths, dimension lengths, dimids, attribute `nelems`, `vsize`) is
//! 64-bit, `ABSENT` is `ZERO ZERO64`, and `OFFSET` is 64-bit as in CDF-2. Tags (`NC_DIMENSION`, …)
//! and `nc_type` stay 32-bit.
//!
//! The header is read through a growing buffer: one speculative first read, then doubling reads
//! as the grammar asks for more. Every length is checked against the bytes left in the file
//! (and [`MAX_HEADER_BYTES`]) before anything is read or allocated.
//!
//! NetCDF Classic Format Specification: <https://docs.unidata.ucar.edu/netcdf-c/current/file_format_specifications.html>

use vzplan_core::{DType, Endian, Kind};
use vzplan_io::{IoError, RangeRead};

/// Bytes read speculatively at offset 0; most classic headers are a few KiB.
pub(crate) const FIRST_READ: u64 = 64 * 1024;
/// A header larger than this is treated as corrupt (real headers are KiBs to a few MiB; the cap
/// keeps a corrupt length in a large file from pulling in gigabytes).
pub const MAX_HEADER_BYTES: u64 = 64 * 1024 * 1024;

/// `NC_MAX_VAR_DIMS` of netcdf-c's `netcdf.h`.
const MAX_VAR_DIMS: u64 = 1024;

const NC_DIMENSION: u32 = 0x0A;
const NC_VARIABLE: u32 = 0x0B;
const NC_ATTRIBUTE: u32 = 0x0C;

/// An external data type (`nc_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcType {
    Byte,
    Char,
    Short,
    Int,
    Float,
    Double,
    UByte,
    UShort,
    UInt,
    Int64,
    UInt64,
}

impl NcType {
    fn from_code(code: u32, version: u8) -> Option<NcType> {
        use NcType::*;
        let t = match code {
            1 => Byte,
            2 => Char,
            3 => Short,
            4 => Int,
            5 => Float,
            6 => Double,
            7 => UByte,
            8 => UShort,
            9 => UInt,
            10 => Int64,
            11 => UInt64,
            _ => return None,
        };
        // The unsigned and 64-bit types exist only in CDF-5 (netcdf-c rejects them elsewhere).
        if code >= 7 && version != 5 {
            return None;
        }
        Some(t)
    }

    pub fn name(self) -> &'static str {
        use NcType::*;
        match self {
            Byte => "NC_BYTE",
            Char => "NC_CHAR",
            Short => "NC_SHORT",
            Int => "NC_INT",
            Float => "NC_FLOAT",
            Double => "NC_DOUBLE",
            UByte => "NC_UBYTE",
            UShort => "NC_USHORT",
            UInt => "NC_UINT",
            Int64 => "NC_INT64",
            UInt64 => "NC_UINT64",
        }
    }

    pub fn size(self) -> u64 {
        use NcType::*;
        match self {
            Byte | Char | UByte => 1,
            Short | UShort => 2,
            Int | Float | UInt => 4,
            Double | Int64 | UInt64 => 8,
        }
    }

    /// The stored element type. All classic data is big-endian; `NC_CHAR` keeps its character axis
    /// and becomes a 1-byte string (numpy `S1`, as netCDF4-python returns it).
    pub fn dtype(self) -> DType {
        use NcType::*;
        let kind = match self {
            Byte | Short | Int | Int64 => Kind::Int,
            UByte | UShort | UInt | UInt64 => Kind::UInt,
            Float | Double => Kind::Float,
            Char => Kind::String,
        };
        DType::new(kind, self.size() as usize, Endian::Big)
    }

    /// The default fill value (`NC_FILL_*` of `netcdf.h`), big-endian.
    /// NCO's letter for the type (`ncatted -a name,var,o,<letter>,value`).
    pub fn nco_code(self) -> &'static str {
        use NcType::*;
        match self {
            Byte => "b",
            Char => "c",
            Short => "s",
            Int => "l",
            Float => "f",
            Double => "d",
            UByte => "ub",
            UShort => "us",
            UInt => "ul",
            Int64 => "ll",
            UInt64 => "ull",
        }
    }

    pub fn default_fill(self) -> Vec<u8> {
        use NcType::*;
        match self {
            Byte => (-127i8).to_be_bytes().to_vec(),
            Char => vec![0],
            Short => (-32767i16).to_be_bytes().to_vec(),
            Int => (-2147483647i32).to_be_bytes().to_vec(),
            // 9.9692099683868690e+36, as the spec's FILL_FLOAT / FILL_DOUBLE bytes.
            Float => 0x7cf0_0000u32.to_be_bytes().to_vec(),
            Double => 0x479e_0000_0000_0000u64.to_be_bytes().to_vec(),
            UByte => vec![255],
            UShort => 65535u16.to_be_bytes().to_vec(),
            UInt => 4294967295u32.to_be_bytes().to_vec(),
            Int64 => (-9223372036854775806i64).to_be_bytes().to_vec(),
            UInt64 => 18446744073709551614u64.to_be_bytes().to_vec(),
        }
    }
}

/// `numrecs`: a count, or STREAMING (all ones), meaning "derive it from the file length".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numrecs {
    Count(u64),
    Streaming,
}

#[derive(Clone, Debug)]
pub struct DimDef {
    pub name: String,
    /// 0 for the record dimension.
    pub len: u64,
}

#[derive(Clone, Debug)]
pub struct Attr {
    pub name: String,
    pub ty: NcType,
    /// `nelems * size` big-endian bytes, without the header padding.
    pub raw: Vec<u8>,
}

#[derive(Clone, Debug)]
pub struct VarDef {
    pub name: String,
    pub dimids: Vec<usize>,
    pub attrs: Vec<Attr>,
    pub ty: NcType,
    /// As stored; the reader recomputes it (2^32-1 marks huge CDF-1/2 variables).
    #[allow(dead_code)]
    pub vsize: u64,
    pub begin: u64,
}

#[derive(Clone, Debug)]
pub struct Header {
    pub numrecs: Numrecs,
    pub dims: Vec<DimDef>,
    pub attrs: Vec<Attr>,
    pub vars: Vec<VarDef>,
    /// Bytes the header grammar occupies; data cannot start before it.
    pub len: u64,
}

/// Parse failures, given the file URL by the caller.
#[derive(Debug)]
pub enum HeaderError {
    NotNetcdf(String),
    Truncated {
        what: String,
        offset: u64,
        need: u64,
    },
    Invalid(String),
    Io(IoError),
}

impl From<IoError> for HeaderError {
    fn from(e: IoError) -> Self {
        HeaderError::Io(e)
    }
}

type Res<T> = Result<T, HeaderError>;

struct Cursor<'a> {
    r: &'a dyn RangeRead,
    size: u64,
    buf: Vec<u8>,
    pos: u64,
    /// CDF-5: 64-bit `NON_NEG`.
    wide: bool,
    /// CDF-2 and CDF-5: 64-bit `OFFSET`.
    off64: bool,
    /// What is being read, for truncation messages.
    what: String,
}

impl Cursor<'_> {
    /// Makes `n` bytes at `pos` available, reading more of the file if needed.
    fn ensure(&mut self, n: u64) -> Res<()> {
        let end = match self.pos.checked_add(n) {
            Some(e) if e <= self.size => e,
            _ => {
                return Err(HeaderError::Truncated {
                    what: self.what.clone(),
                    offset: self.pos,
                    need: n,
                })
            }
        };
        if end > MAX_HEADER_BYTES {
            return Err(HeaderError::Invalid(format!(
                "header larger than {MAX_HEADER_BYTES} bytes while reading {} (corrupt length?)",
                self.what
            )));
        }
        let have = self.buf.len() as u64;
        if end > have {
            let want = end
                .max(have.saturating_mul(2))
                .min(self.size)
                .min(MAX_HEADER_BYTES);
            let more = self.r.read_at(have, want - have)?;
            self.buf.extend_from_slice(&more);
            if (self.buf.len() as u64) < end {
                return Err(HeaderError::Truncated {
                    what: self.what.clone(),
                    offset: self.pos,
                    need: n,
                });
            }
        }
        Ok(())
    }

    fn bytes(&mut self, n: u64) -> Res<&[u8]> {
        self.ensure(n)?;
        let lo = self.pos as usize;
        self.pos += n;
        // `ensure` guarantees the range is inside `buf`.
        self.buf
            .get(lo..self.pos as usize)
            .ok_or_else(|| HeaderError::Invalid("internal header buffer error".into()))
    }

    fn u32(&mut self) -> Res<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Res<u64> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    fn non_neg(&mut self) -> Res<u64> {
        if self.wide {
            self.u64()
        } else {
            Ok(self.u32()? as u64)
        }
    }

    fn offset(&mut self) -> Res<u64> {
        if self.off64 {
            self.u64()
        } else {
            Ok(self.u32()? as u64)
        }
    }

    fn remaining(&self) -> u64 {
        self.size.saturating_sub(self.pos)
    }

    /// Skips the 0–3 bytes that pad `len` bytes to a 4-byte boundary.
    fn pad(&mut self, len: u64) -> Res<()> {
        let p = (4 - len % 4) % 4;
        self.bytes(p).map(|_| ())
    }

    /// `name = nelems namestring` (padded to 4 bytes).
    fn name(&mut self) -> Res<String> {
        let n = self.non_neg()?;
        if n == 0 {
            return Err(HeaderError::Invalid(format!("empty name in {}", self.what)));
        }
        if n > self.remaining() {
            return Err(HeaderError::Truncated {
                what: self.what.clone(),
                offset: self.pos,
                need: n,
            });
        }
        let raw = self.bytes(n)?.to_vec();
        // netCDF-C keeps names as C strings: a name stored with trailing NULs (netCDF-C's own
        // `ref_nctest_classic.nc` has `yy\0`) is the part before the first NUL to every reader.
        let raw = raw.split(|&b| b == 0).next().unwrap_or_default();
        if raw.is_empty() {
            return Err(HeaderError::Invalid(format!(
                "name in {} is empty before its first NUL byte",
                self.what
            )));
        }
        let s = String::from_utf8(raw.to_vec()).map_err(|_| {
            HeaderError::Invalid(format!("name in {} is not valid UTF-8", self.what))
        })?;
        self.pad(n)?;
        Ok(s)
    }

    /// A list header: `ABSENT` (tag 0, count 0) or `tag nelems`.
    fn list(&mut self, tag: u32, list: &str) -> Res<u64> {
        let t = self.u32()?;
        let n = self.non_neg()?;
        match t {
            0 if n == 0 => Ok(0),
            0 => Err(HeaderError::Invalid(format!(
                "{list} is marked absent but has {n} entries"
            ))),
            t if t == tag => Ok(n),
            t => Err(HeaderError::Invalid(format!(
                "expected {list} tag {tag:#x} or ABSENT, found {t:#x}"
            ))),
        }
    }

    fn nc_type(&mut self, version: u8) -> Res<NcType> {
        let code = self.u32()?;
        NcType::from_code(code, version).ok_or_else(|| {
            HeaderError::Invalid(format!(
                "unknown nc_type {code} in {} for CDF-{version}",
                self.what
            ))
        })
    }

    fn attrs(&mut self, version: u8, owner: &str) -> Res<Vec<Attr>> {
        self.what = format!("attribute list of {owner}");
        let n = self.list(NC_ATTRIBUTE, "attribute list")?;
        let mut out = Vec::new();
        for i in 0..n {
            self.what = format!("attribute {i} of {owner}");
            let name = self.name()?;
            self.what = format!("attribute {name:?} of {owner}");
            let ty = self.nc_type(version)?;
            let nelems = self.non_neg()?;
            let len = nelems
                .checked_mul(ty.size())
                .filter(|&l| l <= self.remaining())
                .ok_or_else(|| HeaderError::Truncated {
                    what: self.what.clone(),
                    offset: self.pos,
                    need: nelems.saturating_mul(ty.size()),
                })?;
            let raw = self.bytes(len)?.to_vec();
            self.pad(len)?;
            out.push(Attr { name, ty, raw });
        }
        Ok(out)
    }
}

/// True for the CDF-1, CDF-2 and CDF-5 magic numbers.
pub fn is_magic(head: &[u8]) -> bool {
    matches!(head, [b'C', b'D', b'F', 1 | 2 | 5, ..])
}

/// Reads and checks the whole header, starting with a speculative read of `first_read` bytes
/// (callers pass [`FIRST_READ`]; tests pass tiny values to exercise the growth path).
pub(crate) fn parse_with(r: &dyn RangeRead, first_read: u64) -> Res<Header> {
    let size = r.size();
    let first = r.read_at(0, size.min(first_read.max(4)))?;
    if !is_magic(&first) {
        let shown: Vec<String> = first.iter().take(4).map(|b| format!("{b:02x}")).collect();
        return Err(HeaderError::NotNetcdf(format!(
            "not a netCDF classic file (expected magic CDF\\x01, CDF\\x02 or CDF\\x05, found {})",
            if shown.is_empty() {
                "an empty file".to_string()
            } else {
                shown.join(" ")
            }
        )));
    }
    let version = first[3];
    let mut c = Cursor {
        r,
        size,
        buf: first,
        pos: 4,
        wide: version == 5,
        off64: version != 1,
        what: "numrecs".into(),
    };
    let numrecs = if c.wide {
        match c.u64()? {
            u64::MAX => Numrecs::Streaming,
            n => Numrecs::Count(n),
        }
    } else {
        match c.u32()? {
            u32::MAX => Numrecs::Streaming,
            n => Numrecs::Count(n as u64),
        }
    };

    c.what = "dimension list".into();
    let ndims = c.list(NC_DIMENSION, "dimension list")?;
    let mut dims = Vec::new();
    for i in 0..ndims {
        c.what = format!("dimension {i}");
        let name = c.name()?;
        c.what = format!("dimension {name:?}");
        let len = c.non_neg()?;
        if len == 0 && dims.iter().any(|d: &DimDef| d.len == 0) {
            return Err(HeaderError::Invalid(format!(
                "dimension {name:?} is a second record dimension (at most one is allowed)"
            )));
        }
        dims.push(DimDef { name, len });
    }

    let attrs = c.attrs(version, "the file (global)")?;

    c.what = "variable list".into();
    let nvars = c.list(NC_VARIABLE, "variable list")?;
    let mut vars = Vec::new();
    for i in 0..nvars {
        c.what = format!("variable {i}");
        let name = c.name()?;
        c.what = format!("variable {name:?}");
        if vars.iter().any(|v: &VarDef| v.name == name) {
            // Two stored names equal up to trailing NULs: readers could reach only one of them.
            return Err(HeaderError::Invalid(format!(
                "two variables are named {name:?}"
            )));
        }
        let rank = c.non_neg()?;
        if rank > MAX_VAR_DIMS {
            return Err(HeaderError::Invalid(format!(
                "variable {name:?} has {rank} dimensions (more than NC_MAX_VAR_DIMS = {MAX_VAR_DIMS})"
            )));
        }
        let mut dimids = Vec::new();
        for k in 0..rank {
            let id = c.non_neg()?;
            let d = usize::try_from(id)
                .ok()
                .filter(|&d| d < dims.len())
                .ok_or_else(|| {
                    HeaderError::Invalid(format!(
                        "variable {name:?} refers to dimension id {id}, but there are {} dimensions",
                        dims.len()
                    ))
                })?;
            if k > 0 && dims[d].len == 0 {
                return Err(HeaderError::Invalid(format!(
                    "variable {name:?} uses the record dimension at position {k} (only the first may be)"
                )));
            }
            dimids.push(d);
        }
        let vattrs = c.attrs(version, &format!("variable {name:?}"))?;
        c.what = format!("variable {name:?}");
        let ty = c.nc_type(version)?;
        let vsize = c.non_neg()?;
        let begin = c.offset()?;
        vars.push(VarDef {
            name,
            dimids,
            attrs: vattrs,
            ty,
            vsize,
            begin,
        });
    }
    Ok(Header {
        numrecs,
        dims,
        attrs,
        vars,
        len: c.pos,
    })
}
