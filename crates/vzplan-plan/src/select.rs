//! Which arrays a plan covers: every array path in first-seen order, narrowed by `--var`.

use crate::order::coord_of;
use std::collections::HashSet;
use vzplan_core::SourceLayout;

/// The arrays to plan: all, or the selected ones plus their dimensions' coordinate variables.
pub(crate) fn select_vars(
    paths: &[String],
    layouts: &[SourceLayout],
    vars: &[String],
) -> HashSet<String> {
    if vars.is_empty() {
        return paths.iter().cloned().collect();
    }
    let mut out: HashSet<String> = vars.iter().cloned().collect();
    for l in layouts {
        for a in l.arrays.iter().filter(|a| vars.contains(&a.path)) {
            for d in &a.dims {
                if coord_of(l, &d.name).is_some() {
                    out.insert(d.name.clone());
                }
            }
        }
    }
    out
}

/// Every array path (readable or not), in first-seen order.
pub(crate) fn array_paths(layouts: &[SourceLayout]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let mut seen: crate::FastSet<&str> = crate::FastSet::default();
    for l in layouts {
        for a in l
            .arrays
            .iter()
            .map(|a| &a.path)
            .chain(l.problems.iter().map(|x| &x.path))
        {
            if seen.insert(a) {
                paths.push(a.clone());
            }
        }
    }
    paths
}
