//! One variable's storage: type, shape, filters, fill value and chunks, from its `dmrpp:chunks`
//! (or `dmrpp:compact`) element.
//!
//! ```xml
//! <dmrpp:chunks compressionType="fletcher32 shuffle deflate" fillValue="0" byteOrder="LE">
//!   <dmrpp:chunkDimensionSizes>3 4</dmrpp:chunkDimensionSizes>
//!   <dmrpp:chunk offset="4016" nBytes="26" chunkPositionInArray="[0,0]"/>
//! </dmrpp:chunks>
//! ```
//!
//! As `vzplan-hdf5` describes the same dataset: chunked storage is a grid of padded blocks
//! (`chunkPositionInArray` is in elements, a multiple of the chunk shape), sorted in C order;
//! without `chunkDimensionSizes` the data is contiguous, one exact block (cut by rows when
//! unfiltered); `dmrpp:compact` holds the elements themselves (base64), one inline block. Filters
//! become HDF5 filters (deflate 1 with its `deflateLevel`, 6 when none is written; shuffle 2;
//! fletcher32 3) in `compressionType` order, which is the pipeline's, and then codecs through
//! [`vzplan_hdf5::filters::codecs`]. `byteOrder="BE"` is big-endian, anything else (BES's
//! default, and the `byteOrde` some old files spell) little-endian. The fill value is
//! `fillValue`, else the `_FillValue` attribute, else zeros (HDF5's default) in a DMR++ with a
//! `dmrpp:version`; older ones leave defined fill values out too, so theirs is unknown (none).

use base64::Engine;
use std::collections::HashMap;
use vzplan_core::{
    ArrayLayout, ChunkData, ChunkList, ChunkTable, DType, EdgeStorage, Endian, Kind, ProblemKind,
};
use vzplan_hdf5::messages::Filter;

/// A variable's failure: what kind, and why.
pub type Fail = (ProblemKind, String);

/// A variable's array (dims not yet named), its shape and the names `<Dim name=…>` give its axes.
pub type Made = (Box<ArrayLayout>, Vec<u64>, Vec<Option<String>>);

/// Zarr, HDF5 and numpy cap an array's rank at 32.
const MAX_RANK: usize = 32;
/// Filters in one pipeline (HDF5 allows 32).
const MAX_FILTERS: usize = 32;

fn fail<T>(kind: ProblemKind, why: impl Into<String>) -> Result<T, Fail> {
    Err((kind, why.into()))
}

/// The array of the variable `node` at `path` in group `group`, its shape and the names its
/// `<Dim name=…>` give its axes (its `dims` are named by the caller).
pub fn array(
    node: roxmltree::Node,
    path: &str,
    dims: &HashMap<String, u64>,
    group: &str,
    versioned: bool,
) -> Result<Made, Fail> {
    let kind = node.tag_name().name();
    if kind != "String" && crate::dataset::dtype(kind, Endian::Little).is_none() {
        return fail(
            ProblemKind::DataType,
            format!("a DAP4 {kind}: the DMR++ does not carry the HDF5 type a Zarr type would need"),
        );
    }
    let (shape, named) = shape(node, dims, group)?;
    let dmrpp: Vec<roxmltree::Node> = node
        .children()
        .filter(|c| c.is_element() && !is_dap_child(*c))
        .collect();
    if let Some(other) = dmrpp.iter().find(|c| {
        !["chunks", "chunk", "compact", "FixedLengthStringArray"]
            .iter()
            .any(|n| crate::is_dmrpp(**c, n))
    }) {
        return fail(
            ProblemKind::Storage,
            format!(
                "its data is described by <{}>, which no byte range of the granule is",
                other.tag_name().name()
            ),
        );
    }
    let chunks = dmrpp.iter().find(|c| crate::is_dmrpp(**c, "chunks"));
    let compact = dmrpp.iter().find(|c| crate::is_dmrpp(**c, "compact"));
    // Early hand-written DMR++ list a contiguous variable's one `dmrpp:chunk` bare.
    let bare = dmrpp
        .iter()
        .any(|c| crate::is_dmrpp(*c, "chunk"))
        .then_some(&node);
    let Some(&chunks) = chunks.or(compact).or(bare) else {
        return fail(
            ProblemKind::Storage,
            "no dmrpp:chunks: the DMR++ does not say where its data is",
        );
    };
    let big = chunks.attribute("byteOrder").map(str::trim) == Some("BE");
    let dtype = element(node, &dmrpp, if big { Endian::Big } else { Endian::Little })?;
    let elems = shape.iter().try_fold(1u64, |a, &n| a.checked_mul(n));
    let Some(nbytes) = elems.and_then(|e| e.checked_mul(dtype.size as u64)) else {
        return fail(ProblemKind::Unreadable, "its size overflows 2^64 bytes");
    };
    let block = block(chunks, &shape)?;
    let chunk_elems = match &block {
        Some(b) => b.iter().try_fold(1u64, |a, &n| a.checked_mul(n)),
        None => elems,
    };
    let filters = filters(chunks, &dtype)?;
    let codecs = vzplan_hdf5::filters::codecs(&filters, &dtype, chunk_elems.unwrap_or(u64::MAX))
        .map_err(|why| (ProblemKind::Filter, why))?;
    let table = match (compact, &block) {
        (Some(&c), _) => compact_table(c, &shape, nbytes)?,
        (None, Some(b)) => chunk_table(chunks, &shape, b)?,
        (None, None) => contiguous_table(chunks, &shape, filters.is_empty())?,
    };
    let fill = fill(chunks, node, &dtype, versioned)?;
    let (attrs, _) = crate::attrs::read(node, path);
    let a = ArrayLayout {
        path: path.to_string(),
        dims: Vec::new(),
        shape: shape.clone(),
        dtype,
        fill_value: fill,
        attrs,
        codecs,
        chunks: table,
        values: None,
        fields: Vec::new(),
    };
    Ok((Box::new(a), shape, named))
}

/// Chunks whose own `href` names another file than the granule: refused (their bytes are not
/// in the file the array's references name).
pub fn check_hrefs(node: roxmltree::Node, granule_href: Option<&str>) -> Result<(), Fail> {
    let chunks = node
        .children()
        .filter(|c| crate::is_dmrpp(*c, "chunks"))
        .flat_map(|c| c.children())
        .filter(|c| crate::is_dmrpp(*c, "chunk"));
    for c in chunks {
        if let Some(h) = c.attribute("href") {
            if Some(h.trim()) != granule_href.map(str::trim) {
                return fail(
                    ProblemKind::Storage,
                    format!(
                        "its chunks are in another file ({}) than the granule; one array per file is referenced",
                        vzplan_core::text::shown(h)
                    ),
                );
            }
        }
    }
    Ok(())
}

fn is_dap_child(n: roxmltree::Node) -> bool {
    ["Dim", "Attribute", "Map"]
        .iter()
        .any(|name| crate::is_dap(n, name))
}

/// The shape from `<Dim>`s: a declared dimension's size (by full path, or relative to the
/// variable's group and then its parents), or the `size` given.
fn shape(
    node: roxmltree::Node,
    dims: &HashMap<String, u64>,
    group: &str,
) -> Result<(Vec<u64>, Vec<Option<String>>), Fail> {
    let mut shape = Vec::new();
    let mut named = Vec::new();
    for d in node.children().filter(|c| crate::is_dap(*c, "Dim")) {
        if shape.len() >= MAX_RANK {
            return fail(ProblemKind::Unreadable, format!("rank above {MAX_RANK}"));
        }
        match (d.attribute("name"), d.attribute("size")) {
            (Some(name), _) => {
                let Some(size) = lookup(dims, group, name.trim()) else {
                    return fail(
                        ProblemKind::Unreadable,
                        format!(
                            "<Dim name={}> names no declared dimension",
                            vzplan_core::text::shown(name)
                        ),
                    );
                };
                shape.push(size);
                named.push(Some(
                    name.trim().rsplit('/').next().unwrap_or("").to_string(),
                ));
            }
            (None, Some(size)) => {
                let Ok(size) = size.trim().parse() else {
                    return fail(ProblemKind::Unreadable, "a <Dim> size that is no number");
                };
                shape.push(size);
                named.push(None);
            }
            (None, None) => return fail(ProblemKind::Unreadable, "a <Dim> without name or size"),
        }
    }
    Ok((shape, named))
}

fn lookup(dims: &HashMap<String, u64>, group: &str, name: &str) -> Option<u64> {
    if name.starts_with('/') {
        return dims.get(name).copied();
    }
    let mut g = group;
    loop {
        let full = if g.is_empty() {
            format!("/{name}")
        } else {
            format!("/{g}/{name}")
        };
        if let Some(&s) = dims.get(&full) {
            return Some(s);
        }
        if g.is_empty() {
            return None;
        }
        g = g.rsplit_once('/').map_or("", |(p, _)| p);
    }
}

/// The element type: a DAP4 number, or a fixed-length string of `dmrpp:FixedLengthStringArray`.
fn element(
    node: roxmltree::Node,
    dmrpp: &[roxmltree::Node],
    endian: Endian,
) -> Result<DType, Fail> {
    let name = node.tag_name().name();
    if name == "String" {
        let fixed = dmrpp
            .iter()
            .find(|c| crate::is_dmrpp(**c, "FixedLengthStringArray"));
        let len = fixed
            .and_then(|f| f.attribute("string_length"))
            .and_then(|l| l.trim().parse::<usize>().ok())
            .filter(|&l| (1..=1 << 24).contains(&l));
        return match len {
            Some(l) => Ok(DType::new(Kind::String, l, Endian::Little)),
            None => fail(
                ProblemKind::DataType,
                "a variable-length String: its elements are in the granule's global heap, which the DMR++ does not describe",
            ),
        };
    }
    crate::dataset::dtype(name, endian).ok_or_else(|| {
        (
            ProblemKind::DataType,
            format!("a DAP4 {name}: the DMR++ does not carry the HDF5 type a Zarr type would need"),
        )
    })
}

/// `chunkDimensionSizes`, when the storage is chunked.
fn block(chunks: roxmltree::Node, shape: &[u64]) -> Result<Option<Vec<u64>>, Fail> {
    let Some(sizes) = chunks
        .children()
        .find(|c| crate::is_dmrpp(*c, "chunkDimensionSizes"))
    else {
        return Ok(None);
    };
    let block: Option<Vec<u64>> = sizes
        .text()
        .unwrap_or("")
        .split_whitespace()
        .take(MAX_RANK + 1)
        .map(|t| t.parse().ok().filter(|&n| n > 0))
        .collect();
    match block {
        Some(b) if b.len() == shape.len() => Ok(Some(b)),
        _ => fail(
            ProblemKind::Unreadable,
            format!(
                "chunkDimensionSizes {:?} for a shape of {shape:?}",
                vzplan_core::text::shown(sizes.text().unwrap_or(""))
            ),
        ),
    }
}

/// `compressionType` as HDF5 filters, in pipeline order.
fn filters(chunks: roxmltree::Node, dtype: &DType) -> Result<Vec<Filter>, Fail> {
    let names = chunks.attribute("compressionType").unwrap_or("");
    let levels = chunks
        .attribute("deflateLevel")
        .or_else(|| chunks.attribute("deflate_level"))
        .unwrap_or("");
    let mut levels = levels.split_whitespace().map(|l| l.parse::<u32>().ok());
    let mut out = Vec::new();
    for name in names.split_whitespace().take(MAX_FILTERS + 1) {
        if out.len() >= MAX_FILTERS {
            return fail(ProblemKind::Filter, "more than 32 filters");
        }
        let (id, values) = match name {
            "deflate" => (1, vec![levels.next().flatten().unwrap_or(6)]),
            "shuffle" => (2, vec![dtype.size as u32]),
            "fletcher32" => (3, Vec::new()),
            other => {
                return fail(
                    ProblemKind::Filter,
                    format!(
                        "compressionType {}: no HDF5 filter this reader maps",
                        vzplan_core::text::shown(other)
                    ),
                )
            }
        };
        out.push(Filter {
            id,
            flags: 0,
            name: name.to_string(),
            values,
        });
    }
    Ok(out)
}

/// A chunk's offset and size.
fn range(c: roxmltree::Node) -> Result<(u64, u64), Fail> {
    let num = |name: &str| {
        c.attribute(name)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .ok_or_else(|| {
                (
                    ProblemKind::Unreadable,
                    format!("a dmrpp:chunk whose {name} is missing or no number"),
                )
            })
    };
    Ok((num("offset")?, num("nBytes")?))
}

fn chunk_nodes<'a, 'i>(
    chunks: roxmltree::Node<'a, 'i>,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    chunks.children().filter(|c| crate::is_dmrpp(*c, "chunk"))
}

/// Chunked storage: every listed chunk at its grid index, sorted.
fn chunk_table(chunks: roxmltree::Node, shape: &[u64], block: &[u64]) -> Result<ChunkTable, Fail> {
    let mut found: Vec<(Vec<u64>, u64, u64)> = Vec::new();
    for c in chunk_nodes(chunks) {
        let (offset, length) = range(c)?;
        let pos = c.attribute("chunkPositionInArray").unwrap_or("");
        let index = position(pos, block).ok_or_else(|| {
            (
                ProblemKind::Unreadable,
                format!(
                    "chunkPositionInArray {} is not a multiple of the chunk shape {block:?}",
                    vzplan_core::text::shown(pos)
                ),
            )
        })?;
        found.push((index, offset, length));
    }
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    if let Some(w) = found.windows(2).find(|w| w[0].0 == w[1].0) {
        return fail(
            ProblemKind::Unreadable,
            format!("chunk {:?} is listed twice", w[0].0),
        );
    }
    let mut entries = ChunkList::with_capacity(shape.len(), found.len());
    for (index, offset, length) in found {
        entries.push(&index, 0, ChunkData::Ref { offset, length }, 0);
    }
    Ok(ChunkTable {
        block: block.to_vec(),
        edges: EdgeStorage::Padded,
        splittable: false,
        entries,
    })
}

/// `[0,50]` in elements → the grid index for chunks of `block`; `None` unless every number is a
/// multiple of its chunk length and there is one per axis.
fn position(text: &str, block: &[u64]) -> Option<Vec<u64>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::with_capacity(block.len());
    for (i, t) in inner.split(',').enumerate() {
        let b = *block.get(i)?;
        let p: u64 = t.trim().parse().ok()?;
        if !p.is_multiple_of(b) {
            return None;
        }
        out.push(p / b);
    }
    (out.len() == block.len()).then_some(out)
}

/// Contiguous storage: one exact block, at most one range.
fn contiguous_table(
    chunks: roxmltree::Node,
    shape: &[u64],
    unfiltered: bool,
) -> Result<ChunkTable, Fail> {
    let mut entries = ChunkList::with_capacity(shape.len(), 1);
    let mut listed = chunk_nodes(chunks);
    if let Some(c) = listed.next() {
        if listed.next().is_some() {
            return fail(
                ProblemKind::Unreadable,
                "several dmrpp:chunk without chunkDimensionSizes",
            );
        }
        let (offset, length) = range(c)?;
        if shape.iter().all(|&n| n > 0) {
            entries.push(
                &vec![0; shape.len()],
                0,
                ChunkData::Ref { offset, length },
                0,
            );
        }
    }
    Ok(ChunkTable {
        block: shape.to_vec(),
        edges: EdgeStorage::Exact,
        splittable: unfiltered,
        entries,
    })
}

/// Compact storage: the elements themselves, base64, one inline block.
fn compact_table(c: roxmltree::Node, shape: &[u64], nbytes: u64) -> Result<ChunkTable, Fail> {
    let text: String = c
        .text()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let Ok(mut data) = base64::engine::general_purpose::STANDARD.decode(text) else {
        return fail(ProblemKind::Unreadable, "dmrpp:compact is not base64");
    };
    if (data.len() as u64) < nbytes {
        return fail(
            ProblemKind::Unreadable,
            format!(
                "dmrpp:compact holds {} bytes of the {nbytes} of the array",
                data.len()
            ),
        );
    }
    data.truncate(nbytes as usize);
    let mut entries = ChunkList::with_capacity(shape.len(), 1);
    entries.push(&vec![0; shape.len()], 0, ChunkData::Inline(data), 0);
    Ok(ChunkTable {
        block: shape.to_vec(),
        edges: EdgeStorage::Exact,
        splittable: false,
        entries,
    })
}

/// One element of the fill value: `fillValue`, else `_FillValue`, else zeros when the DMR++ is
/// `versioned` (its writer writes every fill value the granule defines) and unknown otherwise.
fn fill(
    chunks: roxmltree::Node,
    node: roxmltree::Node,
    dtype: &DType,
    versioned: bool,
) -> Result<Option<Vec<u8>>, Fail> {
    let attr = || {
        node.children()
            .filter(|c| crate::is_dap(*c, "Attribute"))
            .find(|c| c.attribute("name") == Some("_FillValue"))
            .and_then(|a| crate::attrs::texts(a).next())
    };
    let Some(text) = chunks.attribute("fillValue").or_else(attr) else {
        return Ok(versioned.then(|| vec![0; dtype.size]));
    };
    encode(text, dtype).map(Some).ok_or_else(|| {
        (
            ProblemKind::Attribute,
            format!(
                "fill value {} is not a {}",
                vzplan_core::text::shown(text),
                dtype.numpy_str()
            ),
        )
    })
}

/// A number's text as one element of `dtype`, in its byte order.
fn encode(text: &str, dtype: &DType) -> Option<Vec<u8>> {
    let t = text.trim();
    let mut b = match (dtype.kind, dtype.size) {
        (Kind::String, n) => {
            let mut b = text.as_bytes().to_vec();
            b.resize(n, 0);
            return Some(b);
        }
        (Kind::Float, 4) => (crate::attrs::float(t)? as f32).to_le_bytes().to_vec(),
        (Kind::Float, 8) => crate::attrs::float(t)?.to_le_bytes().to_vec(),
        (Kind::Int, n) => {
            let v: i128 = t.parse().ok()?;
            let bits = 8 * n as u32;
            let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
            (lo..=hi).contains(&v).then_some(())?;
            (v as i64).to_le_bytes()[..n].to_vec()
        }
        (Kind::UInt, n) => {
            let v: u128 = t.parse().ok()?;
            (v < (1u128 << (8 * n as u32))).then_some(())?;
            (v as u64).to_le_bytes()[..n].to_vec()
        }
        _ => return None,
    };
    if dtype.endian == Endian::Big {
        b.reverse();
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_element_offsets_on_chunk_boundaries() {
        assert_eq!(position("[0,50]", &[50, 50]), Some(vec![0, 1]));
        assert_eq!(position(" [ 100 , 0 ] ", &[50, 50]), Some(vec![2, 0]));
        assert_eq!(position("[0,49]", &[50, 50]), None);
        assert_eq!(position("[0]", &[50, 50]), None);
        assert_eq!(position("[0,0,0]", &[50, 50]), None);
        assert_eq!(position("0,0", &[50, 50]), None);
        assert_eq!(position("[-1,0]", &[50, 50]), None);
    }

    #[test]
    fn fill_values_are_encoded_in_the_element_type() {
        let i4 = DType::new(Kind::Int, 4, Endian::Little);
        assert_eq!(encode("-99", &i4), Some((-99i32).to_le_bytes().to_vec()));
        assert_eq!(encode("2147483648", &i4), None);
        let u2 = DType::new(Kind::UInt, 2, Endian::Big);
        assert_eq!(encode("258", &u2), Some(vec![1, 2]));
        assert_eq!(encode("65536", &u2), None);
        let f4 = DType::new(Kind::Float, 4, Endian::Little);
        assert_eq!(
            encode("9.96921e+36", &f4),
            Some(9.969_21e36f32.to_le_bytes().to_vec())
        );
        let s3 = DType::new(Kind::String, 3, Endian::Little);
        assert_eq!(encode("", &s3), Some(vec![0, 0, 0]));
    }
}
