//! Layouts are untrusted input: they come from readers of untrusted files and, with
//! `--from-layouts`, from JSON anyone can write. Every field the planner relies on is checked here,
//! at its entry, so that the rules can index by axis and multiply sizes without panicking,
//! overflowing or allocating from a number nobody checked. An array that fails becomes a problem
//! of its file (an `unsupported` finding), never a panic, a hang or a huge allocation.

use vzplan_core::{ArrayLayout, ArrayProblem, DType, DataRef, Kind, ProblemKind, SourceLayout};

/// Zarr (like HDF5 and numpy) caps the rank of an array at 32.
pub(crate) const MAX_RANK: usize = 32;
/// Fixed-length strings longer than this are not a real dtype (HDF5 caps them at 2^32 - 1, but
/// no array with 16 MiB elements is referenced chunk by chunk).
const MAX_STRING: usize = 1 << 24;
/// Fields of one struct element (HDF5 compounds of real files have a few dozen at most).
const MAX_FIELDS: usize = 4096;
/// Values decoded by the readers are at most 1 MiB (coordinates written inline).
const MAX_VALUES: u64 = 64 << 20;

/// Moves every array of `l` that fails [`check`] to the file's problems, with the reason.
pub(crate) fn reject_invalid(l: &mut SourceLayout) {
    // The file's own size, then each linked file's: a block's range is checked against its own.
    let sizes: Vec<u64> = std::iter::once(l.size)
        .chain(l.linked.iter().map(|s| s.size))
        .collect();
    // Blocks outside the current extent (an HDF5 dataset shrunk after writing) are not part of
    // the array: dropped before anything looks at them.
    for a in &mut l.arrays {
        // Past MAX_RANK the array is rejected below anyway; dropping blocks first would rebuild
        // every key, rank × count numbers, from a grid whose line holds only rank + count.
        if a.chunks.block.len() == a.shape.len() && a.shape.len() <= MAX_RANK {
            let grid = a.chunks.grid_shape(&a.shape);
            // Looked for in the index column first: nearly every table has no such block.
            if !a.chunks.entries.all_below(&grid) {
                a.chunks.entries.retain(|e| {
                    e.index.len() != grid.len() || e.index.iter().zip(&grid).all(|(i, &g)| i < g)
                });
            }
        }
    }
    // Nearly every file passes: its arrays stay where the reader put them. (A new vector per
    // file, made on the planning thread, would be fresh memory: the scanning threads' blocks it
    // frees do not come back to this thread. At 1,000 small files that was 1.9 MB of page faults.)
    if l.arrays.iter().all(|a| check(a, &sizes).is_ok()) {
        return;
    }
    let mut ok = Vec::with_capacity(l.arrays.len());
    let mut bad = Vec::new();
    for a in std::mem::take(&mut l.arrays) {
        match check(&a, &sizes) {
            Ok(()) => ok.push(a),
            Err(e) => bad.push((a.path, e)),
        }
    }
    l.arrays = ok;
    for (path, reason) in bad {
        l.problems.push(ArrayProblem::new(
            path,
            ProblemKind::Unreadable,
            format!("invalid layout: {reason}"),
        ));
    }
}

/// Whether `d` is an element type the planner and the output can handle.
pub(crate) fn valid_dtype(d: &DType) -> bool {
    match d.kind {
        Kind::Bool => d.size == 1,
        Kind::Int | Kind::UInt => matches!(d.size, 1 | 2 | 4 | 8),
        Kind::Float => matches!(d.size, 2 | 4 | 8),
        Kind::String => (1..=MAX_STRING).contains(&d.size),
        Kind::Complex => matches!(d.size, 8 | 16),
        // Variable-length text has no element size; such arrays are written inline.
        Kind::Text => d.size == 0,
        // Its fields are checked with the array (`check`).
        Kind::Struct => (1..=MAX_STRING).contains(&d.size),
    }
}

/// A `struct` element's fields: numbers, packed, filling the element exactly; none otherwise.
fn check_fields(a: &ArrayLayout) -> Result<(), String> {
    if a.dtype.kind != Kind::Struct {
        return match a.fields.is_empty() {
            true => Ok(()),
            false => Err("fields on an element that is not a struct".into()),
        };
    }
    if a.fields.is_empty() || a.fields.len() > MAX_FIELDS {
        return Err(format!("a struct of {} fields", a.fields.len()));
    }
    let mut total = 0usize;
    for f in &a.fields {
        let number = matches!(
            f.dtype.kind,
            Kind::Bool | Kind::Int | Kind::UInt | Kind::Float
        );
        if !number || !valid_dtype(&f.dtype) {
            return Err(format!("struct field {:?} is not a number type", f.name));
        }
        total = total.saturating_add(f.dtype.size);
    }
    if total != a.dtype.size {
        return Err(format!(
            "struct fields take {total} bytes of a {}-byte element",
            a.dtype.size
        ));
    }
    Ok(())
}

/// Checks one array of a file of `sizes[0]` bytes whose linked files have `sizes[1..]`; the
/// error says what is wrong.
pub(crate) fn check(a: &ArrayLayout, sizes: &[u64]) -> Result<(), String> {
    let rank = a.shape.len();
    if a.dims.len() != rank || a.chunks.block.len() != rank {
        return Err(format!(
            "inconsistent layout: rank {rank} but {} dimension name(s) and a block of rank {}",
            a.dims.len(),
            a.chunks.block.len()
        ));
    }
    if rank > MAX_RANK {
        return Err(format!("rank {rank} is above {MAX_RANK}"));
    }
    if !valid_dtype(&a.dtype) {
        return Err(format!(
            "no element type is {:?} of {} byte(s)",
            a.dtype.kind, a.dtype.size
        ));
    }
    check_fields(a)?;
    let size = a.dtype.size as u64;
    for (i, (&n, &b)) in a.shape.iter().zip(&a.chunks.block).enumerate() {
        if b == 0 && n > 0 {
            return Err(format!("block length 0 along axis {i} of length {n}"));
        }
    }
    // The number of blocks of the grid and the bytes of one block must be numbers.
    let grid = a.chunks.grid_shape(&a.shape);
    grid.iter()
        .try_fold(1u64, |acc, &g| acc.checked_mul(g))
        .ok_or_else(|| format!("a grid of {grid:?} blocks has more blocks than 2^64"))?;
    a.chunks
        .block
        .iter()
        .try_fold(size, |acc, &b| acc.checked_mul(b))
        .ok_or_else(|| {
            format!(
                "a block of {:?} elements overflows 2^64 bytes",
                a.chunks.block
            )
        })?;
    let text = a.dtype.kind == Kind::Text;
    if let Some(f) = a.fill_value.as_ref().filter(|_| !text) {
        if f.len() as u64 != size {
            return Err(format!(
                "fill value of {} byte(s) for elements of {size}",
                f.len()
            ));
        }
    }
    if let Some(v) = a.values.as_ref().filter(|_| !text) {
        let want = a
            .shape
            .iter()
            .try_fold(size, |acc, &n| acc.checked_mul(n))
            .filter(|&w| w <= MAX_VALUES);
        if want != Some(v.len() as u64) {
            return Err(format!(
                "{} byte(s) of values for a shape of {:?}",
                v.len(),
                a.shape
            ));
        }
    }
    if a.chunks.entries.refused() > 0 {
        return Err("inconsistent layout: chunk indexes of different ranks".into());
    }
    // Every index of a list has the same rank: the first tells.
    if let Some(e) = a.chunks.entries.get(0).filter(|e| e.index.len() != rank) {
        return Err(format!(
            "inconsistent layout: rank {rank} but a chunk index {:?}",
            e.index
        ));
    }
    if a.chunks.entries.has_sources() {
        return check_linked_ranges(a, sizes);
    }
    // Every range checked over the columns; an entry only looked at to name it.
    let file_size = sizes.first().copied().unwrap_or(0);
    let bad = a.chunks.entries.first_range_past(file_size);
    if let Some(e) = bad.and_then(|i| a.chunks.entries.get(i)) {
        if let DataRef::Ref { offset, length } = e.data {
            return Err(match offset.checked_add(length) {
                None => format!(
                    "chunk {:?}: offset {offset} + length {length} overflows",
                    e.index
                ),
                Some(end) => format!(
                    "chunk {:?} (bytes {offset}..{end}) reaches past the end of the file ({file_size} bytes)",
                    e.index
                ),
            });
        }
    }
    Ok(())
}

/// The ranges of an array with blocks in linked files: each within its own file, whose source
/// the file lists.
fn check_linked_ranges(a: &ArrayLayout, sizes: &[u64]) -> Result<(), String> {
    for e in &a.chunks.entries {
        let Some(&size) = sizes.get(e.source) else {
            return Err(format!(
                "chunk {:?} is in linked file {}, but the file lists {} linked file(s)",
                e.index,
                e.source,
                sizes.len().saturating_sub(1)
            ));
        };
        if let DataRef::Ref { offset, length } = e.data {
            let end = offset.checked_add(length);
            if end.is_none_or(|end| size > 0 && end > size) {
                return Err(format!(
                    "chunk {:?} (offset {offset}, length {length}) reaches past the end of its \
                     file ({size} bytes)",
                    e.index
                ));
            }
        }
    }
    Ok(())
}

/// Mosaic planning cuts every tile at each of its block boundaries and looks at every cell of
/// the cut grid, so a tile is placed only when its blocks along each axis (and its far edge) stay
/// within what that can hold; the rest is a finding, never an allocation of 2^40 boundaries.
const MAX_MOSAIC_BLOCKS: u64 = 1 << 16;

pub(crate) fn mosaic_fit(l: &SourceLayout, offset: [u64; 2]) -> Result<(), String> {
    for a in &l.arrays {
        for (&n, &b) in a.shape.iter().zip(&a.chunks.block) {
            if b > 0 && n.div_ceil(b) > MAX_MOSAIC_BLOCKS {
                return Err(format!(
                    "'{}' has {} blocks along an axis, more than a mosaic plans ({MAX_MOSAIC_BLOCKS})",
                    a.path,
                    n.div_ceil(b)
                ));
            }
        }
        let far = offset[0].max(offset[1]);
        let end = a
            .shape
            .iter()
            .all(|n| far.checked_add(*n).is_some_and(|e| e < 1 << 62));
        if !end {
            return Err(format!("'{}' at offset {offset:?} ends past 2^62", a.path));
        }
    }
    Ok(())
}

/// `--stack-dim NAME` adds a new leading dimension: an array that has a dimension of that name
/// already would get it twice in `dimension_names`, so it becomes a problem instead.
pub(crate) fn reject_stack_clash(l: &mut SourceLayout, dim: &str) {
    let (ok, bad): (Vec<ArrayLayout>, Vec<ArrayLayout>) = std::mem::take(&mut l.arrays)
        .into_iter()
        .partition(|a| a.dims.iter().all(|d| d.name != dim));
    l.arrays = ok;
    for a in bad {
        l.problems.push(ArrayProblem::new(
            a.path,
            ProblemKind::Naming,
            format!(
                "has a dimension '{dim}' already, so it cannot be stacked along a new '{dim}' (pass another --stack-dim name)"
            ),
        ));
    }
}
