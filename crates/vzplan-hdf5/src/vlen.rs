//! Variable-length strings (h5py `string_dtype()`, netCDF-4 `string`): the stored elements are
//! global heap IDs (length, collection address, object index), so no byte range of the file is a
//! Zarr chunk. The strings are read from the global heap and written inline as one chunk per
//! file, encoded for the `vlen-utf8` codec (as VirtualiZarr does), up to [`MAX_TEXT`] bytes.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::attrs;
use crate::coords;
use crate::ctx::Ctx;
use crate::heap::GlobalHeaps;
use crate::messages::{Filter, Layout};
use vzplan_core::{
    ChunkData, ChunkEntry, ChunkTable, Codec, CodecId, CodecStage, DataRef, EdgeStorage,
};

/// Largest inline text per array (encoded bytes).
pub const MAX_TEXT: usize = 16 << 20;

pub fn codec() -> Codec {
    Codec::new(
        CodecId::VlenUtf8.name(),
        CodecStage::ArrayToBytes,
        serde_json::json!({}),
    )
}

/// The strings of a vlen-string dataset, as one inline `vlen-utf8` chunk covering `shape`.
/// `table` is the dataset's chunk table over its stored heap IDs of `esize` bytes.
pub fn inline(
    ctx: &Ctx,
    gh: &GlobalHeaps,
    lay: &Layout,
    table: &ChunkTable,
    filters: &[Filter],
    shape: &[u64],
    esize: usize,
) -> Result<ChunkTable, String> {
    let ids = heap_ids(ctx, lay, table, filters, shape, esize)?;
    let n = ids.len() / esize.max(1);
    let mut out = Vec::with_capacity(4 + 5 * n);
    out.extend_from_slice(&(n as u32).to_le_bytes());
    for id in ids.chunks_exact(esize) {
        let s = if id.iter().all(|&b| b == 0) {
            Vec::new() // never written: the empty string, as h5py and netCDF4-python read it
        } else {
            let (len, bytes) = attrs::vlen_bytes(ctx, gh, id)
                .map_err(|e| format!("variable-length string cannot be read: {e}"))?;
            let l = (len as usize).min(bytes.len());
            let b = &bytes[..l];
            // netCDF-C and h5py store no terminator, but some writers do.
            b.strip_suffix(&[0]).unwrap_or(b).to_vec()
        };
        if std::str::from_utf8(&s).is_err() {
            return Err("variable-length string that is not UTF-8 (vlen-utf8 needs UTF-8)".into());
        }
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(&s);
        if out.len() > MAX_TEXT {
            return Err(format!(
                "variable-length strings of more than {MAX_TEXT} bytes (they are written inline)"
            ));
        }
    }
    let entries = if n == 0 {
        Vec::new()
    } else {
        vec![ChunkEntry {
            index: vec![0; shape.len()],
            data: ChunkData::Inline(out),
            filter_mask: 0,
        }]
    };
    Ok(ChunkTable {
        block: shape.to_vec(),
        edges: EdgeStorage::Exact,
        splittable: false,
        entries: entries.into(),
    })
}

/// The stored heap IDs of every element in row-major order (zeros where nothing is stored).
fn heap_ids(
    ctx: &Ctx,
    lay: &Layout,
    table: &ChunkTable,
    filters: &[Filter],
    shape: &[u64],
    esize: usize,
) -> Result<Vec<u8>, String> {
    let total = shape
        .iter()
        .try_fold(esize as u64, |a, &d| a.checked_mul(d))
        .filter(|&t| t <= MAX_TEXT as u64)
        .ok_or_else(|| {
            format!("more variable-length strings than fit {MAX_TEXT} bytes of heap IDs")
        })? as usize;
    let mut out = vec![0u8; total];
    if let Layout::Compact(d) = lay {
        let d = d
            .get(..total)
            .ok_or("compact data shorter than the dataset")?;
        out.copy_from_slice(d);
        return Ok(out);
    }
    let block = &table.block;
    let block_bytes = block
        .iter()
        .try_fold(esize as u64, |a, &d| a.checked_mul(d))
        .filter(|&b| b <= MAX_TEXT as u64)
        .ok_or("chunks of heap IDs too large")?;
    for e in &table.entries {
        let (off, len) = match e.data {
            DataRef::Ref { offset, length } => (offset, length),
            DataRef::Inline(d) => {
                place(&mut out, d, &e.index.to_vec(), block, shape, esize)?;
                continue;
            }
        };
        if len > 2 * block_bytes + 64 {
            return Err("a chunk of heap IDs larger than its decoded size".into());
        }
        let raw = ctx
            .r
            .read_at(off, len)
            .map_err(|e| format!("cannot be read: {e}"))?;
        let dec = coords::decode(raw, filters, e.filter_mask, esize, block_bytes).ok_or(
            "variable-length strings through a filter other than deflate, shuffle, fletcher32",
        )?;
        place(&mut out, &dec, &e.index.to_vec(), block, shape, esize)?;
    }
    Ok(out)
}

/// Copies one decoded block (full block shape, row-major) into the array, clipped at its edge.
fn place(
    out: &mut [u8],
    dec: &[u8],
    index: &[u64],
    block: &[u64],
    shape: &[u64],
    esize: usize,
) -> Result<(), String> {
    let rank = shape.len();
    if rank == 0 {
        let n = esize.min(dec.len()).min(out.len());
        out[..n].copy_from_slice(&dec[..n]);
        return Ok(());
    }
    let start: Vec<u64> = index.iter().zip(block).map(|(i, b)| i * b).collect();
    let extent: Vec<u64> = (0..rank)
        .map(|k| block[k].min(shape[k].saturating_sub(start[k])))
        .collect();
    if extent.contains(&0) {
        return Ok(());
    }
    // Rows along the last axis; iterate over every other axis' positions within the block.
    let row = extent[rank - 1] as usize * esize;
    let outer: u64 = extent[..rank - 1].iter().product();
    let mut pos = vec![0u64; rank - 1];
    for _ in 0..outer {
        let mut src = 0u64;
        let mut dst = 0u64;
        for k in 0..rank {
            let p = if k < rank - 1 { pos[k] } else { 0 };
            src = src * block[k] + p;
            dst = dst * shape[k] + start[k] + p;
        }
        let (s, d) = (src as usize * esize, dst as usize * esize);
        let from = dec.get(s..s + row).ok_or("short chunk of heap IDs")?;
        out.get_mut(d..d + row)
            .ok_or("chunk of heap IDs outside the dataset")?
            .copy_from_slice(from);
        for k in (0..rank - 1).rev() {
            pos[k] += 1;
            if pos[k] < extent[k] {
                break;
            }
            pos[k] = 0;
        }
    }
    Ok(())
}
