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
//!
//! Where each part lives (a maintainer changing one rule reads one file):
//! - [`model`]: the [`Plan`] and [`Options`];
//! - `dedupe`, `validate`, `reference`: inputs used once, layouts checked, the majority's metadata;
//! - `order`, `rebase`: file order along the concat axis, time brought to common units;
//! - `rules`: one module per rule family, each returning findings;
//! - `combine`: one array from one file, stacked, or concatenated, sharing `combine::place`;
//! - [`mosaic`]: files side by side in 2-D;
//! - `stackcoord`: a stack's time coordinate from the files' names or TIFF DateTime tags;
//! - `geo`: GeoTIFF coordinates and CF grid mappings, added to whatever was planned.

pub mod cftime;
mod combine;
mod dedupe;
pub mod finding;
mod fix;
pub(crate) mod geo;
pub use fix::shell_quote;
pub mod model;
pub mod mosaic;
mod order;
mod rebase;
mod reference;
mod rules;
mod select;
mod stackcoord;
mod validate;
pub use stackcoord::StackCoord;

pub use finding::{display_file, Finding, FindingKind, Severity};
pub use model::{ArrayPlan, Options, Patch, Plan, ScanFailure, SourceRef, CONTRIBUTES_NOTHING};
pub use mosaic::{LayoutEntry, MosaicView, Rect, TileStatus, TileView};

use combine::Combine;

/// Maps and sets keyed by names and URLs from the layouts, hashed with foldhash: one lookup per
/// array of every file, where SipHash was a few percent of planning 1,000 small files.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub(crate) type FastSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
use vzplan_core::{ChunkList, SourceLayout};

/// Plans the combination of `layouts` (in command-line order). What is left of the layouts once
/// their chunk tables moved into the plan stays with it ([`Plan`]'s remains).
pub fn plan(layouts: Vec<SourceLayout>, failures: &[ScanFailure], opts: &Options) -> Plan {
    let mut p = Plan::default();
    let Some(layouts) = admit(layouts, failures, opts, &mut p) else {
        return p;
    };
    if opts.mosaic || opts.mosaic_layout.is_some() {
        mosaic::plan(layouts, opts, &mut p);
        geo::annotate(&mut p);
        return p;
    }

    let concat = if opts.stack_dim.is_some() {
        None
    } else {
        opts.concat_dim
            .clone()
            .or_else(|| reference::infer_concat_dim(&layouts))
    };
    let (layouts, times) = match (&opts.stack_coord, &opts.stack_dim) {
        (Some(c), Some(_)) => {
            let (kept, times) = stackcoord::order(layouts, c, &mut p.findings);
            if kept.is_empty() {
                return p;
            }
            (kept, Some(times))
        }
        _ => (layouts, None),
    };
    let (mut layouts, coord_ok) = order::order_files(layouts, concat.as_deref(), &mut p.findings);

    combine::common_metadata(&mut layouts, &mut p);
    p.concat_dim = concat.clone();
    p.stack_dim = opts.stack_dim.clone();

    let paths = select::array_paths(&layouts);
    let selected = select::select_vars(&paths, &layouts, &opts.vars);
    let how = Combine {
        concat: concat.as_deref(),
        stack: opts.stack_dim.as_deref(),
        coord_ok,
        patch: opts.patch,
    };
    for path in paths.iter().filter(|p| selected.contains(*p)) {
        plan_one(path, &mut layouts, &how, &mut p);
    }
    warn_uncombined(&layouts, concat.as_deref(), &mut p);
    if let (Some(c), Some(dim), Some(t)) = (&opts.stack_coord, &opts.stack_dim, &times) {
        stackcoord::add(&mut p, c, dim, t);
    }
    geo::annotate(&mut p);
    p.remains = model::Remains(layouts);
    p
}

/// Dedupes and validates the inputs and turns scan failures into findings; `None` when no file
/// is left to plan.
fn admit(
    layouts: Vec<SourceLayout>,
    failures: &[ScanFailure],
    opts: &Options,
    p: &mut Plan,
) -> Option<Vec<SourceLayout>> {
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
    (!layouts.is_empty()).then_some(layouts)
}

/// Plans the array at `path` into `p` (or leaves it out, with its findings).
fn plan_one(path: &str, layouts: &mut [SourceLayout], how: &Combine, p: &mut Plan) {
    let mut findings = Vec::new();
    // Move this array's chunk tables out of the layouts: the planned chunks take them over,
    // so a collection's refs are never held twice (10^7 refs stay one copy).
    let mut tables: Vec<ChunkList> = layouts
        .iter_mut()
        .map(|l| {
            l.arrays
                .iter_mut()
                .find(|a| a.path == *path)
                .map(|a| std::mem::take(&mut a.chunks.entries))
                .unwrap_or_default()
        })
        .collect();
    let planned = combine::plan_array(path, layouts, &mut tables, how, &mut findings);
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    p.findings.extend(findings);
    match planned {
        Some(a) if !failed => p.arrays.push(a),
        _ => p.left_out.push(path.to_string()),
    }
}

/// Files beyond the first contribute only through an array combined along the concat (or
/// stack) dimension; without one, say so rather than silently dropping them.
fn warn_uncombined(layouts: &[SourceLayout], concat: Option<&str>, p: &mut Plan) {
    let combined = p.arrays.iter().any(|a| match (&p.stack_dim, concat) {
        (Some(_), _) => a.files > 1,
        (None, Some(d)) => a.dims.iter().any(|x| x == d) && a.files > 1,
        (None, None) => false,
    });
    if layouts.len() < 2 || combined || !p.left_out.is_empty() {
        return;
    }
    let how = match concat {
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

/// Messages from readers start with the URL; the finding names the file already.
fn strip_url_prefix(msg: &str, url: &str) -> String {
    msg.strip_prefix(url)
        .and_then(|m| m.strip_prefix(": "))
        .unwrap_or(msg)
        .to_string()
}

#[cfg(test)]
mod tests;
