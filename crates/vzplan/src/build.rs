//! The whole flow: gather layouts (scan, or read layout files) → plan → optional patch → outputs.

use crate::inputs::Inputs;
use crate::outputs::{HtmlReport, Output};
use crate::progress::{Progress, ProgressSink};
use crate::scan::{self, ScanOptions};
use crate::{layouts, Error};
use std::path::{Path, PathBuf};
use vzplan_core::SourceLayout;
use vzplan_io::IoOptions;
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
}

/// What `build` does besides planning: where the plan goes.
#[derive(Default)]
pub struct BuildOptions {
    pub plan: PlanOptions,
    /// Written in order once the plan has arrays (e.g. [`crate::RefsOutput`]).
    pub outputs: Vec<Box<dyn Output>>,
}

/// The result of a build.
#[derive(Debug)]
pub struct BuildReport {
    pub plan: Plan,
    /// Chunks re-encoded inline by `patch`, and their inline bytes.
    pub patched_chunks: usize,
    pub patched_bytes: u64,
}

/// Layouts and failures, from scanning or from layout files.
pub fn gather(
    source: &Source,
    progress: &dyn ProgressSink,
) -> Result<(Vec<SourceLayout>, Vec<ScanFailure>), Error> {
    match source {
        Source::Layouts { patterns, io } => layouts::read_patterns(patterns, io),
        Source::Scan { inputs, options } => Ok(scan::split(scan::scan(inputs, options, progress)?)),
        Source::Given {
            layouts, failures, ..
        } => Ok((layouts.clone(), failures.clone())),
    }
}

/// Gathers the layouts and plans them (and writes the HTML page when asked).
pub fn plan(
    source: &Source,
    opts: &PlanOptions,
    progress: &dyn ProgressSink,
) -> Result<Plan, Error> {
    let (layouts, failures) = gather(source, progress)?;
    let planner = vzplan_plan::Options {
        concat_dim: opts.concat_dim.clone(),
        stack_dim: opts.stack_dim.clone(),
        vars: opts.vars.clone(),
        mosaic: opts.mosaic,
        mosaic_layout: opts
            .mosaic_layout
            .as_deref()
            .map(read_mosaic_layout)
            .transpose()?,
        patch: opts.patch,
    };
    if layouts.is_empty() {
        return Err(Error::NothingRead { failures });
    }
    let plan = vzplan_plan::plan(layouts, &failures, &planner);
    if let Some(h) = &opts.html {
        HtmlReport { path: h.clone() }.write(&plan)?;
    }
    Ok(plan)
}

/// Plans, applies patches (the one read of source data outside scanning: only the chunks being
/// patched), and writes every output. Nothing is written when no array can be built.
pub fn build(
    source: &Source,
    opts: &BuildOptions,
    progress: &dyn ProgressSink,
) -> Result<BuildReport, Error> {
    let mut plan = plan(source, &opts.plan, progress)?;
    let (mut patched_chunks, mut patched_bytes) = (0, 0);
    if opts.plan.patch {
        let io = source.io();
        (patched_chunks, patched_bytes) =
            vzplan_patch::apply(&mut plan, &|url| vzplan_io::open(url, io));
        if patched_chunks > 0 {
            progress.report(Progress::Patched {
                chunks: patched_chunks,
                bytes: patched_bytes,
            });
        }
    }
    if plan.arrays.is_empty() {
        return Err(Error::NothingBuilt {
            plan: Box::new(plan),
        });
    }
    for o in &opts.outputs {
        o.write(&plan)?;
    }
    Ok(BuildReport {
        plan,
        patched_chunks,
        patched_bytes,
    })
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
