//! The chunk grid of a virtual dataset from its sources' chunks: one block shape for all (a
//! source's chunk shape, with a length of 1 along an axis the source does not have), every
//! mapping on its boundaries on both sides, and each source chunk inside a mapping one chunk
//! of the virtual dataset.

use super::select::Span;
use vzplan_core::{ArrayLayout, ChunkData, ChunkList, ChunkTable, EdgeStorage};

/// A source dataset a mapping found: its array (blocks in the naming file's source numbers),
/// the box of it mapped, and where that box lies in the virtual dataset.
pub(crate) struct Piece {
    /// How messages name it: `src_1.h5:/data`.
    pub name: String,
    pub array: ArrayLayout,
    pub from: Span,
    pub to: Span,
}

/// For each axis of the virtual box, the source axis it runs along (`None`: an axis of length
/// 1 the source does not have). Equal shapes match axis to axis; otherwise the axes longer than
/// 1 match in order (a `(6, 8)` source onto `[i, :, :]` of a `(4, 6, 8)` array).
fn match_axes(to: &[u64], from: &[u64]) -> Option<Vec<Option<usize>>> {
    if to == from {
        return Some((0..to.len()).map(Some).collect());
    }
    let long = |v: &[u64]| -> Vec<usize> { (0..v.len()).filter(|&i| v[i] != 1).collect() };
    let (t, f) = (long(to), long(from));
    if t.len() != f.len() || t.iter().zip(&f).any(|(&a, &b)| to[a] != from[b]) {
        return None;
    }
    let mut out = vec![None; to.len()];
    for (&a, &b) in t.iter().zip(&f) {
        out[a] = Some(b);
    }
    Some(out)
}

/// One element's bytes, a missing fill value being zeros.
fn fill_of(a: &ArrayLayout) -> Vec<u8> {
    a.fill_value
        .clone()
        .unwrap_or_else(|| vec![0; a.dtype.size])
}

/// Gives the virtual array `a` (shape, type and fill value set) the grid and chunks of its
/// pieces, or says which piece does not fit and why.
pub(crate) fn place(a: &mut ArrayLayout, pieces: &[Piece]) -> Result<(), String> {
    let rank = a.shape.len();
    let mut block: Option<Vec<u64>> = None;
    let mut found: Vec<(Vec<u64>, usize, ChunkData, u32)> = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        let s = &p.array;
        if s.dtype != a.dtype || s.fields != a.fields {
            return Err(format!(
                "{}: its type {} is not the virtual dataset's {} (HDF5 converts it when reading; a reference cannot)",
                p.name,
                s.dtype.numpy_str(),
                a.dtype.numpy_str()
            ));
        }
        if i > 0 && s.codecs != pieces[0].array.codecs {
            return Err(format!(
                "{}: stored with other filters than {} (one array has one codec chain)",
                p.name, pieces[0].name
            ));
        }
        if p.to.len.len() != rank
            || (0..rank).any(|v| p.to.start[v].saturating_add(p.to.len[v]) > a.shape[v])
        {
            return Err(format!(
                "{}: mapped past the end of the virtual dataset",
                p.name
            ));
        }
        let axes = match_axes(&p.to.len, &p.from.len).ok_or_else(|| {
            format!(
                "{}: a box of {:?} mapped onto one of {:?}",
                p.name, p.from.len, p.to.len
            )
        })?;
        let b = grid_of(p, &axes)?;
        match &block {
            None => block = Some(b.clone()),
            Some(b0) if *b0 != b => {
                return Err(format!(
                    "{}: chunks of {b:?} where {} has {b0:?} (one array has one chunk grid)",
                    p.name, pieces[0].name
                ))
            }
            Some(_) => {}
        }
        aligned(p, &axes, &b, &a.shape)?;
        let n = chunks_of(p, &axes, &b, &mut found);
        if fill_of(s) != fill_of(a) && n < whole_chunks(p) {
            return Err(format!(
                "{}: some of its chunks were never written, which HDF5 reads as its own fill value, not the virtual dataset's",
                p.name
            ));
        }
    }
    found.sort_by(|x, y| x.0.cmp(&y.0));
    if let Some(w) = found.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!("two mappings cover chunk {:?}", w[0].0));
    }
    let block = block.unwrap_or_else(|| a.shape.iter().map(|&n| n.max(1)).collect());
    let mut entries = ChunkList::with_capacity(rank, found.len());
    for (key, source, data, mask) in found {
        entries.push(&key, source, data, mask);
    }
    a.codecs = pieces
        .first()
        .map(|p| p.array.codecs.clone())
        .unwrap_or_default();
    a.chunks = ChunkTable {
        block,
        edges: EdgeStorage::Padded,
        splittable: false,
        entries,
    };
    Ok(())
}

/// The block shape a piece gives the virtual array: its source's chunk along each matched
/// axis, 1 along the others. A source axis left out must hold one row per chunk.
fn grid_of(p: &Piece, axes: &[Option<usize>]) -> Result<Vec<u64>, String> {
    let sb = &p.array.chunks.block;
    for (ax, &b) in sb.iter().enumerate() {
        if !axes.contains(&Some(ax)) && b != 1 {
            return Err(format!(
                "{}: one row of axis {ax} is mapped, but each of its chunks holds {b}",
                p.name
            ));
        }
    }
    Ok(axes.iter().map(|m| m.map_or(1, |ax| sb[ax])).collect())
}

/// Every matched axis starts on a chunk boundary on both sides and ends on one, or at the end
/// of both the source and the virtual dataset (the one chunk an axis may hold partly).
fn aligned(p: &Piece, axes: &[Option<usize>], b: &[u64], shape: &[u64]) -> Result<(), String> {
    for (v, m) in axes.iter().enumerate() {
        let Some(ax) = *m else { continue };
        let (fs, fl, ts, tl, k) = (
            p.from.start[ax],
            p.from.len[ax],
            p.to.start[v],
            p.to.len[v],
            b[v],
        );
        if k == 0 {
            continue;
        }
        let ends = tl % k == 0
            || (fs.saturating_add(fl) == p.array.shape[ax] && ts.saturating_add(tl) == shape[v]);
        if fs % k != 0 || ts % k != 0 || !ends {
            return Err(format!(
                "{}: elements {fs}..{} of its axis {ax} are mapped onto {ts}..{} of axis {v}, \
                 not on the boundaries of its chunks of {k}",
                p.name,
                fs.saturating_add(fl),
                ts.saturating_add(tl)
            ));
        }
    }
    Ok(())
}

/// The source's chunks of one piece whose index lies in `range` per source axis.
fn in_box(p: &Piece, ax: usize, i: u64) -> bool {
    let k = p.array.chunks.block[ax].max(1);
    let (lo, hi) = (
        p.from.start[ax] / k,
        p.from.start[ax].saturating_add(p.from.len[ax]).div_ceil(k),
    );
    (lo..hi).contains(&i)
}

/// Pushes the piece's chunks at their virtual keys; returns how many.
fn chunks_of(
    p: &Piece,
    axes: &[Option<usize>],
    b: &[u64],
    out: &mut Vec<(Vec<u64>, usize, ChunkData, u32)>,
) -> usize {
    let list = &p.array.chunks.entries;
    let mut n = 0;
    for c in list {
        if c.index.len() != p.array.shape.len()
            || !(0..c.index.len()).all(|ax| in_box(p, ax, c.index.at(ax)))
        {
            continue;
        }
        let key = axes
            .iter()
            .enumerate()
            .map(|(v, m)| match *m {
                Some(ax) => p.to.start[v] / b[v] + c.index.at(ax) - p.from.start[ax] / b[v],
                None => p.to.start[v],
            })
            .collect();
        out.push((key, list.source_or(&c, 0), c.data.to_owned(), c.filter_mask));
        n += 1;
    }
    n
}

/// The chunks of the source inside the piece's box.
fn whole_chunks(p: &Piece) -> usize {
    (0..p.array.shape.len())
        .map(|ax| {
            let k = p.array.chunks.block[ax].max(1);
            let (s, l) = (p.from.start[ax], p.from.len[ax]);
            usize::try_from(s.saturating_add(l).div_ceil(k) - s / k).unwrap_or(usize::MAX)
        })
        .fold(1usize, usize::saturating_mul)
}

#[cfg(test)]
mod tests {
    use super::match_axes;

    #[test]
    fn axes_match_by_length_past_the_ones() {
        assert_eq!(match_axes(&[6, 8], &[6, 8]), Some(vec![Some(0), Some(1)]));
        assert_eq!(
            match_axes(&[1, 6, 8], &[6, 8]),
            Some(vec![None, Some(0), Some(1)])
        );
        assert_eq!(match_axes(&[1, 10], &[10]), Some(vec![None, Some(0)]));
        assert_eq!(match_axes(&[6, 8], &[8, 6]), None);
    }
}
