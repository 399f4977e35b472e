//! The metadata rule: along every axis but the concat axis, an array's dims, lengths, chunk
//! shape, dtype, codecs and fill value must equal the reference's (the majority's, see
//! `reference`); coordinates written inline must hold the same values.

use crate::fix::{self, Target};
use crate::{reference, Finding, FindingKind};
use vzplan_core::{ArrayLayout, Codec, SourceLayout};

/// What differs, for the fix.
enum Diff {
    /// Dims, a length, or coordinate values: the file does not belong with the others.
    Shape,
    Chunks,
    DType,
    Codecs,
    Fill,
}

/// Pushes a [`FindingKind::Mismatch`] for every file in `present` whose array differs from the
/// reference `(i0, a0)`, which `n` files match, with the rewrite that makes it fit.
pub(crate) fn check(
    path: &str,
    layouts: &[SourceLayout],
    present: &[(usize, &ArrayLayout)],
    (i0, a0, n): (usize, &ArrayLayout, usize),
    k: Option<usize>,
    findings: &mut Vec<Finding>,
) {
    let than = reference::others(n);
    for &(i, a) in present.iter().filter(|(i, _)| *i != i0) {
        let Some((d, what)) = difference(a, a0, k, &than) else {
            continue;
        };
        let t = Target {
            url: &layouts[i].url,
            rewriter: layouts[i].rewriter,
        };
        let fix = match what {
            Diff::Chunks => {
                let mut block = a0.chunks.block.clone();
                if let (Some(k), Some(own)) = (k, k.and_then(|k| a.chunks.block.get(k))) {
                    block[k] = *own;
                }
                fix::rechunk(t, a, &block)
            }
            Diff::Codecs => fix::recompress(t, path, &a0.codecs),
            Diff::DType => fix::retype(t, path, &a0.dtype),
            Diff::Fill => fix::refill(t, path, a0),
            Diff::Shape => format!(
                "leave {} out of this collection, or plan only the variables it shares with the others (--var)",
                t.file()
            ),
        };
        findings.push(
            Finding::error(FindingKind::Mismatch, d)
                .file(&layouts[i].url)
                .array(path)
                .fix(fix),
        );
    }
}

/// What differs between `a` (one file) and `b` (the reference, which `than` names), ignoring the
/// concat axis `k`.
fn difference(
    a: &ArrayLayout,
    b: &ArrayLayout,
    k: Option<usize>,
    than: &str,
) -> Option<(String, Diff)> {
    // Coordinates read whole are written inline: their storage (chunks, codecs, fill) is moot.
    let inline = a.values.is_some() && b.values.is_some();
    // Compared name by name (two vectors of names for every file of every array were most of
    // this check's allocations).
    if !a
        .dims
        .iter()
        .map(|d| &d.name)
        .eq(b.dims.iter().map(|d| &d.name))
    {
        return Some((
            format!(
                "dimensions ({}) differ from ({}) in {than}",
                a.dim_names().join(", "),
                b.dim_names().join(", ")
            ),
            Diff::Shape,
        ));
    }
    for i in 0..a.shape.len() {
        if Some(i) == k {
            continue;
        }
        if a.shape.get(i) != b.shape.get(i) {
            return Some((
                format!(
                    "length {} along '{}' differs from {} in {than}",
                    a.shape[i],
                    a.dims[i].name,
                    b.shape.get(i).copied().unwrap_or(0)
                ),
                Diff::Shape,
            ));
        }
        if !inline && a.chunks.block.get(i) != b.chunks.block.get(i) {
            return Some((
                format!(
                    "chunk shape {:?} differs from {:?} in {than} along '{}'",
                    a.chunks.block, b.chunks.block, a.dims[i].name
                ),
                Diff::Chunks,
            ));
        }
    }
    if a.dtype != b.dtype {
        return Some((
            format!(
                "dtype {} differs from {} in {than}",
                a.dtype.numpy_str(),
                b.dtype.numpy_str()
            ),
            Diff::DType,
        ));
    }
    if a.fields != b.fields {
        let names = |x: &ArrayLayout| {
            x.fields
                .iter()
                .map(|f| format!("{} {}", f.name, f.dtype.numpy_str()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Some((
            format!(
                "record fields ({}) differ from ({}) in {than}",
                names(a),
                names(b)
            ),
            Diff::DType,
        ));
    }
    if inline {
        return (k.is_none() && a.values != b.values).then(|| {
            (
                format!("coordinate values differ from those in {than}"),
                Diff::Shape,
            )
        });
    }
    if a.codecs != b.codecs {
        let names = |c: &[Codec]| {
            if c.is_empty() {
                "none".to_string()
            } else {
                c.iter()
                    .map(|c| c.to_json().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        return Some((
            format!(
                "codecs [{}] differ from [{}] in {than}",
                names(&a.codecs),
                names(&b.codecs)
            ),
            Diff::Codecs,
        ));
    }
    if a.fill_value != b.fill_value {
        return Some((
            format!("fill value differs from the one in {than}"),
            Diff::Fill,
        ));
    }
    None
}
