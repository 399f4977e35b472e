//! File ordering along the concat dimension: files sorted by the first value of their concat
//! coordinate (after [`crate::rebase`] brought them to common units), the units checked first.

use crate::{display_file, rebase, reference, rules, Finding, FindingKind, Severity};
use serde_json::Value;
use vzplan_core::{ArrayLayout, SourceLayout};

/// The coordinate variable of `dim` in a file: a root-level 1-D array named like the dimension.
pub(crate) fn coord_of<'a>(l: &'a SourceLayout, dim: &str) -> Option<&'a ArrayLayout> {
    l.arrays
        .iter()
        .find(|a| a.path == dim && a.dims.len() == 1 && a.dims[0].name == dim)
}

/// Orders files by the first value of the concat coordinate, and checks that the coordinate runs
/// on without overlaps. Returns the ordered layouts and whether the coordinate is consistent.
pub(crate) fn order_files(
    mut layouts: Vec<SourceLayout>,
    concat: Option<&str>,
    findings: &mut Vec<Finding>,
) -> (Vec<SourceLayout>, bool) {
    let Some(dim) = concat else {
        return (layouts, true);
    };
    if layouts.len() < 2 {
        return (layouts, true);
    }
    let mut coords: Vec<Option<Vec<f64>>> = layouts
        .iter()
        .map(|l| coord_of(l, dim).and_then(|a| a.values_f64()))
        .collect();
    if coords.iter().all(|c| c.is_some()) {
        rebase::rebase_time(&mut layouts, &mut coords, dim, findings);
    }
    if coords.iter().any(|c| c.is_none()) {
        if coords.iter().any(|c| c.is_some()) {
            let without: Vec<String> = layouts
                .iter()
                .zip(&coords)
                .filter(|(_, c)| c.is_none())
                .map(|(l, _)| display_file(&l.url))
                .collect();
            findings.push(
                Finding::new(
                    FindingKind::Missing,
                    Severity::Warning,
                    format!("some files have no readable '{dim}' coordinate; files kept in command-line order"),
                )
                .fix(format!(
                    "give {} a '{dim}' coordinate variable, or list the files in the order they belong",
                    without.join(", ")
                )),
            );
        }
        return (layouts, true);
    }
    if !units_agree(&layouts, dim, findings) {
        return (layouts, false);
    }
    let mut order: Vec<usize> = (0..layouts.len()).collect();
    let first = |i: usize| coords[i].as_ref().and_then(|c| c.first().copied());
    order.sort_by(|&a, &b| {
        let (x, y) = (first(a), first(b));
        match (x, y) {
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, None) => std::cmp::Ordering::Equal,
        }
    });

    let ok = rules::sequence::check(&layouts, &coords, &order, dim, findings);

    permute(&mut layouts, &order);
    (layouts, ok)
}

/// Puts what was at `order[k]` at position `k`, in place, one cycle of the permutation at a
/// time: no second vector of layouts (at 10^5 files, tens of MB touched for nothing).
fn permute<T>(v: &mut [T], order: &[usize]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        let mut k = start;
        while !done[k] {
            done[k] = true;
            let from = order[k];
            if from == start {
                break;
            }
            v.swap(k, from);
            k = from;
        }
    }
}

/// The concat coordinate's units must agree (after rebasing), else values cannot be compared.
fn units_agree(layouts: &[SourceLayout], dim: &str, findings: &mut Vec<Finding>) -> bool {
    let units: Vec<Option<&Value>> = layouts
        .iter()
        .map(|l| coord_of(l, dim).and_then(|a| a.attrs.get("units")))
        .collect();
    let (u0, n) = reference::majority(&units).unwrap_or((0, units.len()));
    if let Some(odd) = units.iter().position(|u| *u != units[u0]) {
        findings.push(
            Finding::error(
                FindingKind::Mismatch,
                format!(
                    "units of '{dim}' are {} here but {} in {}; values cannot be compared, files kept in command-line order",
                    units[odd].map(|v| v.to_string()).unwrap_or_else(|| "absent".into()),
                    units[u0].map(|v| v.to_string()).unwrap_or_else(|| "absent".into()),
                    reference::others(n),
                ),
            )
            .file(&layouts[odd].url)
            .array(dim)
            .fix(format!("rewrite '{dim}' to common units (e.g. `cdo setreftime`)")),
        );
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::permute;

    #[test]
    fn permute_puts_each_item_where_the_order_says() {
        let orders: [&[usize]; 5] = [
            &[0, 1, 2, 3],
            &[3, 2, 1, 0],
            &[1, 2, 3, 0],
            &[2, 0, 1, 4, 3],
            &[4, 3, 0, 1, 2, 6, 5],
        ];
        for order in orders {
            let old: Vec<usize> = (0..order.len()).map(|i| 10 * i).collect();
            let mut v = old.clone();
            permute(&mut v, order);
            let want: Vec<usize> = order.iter().map(|&i| old[i]).collect();
            assert_eq!(v, want, "{order:?}");
        }
    }
}
