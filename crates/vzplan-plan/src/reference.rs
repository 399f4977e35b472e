//! The first file is never special. What every file must agree on (the concat dimension, an
//! array's dims, cuts, dtype, codecs, fill, the concat coordinate's units) is taken from the
//! majority of the files, ties going to the earliest; findings name the odd files and say what the
//! others have. A file that cannot be read whole (an array the majority of the files have readable
//! is a reader problem in it: failed checksums, a truncated file) is left out as a file, so one bad
//! file never costs the good files' results.

use crate::{Finding, FindingKind};
use vzplan_core::{ArrayLayout, Codec, SourceLayout};

/// The index of the most common item (ties: the earliest) and how many items equal it.
pub(crate) fn majority<T: PartialEq>(items: &[T]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (i, x) in items.iter().enumerate() {
        if items[..i].contains(x) {
            continue;
        }
        let n = items.iter().filter(|y| *y == x).count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((i, n));
        }
    }
    best
}

/// How findings name the files an odd one is compared with.
pub(crate) fn others(n: usize) -> String {
    match n {
        1 => "the other file".to_string(),
        n => format!("the {n} other files"),
    }
}

/// Leaves out, as files, the layouts with a reader problem on an array that more files have
/// readable than not; each becomes a `file_error` finding with the reader's reason.
pub(crate) fn drop_unreadable(
    layouts: Vec<SourceLayout>,
    findings: &mut Vec<Finding>,
) -> Vec<SourceLayout> {
    let mut readable: crate::FastMap<&str, usize> = crate::FastMap::default();
    let mut broken: crate::FastMap<&str, usize> = crate::FastMap::default();
    for l in &layouts {
        for a in &l.arrays {
            *readable.entry(a.path.as_str()).or_insert(0) += 1;
        }
        for p in &l.problems {
            *broken.entry(p.path.as_str()).or_insert(0) += 1;
        }
    }
    let odd: Vec<Option<String>> = layouts
        .iter()
        .map(|l| {
            l.problems.iter().find_map(|p| {
                let good = readable.get(p.path.as_str()).copied().unwrap_or(0);
                let bad = broken.get(p.path.as_str()).copied().unwrap_or(0);
                (good > bad).then(|| {
                    format!(
                        "cannot be read whole: '{}': {}; {good} other file(s) have it readable",
                        p.path, p.reason
                    )
                })
            })
        })
        .collect();
    if odd.iter().all(Option::is_none) {
        return layouts;
    }
    let mut kept = Vec::with_capacity(layouts.len());
    for (l, why) in layouts.into_iter().zip(odd) {
        match why {
            Some(why) => findings.push(
                Finding::error(FindingKind::FileError, why)
                    .file(&l.url)
                    .fix("check or replace the file; the other files were planned without it"),
            ),
            None => kept.push(l),
        }
    }
    kept
}

/// The concat dimension most files suggest: each file's first unlimited dimension, else `time`
/// if one of its arrays has it.
pub(crate) fn infer_concat_dim(layouts: &[SourceLayout]) -> Option<String> {
    let votes: Vec<Option<String>> = layouts.iter().map(concat_dim_of).collect();
    let present: Vec<String> = votes.into_iter().flatten().collect();
    let (i, _) = majority(&present)?;
    present.get(i).cloned()
}

fn concat_dim_of(l: &SourceLayout) -> Option<String> {
    for a in &l.arrays {
        if let Some(d) = a.dims.iter().find(|d| d.unlimited) {
            return Some(d.name.clone());
        }
    }
    l.arrays
        .iter()
        .flat_map(|a| a.dims.iter())
        .find(|d| d.name == "time")
        .map(|d| d.name.clone())
}

/// What must match across files, ignoring the concat axis `k`: compared as a whole to find the
/// majority, then field by field by [`difference`] to say what differs. Borrowed from the layout
/// (no vectors of names and lengths for every file of every array).
struct Signature<'a> {
    dims: &'a [vzplan_core::Dim],
    /// The lengths and (unless the array is written inline) the block shape; axis `k` is skipped
    /// when they are compared.
    shape: &'a [u64],
    block: Option<&'a [u64]>,
    k: Option<usize>,
    dtype: vzplan_core::DType,
    fields: &'a [vzplan_core::Field],
    rest: Option<(&'a [Codec], &'a Option<Vec<u8>>)>,
    values: Option<&'a [u8]>,
}

impl PartialEq for Signature<'_> {
    fn eq(&self, o: &Self) -> bool {
        // Lengths along every axis but `k`, as slices of equal rank (the names compare ranks).
        let but_k = |a: &[u64], b: &[u64]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .enumerate()
                    .all(|(i, (x, y))| Some(i) == self.k || x == y)
        };
        self.dims.len() == o.dims.len()
            && self.dims.iter().zip(o.dims).all(|(a, b)| a.name == b.name)
            && but_k(self.shape, o.shape)
            && match (self.block, o.block) {
                (Some(a), Some(b)) => but_k(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
            && self.dtype == o.dtype
            && self.fields == o.fields
            && self.rest == o.rest
            && self.values == o.values
    }
}

fn signature(a: &ArrayLayout, k: Option<usize>) -> Signature<'_> {
    let inline = a.values.is_some();
    Signature {
        dims: &a.dims,
        shape: &a.shape,
        block: (!inline).then_some(a.chunks.block.as_slice()),
        k,
        dtype: a.dtype,
        fields: &a.fields,
        rest: (!inline).then_some((a.codecs.as_slice(), &a.fill_value)),
        values: a.values.as_deref().filter(|_| k.is_none()),
    }
}

/// The reference among `present` (position in it) and how many files match it.
pub(crate) fn reference(present: &[(usize, &ArrayLayout)], k: Option<usize>) -> (usize, usize) {
    let sigs: Vec<Signature> = present.iter().map(|(_, a)| signature(a, k)).collect();
    majority(&sigs).unwrap_or((0, present.len()))
}
