//! A virtual dataset's mappings → the source datasets they name, the boxes they map, and the
//! virtual dataset's extent along an unlimited axis (the end of the last source there, as
//! HDF5's default "last available" view reads it).

use super::place::{place, Piece};
use super::select::{Selection, Span, UNLIMITED};
use super::{block_name, is_pattern, Mapping, Pending};
use crate::external::Foreign;
use vzplan_core::{ArrayLayout, ArrayProblem, ProblemKind};

/// The blocks of one unlimited mapping looked for at most (each is a file or a dataset).
const MAX_BLOCKS: u64 = 100_000;

/// Why a virtual dataset cannot be referenced: the kind of fix it needs and what to say.
type Why = (ProblemKind, String);

/// The file's own datasets: those read (possible sources in the file itself), those that could
/// not be (with why), and the path of every dataset it has (virtual ones not yet resolved and
/// dimension scales too), which tells a source that cannot be referenced from one not there.
#[derive(Clone, Copy)]
pub(crate) struct Own<'a> {
    pub arrays: &'a [ArrayLayout],
    pub problems: &'a [ArrayProblem],
    pub datasets: &'a std::collections::HashSet<String>,
}

/// Resolves the virtual dataset `a` (shape, type, fill value and attributes set from its own
/// object header) from its mappings: `own` are the file's other datasets (a source in the file
/// itself), `url` the file's (other files' names are relative to it).
pub(crate) fn resolve(
    a: &mut ArrayLayout,
    p: &Pending,
    own: Own<'_>,
    foreign: &mut Foreign<'_>,
    url: &str,
) -> Result<(), Why> {
    let mut pieces = Vec::new();
    for m in &p.mappings {
        if m.target.is_unlimited() && (is_pattern(&m.file) || is_pattern(&m.dataset)) {
            numbered(a, m, own, foreign, url, &mut pieces)?;
        } else {
            let src = source(&m.file, &m.dataset, own, foreign, url)?
                .ok_or_else(|| missing(m, &m.file))?;
            pieces.extend(piece(&a.shape, m, src, &m.file, &m.dataset)?);
        }
    }
    // An unlimited axis runs to the end of the last source mapped along it.
    for (d, &max) in p.max.iter().enumerate() {
        if max == UNLIMITED && p.mappings.iter().any(|m| m.target.is_unlimited()) {
            let end = pieces
                .iter()
                .map(|x| x.to.start[d].saturating_add(x.to.len[d]))
                .max();
            a.shape[d] = a.shape[d].max(end.unwrap_or(0));
        }
    }
    place(a, &pieces).map_err(|s| (ProblemKind::Storage, s))
}

fn missing(m: &Mapping, file: &str) -> Why {
    let name = if file == "." { "this file" } else { file };
    (
        ProblemKind::LinkedFile,
        format!(
            "its source {} in {name} is missing (HDF5 reads the fill value there; a reference to nothing would hide that)",
            m.dataset
        ),
    )
}

/// The source dataset `dataset` of the file `file` names (`.`: this one), with its blocks in
/// this file's source numbers; `None` when the file (or, in this file, the dataset) is not there.
fn source(
    file: &str,
    dataset: &str,
    own: Own<'_>,
    foreign: &mut Foreign<'_>,
    url: &str,
) -> Result<Option<ArrayLayout>, Why> {
    let path = dataset.trim_start_matches('/');
    if file == "." {
        if let Some(x) = own.arrays.iter().find(|x| x.path == path) {
            return Ok(Some(x.clone()));
        }
        // A dataset that is there but cannot be referenced says why; one that is not there is
        // missing (a numbered mapping ends at it, as HDF5 reads it).
        return match own.problems.iter().find(|x| x.path == path) {
            Some(pr) => Err((
                pr.kind,
                format!("its source {dataset} in this file: {}", pr.reason),
            )),
            None if own.datasets.contains(path) => Err((
                ProblemKind::Storage,
                format!("its source {dataset} in this file is not a dataset vzplan can reference"),
            )),
            None => Ok(None),
        };
    }
    let (at, l) = match foreign.layout(url, file) {
        Ok(found) => found,
        Err(u) if u.missing => return Ok(None),
        Err(u) => {
            let why = format!("its source {dataset} in {file}: {}", u.reason);
            return Err((ProblemKind::LinkedFile, why));
        }
    };
    if let Some(x) = l.arrays.iter().find(|x| x.path == path) {
        return Ok(Some(foreign.adopt(&at, &l, x)));
    }
    let why = match l.problems.iter().find(|x| x.path == path) {
        Some(pr) => (
            pr.kind,
            format!("its source {dataset} in {file}: {}", pr.reason),
        ),
        None => (
            ProblemKind::LinkedFile,
            format!("its source {file} has no dataset {dataset}"),
        ),
    };
    Err(why)
}

/// One mapping's piece: its boxes on both sides (an unlimited virtual box as long as the
/// source box); `None` when it maps nothing.
fn piece(
    shape: &[u64],
    m: &Mapping,
    src: ArrayLayout,
    file: &str,
    dataset: &str,
) -> Result<Option<Piece>, Why> {
    let name = format!("{file}:{dataset}");
    let bad = |side: &str, why: String| {
        (
            ProblemKind::Storage,
            format!("the mapping of {name} {why} on the {side} side, which no chunk reference can express"),
        )
    };
    let from = m.source.span(&src.shape).map_err(|w| bad("source", w))?;
    let mut to = m.target.span(shape).map_err(|w| bad("virtual", w))?;
    if let Selection::Regular { count, block, .. } = &m.target {
        for d in 0..to.len.len() {
            if count[d] == UNLIMITED || block[d] == UNLIMITED {
                to.len[d] = *from.len.get(d).ok_or_else(|| {
                    bad(
                        "virtual",
                        "is unlimited along an axis the source lacks".into(),
                    )
                })?;
            }
        }
    }
    let past = |sp: &Span, shape: &[u64]| {
        sp.start.len() != shape.len()
            || (0..shape.len()).any(|d| sp.start[d].saturating_add(sp.len[d]) > shape[d])
    };
    if past(&from, &src.shape) {
        return Err(bad("source", "selects past the end of its dataset".into()));
    }
    if from.len.contains(&0) || to.len.contains(&0) {
        return Ok(None);
    }
    Ok(Some(Piece {
        name,
        array: src,
        from,
        to,
    }))
}

/// The pieces of an unlimited mapping whose names number its blocks: block `b` of the virtual
/// selection is the source named with `b`, for as long as there is one.
fn numbered(
    a: &ArrayLayout,
    m: &Mapping,
    own: Own<'_>,
    foreign: &mut Foreign<'_>,
    url: &str,
    out: &mut Vec<Piece>,
) -> Result<(), Why> {
    let Selection::Regular {
        start,
        stride,
        count,
        block,
    } = &m.target
    else {
        return Ok(());
    };
    let Some(d) = count.iter().position(|&c| c == UNLIMITED) else {
        let why = "numbers its sources but has no unlimited count".to_string();
        return Err((
            ProblemKind::Storage,
            format!("a mapping of {} {why}", m.file),
        ));
    };
    for b in 0..MAX_BLOCKS {
        let (file, dataset) = (block_name(&m.file, b), block_name(&m.dataset, b));
        let Some(src) = source(&file, &dataset, own, foreign, url)? else {
            break;
        };
        let one = Mapping {
            file: file.clone(),
            dataset: dataset.clone(),
            source: m.source.clone(),
            target: Selection::Regular {
                start: start
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| match i == d {
                        true => s.saturating_add(b.saturating_mul(stride[d])),
                        false => s,
                    })
                    .collect(),
                stride: stride.clone(),
                count: count
                    .iter()
                    .map(|&c| if c == UNLIMITED { 1 } else { c })
                    .collect(),
                block: block.clone(),
            },
        };
        // The block lies past the stored extent (the extent follows the sources).
        let mut grown = a.shape.clone();
        if let Some(n) = grown.get_mut(d) {
            *n = (*n).max(one.target_end(d));
        }
        out.extend(piece(&grown, &one, src, &file, &dataset)?);
    }
    Ok(())
}

impl Mapping {
    /// The end along `d` of a regular target selection of one block.
    fn target_end(&self, d: usize) -> u64 {
        match &self.target {
            Selection::Regular { start, block, .. } => start[d].saturating_add(block[d]),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(path: &str, shape: &[u64]) -> ArrayLayout {
        serde_json::from_value(serde_json::json!({
            "path": path, "dims": [{"name": "x", "unlimited": false}], "shape": shape,
            "dtype": {"kind": "float", "size": 8, "endian": "little"}, "codecs": [],
            "chunks": {"block": [1], "edges": "exact", "splittable": false,
                       "entries": {"index": {"grid": [4]}, "offset": [0, 8, 16, 24], "length": [8, 8, 8, 8]}}
        }))
        .unwrap()
    }

    #[test]
    fn a_numbered_mapping_of_another_rank_is_a_problem_not_a_panic() {
        // The virtual dataset has one axis; the mapping's selection three, unlimited on the last.
        let a = array("v", &[4]);
        let m = Mapping {
            file: ".".into(),
            dataset: "d%b".into(),
            source: Selection::All,
            target: Selection::Regular {
                start: vec![0; 3],
                stride: vec![1; 3],
                count: vec![1, 1, UNLIMITED],
                block: vec![1; 3],
            },
        };
        let arrays = [array("d0", &[4])];
        let datasets = ["d0".to_string()].into();
        let own = Own {
            arrays: &arrays,
            problems: &[],
            datasets: &datasets,
        };
        let mut foreign = Foreign::new(None, 0);
        let mut out = Vec::new();
        let r = numbered(&a, &m, own, &mut foreign, "file:///x.h5", &mut out);
        assert!(matches!(r, Err((ProblemKind::Storage, _))), "{:?}", r.err());
    }

    /// `d%b` in the file itself: the blocks run while `d<b>` is there, as HDF5 reads them; one
    /// that is there but cannot be referenced is a problem.
    #[test]
    fn a_numbered_mapping_in_this_file_ends_at_its_first_missing_dataset() {
        let a = array("v", &[8]);
        let m = Mapping {
            file: ".".into(),
            dataset: "d%b".into(),
            source: Selection::All,
            target: Selection::Regular {
                start: vec![0],
                stride: vec![4],
                count: vec![UNLIMITED],
                block: vec![4],
            },
        };
        let arrays = [array("d0", &[4]), array("d1", &[4])];
        let datasets = ["d0", "d1", "v"].map(String::from).into();
        let mut foreign = Foreign::new(None, 0);
        let mut out = Vec::new();
        let own = Own {
            arrays: &arrays,
            problems: &[],
            datasets: &datasets,
        };
        let r = numbered(&a, &m, own, &mut foreign, "file:///x.h5", &mut out);
        assert!(r.is_ok(), "{:?}", r.err());
        assert_eq!(out.len(), 2);
        // `d1` there but not read (another virtual dataset, a dimension scale): a problem.
        let datasets = ["d0", "d1"].map(String::from).into();
        let own = Own {
            arrays: &arrays[..1],
            problems: &[],
            datasets: &datasets,
        };
        let r = numbered(&a, &m, own, &mut foreign, "file:///x.h5", &mut Vec::new());
        assert!(matches!(r, Err((ProblemKind::Storage, _))), "{r:?}");
        let problems = [ArrayProblem::new("d1", ProblemKind::Filter, "a filter")];
        let own = Own {
            arrays: &arrays[..1],
            problems: &problems,
            datasets: &datasets,
        };
        let r = numbered(&a, &m, own, &mut foreign, "file:///x.h5", &mut Vec::new());
        assert!(
            matches!(&r, Err((ProblemKind::Filter, w)) if w.contains("d1") && w.contains("a filter")),
            "{r:?}"
        );
    }
}
