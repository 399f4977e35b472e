//! The metadata rule: along every axis but the concat axis, an array's dims, lengths, chunk
//! shape, dtype, codecs and fill value must equal the reference's (the majority's, see
//! `reference`); coordinates written inline must hold the same values.

use crate::{reference, Finding, FindingKind};
use vzplan_core::{ArrayLayout, Codec, SourceLayout};

/// Pushes a [`FindingKind::Mismatch`] for every file in `present` whose array differs from the
/// reference `(i0, a0)`, which `n` files match. `fix` is the advice when one is known.
pub(crate) fn check(
    path: &str,
    layouts: &[SourceLayout],
    present: &[(usize, &ArrayLayout)],
    (i0, a0, n): (usize, &ArrayLayout, usize),
    k: Option<usize>,
    fix: Option<&str>,
    findings: &mut Vec<Finding>,
) {
    let than = reference::others(n);
    for &(i, a) in present.iter().filter(|(i, _)| *i != i0) {
        if let Some(d) = difference(a, a0, k, &than) {
            let f = Finding::error(FindingKind::Mismatch, d)
                .file(&layouts[i].url)
                .array(path);
            findings.push(match fix {
                Some(fix) => f.fix(fix),
                None => f,
            });
        }
    }
}

/// What differs between `a` (one file) and `b` (the reference, which `than` names), ignoring the
/// concat axis `k`.
fn difference(a: &ArrayLayout, b: &ArrayLayout, k: Option<usize>, than: &str) -> Option<String> {
    // Coordinates read whole are written inline: their storage (chunks, codecs, fill) is moot.
    let inline = a.values.is_some() && b.values.is_some();
    if a.dim_names() != b.dim_names() {
        return Some(format!(
            "dimensions ({}) differ from ({}) in {than}",
            a.dim_names().join(", "),
            b.dim_names().join(", ")
        ));
    }
    for i in 0..a.shape.len() {
        if Some(i) == k {
            continue;
        }
        if a.shape.get(i) != b.shape.get(i) {
            return Some(format!(
                "length {} along '{}' differs from {} in {than}",
                a.shape[i],
                a.dims[i].name,
                b.shape.get(i).copied().unwrap_or(0)
            ));
        }
        if !inline && a.chunks.block.get(i) != b.chunks.block.get(i) {
            return Some(format!(
                "chunk shape {:?} differs from {:?} in {than} along '{}'",
                a.chunks.block, b.chunks.block, a.dims[i].name
            ));
        }
    }
    if a.dtype != b.dtype {
        return Some(format!(
            "dtype {} differs from {} in {than}",
            a.dtype.numpy_str(),
            b.dtype.numpy_str()
        ));
    }
    if inline {
        return (k.is_none() && a.values != b.values)
            .then(|| format!("coordinate values differ from those in {than}"));
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
        return Some(format!(
            "codecs [{}] differ from [{}] in {than}",
            names(&a.codecs),
            names(&b.codecs)
        ));
    }
    if a.fill_value != b.fill_value {
        return Some(format!("fill value differs from the one in {than}"));
    }
    None
}
