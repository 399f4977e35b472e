//! One dataset's object header → an [`ArrayLayout`] (without dimension names, which need the whole
//! file) or the reason it cannot be described: dataspace, datatype, fill value, filter pipeline
//! and data layout (IV.A.2.b/d/e/f/i/l), with the chunk index read through `crate::idx`.
//!
//! HDF5 File Format Specification Version 3.0: <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>

use crate::attrs;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::heap::GlobalHeaps;
use crate::messages::{self as m, Datatype, Filter, Layout};
use crate::ohdr::{self, ObjHeader};
use vzplan_core::{
    ArrayLayout, ChunkData, ChunkEntry, ChunkList, ChunkTable, EdgeStorage, ProblemKind,
};

/// What the netCDF pass needs about a dataset besides its layout.
pub struct DsInfo {
    pub path: String,
    pub group: usize,
    pub addr: u64,
    pub shape: Vec<u64>,
    pub max: Vec<u64>,
    /// The layout (dims still empty), or why the dataset is a problem. Boxed: a layout is large,
    /// and a description is moved a few times before its layout joins the file's arrays.
    pub result: std::result::Result<Box<ArrayLayout>, (ProblemKind, String)>,
    /// `DIMENSION_LIST`: per axis, the object header addresses of the attached scales.
    pub dim_list: Option<Vec<Vec<u64>>>,
    /// `CLASS` = `DIMENSION_SCALE`.
    pub is_scale: bool,
    /// A netCDF dimension without a variable (its `NAME` says so).
    pub pure_dim: bool,
    /// Attributes left out because they cannot be read, with why.
    pub attr_problems: Vec<String>,
    /// What HDF5 wrote into the unwritten elements of the chunks it allocated (its fill value, per
    /// the fill value message's fill time), when that is known.
    pub padding_fill: Option<Vec<u8>>,
    /// A virtual dataset's mappings, to resolve once the whole file is known.
    pub mappings: Option<Vec<crate::vds::Mapping>>,
}

pub const PURE_DIM: &str = "This is a netCDF dimension but not a netCDF variable";

pub fn build(
    ctx: &Ctx,
    gh: &GlobalHeaps,
    path: &str,
    group: usize,
    addr: u64,
    oh: &ObjHeader,
) -> DsInfo {
    let mut info = DsInfo {
        path: path.to_string(),
        group,
        addr,
        shape: Vec::new(),
        max: Vec::new(),
        result: Err((ProblemKind::Storage, String::new())),
        dim_list: None,
        is_scale: false,
        pure_dim: false,
        attr_problems: Vec::new(),
        padding_fill: None,
        mappings: None,
    };
    info.result = describe(ctx, gh, oh, &mut info).map_err(|e| match e {
        Fail::Problem(k, s) => (k, s),
        Fail::Err(e) => (ProblemKind::Unreadable, format!("cannot be read: {e}")),
    });
    info
}

enum Fail {
    Problem(ProblemKind, String),
    Err(Error),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        match e {
            Error::Unsupported(s) => {
                Fail::Problem(ProblemKind::Storage, format!("unsupported: {s}"))
            }
            e => Fail::Err(e),
        }
    }
}

fn problem<T>(s: impl Into<String>) -> std::result::Result<T, Fail> {
    Err(Fail::Problem(ProblemKind::Storage, s.into()))
}

fn kind(k: ProblemKind) -> impl Fn(String) -> Fail {
    move |s| Fail::Problem(k, s)
}

fn msg_body<'a>(
    ctx: &Ctx,
    oh: &'a ObjHeader,
    t: u16,
    what: &str,
) -> std::result::Result<std::borrow::Cow<'a, [u8]>, Fail> {
    let msg = oh.first(t).ok_or_else(|| {
        Fail::Err(Error::malformed(format!(
            "dataset without a {what} message"
        )))
    })?;
    Ok(ohdr::resolved(ctx, msg)?)
}

fn describe(
    ctx: &Ctx,
    gh: &GlobalHeaps,
    oh: &ObjHeader,
    info: &mut DsInfo,
) -> std::result::Result<Box<ArrayLayout>, Fail> {
    let space = m::dataspace(&mut ctx.cur(&msg_body(ctx, oh, m::DATASPACE, "dataspace")?))?;
    info.shape = space.dims.to_vec();
    info.max = space.max.to_vec();
    // Attributes first: the netCDF pass needs the scale markers even for problem datasets.
    let (alist, attr_problems) = attrs::read_all_checked(ctx, oh)?;
    info.attr_problems = attr_problems;
    for a in &alist {
        match a.name.as_ref() {
            "CLASS" => {
                if let Some(s) = attrs::one_text(ctx, gh, a) {
                    info.is_scale = s == "DIMENSION_SCALE";
                }
            }
            "NAME" => {
                if let Some(s) = attrs::one_text(ctx, gh, a) {
                    info.pure_dim = s.starts_with(PURE_DIM);
                }
            }
            "DIMENSION_LIST" => info.dim_list = dimension_list(ctx, gh, a).ok(),
            _ => {}
        }
    }
    let dt_body = msg_body(ctx, oh, m::DATATYPE, "datatype")?;
    let dt = m::datatype(&mut ctx.cur(&dt_body))?;
    let model = crate::types::model(&dt).map_err(kind(ProblemKind::DataType))?;
    let dtype = model.dtype;
    if space.null {
        return problem("null dataspace (no elements) is not supported");
    }
    if oh.first(m::EXTERNAL).is_some() {
        return problem("external data files are not supported");
    }
    // Elements as stored: a variable-length string is a heap ID (datatype size field).
    let esize = if model.text {
        dt_body
            .get(4..8)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    } else {
        dtype.size
    };
    // No element of it could be stored in the file, and its (untrusted) size would size the zero
    // fill here and the coordinate and padding buffers after (a fuzzed datatype claimed
    // gigabytes: testdata/fuzz-regressions/hdf5/crash-acd3a701…).
    let file = ctx.r.size();
    if esize.max(dtype.size) as u64 > file {
        return Err(Fail::Problem(
            ProblemKind::Unreadable,
            format!(
                "an element of {} bytes is larger than the file ({file} bytes)",
                esize.max(dtype.size)
            ),
        ));
    }
    // Fill value: the new message wins over the old one; none at all = zeros (library default).
    let mut fill: Option<Vec<u8>> = Some(Vec::new());
    if let Some(msg) = oh.first(m::FILL) {
        let body = ohdr::resolved(ctx, msg)?;
        fill = m::fill_new(&mut ctx.cur(&body))?;
        if m::fill_written(&mut ctx.cur(&body))? {
            // An empty value is the library default: zeros.
            info.padding_fill = fill.as_ref().map(|v| match v.len() == esize {
                true => v.clone(),
                false => vec![0u8; esize],
            });
        }
    } else if let Some(msg) = oh.first(m::FILL_OLD) {
        fill = Some(m::fill_old(&mut ctx.cur(&ohdr::resolved(ctx, msg)?))?);
    }
    let mut fill = fill.map(|v| match v.len() == esize {
        true => v,
        false => vec![0u8; esize],
    });
    let mut amap = attrs::to_map(ctx, gh, &alist);
    if let Some(fv) = alist.iter().find(|a| a.name == "_FillValue") {
        if let Some(b) = fill_from_attr(fv, &dt) {
            fill = Some(b);
        }
    }
    // _FillValue stays in attrs as a JSON value (to_map keeps it).
    let filters = match oh.first(m::FILTERS) {
        Some(msg) => m::filters(&mut ctx.cur(&ohdr::resolved(ctx, msg)?))?,
        None => Vec::new(),
    };
    let lay = m::layout(&mut ctx.cur(&msg_body(ctx, oh, m::LAYOUT, "data layout")?))?;
    if let Layout::Virtual { heap, index } = lay {
        let body = gh.get(ctx, heap, index)?;
        info.mappings = Some(crate::vds::mappings(&mut ctx.cur(&body))?);
    }
    let chunk_elems = match &lay {
        // Chunk dims are the file's word: a product past u64 is a malformed layout, not a panic.
        Layout::Chunked { chunk, .. } => chunk
            .iter()
            .try_fold(1u64, |a, &c| a.checked_mul(c))
            .ok_or_else(|| Fail::Err(Error::malformed("chunk element count overflows")))?,
        _ => space.nelems().unwrap_or(0),
    };
    let mut codecs =
        crate::filters::codecs(&filters, &dtype, chunk_elems).map_err(kind(ProblemKind::Filter))?;
    let mut chunks = chunk_table(ctx, &lay, &space.dims, &space.max, esize, &filters)?;
    if model.text {
        chunks = crate::vlen::inline(ctx, gh, &lay, &chunks, &filters, &space.dims, esize)
            .map_err(kind(ProblemKind::DataType))?;
        codecs = vec![crate::vlen::codec()];
        fill = None;
    }
    let chunk_bytes = chunk_elems.saturating_mul(esize as u64);
    crate::filters::check_stored_sizes(&codecs, chunk_bytes, &chunks.entries)
        .map_err(kind(ProblemKind::Filter))?;
    if let Some(d) = model.enum_dict {
        amap.entry("enum_dict")
            .or_insert(serde_json::Value::Object(d));
    }
    let mut a = Box::new(ArrayLayout {
        path: info.path.clone(),
        dims: Vec::new(),
        shape: space.dims.to_vec(),
        dtype,
        fill_value: fill,
        attrs: amap,
        codecs,
        chunks,
        values: None,
        fields: model.fields.clone(),
    });
    if info.is_scale && !info.pure_dim && a.shape.len() == 1 && !model.text {
        a.values = crate::coords::values(ctx, &a, &lay, &filters);
    }
    Ok(a)
}

/// `_FillValue`'s bytes in the dataset's type (same type: raw; other numeric types: converted).
fn fill_from_attr(a: &m::Attribute, dt: &Datatype) -> Option<Vec<u8>> {
    let es = a.elem_size as usize;
    let first = a.data.get(..es)?;
    if &a.dtype == dt {
        return Some(first.to_vec());
    }
    let v = attrs::num(&a.dtype, first)?;
    encode(dt, &v)
}

fn encode(dt: &Datatype, v: &serde_json::Value) -> Option<Vec<u8>> {
    let (mut b, be) = match *dt {
        Datatype::Int { size, signed, be } => {
            let u = if signed {
                v.as_i64()? as u64
            } else {
                v.as_u64()?
            };
            (u.to_le_bytes()[..size as usize].to_vec(), be)
        }
        Datatype::Float { size: 4, be } => ((v.as_f64()? as f32).to_le_bytes().to_vec(), be),
        Datatype::Float { size: 8, be } => (v.as_f64()?.to_le_bytes().to_vec(), be),
        _ => return None,
    };
    if be {
        b.reverse();
    }
    Some(b)
}

/// The chunk table of one dataset, from its Data Layout message (HDF5 File Format
/// Specification IV.A.2.i) and, when chunked, its chunk index.
fn chunk_table(
    ctx: &Ctx,
    lay: &Layout,
    shape: &[u64],
    max: &[u64],
    esize: usize,
    filters: &[Filter],
) -> std::result::Result<ChunkTable, Fail> {
    let nbytes = shape
        .iter()
        .try_fold(esize as u64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Fail::Err(Error::malformed("dataset size overflows")))?;
    match lay {
        Layout::Compact(data) => {
            if (data.len() as u64) < nbytes {
                return Err(Fail::Err(Error::malformed(
                    "compact data shorter than the dataset",
                )));
            }
            Ok(ChunkTable {
                block: shape.to_vec(),
                edges: EdgeStorage::Exact,
                splittable: false,
                entries: vec![ChunkEntry {
                    index: vec![0u64; shape.len()],
                    data: ChunkData::Inline(data[..nbytes as usize].to_vec()),
                    filter_mask: 0,
                }]
                .into(),
            })
        }
        Layout::Contiguous { addr, size } => {
            contiguous_table(ctx, *addr, *size, nbytes, shape, filters)
        }
        // Its chunks are its sources' (`crate::vds`), found once the file has been walked.
        Layout::Virtual { .. } => Ok(ChunkTable {
            block: shape.iter().map(|&n| n.max(1)).collect(),
            edges: EdgeStorage::Padded,
            splittable: false,
            entries: ChunkList::new(),
        }),
        Layout::Chunked {
            version,
            flags,
            chunk,
            elem_size,
            index,
            addr,
        } => {
            check_chunk_shape(chunk, shape, *elem_size, esize)?;
            let geo = crate::idx::Geometry {
                shape: shape.to_vec(),
                max_shape: max.to_vec(),
                chunk: chunk.clone(),
                elem_size: *elem_size,
                filtered: !filters.is_empty(),
                layout_version: *version,
            };
            let raw = if ctx.is_undef(*addr) {
                Vec::new()
            } else {
                use crate::idx as ch;
                use m::ChunkIndex as I;
                match index {
                    I::BTree1 => ch::btree1_chunks(ctx, *addr, &geo)?,
                    I::Single { filtered } => ch::single(ctx, *addr, *filtered, &geo)?,
                    I::Implicit => ch::implicit(ctx, *addr, &geo)?,
                    I::FixedArray => ch::fixed_array(ctx, *addr, &geo)?,
                    I::ExtensibleArray => ch::extensible_array(ctx, *addr, &geo)?,
                    I::BTree2 => ch::btree2_chunks(ctx, *addr, &geo)?,
                }
            };
            let entries = chunk_entries(ctx, raw, chunk, shape, filters, *flags)?;
            Ok(ChunkTable {
                block: chunk.clone(),
                edges: EdgeStorage::Padded,
                splittable: false,
                entries,
            })
        }
    }
}

/// One reference to contiguous storage (none when it was never allocated).
fn contiguous_table(
    ctx: &Ctx,
    addr: u64,
    size: Option<u64>,
    nbytes: u64,
    shape: &[u64],
    filters: &[Filter],
) -> std::result::Result<ChunkTable, Fail> {
    let mut entries = Vec::new();
    if !ctx.is_undef(addr) && nbytes > 0 {
        let len = size.unwrap_or(nbytes);
        if len < nbytes {
            return Err(Fail::Err(Error::malformed(
                "contiguous storage smaller than the dataset",
            )));
        }
        let off = ctx.abs(addr);
        if off.checked_add(nbytes).is_none_or(|e| e > ctx.r.size()) {
            return Err(Fail::Err(Error::malformed(
                "contiguous data runs past the end of the file",
            )));
        }
        entries.push(ChunkEntry {
            index: vec![0u64; shape.len()],
            data: ChunkData::Ref {
                offset: off,
                length: nbytes,
            },
            filter_mask: 0,
        });
    }
    Ok(ChunkTable {
        block: shape.to_vec(),
        edges: EdgeStorage::Exact,
        splittable: filters.is_empty(),
        entries: entries.into(),
    })
}

/// The chunk dims must match the dataspace rank, be non-zero, and agree on the element size.
fn check_chunk_shape(
    chunk: &[u64],
    shape: &[u64],
    elem_size: u64,
    esize: usize,
) -> std::result::Result<(), Fail> {
    if chunk.len() != shape.len() {
        return Err(Fail::Err(Error::malformed(format!(
            "chunk rank {} differs from dataspace rank {}",
            chunk.len(),
            shape.len()
        ))));
    }
    if chunk.contains(&0) {
        return Err(Fail::Err(Error::malformed("chunk dimension of 0")));
    }
    if elem_size != esize as u64 {
        return Err(Fail::Err(Error::malformed(format!(
            "layout element size {elem_size} differs from the datatype size {esize}"
        ))));
    }
    Ok(())
}

/// Chunk index records → entries sorted by chunk index (duplicates dropped), each checked to lie
/// inside the file. The indexes go into one flat buffer and a sorted list of positions: no
/// allocation per chunk.
fn chunk_entries(
    ctx: &Ctx,
    raw: Vec<crate::chunks::RawChunk>,
    chunk: &[u64],
    shape: &[u64],
    filters: &[Filter],
    flags: u8,
) -> std::result::Result<ChunkList, Fail> {
    // DONT_FILTER_PARTIAL_BOUND_CHUNKS: edge chunks reaching past the extent are stored
    // with no filter applied. That is what a filter mask with every bit set says, so they
    // are reported as such (the planner refuses them, or `--patch` re-encodes them).
    let unfiltered_edges = flags & m::DONT_FILTER_PARTIAL_BOUND_CHUNKS != 0
        && !filters.is_empty()
        && filters.len() <= 32;
    let all_skipped = if filters.len() >= 32 {
        u32::MAX
    } else {
        (1u32 << filters.len()) - 1
    };
    let rank = chunk.len();
    let file = ctx.r.size();
    let mut index: Vec<u64> = vec![0; raw.len().saturating_mul(rank)];
    for (i, rc) in raw.iter().enumerate() {
        if rc.offset.len() != rank {
            return Err(Fail::Err(Error::malformed(
                "chunk offset of the wrong rank",
            )));
        }
        if rc.addr.checked_add(rc.size).is_none_or(|e| e > file) {
            return Err(Fail::Problem(ProblemKind::Unreadable, format!(
                "chunk at element offset {:?} (file offset {}, {} bytes) runs past the end of the file",
                rc.offset, rc.addr, rc.size
            )));
        }
        let key = &mut index[i * rank..(i + 1) * rank];
        for ((k, o), c) in key.iter_mut().zip(&rc.offset).zip(chunk) {
            *k = o / c;
        }
    }
    let key = |i: usize| &index[i * rank..(i + 1) * rank];
    // Records nearly always come in index order with no index twice (checked in one pass);
    // otherwise sorted, stable: of two records with one index, the first in the index wins.
    let in_order = (1..raw.len()).all(|i| key(i - 1) < key(i));
    let mut order: Vec<usize> = (0..raw.len()).collect();
    let mut sorted = None;
    if !in_order {
        order.sort_by(|&a, &b| key(a).cmp(key(b)));
        order.dedup_by(|a, b| key(*a) == key(*b));
        sorted = Some(order.iter().flat_map(|&i| key(i)).copied().collect());
    }
    let partial = |rc: &crate::chunks::RawChunk| {
        rc.offset
            .iter()
            .zip(chunk)
            .zip(shape)
            .any(|((&o, &c), &s)| o.saturating_add(c) > s)
    };
    let mut ranges = Vec::with_capacity(order.len());
    let mut masks = Vec::new();
    for (at, &i) in order.iter().enumerate() {
        let rc = &raw[i];
        ranges.push((rc.addr, rc.size));
        let mask = match unfiltered_edges && partial(rc) {
            true => all_skipped,
            false => rc.filter_mask,
        };
        if mask != 0 {
            masks.push((at, mask));
        }
    }
    let mut entries = ChunkList::from_ranges(rank, sorted.unwrap_or(index), &ranges)
        .ok_or_else(|| Fail::Err(Error::malformed("chunk table columns disagree")))?;
    for (at, mask) in masks {
        entries.set_filter_mask(at, mask);
    }
    Ok(entries)
}

/// `DIMENSION_LIST`: a vlen of object references per axis, stored in the global heap.
fn dimension_list(ctx: &Ctx, gh: &GlobalHeaps, a: &m::Attribute) -> Result<Vec<Vec<u64>>> {
    let base = match &a.dtype {
        Datatype::VlenSeq(b) => b.as_ref(),
        _ => return Err(Error::malformed("DIMENSION_LIST is not a vlen")),
    };
    let rsize = match base {
        Datatype::Ref {
            kind: 0,
            size,
            version,
        } if *version < 4 => *size as usize,
        _ => {
            return Err(Error::unsupported(
                "DIMENSION_LIST of references other than object references",
            ))
        }
    };
    if rsize == 0 || rsize > 8 {
        return Err(Error::malformed("object reference size"));
    }
    // One element per axis: HDF5 ranks stop at 32. Counts are bounded by the bytes present.
    let n = a.space.nelems().unwrap_or(0);
    if n > 32 {
        return Err(Error::malformed(format!("DIMENSION_LIST of {n} elements")));
    }
    let es = a.elem_size as usize;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let elem = a
            .data
            .get(i * es..(i + 1) * es)
            .ok_or_else(|| Error::malformed("short DIMENSION_LIST"))?;
        let (count, bytes) = attrs::vlen_bytes(ctx, gh, elem)?;
        let refs_here = bytes.chunks_exact(rsize).take(count as usize);
        let mut refs = Vec::with_capacity(refs_here.len());
        for b in refs_here {
            refs.push(ctx.cur(b).uint(rsize)?);
        }
        out.push(refs);
    }
    Ok(out)
}
