//! The planner: combines the layouts of many files into one array per variable on a rectilinear
//! chunk grid, and explains, as [`Finding`]s, everything it cannot combine exactly.
//!
//! Rules (design.md, "The rules of a rectilinear grid"):
//! - along the concat axis every file contributes its own cuts; a chunk is decoded at its listed
//!   length, so a block stored *padded* may only be the last chunk of the combined axis
//!   ([`FindingKind::PaddedInteriorChunk`]), except that an unfiltered block padded along axis 0
//!   is referenced as its byte prefix ([`FindingKind::RescuedPrefix`]);
//! - along every other axis the cuts, dtype, codecs and fill value must match across files;
//! - a chunk with some filters skipped ([`FindingKind::FilterMask`]) cannot share the codec chain.
//!
//! An array with an error finding is left out of the plan; nothing approximate is ever planned.
//! Only layouts are read here: planning never touches the source files.

pub mod cftime;
mod dedupe;
pub mod finding;
pub mod mosaic;
mod reference;
mod validate;

pub use finding::{display_file, Finding, FindingKind, Severity};
pub use mosaic::{LayoutEntry, MosaicView, Rect, TileStatus, TileView};

use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use vzplan_core::{
    ArrayLayout, AxisEdges, ChunkData, ChunkEntry, Codec, DType, EdgeStorage, GroupLayout,
    SourceLayout,
};

/// How to combine the files.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The dimension to concatenate along; default: the unlimited dimension, else `time`.
    pub concat_dim: Option<String>,
    /// Stack the files along a new leading dimension of this name instead.
    pub stack_dim: Option<String>,
    /// Only these variables (and the coordinate variables of their dimensions).
    pub vars: Vec<String>,
    /// Place the files side by side in 2-D (a mosaic) by their georeferencing.
    pub mosaic: bool,
    /// Place the files of a mosaic at these offsets instead (implies `mosaic`).
    pub mosaic_layout: Option<Vec<LayoutEntry>>,
    /// Repair instead of refusing: chunks stored padded in the middle, or with filters skipped,
    /// are planned as [`Patch`]es (materialised inline by `vzplan-patch`).
    pub patch: bool,
}

/// A source file as the output references it (template `u{index}`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SourceRef {
    pub url: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
}

/// One chunk of a planned array: its grid key and its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedChunk {
    pub key: Vec<u64>,
    /// Index into [`Plan::sources`] (meaningless for inline data).
    pub source: usize,
    pub data: ChunkData,
}

/// One output array.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayPlan {
    pub path: String,
    pub dims: Vec<String>,
    pub shape: Vec<u64>,
    pub dtype: DType,
    pub fill_value: Option<Vec<u8>>,
    pub attrs: Map<String, Value>,
    pub codecs: Vec<Codec>,
    /// Chunk edge lengths per axis.
    pub edges: Vec<AxisEdges>,
    pub chunks: Vec<PlannedChunk>,
    /// How many files contribute chunks.
    pub files: usize,
    /// Coordinate values (decoded, dtype byte order) when the array is a coordinate written inline.
    pub values: Option<Vec<u8>>,
    /// Chunks to materialise inline (`--patch`) before the plan is written.
    pub patches: Vec<Patch>,
}

/// A chunk that cannot be referenced as it is stored: read it, decode it, keep its leading
/// `keep` sub-block, re-encode it with the array's codecs, and write it inline.
#[derive(Clone, Debug, PartialEq)]
pub struct Patch {
    /// Index into [`ArrayPlan::chunks`]; that chunk's data is the stored byte range.
    pub chunk: usize,
    /// Filters skipped when the block was stored (bit i = codec i).
    pub skipped: u32,
    /// The block's shape as stored (decoded).
    pub stored: Vec<u64>,
    /// The leading sub-block to keep (equal to `stored` when nothing is cut).
    pub keep: Vec<u64>,
}

/// The result of planning: what will be written, and what will not and why.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub sources: Vec<SourceRef>,
    pub concat_dim: Option<String>,
    pub stack_dim: Option<String>,
    pub attrs: Map<String, Value>,
    pub groups: Vec<GroupLayout>,
    pub arrays: Vec<ArrayPlan>,
    /// Arrays left out, each with at least one error finding.
    pub left_out: Vec<String>,
    pub findings: Vec<Finding>,
    /// For a mosaic: its two dimensions (rows, columns).
    pub mosaic_dims: Option<[String; 2]>,
    /// For a mosaic: what the HTML report draws, one view per mosaic array.
    pub mosaics: Vec<MosaicView>,
    /// For a mosaic: files (indexes into `sources`) that could not be placed.
    pub unplaced: Vec<usize>,
}

impl Plan {
    /// True when something was left out (a file, an array, or a file that contributes nothing):
    /// the CLI's exit code 3.
    pub fn incomplete(&self) -> bool {
        !self.left_out.is_empty()
            || !self.unplaced.is_empty()
            || self.findings.iter().any(|f| {
                f.kind == FindingKind::FileError
                    || (f.kind == FindingKind::Missing
                        && f.message.starts_with(CONTRIBUTES_NOTHING))
            })
    }
}

/// How the finding about a file none of whose arrays is used starts.
pub const CONTRIBUTES_NOTHING: &str = "contributes nothing";

/// A file that could not be scanned.
#[derive(Clone, Debug)]
pub struct ScanFailure {
    pub url: String,
    pub error: String,
}

/// Plans the combination of `layouts` (in command-line order).
pub fn plan(layouts: Vec<SourceLayout>, failures: &[ScanFailure], opts: &Options) -> Plan {
    let mut p = Plan::default();
    let (mut layouts, failures) = dedupe::dedupe(layouts, failures, &mut p.findings);
    for l in &mut layouts {
        validate::reject_invalid(l);
        if let Some(d) = &opts.stack_dim {
            validate::reject_stack_clash(l, d);
        }
    }
    if !(opts.mosaic || opts.mosaic_layout.is_some()) {
        layouts = reference::drop_unreadable(layouts, &mut p.findings);
    }
    for f in &failures {
        p.findings.push(
            Finding::error(FindingKind::FileError, strip_url_prefix(&f.error, &f.url))
                .file(&f.url)
                .fix("check the file; the other files were planned without it"),
        );
    }
    if layouts.is_empty() {
        return p;
    }
    if opts.mosaic || opts.mosaic_layout.is_some() {
        mosaic::plan(layouts, opts, &mut p);
        return p;
    }

    let concat = if opts.stack_dim.is_some() {
        None
    } else {
        opts.concat_dim
            .clone()
            .or_else(|| reference::infer_concat_dim(&layouts))
    };
    let (mut layouts, coord_ok) = order_files(layouts, concat.as_deref(), &mut p.findings);

    common_metadata(&layouts, &mut p);
    p.concat_dim = concat.clone();
    p.stack_dim = opts.stack_dim.clone();

    // Every array path, in first-seen order.
    let mut paths: Vec<String> = Vec::new();
    let mut seen = HashMap::new();
    for l in &layouts {
        for a in l
            .arrays
            .iter()
            .map(|a| &a.path)
            .chain(l.problems.iter().map(|x| &x.path))
        {
            if seen.insert(a.clone(), ()).is_none() {
                paths.push(a.clone());
            }
        }
    }
    let selected = select_vars(&paths, &layouts, &opts.vars);

    for path in paths.iter().filter(|p| selected.contains(*p)) {
        let mut findings = Vec::new();
        // Move this array's chunk tables out of the layouts: the planned chunks take them over,
        // so a collection's refs are never held twice (10^7 refs stay one copy).
        let mut tables: Vec<Vec<ChunkEntry>> = layouts
            .iter_mut()
            .map(|l| {
                l.arrays
                    .iter_mut()
                    .find(|a| a.path == *path)
                    .map(|a| std::mem::take(&mut a.chunks.entries))
                    .unwrap_or_default()
            })
            .collect();
        let how = Combine {
            concat: concat.as_deref(),
            stack: opts.stack_dim.as_deref(),
            coord_ok,
            patch: opts.patch,
        };
        let planned = plan_array(path, &layouts, &mut tables, &how, &mut findings);
        let failed = findings.iter().any(|f| f.severity == Severity::Error);
        p.findings.extend(findings);
        match planned {
            Some(a) if !failed => p.arrays.push(a),
            _ => p.left_out.push(path.clone()),
        }
    }
    // Files beyond the first contribute only through an array combined along the concat (or
    // stack) dimension; without one, say so rather than silently dropping them.
    let combined = p.arrays.iter().any(|a| match (&p.stack_dim, &concat) {
        (Some(_), _) => a.files > 1,
        (None, Some(d)) => a.dims.contains(d) && a.files > 1,
        (None, None) => false,
    });
    if layouts.len() > 1 && !combined && p.left_out.is_empty() {
        let how = match &concat {
            Some(d) => format!("no array with the dimension '{d}' could be combined"),
            None => "no dimension to combine along".to_string(),
        };
        for l in &layouts[1..] {
            p.findings.push(
                Finding::new(
                    FindingKind::Missing,
                    Severity::Warning,
                    format!("{CONTRIBUTES_NOTHING}: {how}; arrays were taken from the first file"),
                )
                .file(&l.url)
                .fix("pass --concat-dim DIM, or --stack-dim NAME to stack the files along a new axis"),
            );
        }
    }
    p
}

/// Messages from readers start with the URL; the finding names the file already.
fn strip_url_prefix(msg: &str, url: &str) -> String {
    msg.strip_prefix(url)
        .and_then(|m| m.strip_prefix(": "))
        .unwrap_or(msg)
        .to_string()
}

/// The coordinate variable of `dim` in a file: a root-level 1-D array named like the dimension.
fn coord_of<'a>(l: &'a SourceLayout, dim: &str) -> Option<&'a ArrayLayout> {
    l.arrays
        .iter()
        .find(|a| a.path == dim && a.dims.len() == 1 && a.dims[0].name == dim)
}

/// Orders files by the first value of the concat coordinate, and checks that the coordinate runs
/// on without overlaps. Returns the ordered layouts and whether the coordinate is consistent.
fn order_files(
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
        rebase_time(&mut layouts, &mut coords, dim, findings);
    }
    let units: Vec<Option<&Value>> = layouts
        .iter()
        .map(|l| coord_of(l, dim).and_then(|a| a.attrs.get("units")))
        .collect();
    if coords.iter().any(|c| c.is_none()) {
        if coords.iter().any(|c| c.is_some()) {
            findings.push(Finding::new(
                FindingKind::Missing,
                Severity::Warning,
                format!("some files have no readable '{dim}' coordinate; files kept in command-line order"),
            ));
        }
        return (layouts, true);
    }
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

    let mut ok = true;
    // A common step within files, if there is one, lets us spot gaps between files.
    let mut steps = Vec::new();
    for c in coords.iter().flatten() {
        steps.extend(c.windows(2).map(|w| w[1] - w[0]));
    }
    let step = steps
        .first()
        .copied()
        .filter(|s| steps.iter().all(|x| (x - s).abs() <= s.abs() * 1e-9));
    let mut prev: Option<(usize, f64)> = None;
    for &i in &order {
        let c = coords[i].as_deref().unwrap_or(&[]);
        if let Some(w) = c.windows(2).position(|w| w[1] <= w[0]) {
            ok = false;
            findings.push(
                Finding::error(
                    FindingKind::NonMonotonic,
                    format!("'{dim}' is not strictly increasing within the file"),
                )
                .file(&layouts[i].url)
                .array(dim)
                .at(format!(
                    "index {} → {}: {} then {}",
                    w,
                    w + 1,
                    c[w],
                    c[w + 1]
                ))
                .fix(format!(
                    "sort the file along '{dim}' (e.g. `cdo sorttimestamp`)"
                )),
            );
        }
        if let (Some((j, last)), Some(&head)) = (prev, c.first()) {
            if head <= last {
                ok = false;
                let what = if head == last { "repeats" } else { "overlaps" };
                findings.push(
                    Finding::error(
                        FindingKind::Overlap,
                        format!(
                            "'{dim}' {what} the previous file {}: starts at {head}, which is not after its last value {last}",
                            display_file(&layouts[j].url)
                        ),
                    )
                    .file(&layouts[i].url)
                    .array(dim)
                    .fix("remove the duplicate file or trim the overlapping steps"),
                );
            } else if let Some(s) = step {
                let gap = head - last;
                if (gap - s).abs() > s.abs() * 1e-9 {
                    findings.push(
                        Finding::new(
                            FindingKind::Gap,
                            Severity::Warning,
                            format!(
                                "'{dim}' jumps from {last} to {head} after {}, where the step is {s}",
                                display_file(&layouts[j].url)
                            ),
                        )
                        .file(&layouts[i].url)
                        .array(dim),
                    );
                }
            }
        }
        if let Some(&tail) = c.last() {
            prev = Some((i, tail));
        }
    }

    let mut slots: Vec<Option<SourceLayout>> = layouts.drain(..).map(Some).collect();
    let ordered = order.iter().filter_map(|&i| slots[i].take()).collect();
    (ordered, ok)
}

/// When files count time from different reference dates (`days since 2001-01-01` vs
/// `days since 2000-01-01`) in one calendar, rewrites every file's coordinate values (which are
/// written inline) into the first file's units. Leaves everything as it was when any file's units
/// or values cannot be converted exactly (the units check that follows then reports it).
fn rebase_time(
    layouts: &mut [SourceLayout],
    coords: &mut [Option<Vec<f64>>],
    dim: &str,
    findings: &mut Vec<Finding>,
) {
    let attr = |l: &SourceLayout, k: &str| -> Option<String> {
        coord_of(l, dim)
            .and_then(|a| a.attrs.get(k))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let Some(u0) = attr(&layouts[0], "units") else {
        return;
    };
    let cal0 = attr(&layouts[0], "calendar");
    if layouts
        .iter()
        .all(|l| attr(l, "units").as_deref() == Some(&u0))
    {
        return;
    }
    let Some(to) = cftime::parse(&u0, cal0.as_deref()) else {
        return;
    };
    let mut converted = Vec::with_capacity(layouts.len());
    for (l, c) in layouts.iter().zip(coords.iter()) {
        let (Some(u), Some(vals)) = (attr(l, "units"), c.as_ref()) else {
            return;
        };
        if attr(l, "calendar") != cal0 {
            return;
        }
        let Some(from) = cftime::parse(&u, cal0.as_deref()) else {
            return;
        };
        let Some(v) = cftime::convert(vals, from, to) else {
            return;
        };
        let Some(dtype) = coord_of(l, dim).map(|a| a.dtype) else {
            return;
        };
        let mut bytes = Vec::with_capacity(v.len() * dtype.size);
        for x in &v {
            match dtype.encode_f64(*x) {
                Some(b) => bytes.extend(b),
                None => return,
            }
        }
        converted.push((u, v, bytes));
    }
    for ((l, c), (u, v, bytes)) in layouts.iter_mut().zip(coords.iter_mut()).zip(converted) {
        if u != u0 {
            findings.push(
                Finding::new(
                    FindingKind::Rebased,
                    Severity::Info,
                    format!("'{dim}' converted from \"{u}\" to the first file's \"{u0}\""),
                )
                .file(&l.url)
                .array(dim),
            );
        }
        if let Some(a) = l.arrays.iter_mut().find(|a| a.path == dim) {
            a.values = Some(bytes);
            a.attrs.insert("units".into(), Value::String(u0.clone()));
        }
        *c = Some(v);
    }
}

/// The arrays to plan: all, or the selected ones plus their dimensions' coordinate variables.
fn select_vars(
    paths: &[String],
    layouts: &[SourceLayout],
    vars: &[String],
) -> std::collections::HashSet<String> {
    if vars.is_empty() {
        return paths.iter().cloned().collect();
    }
    let mut out: std::collections::HashSet<String> = vars.iter().cloned().collect();
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

/// Edge lengths of one file's blocks along an axis of length `n`.
/// `last_ok`: this file's last block is also the last of the combined axis (it may overhang).
/// Returns the edges and, when the last block is padded and must become exact, its logical length.
enum AxisCut {
    Edges(AxisEdges),
    /// Edges whose last one is a padded block cut to its logical extent (only valid if rescued).
    NeedsPrefix(AxisEdges, u64),
}

/// The edges of axis `i` of one file's array, as the last (possibly overhanging) on that axis.
pub(crate) fn own_axis(a: &ArrayLayout, i: usize) -> AxisEdges {
    let n = a.shape[i];
    let b = a.chunks.block.get(i).copied().unwrap_or(n);
    match cut_axis(n, b, a.chunks.edges, true) {
        AxisCut::Edges(e) if !e.is_empty() => e,
        // A zero-length axis still needs one edge in zarr.json.
        _ => AxisEdges::from(vec![b.max(1)]),
    }
}

/// Sources, root attributes and nested groups of the output, from the ordered layouts.
pub(crate) fn common_metadata(layouts: &[SourceLayout], p: &mut Plan) {
    p.sources = layouts
        .iter()
        .map(|l| SourceRef {
            url: l.url.clone(),
            size: l.size,
            etag: l.etag.clone(),
            mtime: l.mtime.clone(),
        })
        .collect();
    p.attrs = layouts[0].attrs.clone();
    let mut seen_groups = std::collections::HashSet::new();
    for g in layouts.iter().flat_map(|l| &l.groups) {
        if seen_groups.insert(g.path.clone()) {
            p.groups.push(g.clone());
        }
    }
}

fn cut_axis(n: u64, b: u64, storage: EdgeStorage, last_ok: bool) -> AxisCut {
    if b == 0 || n == 0 {
        return AxisCut::Edges(AxisEdges::default());
    }
    // Runs, never one entry per block: the block count comes from the file.
    let (q, r) = (n / b, n % b);
    let mut e = AxisEdges::default();
    e.push_run(b, q);
    if r == 0 {
        return AxisCut::Edges(e);
    }
    match storage {
        EdgeStorage::Exact => {
            e.push(r);
            AxisCut::Edges(e)
        }
        EdgeStorage::Padded if last_ok => {
            e.push(b);
            AxisCut::Edges(e)
        }
        EdgeStorage::Padded => {
            e.push(r);
            AxisCut::NeedsPrefix(e, r)
        }
    }
}

/// A suggested rewrite command for a file whose chunking along `dim` does not fit.
fn rechunk_fix(a: &ArrayLayout, k: usize, len: u64) -> String {
    let nc: Vec<String> = a
        .dims
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let c = if i == k { len } else { a.chunks.block[i] };
            format!("{}/{}", d.name, c)
        })
        .collect();
    let h5: Vec<String> = a
        .chunks
        .block
        .iter()
        .enumerate()
        .map(|(i, &c)| if i == k { len } else { c }.to_string())
        .collect();
    format!(
        "rewrite it with a chunk length along '{}' that divides {len}, e.g. `nccopy -c {} in.nc out.nc` or `h5repack -l {}:CHUNK={} in.h5 out.h5`",
        a.dims[k].name,
        nc.join(","),
        a.path,
        h5.join("x")
    )
}

/// Plans one array across all files; pushes findings; `None` when it cannot be planned.
/// How the files of one plan are combined (the same for every array).
#[derive(Clone, Copy)]
struct Combine<'a> {
    concat: Option<&'a str>,
    stack: Option<&'a str>,
    /// The concat coordinate runs on across the files.
    coord_ok: bool,
    patch: bool,
}

fn plan_array(
    path: &str,
    layouts: &[SourceLayout],
    tables: &mut [Vec<ChunkEntry>],
    how: &Combine,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let Combine {
        concat,
        stack,
        coord_ok,
        patch,
    } = *how;
    // Unsupported anywhere → left out, naming every file.
    let mut unsupported = false;
    for l in layouts {
        for pr in l.problems.iter().filter(|x| x.path == path) {
            unsupported = true;
            findings.push(
                Finding::error(FindingKind::Unsupported, pr.reason.clone())
                    .file(&l.url)
                    .array(path),
            );
        }
    }
    if unsupported {
        return None;
    }
    let present: Vec<(usize, &ArrayLayout)> = layouts
        .iter()
        .enumerate()
        .filter_map(|(i, l)| l.arrays.iter().find(|a| a.path == path).map(|a| (i, a)))
        .collect();
    // The reference is the majority's array (ties: the earliest file), never the first by rule.
    let vote = |k: Option<usize>| reference::reference(&present, k);
    let dims: Vec<Vec<&str>> = present.iter().map(|(_, a)| a.dim_names()).collect();
    let (d, _) = reference::majority(&dims)?;
    let k = concat.and_then(|c| dims[d].iter().position(|x| *x == c));
    let combine = stack.is_some() || (k.is_some() && layouts.len() > 1);

    if !combine {
        let (r, n) = vote(None);
        let (i0, a0) = *present.get(r)?;
        // Taken from the majority's file; the others must agree.
        let than = reference::others(n);
        for &(i, a) in present.iter().filter(|(i, _)| *i != i0) {
            if let Some(d) = reference::difference(a, a0, None, &than) {
                findings.push(
                    Finding::error(FindingKind::Mismatch, d)
                        .file(&layouts[i].url)
                        .array(path)
                        .fix("arrays without the concat dimension must be identical in every file"),
                );
            }
        }
        let entries = std::mem::take(&mut tables[i0]);
        return single_or_patch(path, i0, &layouts[i0].url, a0, entries, patch, findings);
    }

    if present.len() < layouts.len() {
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
        return None;
    }
    let kk = k.filter(|_| stack.is_none());
    let (r, n) = vote(kk);
    let (i0, a0) = *present.get(r)?;
    let than = reference::others(n);
    for &(i, a) in present.iter().filter(|(i, _)| *i != i0) {
        if let Some(d) = reference::difference(a, a0, kk, &than) {
            findings.push(
                Finding::error(FindingKind::Mismatch, d)
                    .file(&layouts[i].url)
                    .array(path),
            );
        }
    }
    if findings.iter().any(|f| f.severity == Severity::Error) {
        return None;
    }
    if stack.is_some() {
        return stacked(
            path,
            stack.unwrap_or("stack"),
            &present,
            layouts,
            tables,
            patch,
            findings,
        );
    }
    let k = k?;
    if !coord_ok {
        findings.push(
            Finding::error(
                FindingKind::Overlap,
                format!(
                    "left out because the '{}' coordinate does not run on across the files (see above)",
                    a0.dims[k].name
                ),
            )
            .array(path),
        );
        return None;
    }
    concatenated(path, k, &present, layouts, tables, patch, findings)
}

/// Checks masks and returns the entry list's problems as findings.
fn check_masks(path: &str, url: &str, a: &ArrayLayout, findings: &mut Vec<Finding>) -> bool {
    check_masks_or_patch(path, url, &a.chunks.entries, false, findings)
}

/// As [`check_masks`]; with `patch`, blocks with filters skipped are accepted (and patched).
fn check_masks_or_patch(
    path: &str,
    url: &str,
    entries: &[ChunkEntry],
    patch: bool,
    findings: &mut Vec<Finding>,
) -> bool {
    let bad: Vec<&ChunkEntry> = entries.iter().filter(|e| e.filter_mask != 0).collect();
    if let (Some(e), true) = (bad.first(), patch) {
        findings.push(
            Finding::new(
                FindingKind::Patched,
                Severity::Info,
                format!(
                    "{} chunk(s) stored with filters skipped (mask {:#x}): re-encoded inline",
                    bad.len(),
                    e.filter_mask
                ),
            )
            .file(url)
            .array(path)
            .at(format!("chunk {:?}", e.index)),
        );
        return true;
    }
    if let Some(e) = bad.first() {
        findings.push(
            Finding::error(
                FindingKind::FilterMask,
                format!(
                    "{} chunk(s) were stored with filters skipped (mask {:#x}), so they cannot share the array's codecs",
                    bad.len(),
                    e.filter_mask
                ),
            )
            .file(url)
            .array(path)
            .at(format!("chunk {:?}", e.index))
            .fix(format!("pass --patch to re-encode them inline, or rewrite the dataset, e.g. `h5repack -l {path}:CHUNK=… in.h5 out.h5`")),
        );
        return false;
    }
    true
}

/// Plans one stored block as a chunk; a block stored with filters skipped, or one of which only
/// the leading `keep` sub-block belongs to the grid, becomes a [`Patch`] too.
fn push_block(
    p: &mut ArrayPlan,
    key: Vec<u64>,
    source: usize,
    data: ChunkData,
    filter_mask: u32,
    block: &[u64],
    keep: Vec<u64>,
) {
    if filter_mask != 0 || keep != block {
        p.patches.push(Patch {
            chunk: p.chunks.len(),
            skipped: filter_mask,
            stored: block.to_vec(),
            keep,
        });
    }
    p.chunks.push(PlannedChunk { key, source, data });
}

fn base_plan(path: &str, a: &ArrayLayout) -> ArrayPlan {
    ArrayPlan {
        path: path.to_string(),
        dims: a.dims.iter().map(|d| d.name.clone()).collect(),
        shape: a.shape.clone(),
        dtype: a.dtype,
        fill_value: a.fill_value.clone(),
        attrs: a.attrs.clone(),
        codecs: a.codecs.clone(),
        edges: Vec::new(),
        chunks: Vec::new(),
        files: 1,
        values: None,
        patches: Vec::new(),
    }
}

/// A coordinate written inline as one chunk of raw bytes.
fn inline_coord(path: &str, a: &ArrayLayout, values: Vec<u8>, len: u64, files: usize) -> ArrayPlan {
    let mut p = base_plan(path, a);
    p.shape = vec![len];
    p.codecs = Vec::new();
    p.edges = vec![AxisEdges::from(vec![len.max(1)])];
    if len > 0 {
        p.chunks = vec![PlannedChunk {
            key: vec![0],
            source: 0,
            data: ChunkData::Inline(values.clone()),
        }];
    }
    p.files = files;
    p.values = Some(values);
    p
}

/// An array from one file, on its own regular grid.
fn single(
    path: &str,
    src: usize,
    url: &str,
    a: &ArrayLayout,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    single_or_patch(path, src, url, a, a.chunks.entries.clone(), false, findings)
}

/// As [`single`]; with `patch`, blocks with filters skipped become patches.
fn single_or_patch(
    path: &str,
    src: usize,
    url: &str,
    a: &ArrayLayout,
    entries: Vec<ChunkEntry>,
    patch: bool,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    if let (Some(v), 1) = (&a.values, a.shape.len()) {
        return Some(inline_coord(path, a, v.clone(), a.shape[0], 1));
    }
    if !check_masks_or_patch(path, url, &entries, patch, findings) {
        return None;
    }
    let mut p = base_plan(path, a);
    p.edges = (0..a.shape.len()).map(|i| own_axis(a, i)).collect();
    let grid = a.chunks.grid_shape(&a.shape);
    let block = &a.chunks.block;
    for e in entries
        .into_iter()
        .filter(|e| e.index.iter().zip(&grid).all(|(i, g)| i < g))
    {
        push_block(
            &mut p,
            e.index,
            src,
            e.data,
            e.filter_mask,
            block,
            block.clone(),
        );
    }
    validate(&p, findings).then_some(p)
}

/// Files stacked along a new leading axis, one chunk per file along it.
fn stacked(
    path: &str,
    dim: &str,
    present: &[(usize, &ArrayLayout)],
    layouts: &[SourceLayout],
    tables: &mut [Vec<ChunkEntry>],
    patch: bool,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let a0 = present[0].1;
    let inline = present.iter().all(|(_, a)| a.values.is_some());
    if inline && present.iter().all(|(_, a)| a.values == a0.values) {
        // The same coordinate in every file: not stacked.
        let (src, a) = present[0];
        let entries = std::mem::take(&mut tables[src]);
        return single_or_patch(path, src, &layouts[src].url, a, entries, patch, findings);
    }
    let mut p = base_plan(path, a0);
    p.dims.insert(0, dim.to_string());
    p.shape.insert(0, present.len() as u64);
    p.edges.push(AxisEdges::regular(present.len() as u64, 1));
    p.edges.extend((0..a0.shape.len()).map(|i| own_axis(a0, i)));
    p.files = present.len();
    if inline {
        // Coordinates that differ per file: one inline chunk per file.
        p.codecs = Vec::new();
        p.edges.truncate(1);
        p.edges
            .extend(a0.shape.iter().map(|&n| AxisEdges::from(vec![n.max(1)])));
        for (f, (src, a)) in present.iter().enumerate() {
            let mut key = vec![f as u64];
            key.extend(std::iter::repeat_n(0, a.shape.len()));
            let data = ChunkData::Inline(a.values.clone().unwrap_or_default());
            p.chunks.push(PlannedChunk {
                key,
                source: *src,
                data,
            });
        }
        return validate(&p, findings).then_some(p);
    }
    for (f, &(src, a)) in present.iter().enumerate() {
        if !check_masks_or_patch(path, &layouts[src].url, &tables[src], patch, findings) {
            return None;
        }
        let grid = a.chunks.grid_shape(&a.shape);
        let block = &a.chunks.block;
        for e in std::mem::take(&mut tables[src])
            .into_iter()
            .filter(|e| e.index.iter().zip(&grid).all(|(i, g)| i < g))
        {
            let mut key = e.index;
            key.insert(0, f as u64);
            push_block(
                &mut p,
                key,
                src,
                e.data,
                e.filter_mask,
                block,
                block.clone(),
            );
        }
    }
    validate(&p, findings).then_some(p)
}

/// Files concatenated along axis `k`, each contributing its own cuts.
fn concatenated(
    path: &str,
    k: usize,
    present: &[(usize, &ArrayLayout)],
    layouts: &[SourceLayout],
    tables: &mut [Vec<ChunkEntry>],
    patch: bool,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let a0 = present[0].1;
    let dim = a0.dims[k].name.clone();
    let total: u64 = present.iter().map(|(_, a)| a.shape[k]).sum();

    // Coordinates with values in every file: one inline chunk of the concatenated values.
    if a0.shape.len() == 1 && present.iter().all(|(_, a)| a.values.is_some()) {
        let mut v = Vec::new();
        for (_, a) in present {
            v.extend_from_slice(a.values.as_deref().unwrap_or(&[]));
        }
        return Some(inline_coord(path, a0, v, total, present.len()));
    }

    let mut p = base_plan(path, a0);
    p.shape[k] = total;
    p.files = present.len();
    let mut along = AxisEdges::default();
    let mut ok = true;
    let last_file = present.len() - 1;
    for (f, &(src, a)) in present.iter().enumerate() {
        let url = &layouts[src].url;
        let entries = std::mem::take(&mut tables[src]);
        if !check_masks_or_patch(path, url, &entries, patch, findings) {
            ok = false;
            continue;
        }
        let grid = a.chunks.grid_shape(&a.shape);
        let (n, b) = (a.shape[k], a.chunks.block[k]);
        let offset = along.count();
        let (edges, prefix) = match cut_axis(n, b, a.chunks.edges, f == last_file) {
            AxisCut::Edges(e) => (e, None),
            AxisCut::NeedsPrefix(e, r) => (e, Some(r)),
        };
        let nblocks = edges.count();
        if let Some(r) = prefix {
            // Rescue: an unfiltered block padded along axis 0 holds its first r rows as a prefix.
            let row_bytes: u64 = a.chunks.block[1..].iter().product::<u64>() * a.dtype.size as u64;
            let full = a.block_bytes();
            let rescuable = k == 0
                && a.codecs.is_empty()
                && entries
                    .iter()
                    .filter(|e| e.index.get(k) == Some(&(nblocks - 1)))
                    .all(|e| match &e.data {
                        ChunkData::Ref { length, .. } => *length == full,
                        ChunkData::Inline(d) => d.len() as u64 == full,
                    });
            if !rescuable && patch {
                // Repair: decode the padded blocks, keep their first r rows, re-encode inline.
                findings.push(
                    Finding::new(
                        FindingKind::Patched,
                        Severity::Info,
                        format!(
                            "last chunk along {dim} holds {r} of {b} rows and is stored padded: its first {r} rows re-encoded inline"
                        ),
                    )
                    .file(url)
                    .array(path)
                    .at(format!("chunk {} along {dim}", nblocks - 1)),
                );
                let block = &a.chunks.block;
                for e in entries {
                    let last = e.index.get(k) == Some(&(nblocks - 1));
                    let Some(key) = concat_key(e.index, k, offset, nblocks, &grid) else {
                        continue;
                    };
                    let mut keep = block.clone();
                    if last {
                        keep[k] = r;
                    }
                    push_block(&mut p, key, src, e.data, e.filter_mask, block, keep);
                }
                along.extend(&edges);
                continue;
            }
            if !rescuable {
                ok = false;
                let why = if !a.codecs.is_empty() {
                    "it is compressed, so its first rows cannot be cut out"
                } else if k != 0 {
                    "the padding is not along the first axis, so the rows are not a byte prefix"
                } else {
                    "its stored size is not a whole block"
                };
                findings.push(
                    Finding::error(
                        FindingKind::PaddedInteriorChunk,
                        format!(
                            "last chunk along {dim} holds {r} of {b} rows and is stored padded; it would sit in the middle of the combined array, and {why}"
                        ),
                    )
                    .file(url)
                    .array(path)
                    .at(format!("{dim} {}..{} of the file, chunk {} along {dim}", n - r, n, nblocks - 1))
                    .fix(format!("pass --patch to re-encode it inline, or {}", rechunk_fix(a, k, n))),
                );
                continue;
            }
            let cut = r * row_bytes;
            findings.push(
                Finding::new(
                    FindingKind::RescuedPrefix,
                    Severity::Info,
                    format!(
                        "last chunk along {dim} holds {r} of {b} rows, stored padded but unfiltered: referenced as its first {cut} bytes"
                    ),
                )
                .file(url)
                .array(path)
                .at(format!("chunk {} along {dim}", nblocks - 1)),
            );
            for e in entries {
                let last = e.index.get(k) == Some(&(nblocks - 1));
                let Some(key) = concat_key(e.index, k, offset, nblocks, &grid) else {
                    continue;
                };
                let data = match e.data {
                    ChunkData::Ref { offset, .. } if last => ChunkData::Ref {
                        offset,
                        length: cut,
                    },
                    ChunkData::Inline(mut d) if last => {
                        d.truncate(cut as usize);
                        ChunkData::Inline(d)
                    }
                    data => data,
                };
                p.chunks.push(PlannedChunk {
                    key,
                    source: src,
                    data,
                });
            }
        } else {
            let block = &a.chunks.block;
            for e in entries {
                if let Some(key) = concat_key(e.index, k, offset, nblocks, &grid) {
                    push_block(
                        &mut p,
                        key,
                        src,
                        e.data,
                        e.filter_mask,
                        block,
                        block.clone(),
                    );
                }
            }
        }
        along.extend(&edges);
    }
    if !ok {
        return None;
    }
    for i in 0..a0.shape.len() {
        if i == k {
            p.edges.push(if along.is_empty() {
                AxisEdges::from(vec![1])
            } else {
                along.clone()
            });
            continue;
        }
        p.edges.push(own_axis(a0, i));
    }
    validate(&p, findings).then_some(p)
}

/// The combined grid key of a file's block, or `None` for a block outside the file's extent.
/// `grid` is the file's own block grid shape; the index is reused as the key.
fn concat_key(
    mut index: Vec<u64>,
    k: usize,
    offset: u64,
    nblocks: u64,
    grid: &[u64],
) -> Option<Vec<u64>> {
    if index.len() != grid.len() {
        return None;
    }
    for (i, (ix, &g)) in index.iter_mut().zip(grid).enumerate() {
        if i == k {
            if *ix >= nblocks {
                return None;
            }
            *ix += offset;
        } else if *ix >= g {
            return None;
        }
    }
    Some(index)
}

/// Final check of the grid rules; a failure is a bug, reported rather than written.
fn validate(p: &ArrayPlan, findings: &mut Vec<Finding>) -> bool {
    if p.edges.len() != p.shape.len() {
        findings.push(
            Finding::error(
                FindingKind::InvalidGrid,
                "grid rank differs from the array's",
            )
            .array(&p.path),
        );
        return false;
    }
    for (axis, (e, &n)) in p.edges.iter().zip(&p.shape).enumerate() {
        if let Err(err) = e.validate(axis, n) {
            findings.push(Finding::error(FindingKind::InvalidGrid, err.to_string()).array(&p.path));
            return false;
        }
    }
    let mut keys: BTreeMap<&[u64], ()> = BTreeMap::new();
    for c in &p.chunks {
        let inside =
            c.key.len() == p.edges.len() && c.key.iter().zip(&p.edges).all(|(k, e)| *k < e.count());
        if !inside || keys.insert(&c.key, ()).is_some() {
            findings.push(
                Finding::error(
                    FindingKind::InvalidGrid,
                    format!("chunk key {:?} is outside the grid or repeated", c.key),
                )
                .array(&p.path),
            );
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests;
