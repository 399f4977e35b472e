//! Combining one array across files: taken from one file, stacked, or concatenated, after the
//! rules that apply to every file (unsupported storage, presence, metadata agreement).

mod concat;
pub(crate) mod place;
pub(crate) mod single;
mod stack;

use crate::{
    display_file, fix, reference, rules, ArrayPlan, Finding, FindingKind, Plan, Severity, SourceRef,
};
use vzplan_core::{ArrayLayout, ArrayProblem, ChunkList, DataRef, SourceLayout};

/// Sources, root attributes and nested groups of the output, from the ordered layouts. The
/// files come first (source `i` is layout `i`), then the files they link to, each once; the
/// blocks a file has in linked files are given those sources here, before any is placed.
pub(crate) fn common_metadata(layouts: &mut [SourceLayout], p: &mut Plan) {
    p.sources = layouts.iter().map(SourceRef::of).collect();
    p.files = layouts.len();
    // A table may name its own file as source 0 without linking anywhere (a layout line):
    // that, too, is numbered as the plan's.
    let sourced = |l: &SourceLayout| l.arrays.iter().any(|a| a.chunks.entries.has_sources());
    if layouts.iter().any(|l| !l.linked.is_empty() || sourced(l)) {
        number_linked(layouts, p);
    }
    p.attrs = layouts[0].attrs.clone();
    let mut seen_groups = std::collections::HashSet::new();
    for g in layouts.iter().flat_map(|l| &l.groups) {
        if seen_groups.insert(g.path.clone()) {
            p.groups.push(g.clone());
        }
    }
}

/// Numbers the files the layouts link to after the files themselves, each once, and gives their
/// blocks those sources.
fn number_linked(layouts: &mut [SourceLayout], p: &mut Plan) {
    let mut at: std::collections::HashMap<String, usize> = p
        .sources
        .iter()
        .enumerate()
        .map(|(i, s)| (s.url.clone(), i))
        .collect();
    for (i, l) in layouts.iter_mut().enumerate() {
        let linked: Vec<usize> = l
            .linked
            .iter()
            .map(|s| {
                *at.entry(s.url.clone()).or_insert_with(|| {
                    p.sources.push(SourceRef::linked(s));
                    p.sources.len() - 1
                })
            })
            .collect();
        for a in &mut l.arrays {
            a.chunks.entries.map_sources(i, &linked);
        }
    }
}

/// How the files of one plan are combined (the same for every array).
#[derive(Clone, Copy)]
pub(crate) struct Combine<'a> {
    pub concat: Option<&'a str>,
    pub stack: Option<&'a str>,
    /// The concat coordinate runs on across the files.
    pub coord_ok: bool,
    pub patch: bool,
}

/// Plans one array across all files; pushes findings; `None` when it cannot be planned.
pub(crate) fn plan_array(
    path: &str,
    layouts: &[SourceLayout],
    tables: &mut [ChunkList],
    how: &Combine,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    // Blocks in linked files (external links, virtual datasets): the files that contribute are
    // the distinct sources of the chunks, not the inputs that hold the array.
    let linked = tables.iter().any(ChunkList::has_sources);
    let mut p = plan_one(path, layouts, tables, how, findings)?;
    if linked {
        let refs = p
            .chunks
            .iter()
            .filter(|c| matches!(c.data, DataRef::Ref { .. }));
        let sources: std::collections::HashSet<usize> = refs.map(|c| c.source).collect();
        p.files = sources.len().max(1);
    }
    Some(p)
}

fn plan_one(
    path: &str,
    layouts: &[SourceLayout],
    tables: &mut [ChunkList],
    how: &Combine,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    if unsupported(path, layouts, findings) {
        return None;
    }
    let present: Vec<(usize, &ArrayLayout)> = layouts
        .iter()
        .enumerate()
        .filter_map(|(i, l)| l.arrays.iter().find(|a| a.path == path).map(|a| (i, a)))
        .collect();
    let dims: Vec<Vec<&str>> = present.iter().map(|(_, a)| a.dim_names()).collect();
    let (d, _) = reference::majority(&dims)?;
    let k = how
        .concat
        .and_then(|c| dims[d].iter().position(|x| *x == c));
    if how.stack.is_none() && (k.is_none() || layouts.len() < 2) {
        return from_one(path, layouts, &present, tables, how.patch, findings);
    }
    if !all_present(path, layouts, &present, findings) {
        return None;
    }
    // The reference is the majority's array (ties: the earliest file), never the first by rule.
    let kk = k.filter(|_| how.stack.is_none());
    let (r, n) = reference::reference(&present, kk);
    let (i0, a0) = *present.get(r)?;
    rules::mismatch::check(path, layouts, &present, (i0, a0, n), kk, findings);
    if findings.iter().any(|f| f.severity == Severity::Error) {
        return None;
    }
    if let Some(dim) = how.stack {
        return stack::stacked(path, dim, &present, layouts, tables, how.patch, findings);
    }
    let k = k?;
    if !how.coord_ok {
        findings.push(
            Finding::error(
                FindingKind::Overlap,
                format!(
                    "left out because the '{}' coordinate does not run on across the files (see above)",
                    a0.dims[k].name
                ),
            )
            .array(path)
            .fix(format!(
                "fix the files named in the '{}' findings (remove duplicates, trim overlaps, sort), then plan again",
                a0.dims[k].name
            )),
        );
        return None;
    }
    concat::concatenated(path, k, &present, layouts, tables, how.patch, findings)
}

/// Unsupported storage in any file leaves the array out, naming every such file.
fn unsupported(path: &str, layouts: &[SourceLayout], findings: &mut Vec<Finding>) -> bool {
    let mut any = false;
    for l in layouts {
        for pr in l.problems.iter().filter(|x| x.path == path) {
            any = true;
            findings.push(unsupported_finding(l, path, pr));
        }
    }
    any
}

/// An array a reader could not reference, with what to do about it.
pub(crate) fn unsupported_finding(l: &SourceLayout, path: &str, pr: &ArrayProblem) -> Finding {
    let t = fix::Target {
        url: &l.url,
        rewriter: l.rewriter,
    };
    Finding::error(FindingKind::Unsupported, pr.reason.clone())
        .file(&l.url)
        .array(path)
        .fix(fix::for_problem(t, path, pr))
}

/// An array without the concat dimension: taken from the majority's file; the others must agree.
fn from_one(
    path: &str,
    layouts: &[SourceLayout],
    present: &[(usize, &ArrayLayout)],
    tables: &mut [ChunkList],
    patch: bool,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let (r, n) = reference::reference(present, None);
    let (i0, a0) = *present.get(r)?;
    rules::mismatch::check(path, layouts, present, (i0, a0, n), None, findings);
    let entries = std::mem::take(&mut tables[i0]);
    single::single_or_patch(path, i0, &layouts[i0].url, a0, entries, patch, findings)
}

/// An array combined across files must be in every file.
fn all_present(
    path: &str,
    layouts: &[SourceLayout],
    present: &[(usize, &ArrayLayout)],
    findings: &mut Vec<Finding>,
) -> bool {
    if present.len() == layouts.len() {
        return true;
    }
    let missing: Vec<String> = layouts
        .iter()
        .filter(|l| !l.arrays.iter().any(|a| a.path == path))
        .map(|l| display_file(&l.url))
        .collect();
    findings.push(
        Finding::error(
            FindingKind::Missing,
            format!(
                "missing from {} of {} files: {}",
                missing.len(),
                layouts.len(),
                missing.join(", ")
            ),
        )
        .array(path)
        .fix("select the variables present everywhere with --var"),
    );
    false
}
