//! Decoded values of small 1-D coordinate variables (dimension scales), so the planner can order
//! files by coordinate. This is the only place that reads raw data: at most [`MAX_VALUES`] bytes,
//! through the filters deflate, shuffle and fletcher32 (others → no values).
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::ctx::Ctx;
use crate::messages::{Filter, Layout};
use std::io::Read;
use vzplan_core::{ArrayLayout, DataRef};

/// Coordinate values are kept up to this many decoded bytes.
pub const MAX_VALUES: u64 = 1 << 20;

pub fn values(ctx: &Ctx, a: &ArrayLayout, lay: &Layout, filters: &[Filter]) -> Option<Vec<u8>> {
    let n = *a.shape.first()?;
    let es = a.dtype.size as u64;
    let total = n.checked_mul(es)?;
    if total > MAX_VALUES {
        return None;
    }
    let fill = a
        .fill_value
        .clone()
        .unwrap_or_else(|| vec![0u8; es as usize]);
    if fill.len() as u64 != es {
        return None;
    }
    // By doubling copies, not byte by byte (that was ~100 instructions a value).
    let mut out: Vec<u8> = fill.repeat(n as usize);
    if let Layout::Compact(d) = lay {
        return d.get(..total as usize).map(|s| s.to_vec());
    }
    let block = *a.chunks.block.first()?;
    let block_bytes = block.checked_mul(es)?;
    if block_bytes > 4 * MAX_VALUES {
        return None;
    }
    for e in &a.chunks.entries {
        let (off, len) = match e.data {
            DataRef::Ref { offset, length } => (offset, length),
            DataRef::Inline(_) => return None,
        };
        if len > 4 * MAX_VALUES {
            return None;
        }
        let raw = ctx.r.read_at(off, len).ok()?;
        let dec = decode(raw, filters, e.filter_mask, es as usize, block_bytes)?;
        let start = e.index.first()?.checked_mul(block_bytes)?;
        if start >= total {
            continue;
        }
        let end = (start + block_bytes).min(total);
        let n = (end - start) as usize;
        out.get_mut(start as usize..end as usize)?
            .copy_from_slice(dec.get(..n)?);
    }
    Some(out)
}

/// Undoes the pipeline (last filter first), skipping filters masked out for this chunk.
pub(crate) fn decode(
    mut b: Vec<u8>,
    filters: &[Filter],
    mask: u32,
    es: usize,
    want: u64,
) -> Option<Vec<u8>> {
    for (i, f) in filters.iter().enumerate().rev() {
        if i < 32 && mask & (1 << i) != 0 {
            continue;
        }
        b = match f.id {
            1 => {
                let mut out = Vec::new();
                flate2::read::ZlibDecoder::new(&b[..])
                    .take(want + 1)
                    .read_to_end(&mut out)
                    .ok()?;
                out
            }
            2 => unshuffle(&b, es),
            3 => {
                let n = b.len().checked_sub(4)?;
                b.truncate(n);
                b
            }
            _ => return None,
        };
    }
    Some(b)
}

fn unshuffle(b: &[u8], es: usize) -> Vec<u8> {
    if es <= 1 {
        return b.to_vec();
    }
    let n = b.len() / es;
    let mut out = b.to_vec(); // a trailing remainder (len % es) is left as is, as HDF5 does
    for i in 0..n {
        for j in 0..es {
            out[i * es + j] = b[j * n + i];
        }
    }
    out
}
