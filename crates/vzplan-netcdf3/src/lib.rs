//! netCDF classic metadata reader: CDF-1 (classic), CDF-2 (64-bit offset) and CDF-5 (64-bit data)
//! files → [`vzplan_core::SourceLayout`].
//!
//! Spec: NetCDF Classic and 64-bit Offset Format Specification, <https://docs.unidata.ucar.edu/netcdf-c/current/file_format_specifications.html>.
//!
//! The header grammar is `Unidata/netcdf-c:docs/file_format_specifications.md` ("The Format in
//! Detail"), and PnetCDF's CDF-5 specification for version 5 (64-bit counts; see `header.rs`). Digest:
//! `formats.md` §7.1. Only the header is parsed, plus the bytes of small coordinate variables.
//!
//! Data layout (same spec, "Note on vsize", "Note on padding" and the offset formula):
//! - A *fixed* variable is one contiguous, uncompressed, big-endian block at `begin`. It is reported
//!   as one block, or cut along axis 0 into blocks of `k` rows when larger than
//!   [`Options::chunk_bytes`] (last block short and stored exact).
//! - A *record* variable (first dimension is the record dimension) has its record `r` at
//!   `begin + r * recsize`, with `recsize` the sum of the record variables' vsizes (each rounded up to
//!   4 bytes). With several record variables, records interleave: one block per record. With exactly
//!   one, the records are contiguous without padding ("readers should ignore vsize"), so runs of
//!   records are merged into blocks of `k` records.
//!
//! vsize is recomputed from the shape as netcdf-c does (`NC_var_shape`), never taken from the file:
//! CDF-1/2 store 2^32-1 for variables over 4 GiB, and the single-record-variable rule ignores it.
//! numrecs = STREAMING (all ones) is resolved from the file length: the largest record count whose
//! last slab of every record variable lies inside the file.
//!
//! Model mapping: every dtype is big-endian; `NC_CHAR` keeps its character axis and is a 1-byte
//! string (`Kind::String`, size 1: numpy `S1`, as netCDF4-python returns it). The fill value is the
//! `_FillValue` attribute (which also stays in `attrs`), else the type's `NC_FILL_*` default.
//! Every block is exact-sized and splittable; no codecs (raw bytes). 1-D coordinate variables
//! (name = dimension name) of at most 1 MiB carry their raw values.
//!
//! NetCDF Classic Format Specification: <https://docs.unidata.ucar.edu/netcdf-c/current/file_format_specifications.html>

mod header;

use header::{Attr, Header, HeaderError, NcType, Numrecs, VarDef};
use serde_json::{Map, Value};
use vzplan_core::{
    ArrayLayout, ArrayProblem, ChunkData, ChunkEntry, ChunkTable, Dim, EdgeStorage, Format,
    ProblemKind, SourceLayout,
};
use vzplan_io::{IoError, RangeRead};

pub use header::MAX_HEADER_BYTES;

/// Coordinate variables up to this many bytes have their values read (`ArrayLayout::values`).
const MAX_VALUES_BYTES: u64 = 1024 * 1024;
/// A strided (interleaved-record) coordinate is fetched in one read when its span is at most this.
const MAX_STRIDED_SPAN: u64 = 8 * 1024 * 1024;

/// Reader options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Target size of one block, in bytes: contiguous records of a lone record variable are merged
    /// into blocks of about this size, and fixed variables larger than this are cut along axis 0.
    /// A block is never smaller than one row (one record).
    ///
    /// The default, 4 MiB, is a common chunk target: netcdf-c's default netCDF-4 chunk size is
    /// 4 MiB, one object-store GET of a few MiB amortises request latency, and it keeps the
    /// reference count (one JSON entry per block) low without making a single-element read fetch
    /// much more than needed.
    pub chunk_bytes: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            chunk_bytes: 4 * 1024 * 1024,
        }
    }
}

/// A whole-file failure. Display: `<url>: <what is wrong>`.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{url}: {what}")]
    NotNetcdf3 { url: String, what: String },
    #[error(
        "{url}: header truncated (or a length in it corrupt): reading {what} needs {need} bytes at offset {offset}, but the file has {size} bytes"
    )]
    Truncated {
        url: String,
        what: String,
        offset: u64,
        need: u64,
        size: u64,
    },
    #[error("{url}: corrupt netCDF classic file: {what}")]
    Invalid { url: String, what: String },
    /// The header places variable data where it cannot be (same message form as `Invalid`).
    #[error("{url}: corrupt netCDF classic file: {source}")]
    Geometry {
        url: String,
        #[source]
        source: GeometryError,
    },
    #[error(transparent)]
    Io(#[from] IoError),
}

/// True when `head` (the first bytes of a file) starts with `CDF\x01`, `CDF\x02` or `CDF\x05`.
pub fn sniff(head: &[u8]) -> bool {
    header::is_magic(head)
}

/// The file's variant from its first bytes: `netCDF classic CDF-1`, `netCDF 64-bit offset CDF-2`,
/// `netCDF 64-bit data CDF-5`.
pub fn describe_header(head: &[u8]) -> Option<String> {
    let what = match head.get(..4)? {
        b"CDF\x01" => "netCDF classic CDF-1",
        b"CDF\x02" => "netCDF 64-bit offset CDF-2",
        b"CDF\x05" => "netCDF 64-bit data CDF-5",
        _ => return None,
    };
    Some(what.into())
}

/// Reads one netCDF classic file's header (and small coordinate variables) into a layout.
pub fn read_layout(r: &dyn RangeRead, opts: &Options) -> Result<SourceLayout, ReadError> {
    read_layout_with(r, opts, header::FIRST_READ)
}

fn read_layout_with(
    r: &dyn RangeRead,
    opts: &Options,
    first_read: u64,
) -> Result<SourceLayout, ReadError> {
    let url = r.url().to_string();
    let size = r.size();
    let h = header::parse_with(r, first_read).map_err(|e| match e {
        HeaderError::NotNetcdf(what) => ReadError::NotNetcdf3 {
            url: url.clone(),
            what,
        },
        HeaderError::Truncated { what, offset, need } => ReadError::Truncated {
            url: url.clone(),
            what,
            offset,
            need,
            size,
        },
        HeaderError::Invalid(what) => ReadError::Invalid {
            url: url.clone(),
            what,
        },
        HeaderError::Io(e) => ReadError::Io(e),
    })?;
    let geo = Geometry::new(&h, size).map_err(|source| ReadError::Geometry {
        url: url.clone(),
        source,
    })?;

    let mut arrays = Vec::new();
    let mut problems = Vec::new();
    for (v, g) in h.vars.iter().zip(&geo.vars) {
        if v.name.contains('/') {
            problems.push(ArrayProblem::new(
                v.name.clone(),
                ProblemKind::Naming,
                "variable name contains '/', which would read as a group path",
            ));
            continue;
        }
        let mut attrs = attrs_json(&v.attrs);
        let fill = fill_value(v).unwrap_or_else(|reason| {
            // As netCDF-C reads the file: the attribute is not used, the type's default is.
            attrs.remove("_FillValue");
            let path = format!("{}:attribute", v.name);
            let mut pr = ArrayProblem::new(path, ProblemKind::Attribute, reason);
            // The fix: a _FillValue of the variable's own type (its default, which is in use).
            let plain = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let default = decode(v.ty, &v.ty.default_fill());
            if let (Some(d), true) = (default, plain(&v.name)) {
                let args = format!("ncatted -a _FillValue,{},o,{},{d}", v.name, v.ty.nco_code());
                pr = pr.rewrite(args, "refilled");
            }
            problems.push(pr);
            v.ty.default_fill()
        });
        let chunks = chunk_table(g, geo.recsize, geo.nrecvars, opts.chunk_bytes);
        let values = coordinate_values(r, &h, v, g, geo.recsize, geo.nrecvars)?;
        arrays.push(ArrayLayout {
            path: v.name.clone(),
            dims: v
                .dimids
                .iter()
                .map(|&d| Dim::new(h.dims[d].name.clone(), h.dims[d].len == 0))
                .collect(),
            shape: g.shape.clone(),
            dtype: v.ty.dtype(),
            fill_value: Some(fill),
            attrs,
            codecs: Vec::new(),
            chunks,
            values,
            fields: Vec::new(),
        });
    }
    let meta = r.meta();
    Ok(SourceLayout {
        linked: Vec::new(),
        url,
        size,
        etag: meta.etag.clone(),
        mtime: meta.mtime.clone(),
        format: Format::NETCDF3,
        rewriter: Default::default(),
        attrs: attrs_json(&h.attrs),
        groups: Vec::new(),
        arrays,
        problems,
    })
}

/// Where one variable's data lies.
struct VarGeo {
    shape: Vec<u64>,
    record: bool,
    begin: u64,
    /// Bytes of one row of axis 0 (one record for record variables); the element size for scalars.
    row_bytes: u64,
}

/// Why the variables' data cannot be located in the file (a corrupt or truncated header).
#[derive(Debug, thiserror::Error)]
pub enum GeometryError {
    #[error("variable {0:?} is too large (its size overflows 64 bits)")]
    TooLarge(String),
    #[error("the record size overflows 64 bits")]
    RecordSizeOverflow,
    #[error("variable {name:?} begins at byte {begin}, inside the header ({header} bytes)")]
    InsideHeader {
        name: String,
        begin: u64,
        header: u64,
    },
    #[error(
        "the data of variable {name:?} runs past the end of the file ({size} bytes; {numrecs} records): the file is truncated or its header is corrupt"
    )]
    PastEnd {
        name: String,
        size: u64,
        numrecs: u64,
        /// Where the variable's data ends (None: beyond 64 bits).
        end: Option<u64>,
    },
}

struct Geometry {
    vars: Vec<VarGeo>,
    recsize: u64,
    nrecvars: usize,
}

impl Geometry {
    /// Shapes, record size and numrecs; checks every variable's data lies inside the file.
    fn new(h: &Header, size: u64) -> Result<Geometry, GeometryError> {
        let too_big = |n: &str| GeometryError::TooLarge(n.to_string());
        let mut vars = Vec::with_capacity(h.vars.len());
        for v in &h.vars {
            let record = v.dimids.first().is_some_and(|&d| h.dims[d].len == 0);
            let mut row_elems: u64 = 1;
            for &d in v.dimids.iter().skip(1) {
                row_elems = row_elems
                    .checked_mul(h.dims[d].len)
                    .ok_or_else(|| too_big(&v.name))?;
            }
            let row_bytes = row_elems
                .checked_mul(v.ty.size())
                .ok_or_else(|| too_big(&v.name))?;
            vars.push(VarGeo {
                shape: v.dimids.iter().map(|&d| h.dims[d].len).collect(),
                record,
                begin: v.begin,
                row_bytes,
            });
        }
        let rec: Vec<&VarGeo> = vars.iter().filter(|g| g.record).collect();
        // netcdf-c NC_begins: one record variable packs its records; otherwise sum the vsizes.
        let recsize = if rec.len() == 1 {
            rec[0].row_bytes
        } else {
            rec.iter().try_fold(0u64, |acc, g| {
                g.row_bytes
                    .checked_next_multiple_of(4)
                    .and_then(|vs| acc.checked_add(vs))
                    .ok_or(GeometryError::RecordSizeOverflow)
            })?
        };
        let numrecs = match h.numrecs {
            Numrecs::Count(n) => n,
            // The largest count whose last slab of every record variable fits in the file.
            Numrecs::Streaming => rec
                .iter()
                .map(|g| match g.begin.checked_add(g.row_bytes) {
                    Some(end) if end <= size && recsize > 0 => (size - end) / recsize + 1,
                    _ => 0,
                })
                .min()
                .unwrap_or(0),
        };
        let nrecvars = rec.len();
        for (g, v) in vars.iter_mut().zip(&h.vars) {
            if g.record {
                g.shape[0] = numrecs;
            }
            if g.begin < h.len {
                return Err(GeometryError::InsideHeader {
                    name: v.name.clone(),
                    begin: g.begin,
                    header: h.len,
                });
            }
            // End of the last byte referenced: the last record's slab, or the whole fixed block.
            let end = if g.record {
                match numrecs.checked_sub(1) {
                    None => Some(g.begin),
                    Some(last) => last
                        .checked_mul(recsize)
                        .and_then(|o| o.checked_add(g.begin))
                        .and_then(|o| o.checked_add(g.row_bytes)),
                }
            } else {
                let n0 = g.shape.first().copied().unwrap_or(1);
                n0.checked_mul(g.row_bytes)
                    .and_then(|t| t.checked_add(g.begin))
            };
            match end {
                Some(e) if e <= size => {}
                _ if g.record && numrecs == 0 => {}
                _ => {
                    return Err(GeometryError::PastEnd {
                        name: v.name.clone(),
                        size,
                        numrecs,
                        end,
                    })
                }
            }
        }
        Ok(Geometry {
            nrecvars,
            vars,
            recsize,
        })
    }
}

fn entry(index0: u64, rank: usize, offset: u64, length: u64) -> ChunkEntry {
    let mut index = vec![0u64; rank];
    if let Some(i) = index.first_mut() {
        *i = index0;
    }
    ChunkEntry {
        index,
        data: ChunkData::Ref { offset, length },
        filter_mask: 0,
    }
}

/// The block table of one variable. Offsets are in the file: `Geometry::new` checked the ends.
fn chunk_table(g: &VarGeo, recsize: u64, nrecvars: usize, chunk_bytes: u64) -> ChunkTable {
    let rank = g.shape.len();
    let mut block = g.shape.clone();
    let mut entries = Vec::new();
    if rank == 0 {
        entries.push(entry(0, 0, g.begin, g.row_bytes));
    } else if g.record && nrecvars > 1 {
        // Interleaved records: one block per record.
        block[0] = 1;
        for r in 0..g.shape[0] {
            let off = g.begin.saturating_add(r.saturating_mul(recsize));
            entries.push(entry(r, rank, off, g.row_bytes));
        }
    } else {
        // Contiguous rows: a fixed variable, or the records of a lone record variable.
        let n0 = g.shape[0];
        let k = (chunk_bytes / g.row_bytes.max(1)).max(1).min(n0).max(1);
        block[0] = k;
        let mut i: u64 = 0;
        while i.saturating_mul(k) < n0 {
            let rows = k.min(n0 - i * k);
            let off = g.begin.saturating_add((i * k).saturating_mul(g.row_bytes));
            entries.push(entry(i, rank, off, rows.saturating_mul(g.row_bytes)));
            i += 1;
        }
    }
    ChunkTable {
        block,
        edges: EdgeStorage::Exact,
        splittable: true,
        entries: entries.into(),
    }
}

/// The values of a small 1-D coordinate variable (name = its only dimension's name).
fn coordinate_values(
    r: &dyn RangeRead,
    h: &Header,
    v: &VarDef,
    g: &VarGeo,
    recsize: u64,
    nrecvars: usize,
) -> Result<Option<Vec<u8>>, ReadError> {
    let [d] = v.dimids[..] else {
        return Ok(None);
    };
    let n = g.shape[0];
    let el = v.ty.size();
    if h.dims[d].name != v.name || n.saturating_mul(el) > MAX_VALUES_BYTES {
        return Ok(None);
    }
    if n == 0 {
        return Ok(Some(Vec::new()));
    }
    if !g.record || nrecvars == 1 {
        return Ok(Some(r.read_at(g.begin, n * el)?));
    }
    // Interleaved records: n elements `recsize` apart.
    let span = (n - 1).saturating_mul(recsize).saturating_add(el);
    let mut out = Vec::with_capacity((n * el) as usize);
    if span <= MAX_STRIDED_SPAN {
        let buf = r.read_at(g.begin, span)?;
        for i in 0..n {
            let lo = (i * recsize) as usize;
            if let Some(e) = buf.get(lo..lo + el as usize) {
                out.extend_from_slice(e);
            }
        }
    } else {
        let ranges: Vec<(u64, u64)> = (0..n).map(|i| (g.begin + i * recsize, el)).collect();
        for e in r.read_many(&ranges)? {
            out.extend_from_slice(&e);
        }
    }
    Ok(Some(out))
}

/// Attributes as JSON: char text as a string (NULs dropped, as netCDF4-python does), one value bare,
/// several as a list, non-finite floats as "NaN" / "Infinity" / "-Infinity".
fn attrs_json(attrs: &[Attr]) -> Map<String, Value> {
    attrs
        .iter()
        .map(|a| (a.name.clone(), attr_json(a)))
        .collect()
}

fn attr_json(a: &Attr) -> Value {
    if a.ty == NcType::Char {
        let bytes: Vec<u8> = a.raw.iter().copied().filter(|&b| b != 0).collect();
        return Value::String(String::from_utf8_lossy(&bytes).into_owned());
    }
    let mut vals: Vec<Value> = a
        .raw
        .chunks_exact(a.ty.size() as usize)
        .map(|e| decode(a.ty, e).map_or(Value::Null, Num::to_json))
        .collect();
    if vals.len() == 1 {
        vals.pop().unwrap_or(Value::Null)
    } else {
        Value::Array(vals)
    }
}

/// One decoded number.
#[derive(Clone, Copy, Debug)]
enum Num {
    I(i128),
    F(f64),
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::I(i) => write!(f, "{i}"),
            Num::F(x) => write!(f, "{x}"),
        }
    }
}

impl Num {
    fn to_json(self) -> Value {
        match self {
            Num::I(i) => i64::try_from(i)
                .map(Value::from)
                .or_else(|_| u64::try_from(i).map(Value::from))
                .unwrap_or(Value::Null),
            Num::F(f) if f.is_nan() => Value::from("NaN"),
            Num::F(f) if f == f64::INFINITY => Value::from("Infinity"),
            Num::F(f) if f == f64::NEG_INFINITY => Value::from("-Infinity"),
            Num::F(f) => Value::from(f),
        }
    }
}

/// Decodes one big-endian element (`e.len() == ty.size()`); `None` for chars.
fn decode(ty: NcType, e: &[u8]) -> Option<Num> {
    let mut b = [0u8; 8];
    let n = e.len().min(8);
    b[8 - n..].copy_from_slice(&e[..n]);
    let u = u64::from_be_bytes(b);
    use NcType::*;
    Some(match ty {
        Char => return None,
        Byte => Num::I(u as u8 as i8 as i128),
        Short => Num::I(u as u16 as i16 as i128),
        Int => Num::I(u as u32 as i32 as i128),
        Int64 => Num::I(u as i64 as i128),
        UByte | UShort | UInt | UInt64 => Num::I(u as i128),
        Float => Num::F(f32::from_bits(u as u32) as f64),
        Double => Num::F(f64::from_bits(u)),
    })
}

/// Encodes `n` as one big-endian element of `ty` if it is exactly representable.
fn encode(ty: NcType, n: Num) -> Option<Vec<u8>> {
    use NcType::*;
    let int = match n {
        Num::I(i) => Some(i),
        Num::F(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e20 => Some(f as i128),
        Num::F(_) => None,
    };
    let be = |i: i128, bytes: usize| -> Vec<u8> { i.to_be_bytes()[16 - bytes..].to_vec() };
    let ranged = |lo: i128, hi: i128, bytes: usize| {
        int.filter(|i| (lo..=hi).contains(i)).map(|i| be(i, bytes))
    };
    match ty {
        Char => None,
        Byte => ranged(i8::MIN as i128, i8::MAX as i128, 1),
        Short => ranged(i16::MIN as i128, i16::MAX as i128, 2),
        Int => ranged(i32::MIN as i128, i32::MAX as i128, 4),
        Int64 => ranged(i64::MIN as i128, i64::MAX as i128, 8),
        UByte => ranged(0, u8::MAX as i128, 1),
        UShort => ranged(0, u16::MAX as i128, 2),
        UInt => ranged(0, u32::MAX as i128, 4),
        UInt64 => ranged(0, u64::MAX as i128, 8),
        Float => {
            let f = match n {
                Num::F(f) => f,
                Num::I(i) => i as f64,
            };
            let g = f as f32;
            ((g as f64) == f || f.is_nan()).then(|| g.to_be_bytes().to_vec())
        }
        Double => match n {
            Num::F(f) => Some(f.to_be_bytes().to_vec()),
            Num::I(i) => {
                let f = i as f64;
                (f as i128 == i).then(|| f.to_be_bytes().to_vec())
            }
        },
    }
}

/// `_FillValue` (first element, converted if its type differs and the value fits, as netCDF-C
/// converts it when reading), else the netCDF default fill of the type. `Err`: a `_FillValue`
/// the variable's type cannot hold, which netCDF-C does not use (why, in words for a finding).
fn fill_value(v: &VarDef) -> Result<Vec<u8>, String> {
    let Some(a) = v.attrs.iter().find(|a| a.name == "_FillValue") else {
        return Ok(v.ty.default_fill());
    };
    let size = v.ty.size() as usize;
    if a.ty == v.ty {
        return Ok(a
            .raw
            .get(..size)
            .map_or_else(|| v.ty.default_fill(), <[u8]>::to_vec));
    }
    let first = a.raw.get(..a.ty.size() as usize);
    first
        .and_then(|e| decode(a.ty, e))
        .and_then(|n| encode(v.ty, n))
        .ok_or_else(|| {
            let value = first
                .and_then(|e| decode(a.ty, e))
                .map_or_else(|| "?".to_string(), |n| n.to_string());
            format!(
                "_FillValue {value} ({}) cannot be represented in the variable's type {}: left out \
                 of its attributes, as netCDF-C leaves it unused; its fill value is the type's \
                 default",
                a.ty.name(),
                v.ty.name()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_conversion_is_exact_or_refused() {
        assert_eq!(encode(NcType::Short, Num::I(-2)), Some(vec![0xff, 0xfe]));
        assert_eq!(encode(NcType::Byte, Num::I(200)), None);
        assert_eq!(encode(NcType::UByte, Num::F(200.0)), Some(vec![200]));
        assert_eq!(encode(NcType::Int, Num::F(0.5)), None);
        assert_eq!(
            encode(NcType::Float, Num::F(-999.0)),
            Some((-999.0f32).to_be_bytes().to_vec())
        );
        assert_eq!(encode(NcType::Float, Num::F(0.1)), None);
        assert_eq!(encode(NcType::Char, Num::I(0)), None);
        assert!(matches!(
            decode(NcType::Short, &[0x80, 0x01]),
            Some(Num::I(-32767))
        ));
        assert!(matches!(
            decode(NcType::UInt64, &[0xff; 8]),
            Some(Num::I(i)) if i == u64::MAX as i128
        ));
    }

    #[test]
    fn default_fills_match_netcdf_h() {
        assert_eq!(NcType::Byte.default_fill(), vec![0x81]);
        assert_eq!(NcType::Short.default_fill(), vec![0x80, 0x01]);
        assert_eq!(NcType::Int.default_fill(), vec![0x80, 0, 0, 1]);
        assert_eq!(NcType::Float.default_fill(), vec![0x7c, 0xf0, 0, 0]);
        assert_eq!(
            NcType::Double.default_fill(),
            vec![0x47, 0x9e, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            f32::from_be_bytes([0x7c, 0xf0, 0, 0]),
            9.969_209_968_386_869e36_f64 as f32
        );
        assert_eq!(
            f64::from_be_bytes([0x47, 0x9e, 0, 0, 0, 0, 0, 0]),
            9.969_209_968_386_869e36
        );
    }

    #[test]
    fn header_reads_grow_from_a_small_first_read() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/netcdf3");
        let mut seen = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "nc") {
                continue;
            }
            let raw = std::fs::read(&p).unwrap();
            let m = vzplan_io::MemObject::new("mem://f.nc", raw.clone());
            let want = read_layout(&m, &Options::default()).unwrap();
            for first in [0, 4, 5, 13, 64, 100] {
                let m = vzplan_io::MemObject::new("mem://f.nc", raw.clone());
                let got = read_layout_with(&m, &Options::default(), first).unwrap();
                assert_eq!(got, want, "{p:?} first read {first}");
                // Doubling: a handful of header reads (+ coordinate values), not one per field.
                assert!(m.stats().requests <= 16, "{p:?}: {}", m.stats().requests);
            }
            seen += 1;
        }
        assert!(seen >= 10);
    }

    #[test]
    fn sniffs_the_three_versions() {
        assert!(sniff(b"CDF\x01rest"));
        assert!(sniff(b"CDF\x02"));
        assert!(sniff(b"CDF\x05"));
        assert!(!sniff(b"CDF\x03"));
        assert!(!sniff(b"CDF"));
        assert!(!sniff(b"\x89HDF\r\n"));
    }
}
