//! The whole flow: gather layouts (scan, or read layout files) → plan → optional patch → outputs.

use crate::feed::Feed;
use crate::inputs::Inputs;
use crate::outputs::{write, HtmlReport, Output};
use crate::progress::{Progress, ProgressSink};
use crate::scan::{self, ScanOptions};
use crate::{layouts, Error};
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use vzplan_core::SourceLayout;
use vzplan_io::{FileId, IoOptions};
use vzplan_plan::{LayoutEntry, Plan, ScanFailure};

/// Where the layouts come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// Scan these inputs.
    Scan {
        inputs: Inputs,
        options: ScanOptions,
    },
    /// Read layout files written by `vzplan scan` (local paths, globs, object URLs); no source is
    /// read.
    Layouts {
        patterns: Vec<String>,
        io: IoOptions,
    },
    /// Layouts already in hand (e.g. scanned on other machines; see [`crate::memory`]).
    Given {
        layouts: Vec<SourceLayout>,
        failures: Vec<ScanFailure>,
        io: IoOptions,
    },
}

impl Source {
    /// How object storage is reached (also for reading patched chunks).
    pub fn io(&self) -> &IoOptions {
        match self {
            Source::Scan { options, .. } => &options.io,
            Source::Layouts { io, .. } | Source::Given { io, .. } => io,
        }
    }
}

/// How the files are combined.
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// The dimension to concatenate along (default: the unlimited dimension, else `time`).
    pub concat_dim: Option<String>,
    /// Stack the files along a new leading dimension of this name instead.
    pub stack_dim: Option<String>,
    /// `NAME=PATTERN` or `NAME=datetime`: each file's date as a coordinate along the stack.
    pub stack_coord: Option<String>,
    /// Only these variables (and the coordinates of their dimensions).
    pub vars: Vec<String>,
    /// Place the files side by side in 2-D by their georeferencing.
    pub mosaic: bool,
    /// Place the mosaic's files by this layout file (`PATH ROW COL` lines or JSON).
    pub mosaic_layout: Option<PathBuf>,
    /// Plan patches for chunks that cannot be referenced as stored; `build` applies them.
    pub patch: bool,
    /// Also write the plan as an HTML page (before any patching).
    pub html: Option<PathBuf>,
    /// Build without sources whose store could not be reached (exit 3) instead of failing.
    pub allow_unreachable: bool,
    /// Also render the HTML page in memory (for a notebook), as the `html` file would hold it.
    pub page: bool,
}

/// What `build` does besides planning: where the plan goes.
#[derive(Default)]
pub struct BuildOptions {
    pub plan: PlanOptions,
    /// Written in order once the plan has arrays (e.g. [`crate::RefsOutput`]).
    pub outputs: Vec<Box<dyn Output>>,
    /// Replace existing files that are not vzplan outputs (never an input).
    pub force: bool,
    /// Also keep every file's layout here (JSON lines), so that the collection can be appended
    /// to ([`crate::append`]) without scanning its files again.
    pub keep_layouts: Option<PathBuf>,
    /// Prefixes (directories, `s3://bucket/dir/`) whose sources may be read when only a layout
    /// names them ([`crate::named`]): `--patch` reads no other source but the inputs scanned.
    pub sources_under: Vec<String>,
    /// Sources the caller named one by one besides the inputs this run scans (paths or URLs):
    /// the files a distributed scan handed to its workers, whose layouts come back as lines.
    pub sources_named: Vec<String>,
}

/// The result of a build.
#[derive(Debug)]
pub struct BuildReport {
    pub plan: Plan,
    /// Chunks re-encoded inline by `patch`, and their inline bytes.
    pub patched_chunks: usize,
    pub patched_bytes: u64,
    /// The HTML page, when [`PlanOptions::page`] asked for it.
    pub page: Option<String>,
}

/// A plan, and its HTML page when [`PlanOptions::page`] asked for it.
#[derive(Debug)]
pub struct Planned {
    pub plan: Plan,
    pub page: Option<String>,
}

/// Layouts and failures, from scanning or from layout files.
pub fn gather(
    source: &Source,
    progress: &dyn ProgressSink,
) -> Result<(Vec<SourceLayout>, Vec<ScanFailure>), Error> {
    let g = gather_with_inputs(source, None, progress)?;
    Ok((g.layouts, g.failures))
}

/// Layouts and failures, and the layout files read.
struct Gathered {
    layouts: Vec<SourceLayout>,
    failures: Vec<ScanFailure>,
    /// Layout files read (with the sources, [`Gathered::read`]).
    layout_files: Vec<PathBuf>,
}

impl Gathered {
    /// The URL of every file read or left out.
    fn urls(&self) -> impl Iterator<Item = &str> {
        let urls = self.layouts.iter().map(|l| l.url.as_str());
        urls.chain(self.failures.iter().map(|f| f.url.as_str()))
    }

    /// Every local file read, sources and layout files, but the sources whose URL is in
    /// `checked` (a scan's inputs already guarded): no output may replace one of these. Skipped
    /// by URL before any path is made (a path and a hash a file otherwise).
    fn read(&self, checked: &UrlSet) -> Vec<PathBuf> {
        let sources = self
            .urls()
            .filter(|u| !checked.contains(u))
            .filter_map(write::local_path);
        self.layout_files.iter().cloned().chain(sources).collect()
    }
}

type UrlSet<'a> = HashSet<&'a str, foldhash::fast::RandomState>;

/// [`gather`], plus every local file read; `files`: a scan's inputs when already expanded.
fn gather_with_inputs(
    source: &Source,
    files: Option<&Feed>,
    progress: &dyn ProgressSink,
) -> Result<Gathered, Error> {
    let (layouts, failures, layout_files) = match source {
        Source::Layouts { patterns, io } => {
            let files = crate::inputs::expand(patterns, io)?;
            let (l, f) = layouts::read(&files, io)?;
            let names = files.iter().filter_map(|i| write::local_path(&i.name));
            (l, f, names.collect())
        }
        Source::Scan { inputs, options } => {
            let scanned = match files {
                Some(files) => scan::scan_feed(files, options, progress)?,
                None => scan::scan(inputs, options, progress)?,
            };
            let (l, f) = scan::split(scanned);
            (l, f, Vec::new())
        }
        Source::Given {
            layouts, failures, ..
        } => (layouts.clone(), failures.clone(), Vec::new()),
    };
    Ok(Gathered {
        layouts,
        failures,
        layout_files,
    })
}

/// `--var` and `--concat-dim` must name something some file has: checked before planning.
fn check_names(layouts: &[SourceLayout], opts: &PlanOptions) -> Result<(), Error> {
    // Names are gathered only when there is a name to check (most builds give none), and
    // copied only for the error.
    type Names<'a> = HashSet<&'a String, foldhash::fast::RandomState>;
    let sorted = |v: Names| {
        let mut v: Vec<String> = v.into_iter().cloned().collect();
        v.sort();
        v.dedup();
        v
    };
    if !opts.vars.is_empty() {
        let vars: Names = layouts
            .iter()
            .flat_map(|l| {
                let problems = l.problems.iter().map(|p| &p.path);
                l.arrays.iter().map(|a| &a.path).chain(problems)
            })
            .collect();
        if let Some(v) = opts.vars.iter().find(|v| !vars.contains(v)) {
            return Err(Error::UnknownVar {
                name: v.clone(),
                available: sorted(vars),
            });
        }
    }
    if let Some(d) = &opts.concat_dim {
        let dims: Names = layouts
            .iter()
            .flat_map(|l| l.arrays.iter().flat_map(|a| a.dims.iter()))
            .map(|d| &d.name)
            .collect();
        if !dims.contains(d) {
            return Err(Error::UnknownDim {
                name: d.clone(),
                available: sorted(dims),
            });
        }
    }
    Ok(())
}

/// Plans gathered layouts (no output written).
fn plan_layouts(
    layouts: Vec<SourceLayout>,
    failures: Vec<ScanFailure>,
    opts: &PlanOptions,
) -> Result<Plan, Error> {
    if layouts.is_empty() {
        return Err(Error::NothingRead { failures });
    }
    check_names(&layouts, opts)?;
    let planner = vzplan_plan::Options {
        concat_dim: opts.concat_dim.clone(),
        stack_dim: opts.stack_dim.clone(),
        stack_coord: opts
            .stack_coord
            .as_deref()
            .map(vzplan_plan::StackCoord::parse)
            .transpose()
            .map_err(Error::StackCoord)?,
        vars: opts.vars.clone(),
        mosaic: opts.mosaic,
        mosaic_layout: opts
            .mosaic_layout
            .as_deref()
            .map(read_mosaic_layout)
            .transpose()?,
        patch: opts.patch,
    };
    Ok(vzplan_plan::plan(layouts, &failures, &planner))
}

/// Gathers the layouts and plans them (and writes the HTML page when asked).
pub fn plan(
    source: &Source,
    opts: &PlanOptions,
    progress: &dyn ProgressSink,
) -> Result<Plan, Error> {
    Ok(plan_page(source, opts, progress)?.plan)
}

/// [`plan`], with the HTML page in memory when asked for.
pub fn plan_page(
    source: &Source,
    opts: &PlanOptions,
    progress: &dyn ProgressSink,
) -> Result<Planned, Error> {
    let g = gather_with_inputs(source, None, progress)?;
    scan::reachable(&g.failures, opts.allow_unreachable)?;
    let mut html = opts.html.clone().map(HtmlReport::new);
    if let Some(h) = &mut html {
        let read = g.read(&UrlSet::default());
        write::guard(&h.targets(), false, &write::unknown(read))?;
    }
    let axes = axes(&g.layouts, opts);
    if let Some(h) = &mut html {
        h.axes = axes.clone().unwrap_or_default();
    }
    let plan = plan_layouts(g.layouts, g.failures, opts)?;
    if let Some(h) = &html {
        h.write(&plan)?;
    }
    let page = page(&plan, axes.as_ref(), opts);
    Ok(Planned { plan, page })
}

/// What the HTML page needs of the layouts (taken before planning), when a page is asked for.
fn axes(layouts: &[SourceLayout], opts: &PlanOptions) -> Option<vzplan_emit::html::FileAxes> {
    (opts.html.is_some() || opts.page).then(|| vzplan_emit::html::FileAxes::from_layouts(layouts))
}

/// The page in memory, when asked for.
fn page(
    plan: &Plan,
    axes: Option<&vzplan_emit::html::FileAxes>,
    opts: &PlanOptions,
) -> Option<String> {
    let axes = axes.filter(|_| opts.page)?;
    Some(vzplan_emit::html::page_with(plan, axes))
}

/// Plans, applies patches (the one read of source data outside scanning: only the chunks being
/// patched), and writes every output. Before anything is written, every target is checked
/// ([`write::guard`]); the outputs (and the HTML page) are written beside their targets and
/// renamed into place together, once all are written. Nothing but the HTML page is written when
/// no array can be built.
pub fn build(
    source: &Source,
    opts: &BuildOptions,
    progress: &dyn ProgressSink,
) -> Result<BuildReport, Error> {
    build_kept(source, opts, progress, Continue::default())
}

/// What an append continues from (see [`crate::append`]).
#[derive(Default)]
pub(crate) struct Continue {
    /// The collection's lock, held since before the kept layouts were read.
    pub lock: Option<crate::outputs::lock::Lock>,
    /// The `parent` of the new kept layouts' header.
    pub parent: Option<String>,
    /// The record an Icechunk branch's head must carry when the commit lands.
    pub expect: Option<String>,
}

/// As [`build`], continuing `cont` for an append. The collection is locked from here until its
/// outputs are in place ([`crate::outputs::lock`]).
pub(crate) fn build_kept(
    source: &Source,
    opts: &BuildOptions,
    progress: &dyn ProgressSink,
    cont: Continue,
) -> Result<BuildReport, Error> {
    let mut html = opts.plan.html.clone().map(HtmlReport::new);
    let mut targets: Vec<(&'static str, PathBuf)> =
        opts.outputs.iter().flat_map(|o| o.targets()).collect();
    targets.extend(html.iter().flat_map(|h| h.targets()));
    targets.extend(opts.keep_layouts.iter().map(|p| ("layouts", p.clone())));
    // Once before scanning, against the inputs expanded and the paths given (a slip is told
    // before the long part), once more when every file read is known (from layout files too).
    // A scan's inputs are expanded first: classifying them learns each file's identity, so the
    // guard needs no `stat` per file.
    let files = match source {
        Source::Scan { inputs, options } => Some(Feed::new(inputs, &options.io)?),
        _ => None,
    };
    // A bad --sources-under prefix is told before the scan.
    crate::Named::new([], &opts.sources_under)?;
    let checked = first_checked(source, files.as_ref());
    write::guard(&targets, opts.force, &checked)?;
    let _lock = match cont.lock {
        Some(l) => Some(l),
        None => lock(&targets, progress)?,
    };
    let g = gather_with_inputs(source, files.as_ref(), progress)?;
    // A path checked is not asked twice. A scanned input's URL (absolute, normalised) names the
    // file checked unless a `..` was dropped from its path (which a link could have redirected).
    // Inputs listed during the scan are objects, never local files to check.
    let inputs = files.iter().flat_map(Feed::ready);
    let inputs = inputs.filter(|i| !has_parent_dir(&i.name));
    let others = g.read(&inputs.map(|i| i.url.as_str()).collect());
    if !others.is_empty() {
        let done: PathSet = checked.iter().map(|(p, _)| bytes(p)).collect();
        let found = write::unknown(others.into_iter().filter(|p| !done.contains(bytes(p))));
        write::guard(&targets, opts.force, &found)?;
    }
    // What --patch may read: every file scanned (each scanned input is a layout or a failure
    // under its URL) and the sources named, or under a prefix.
    let named = if opts.plan.patch {
        let given: Vec<String> = opts
            .sources_named
            .iter()
            .filter_map(|s| vzplan_io::canonical_url(s).ok())
            .collect();
        let scanned = files.is_some().then(|| g.urls()).into_iter().flatten();
        crate::Named::new(
            scanned.chain(given.iter().map(String::as_str)),
            &opts.sources_under,
        )?
    } else {
        crate::Named::new([], &opts.sources_under)?
    };
    scan::reachable(&g.failures, opts.plan.allow_unreachable)?;
    // Kept before planning, which takes the chunk tables over; renamed first of all outputs.
    let kept = match &opts.keep_layouts {
        Some(p) => {
            let k = crate::kept::stage(p, &g.layouts, &g.failures, cont.parent)?;
            for o in &opts.outputs {
                o.kept_layouts(cont.expect.as_deref(), &k.sha256);
            }
            Some(k.staged)
        }
        None => None,
    };
    let axes = axes(&g.layouts, &opts.plan);
    if let Some(h) = &mut html {
        h.axes = axes.clone().unwrap_or_default();
    }
    let mut plan = plan_layouts(g.layouts, g.failures, &opts.plan)?;
    let page_text = page(&plan, axes.as_ref(), &opts.plan);
    // The page shows the plan before patching; it is renamed into place with the other outputs.
    let page = match &html {
        Some(h) => h.stage(&plan)?,
        None => Vec::new(),
    };
    let (patched_chunks, patched_bytes) = patch(&mut plan, opts, source, &named, progress);
    // A file of only attributes (and dimensions, which have no Zarr object) is still a group
    // worth writing; no arrays because some were left out is an error.
    if plan.arrays.is_empty() && (plan.incomplete() || plan.sources.is_empty()) {
        write::commit_now(page)?;
        return Err(Error::NothingBuilt {
            plan: Box::new(plan),
        });
    }
    write_outputs(&plan, &opts.outputs, kept, page)?;
    Ok(BuildReport {
        plan,
        patched_chunks,
        patched_bytes,
        page: page_text,
    })
}

/// Locks the collection the run writes (its refs.json, else its kept layouts), waiting for
/// another run that holds it; none when it writes neither (standard output, a store's own).
pub(crate) fn lock(
    targets: &[(&'static str, PathBuf)],
    progress: &dyn ProgressSink,
) -> Result<Option<crate::outputs::lock::Lock>, Error> {
    let Some(target) = crate::outputs::lock::target(targets) else {
        return Ok(None);
    };
    let waiting = |path: &Path| progress.report(Progress::Waiting { path });
    Ok(Some(crate::outputs::lock::Lock::acquire(&target, waiting)?))
}

/// `--patch`: the chunks that cannot be referenced as stored, read from named sources only (a
/// layout's URL never makes vzplan read a file or an endpoint), re-encoded inline.
fn patch(
    plan: &mut Plan,
    opts: &BuildOptions,
    source: &Source,
    named: &crate::Named,
    progress: &dyn ProgressSink,
) -> (usize, u64) {
    if !opts.plan.patch {
        return (0, 0);
    }
    let io = source.io();
    let (chunks, bytes) = vzplan_patch::apply(plan, &|url| {
        named.check(url)?;
        vzplan_io::open(url, io)
    });
    if chunks > 0 {
        progress.report(Progress::Patched { chunks, bytes });
    }
    (chunks, bytes)
}

/// Puts every output in place, in the order that keeps the collection consistent
/// ([`crate::outputs`]): the kept layouts, the files each output staged (refs.json, then its
/// zarr.json), the HTML page; then the outputs with a commit of their own (Icechunk), whose
/// failure puts the files back.
fn write_outputs(
    plan: &Plan,
    outputs: &[Box<dyn Output>],
    kept: Option<write::Staged>,
    page: Vec<write::Staged>,
) -> Result<(), Error> {
    let mut staged: Vec<write::Staged> = kept.into_iter().collect();
    for o in outputs {
        staged.extend(o.stage(plan)?);
    }
    staged.extend(page);
    crate::failpoint::before_commit();
    let files = write::commit(staged)?;
    for o in outputs {
        if let Err(e) = o.commit(plan) {
            files.rollback();
            return Err(e);
        }
    }
    files.finish();
    Ok(())
}

/// What the first guard checks: a scan's expanded inputs with the identities their
/// classification learned, then the local paths given that are not among them (layout files,
/// patterns, another shard's files), to be `stat`ed.
fn first_checked(source: &Source, files: Option<&Feed>) -> Vec<(PathBuf, Option<FileId>)> {
    let given: &[String] = match source {
        Source::Scan { inputs, .. } => &inputs.paths,
        Source::Layouts { patterns, .. } => patterns,
        Source::Given { .. } => &[],
    };
    let mut checked: Vec<(PathBuf, Option<FileId>)> = files
        .into_iter()
        .flat_map(Feed::ready)
        .filter_map(|i| Some((write::local_path(&i.name)?, i.id)))
        .collect();
    let rest: Vec<PathBuf> = {
        let expanded: PathSet = checked.iter().map(|(p, _)| bytes(p)).collect();
        let given = given.iter().filter_map(|p| write::local_path(p));
        given.filter(|p| !expanded.contains(bytes(p))).collect()
    };
    checked.extend(write::unknown(rest));
    checked
}

/// Paths already checked, by their bytes: a path spelled differently (`a//b`) is only checked
/// again, never skipped. Hashing `Path`s compares them component by component, and a build
/// looks up every file twice.
type PathSet<'a> = HashSet<&'a [u8], foldhash::fast::RandomState>;

fn bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// Whether `name` has a `..` component (the substring test first: few names have one).
fn has_parent_dir(name: &str) -> bool {
    name.contains("..")
        && Path::new(name)
            .components()
            .any(|c| c == Component::ParentDir)
}

/// Reads a mosaic layout file; relative paths are resolved against its directory.
pub fn read_mosaic_layout(path: &Path) -> Result<Vec<LayoutEntry>, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::MosaicLayoutRead {
        path: path.display().to_string(),
        source,
    })?;
    let mut entries =
        vzplan_plan::mosaic::parse_layout(&text).map_err(|message| Error::MosaicLayout {
            path: path.display().to_string(),
            message,
        })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    for e in &mut entries {
        let p = Path::new(&e.path);
        let candidate = if p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        };
        if candidate.is_file() {
            e.path = vzplan_io::file_url(&candidate);
        }
    }
    Ok(entries)
}
