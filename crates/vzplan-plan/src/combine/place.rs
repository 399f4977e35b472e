//! Chunk placement shared by every way of combining: an array's plan from a file's layout, one
//! stored block as one planned chunk (or a patch), a coordinate written inline.

use crate::{ArrayPlan, Patch, PlannedChunk};
use vzplan_core::{ArrayLayout, AxisEdges, ChunkData};

/// Plans one stored block as a chunk; a block stored with filters skipped, or one of which only
/// the leading `keep` sub-block belongs to the grid, becomes a [`Patch`] too.
pub(crate) fn push_block(
    p: &mut ArrayPlan,
    key: Vec<u64>,
    source: usize,
    data: ChunkData,
    filter_mask: u32,
    block: &[u64],
    keep: Vec<u64>,
) {
    if filter_mask != 0 || keep != block {
        p.patches.push(Patch {
            chunk: p.chunks.len(),
            skipped: filter_mask,
            stored: block.to_vec(),
            keep,
        });
    }
    p.chunks.push(PlannedChunk { key, source, data });
}

pub(crate) fn base_plan(path: &str, a: &ArrayLayout) -> ArrayPlan {
    ArrayPlan {
        path: path.to_string(),
        dims: a.dims.iter().map(|d| d.name.clone()).collect(),
        shape: a.shape.clone(),
        dtype: a.dtype,
        fill_value: a.fill_value.clone(),
        attrs: a.attrs.clone(),
        codecs: a.codecs.clone(),
        edges: Vec::new(),
        chunks: Vec::new(),
        files: 1,
        values: None,
        patches: Vec::new(),
        fields: a.fields.clone(),
    }
}

/// A coordinate written inline as one chunk of raw bytes.
pub(crate) fn inline_coord(
    path: &str,
    a: &ArrayLayout,
    values: Vec<u8>,
    len: u64,
    files: usize,
) -> ArrayPlan {
    let mut p = base_plan(path, a);
    p.shape = vec![len];
    p.codecs = Vec::new();
    p.edges = vec![AxisEdges::from(vec![len.max(1)])];
    if len > 0 {
        p.chunks = vec![PlannedChunk {
            key: vec![0],
            source: 0,
            data: ChunkData::Inline(values.clone()),
        }];
    }
    p.files = files;
    p.values = Some(values);
    p
}
