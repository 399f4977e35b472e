//! Chunk indexes of chunked datasets: every allocated chunk's element offset, file address, stored
//! size and filter mask.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! HDF5 format spec sections: III.A.1 (version 1 B-tree, node type 1: layout message v1–v3) and
//! Appendix C, VII.A–VII.E (layout message v4/v5: Single Chunk, Implicit, Fixed Array, Extensible
//! Array, version 2 B-tree with record types 10/11).
//!
//! Conventions shared by every reader here:
//! - only allocated chunks are returned (undefined addresses are skipped), sorted in row-major
//!   order of `offset`; chunks lying wholly outside the current extent are dropped (HDF5 prunes
//!   them when a dataset shrinks, so they are stale); duplicates are an error;
//! - unfiltered chunks always occupy the full `prod(chunk) * elem_size` bytes (edge chunks too);
//! - positional indexes (Implicit, Fixed Array, Extensible Array) number chunks row-major over the
//!   chunk grid of the *maximum* dimensions; the Extensible Array first moves the unlimited
//!   dimension to the front ("swizzles"), so its index is
//!   `scaled[unlim] * prod(other grid) + row-major(other scaled)`;
//! - a filtered entry's "Chunk Size" field is, for layout message version 4, "one more than the
//!   number of bytes that would be needed to encode the size of an unfiltered chunk, but not more
//!   than 8", and for version 5 and above "the size specified in the Size of Offsets field"
//!   (VII.C/VII.D); the width implied by each structure's stored entry/record size must agree;
//! - every chunk must lie inside the file, so a truncated file is an error, not a bad reference.
//!
//! HDF5 File Format Specification Version 3.0: <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>

pub mod checksum;
mod earray;
mod farray;
mod tree;

use crate::ctx::{bytes_needed, Ctx};
use crate::error::{Error, Result};

pub use earray::extensible_array;
pub use farray::fixed_array;
pub use tree::{btree1_chunks, btree2_chunks};

/// Shape information a chunk index needs (from the dataspace, datatype and layout messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Current dimension sizes.
    pub shape: Vec<u64>,
    /// Maximum dimension sizes; `u64::MAX` = unlimited.
    pub max_shape: Vec<u64>,
    /// Chunk dimensions, without the trailing element-size dimension of the layout message.
    pub chunk: Vec<u64>,
    /// Bytes per element.
    pub elem_size: u64,
    /// Whether the dataset has a filter pipeline.
    pub filtered: bool,
    /// Data layout message version (3 for v1 B-trees; 4 or 5 for the other indexes).
    pub layout_version: u8,
}

/// A chunk's element offset, per dimension: inline up to rank 4, so that walking an index does
/// not allocate per chunk.
pub type Offset = smallvec::SmallVec<[u64; 4]>;

/// The offset whose number along axis `d` is `at(d)`, for `rank` axes: filled in place up to
/// rank 4 (SmallVec's `collect` grows it number by number, ~3× the instructions).
pub(crate) fn offset_from(rank: usize, at: impl Fn(usize) -> u64) -> Offset {
    if rank > 4 {
        return (0..rank).map(at).collect();
    }
    let mut buf = [0u64; 4];
    for (d, x) in buf.iter_mut().enumerate().take(rank) {
        *x = at(d);
    }
    Offset::from_buf_and_len(buf, rank)
}

/// One allocated chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawChunk {
    /// Element offset of the chunk's first element, per dimension.
    pub offset: Offset,
    /// Absolute file offset (base address applied).
    pub addr: u64,
    /// Stored bytes.
    pub size: u64,
    /// Bit i set = filter i of the pipeline was skipped for this chunk.
    pub filter_mask: u32,
}

/// Where a dataset's chunk index starts and how many bytes its walk reads there first, from its
/// object header's (unshared) data layout message: a version 1 B-tree's root node (as read
/// speculatively, 2K = 64 entries), or the header of a fixed array, extensible array or version 2
/// B-tree. `None` for every other layout, an undefined address or a message that does not parse:
/// a hint for [`Ctx::prefetch`], so the walk reports what is wrong.
pub fn index_start(ctx: &Ctx, oh: &crate::ohdr::ObjHeader) -> Option<(u64, u64)> {
    use crate::messages::{layout, ChunkIndex, Layout, LAYOUT};
    let msg = oh.first(LAYOUT).filter(|m| !m.is_shared())?;
    let Ok(Layout::Chunked {
        index, addr, chunk, ..
    }) = layout(&mut ctx.cur(msg.data))
    else {
        return None;
    };
    let (so, sl) = (ctx.so as u64, ctx.sl as u64);
    let len = match index {
        ChunkIndex::BTree1 => tree::first_read(so, chunk.len() as u64),
        ChunkIndex::FixedArray => farray::header_len(so, sl),
        ChunkIndex::ExtensibleArray => earray::header_len(so, sl),
        ChunkIndex::BTree2 => crate::btree2::header_len(so, sl),
        ChunkIndex::Single { .. } | ChunkIndex::Implicit => return None,
    };
    (!ctx.is_undef(addr)).then_some((addr, len))
}

/// The root of `oh`'s chunk index when it is a version 1 B-tree, with the dataset's rank (for
/// [`prefetch_levels`]).
pub(crate) fn btree1_root(ctx: &Ctx, oh: &crate::ohdr::ObjHeader) -> Option<(u64, u64)> {
    use crate::messages::{layout, ChunkIndex, Layout, LAYOUT};
    let msg = oh.first(LAYOUT).filter(|m| !m.is_shared())?;
    match layout(&mut ctx.cur(msg.data)) {
        Ok(Layout::Chunked {
            index: ChunkIndex::BTree1,
            addr,
            chunk,
            ..
        }) if !ctx.is_undef(addr) => Some((addr, chunk.len() as u64)),
        _ => None,
    }
}

pub(crate) use tree::prefetch_levels;

/// HDF5 allows at most 32 dimensions.
const MAX_RANK: usize = 32;

impl Geometry {
    fn check(&self) -> Result<()> {
        let r = self.shape.len();
        if r == 0 || r > MAX_RANK || self.max_shape.len() != r || self.chunk.len() != r {
            return Err(Error::malformed(format!(
                "chunked dataset with rank {r}, {} maximum dims and {} chunk dims",
                self.max_shape.len(),
                self.chunk.len()
            )));
        }
        if self.chunk.contains(&0) || self.elem_size == 0 {
            return Err(Error::malformed("zero chunk dimension or element size"));
        }
        Ok(())
    }

    /// Bytes of one unfiltered chunk.
    pub fn chunk_bytes(&self) -> Result<u64> {
        self.chunk
            .iter()
            .try_fold(self.elem_size, |acc, &c| acc.checked_mul(c))
            .ok_or_else(|| Error::malformed("chunk byte size overflows"))
    }

    /// Chunks per dimension over the current extent.
    fn grid(&self) -> Vec<u64> {
        self.shape
            .iter()
            .zip(&self.chunk)
            .map(|(&d, &c)| d.div_ceil(c))
            .collect()
    }

    /// Chunks per dimension over the maximum extent; `None` for unlimited dimensions.
    fn max_grid(&self) -> Vec<Option<u64>> {
        self.max_shape
            .iter()
            .zip(&self.chunk)
            .map(|(&d, &c)| (d != u64::MAX).then(|| d.div_ceil(c)))
            .collect()
    }

    /// Width of the "Chunk Size" field of filtered FA/EA/BT2 entries.
    fn filtered_size_width(&self, so: u8) -> Result<usize> {
        Ok(if self.layout_version >= 5 {
            usize::from(so)
        } else {
            (1 + bytes_needed(self.chunk_bytes()?)).min(8)
        })
    }
}

/// Product of grid dimensions, checked.
fn product(dims: &[u64]) -> Result<u64> {
    dims.iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Error::malformed("number of chunks overflows"))
}

/// Row-major scaled coordinates of linear index `idx` over `grid`.
fn unravel(mut idx: u64, grid: &[u64]) -> Vec<u64> {
    let mut out = vec![0; grid.len()];
    for (o, &g) in out.iter_mut().zip(grid).rev() {
        if g > 0 {
            *o = idx % g;
            idx /= g;
        }
    }
    out
}

/// Element offset of the chunk at scaled coordinates `scaled`.
fn scaled_to_offset(scaled: &[u64], geo: &Geometry) -> Result<Offset> {
    let at = |d: usize| scaled[d].checked_mul(geo.chunk[d]);
    let rank = scaled.len().min(geo.chunk.len());
    if (0..rank).any(|d| at(d).is_none()) {
        return Err(Error::malformed("chunk offset overflows"));
    }
    Ok(offset_from(rank, |d| at(d).unwrap_or(0)))
}

/// One decoded FA/EA/BT2 entry: relative address, stored size, filter mask.
fn decode_entry(
    c: &mut crate::ctx::Cur,
    width: Option<usize>,
    full: u64,
) -> Result<(u64, u64, u32)> {
    let addr = c.offset()?;
    match width {
        None => Ok((addr, full, 0)),
        Some(w) => {
            let size = c.uint(w)?;
            let mask = c.u32()?;
            Ok((addr, size, mask))
        }
    }
}

/// Entry width of FA/EA elements: `Some(size width)` when filtered.
fn entry_layout(ctx: &Ctx, geo: &Geometry) -> Result<(Option<usize>, u64)> {
    if geo.filtered {
        let w = geo.filtered_size_width(ctx.so)?;
        Ok((Some(w), ctx.so as u64 + w as u64 + 4))
    } else {
        Ok((None, ctx.so as u64))
    }
}

/// Drops stale chunks outside the extent, sorts row-major, rejects duplicates and chunks that do
/// not lie inside the file, and converts addresses to absolute file offsets.
fn finish(ctx: &Ctx, geo: &Geometry, mut v: Vec<RawChunk>) -> Result<Vec<RawChunk>> {
    v.retain(|ch| ch.offset.iter().zip(&geo.shape).all(|(o, s)| o < s));
    // Indexes nearly always list chunks in order already: checked in one pass, sorted otherwise.
    if !v.is_sorted_by(|a, b| a.offset < b.offset) {
        v.sort_by(|a, b| a.offset.cmp(&b.offset));
        if let Some(w) = v.windows(2).find(|w| w[0].offset == w[1].offset) {
            return Err(Error::malformed(format!(
                "chunk index lists offset {:?} twice",
                w[0].offset
            )));
        }
    }
    let file = ctx.r.size();
    for ch in &mut v {
        ch.addr = ctx.abs(ch.addr);
        if ch.addr.checked_add(ch.size).is_none_or(|end| end > file) {
            return Err(Error::malformed(format!(
                "chunk at {:?}: {} bytes at {:#x} run past the end of the file ({file} bytes)",
                ch.offset, ch.size, ch.addr
            )));
        }
    }
    Ok(v)
}

/// Single Chunk index (VII.A, index type 1): the layout message holds the chunk's address and,
/// when filtered, its size and filter mask.
pub fn single(
    ctx: &Ctx,
    addr: u64,
    filtered: Option<(u64, u32)>,
    geo: &Geometry,
) -> Result<Vec<RawChunk>> {
    geo.check()?;
    if ctx.is_undef(addr) {
        return Ok(Vec::new());
    }
    let (size, filter_mask) = match filtered {
        Some(sm) => sm,
        None => (geo.chunk_bytes()?, 0),
    };
    let ch = RawChunk {
        offset: smallvec::smallvec![0; geo.shape.len()],
        addr,
        size,
        filter_mask,
    };
    finish(ctx, geo, vec![ch])
}

/// Implicit index (VII.B, index type 2): chunks allocated early as one array, chunk `i` at
/// `addr + i * chunk_bytes` with `i` row-major over the maximum dimensions' chunk grid. Every
/// chunk of the current extent is allocated.
pub fn implicit(ctx: &Ctx, addr: u64, geo: &Geometry) -> Result<Vec<RawChunk>> {
    geo.check()?;
    if geo.filtered {
        // Entries carry no sizes, so the format only allows this index without filters.
        return Err(Error::malformed(
            "implicit chunk index on a filtered dataset",
        ));
    }
    if ctx.is_undef(addr) {
        return Ok(Vec::new());
    }
    let max_grid: Vec<u64> = geo
        .max_grid()
        .into_iter()
        .collect::<Option<_>>()
        .ok_or_else(|| Error::malformed("implicit chunk index with an unlimited dimension"))?;
    let total = product(&max_grid)?;
    let bytes = geo.chunk_bytes()?;
    // The whole array is allocated at creation: it must fit in the file before we allocate.
    total
        .checked_mul(bytes)
        .and_then(|n| n.checked_add(ctx.abs(addr)))
        .filter(|&e| e <= ctx.r.size())
        .ok_or_else(|| {
            Error::malformed(format!(
                "implicit chunk array of {total} × {bytes} bytes at {addr:#x} passes the end of the file"
            ))
        })?;
    let grid = geo.grid();
    let n = product(&grid)?;
    if n > total {
        return Err(Error::malformed(
            "current extent larger than the maximum extent",
        ));
    }
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let scaled = unravel(i, &grid);
        // Row-major index over the maximum grid.
        let idx = scaled
            .iter()
            .zip(&max_grid)
            .fold(0u64, |acc, (&s, &g)| acc * g + s);
        out.push(RawChunk {
            offset: scaled_to_offset(&scaled, geo)?,
            addr: addr + idx * bytes,
            size: bytes,
            filter_mask: 0,
        });
    }
    finish(ctx, geo, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_filled_in_place_or_collected_past_rank_4() {
        for rank in 0..7 {
            let o = offset_from(rank, |d| 10 * d as u64 + 1);
            let want: Vec<u64> = (0..rank).map(|d| 10 * d as u64 + 1).collect();
            assert_eq!(o.as_slice(), want.as_slice());
        }
        let geo = Geometry {
            shape: vec![100, 100],
            max_shape: vec![100, 100],
            chunk: vec![10, 20],
            elem_size: 4,
            filtered: false,
            layout_version: 4,
        };
        assert_eq!(
            scaled_to_offset(&[3, 2], &geo).unwrap().as_slice(),
            [30, 40]
        );
        assert!(scaled_to_offset(&[u64::MAX, 2], &geo).is_err());
    }
}
