//! Chunk placement shared by every way of combining: an array's plan from a file's layout, one
//! stored block as one planned chunk (or a patch), a coordinate written inline.

use crate::{ArrayPlan, Patch};
use vzplan_core::{ArrayLayout, AxisEdges, ChunkData, ChunkList, DataRef, Move};

/// Plans one stored block as a chunk; a block stored with filters skipped, or one of which only
/// the leading `keep` sub-block belongs to the grid (`None`: all of it), becomes a [`Patch`] too.
/// Called once per reference: nothing is allocated unless a patch is.
pub(crate) fn push_block(
    p: &mut ArrayPlan,
    key: &[u64],
    source: usize,
    data: DataRef<'_>,
    filter_mask: u32,
    block: &[u64],
    keep: Option<Vec<u64>>,
) {
    let keep = keep.filter(|k| k != block);
    if filter_mask != 0 || keep.is_some() {
        p.patches.push(Patch {
            chunk: p.chunks.len(),
            skipped: filter_mask,
            stored: block.to_vec(),
            keep: keep.unwrap_or_else(|| block.to_vec()),
        });
    }
    p.chunks.push(key, source, data.to_owned(), 0);
}

/// Plans every block of one file's array inside its extent, whole, at its own grid key (after
/// `lead`, the key of a new leading axis, when stacking). The file's table is dropped here, so
/// a collection's references are held once, not twice, while it is planned.
pub(crate) fn push_file(
    p: &mut ArrayPlan,
    a: &ArrayLayout,
    source: usize,
    entries: ChunkList,
    lead: Option<u64>,
) {
    let grid = a.chunks.grid_shape(&a.shape);
    if entries.is_plain() && entries.rank() == Some(grid.len()) {
        // No patch to record: the columns are appended as they are, after `lead`.
        let m = Move {
            source,
            lead,
            axis: 0,
            shift: 0,
            limits: &grid,
        };
        p.chunks.extend_moved(&entries, &m);
        return;
    }
    let mut key = Vec::with_capacity(grid.len() + 1);
    for e in &entries {
        if !e.index.iter().zip(&grid).all(|(i, &g)| i < g) {
            continue;
        }
        key.clear();
        key.extend(lead);
        key.extend(e.index);
        push_block(
            p,
            &key,
            entries.source_or(&e, source),
            e.data,
            e.filter_mask,
            &a.chunks.block,
            None,
        );
    }
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
        chunks: ChunkList::new(),
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
        p.chunks.push(&[0], 0, ChunkData::Inline(values.clone()), 0);
    }
    p.files = files;
    p.values = Some(values);
    p
}
