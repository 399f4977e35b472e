//! Mosaics: files placed side by side in 2-D (GeoTIFF scenes, netCDF tiles) as one array on a
//! rectilinear grid.
//!
//! A rectilinear grid is a cross product of one list of cuts per axis (zarr-extensions
//! `chunk-grids/rectilinear`; design.md, "The rules of a rectilinear grid", rules 4 and 5), so:
//! - **Placement.** Each file gets an offset (row, column) in the combined array: from the
//!   GeoTIFF `spatial:transform` (north-up only; same `proj:code`, pixel size and registration;
//!   offsets `(c - c0) / a` and `(f - f0) / e` whole pixels within 1e-6), from regular 1-D
//!   coordinate variables (`y`/`x`, `lat`/`lon`, …), or explicitly ([`LayoutEntry`]).
//! - **Cuts.** Along each axis the global cuts are the union of every tile's edges and internal
//!   block boundaries. Each global cut that crosses a tile must fall on one of its block
//!   boundaries, or on a row of an uncompressed strip (`splittable`, cut along rows only);
//!   otherwise it is a [`FindingKind::StaggeredCut`] naming the file, the position and the block.
//! - **Padding.** A block stored padded may only be the last chunk of its axis of the *combined*
//!   array; an unfiltered block padded along rows is referenced as its byte prefix
//!   ([`FindingKind::RescuedPrefix`]), as the concat planner does.
//! - **Overlap.** Chunks partition the array. Where two tiles cover the same pixels, the later
//!   file wins (GDAL VRT's rule) when the overlap is made of whole blocks of the earlier tile,
//!   which are then dropped ([`FindingKind::OverlapResolved`]); otherwise [`FindingKind::Overlap`].
//! - **Gaps.** Cells no tile covers have no chunk key and read as the fill value
//!   ([`FindingKind::Gap`], a warning).
//! - When tiles do not fit, a [`FindingKind::RewriteSuggestion`] names a small set of files to
//!   rewrite, with a block size, and the bytes that would be rewritten (greedy, not proven minimal).
//!
//! Each chunk of the output maps to exactly one block of one tile (or a row range of a splittable
//! block); nothing approximate is planned: an array with an error finding is left out.

//!
//! Files: `layout` (explicit offsets), `georef` (placement by georeferencing), `tile`, `array`
//! (one array's rules in order) with `overlap`, `cuts`, `padded`, `cells`, `suggest`; `coord`
//! (coordinates along the mosaic axes); `view` (what the HTML report draws).

mod array;
mod cells;
mod coord;
mod cuts;
mod georef;
mod layout;
mod overlap;
mod padded;
mod state;
mod suggest;
mod tile;
mod view;

pub use layout::{parse_layout, LayoutEntry};
pub use view::{MosaicView, OverlapView, Rect, StaggerView, TileStatus, TileView};

use crate::combine::single::single;
use crate::{display_file, ArrayPlan, Finding, FindingKind, Options, Plan, Severity};
use georef::mosaic_dims;
use std::collections::BTreeSet;
use vzplan_core::{ArrayLayout, SourceLayout};

/// What every array of one mosaic shares: the files, where each sits, and the tile extents.
struct Placed<'a> {
    layouts: &'a [SourceLayout],
    /// The mosaic dimensions (rows, columns).
    dims: [String; 2],
    /// Each file's offset (row, column); `None` when it could not be placed.
    offsets: Vec<Option<[u64; 2]>>,
    /// Each file's tile extent: that of its placing array (the first with both dimensions).
    extent: Vec<Option<[u64; 2]>>,
}

/// Plans a mosaic: called by [`crate::plan`] when `--mosaic` (or a layout) is given.
pub(crate) fn plan(mut layouts: Vec<SourceLayout>, opts: &Options, p: &mut Plan) {
    crate::combine::common_metadata(&mut layouts, p);
    let Some((rows, cols)) = layouts.iter().flat_map(|l| &l.arrays).find_map(|a| {
        mosaic_dims(a).map(|(ky, kx)| (a.dims[ky].name.clone(), a.dims[kx].name.clone()))
    }) else {
        p.findings.push(
            Finding::error(
                FindingKind::Missing,
                "no array has a pair of mosaic dimensions (y/x, lat/lon, latitude/longitude); nothing to place",
            )
            .fix("drop --mosaic to concatenate or stack the files instead, or name their 2-D dimensions y/x or lat/lon"),
        );
        p.left_out.extend(
            layouts
                .iter()
                .flat_map(|l| l.arrays.iter().map(|a| a.path.clone()))
                .collect::<BTreeSet<_>>(),
        );
        return;
    };
    let dims = [rows.clone(), cols.clone()];
    let offsets = place(&layouts, opts, &dims, p);
    p.mosaic_dims = Some(dims.clone());
    let extent: Vec<Option<[u64; 2]>> = layouts
        .iter()
        .map(|l| {
            l.arrays.iter().find_map(|a| {
                let (ky, kx) = mosaic_dims(a)?;
                (a.dims[ky].name == rows && a.dims[kx].name == cols)
                    .then(|| [a.shape[ky], a.shape[kx]])
            })
        })
        .collect();
    let placed = Placed {
        layouts: &layouts,
        dims,
        offsets,
        extent,
    };
    let wanted = |path: &str| {
        opts.vars.is_empty()
            || opts.vars.iter().any(|v| v == path)
            || placed.dims.iter().any(|d| d == path)
    };
    for path in crate::select::array_paths(&layouts)
        .iter()
        .filter(|p| wanted(p))
    {
        plan_path(path, &placed, p);
    }
}

/// Each file's offset in the mosaic, normalised so that the smallest is 0; files that cannot be
/// placed get a finding and join `p.unplaced`.
fn place(
    layouts: &[SourceLayout],
    opts: &Options,
    dims: &[String; 2],
    p: &mut Plan,
) -> Vec<Option<[u64; 2]>> {
    let placed = match &opts.mosaic_layout {
        Some(entries) => georef::place_explicit(layouts, entries),
        None => georef::place_geo(layouts, &dims[0], &dims[1]),
    };
    let mut offsets: Vec<Option<[u64; 2]>> = vec![None; layouts.len()];
    let mins = [0, 1].map(|m| {
        placed
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|o| o[m])
            .min()
            .unwrap_or(0)
    });
    for (i, r) in placed.iter().enumerate() {
        // Offsets and block counts come from the files (or a layout file): bounded here.
        let r = r.as_ref().map_err(String::clone).and_then(|o| {
            let o = [0, 1].map(|m| o[m].abs_diff(mins[m]));
            crate::validate::mosaic_fit(&layouts[i], o).map(|()| o)
        });
        match r {
            Ok(o) => offsets[i] = Some(o),
            Err(why) => {
                p.findings.push(
                    Finding::error(FindingKind::Mismatch, format!("cannot be placed in the mosaic: {why}"))
                        .file(&layouts[i].url)
                        .fix(if opts.mosaic_layout.is_some() {
                            "add a line `PATH ROW COL` for it to the layout file".to_string()
                        } else {
                            "reproject or resample it to the others' grid (`gdalwarp -t_srs … -tr … -tap`), or place it with --mosaic-layout".to_string()
                        }),
                );
                p.unplaced.push(i);
            }
        }
    }
    offsets
}

/// Plans the array at `path` across the placed files into `p` (or leaves it out).
fn plan_path(path: &str, placed: &Placed, p: &mut Plan) {
    let Placed {
        layouts,
        dims,
        offsets,
        extent,
    } = placed;
    let mut findings = Vec::new();
    for l in layouts.iter() {
        for pr in l.problems.iter().filter(|x| x.path == path) {
            findings.push(crate::combine::unsupported_finding(l, path, pr));
        }
    }
    let present: Vec<(usize, &ArrayLayout)> = layouts
        .iter()
        .enumerate()
        .filter(|(i, _)| offsets[*i].is_some())
        .filter_map(|(i, l)| l.arrays.iter().find(|a| a.path == path).map(|a| (i, a)))
        .collect();
    let Some(&(_, a0)) = present.first() else {
        p.findings.extend(findings);
        if !p.left_out.iter().any(|x| x == path) {
            p.left_out.push(path.to_string());
        }
        return;
    };
    let planned = if !findings.is_empty() {
        None
    } else if let Some(m) = dims
        .iter()
        .position(|d| d == path)
        .filter(|_| a0.dims.len() == 1)
    {
        coord::mosaic_coord(path, m, &present, offsets, extent, layouts, &mut findings)
    } else if let Some((ky, kx)) = mosaic_dims(a0)
        .filter(|&(ky, kx)| a0.dims[ky].name == dims[0] && a0.dims[kx].name == dims[1])
    {
        // Only arrays covering the whole tile are part of the mosaic (not overviews).
        let full = present
            .iter()
            .all(|(i, a)| extent[*i] == Some([a.shape[ky], a.shape[kx]]));
        if !full {
            p.findings.push(
                Finding::new(
                    FindingKind::Missing,
                    Severity::Warning,
                    format!(
                        "not part of the mosaic: its extent along {}/{} differs from the tile's",
                        dims[0], dims[1]
                    ),
                )
                .array(path)
                .fix("plan it on its own (without --mosaic), or select the mosaic's variables with --var"),
            );
            return;
        }
        mosaic_array(path, [ky, kx], &present, placed, p, &mut findings)
    } else {
        off_axes(path, &present, layouts, &mut findings)
    };
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    p.findings.extend(findings);
    match planned {
        Some(a) if !failed => p.arrays.push(a),
        _ => p.left_out.push(path.to_string()),
    }
}

/// An array along both mosaic axes: its mosaic, drawn for the report with the unplaced files.
fn mosaic_array(
    path: &str,
    k: [usize; 2],
    present: &[(usize, &ArrayLayout)],
    placed: &Placed,
    p: &mut Plan,
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let tiles = array::tiles(k, present, &placed.offsets, placed.layouts);
    let a0 = present[0].1;
    let (a, mut view) = array::Mosaic::new(path, k, &placed.dims, a0, tiles, findings).plan();
    view.planned = a.is_some() && !findings.iter().any(|f| f.severity == Severity::Error);
    // Unplaced files belong in the picture too.
    for &u in &p.unplaced {
        view.tiles.push(TileView {
            source: u,
            file: display_file(&placed.layouts[u].url),
            offset: None,
            shape: placed.extent[u].unwrap_or([0, 0]),
            block: [0, 0],
            status: TileStatus::Unplaced,
            dropped: vec![],
        });
    }
    p.mosaics.push(view);
    a
}

/// An array not along the mosaic axes: taken from the first file; the others must agree.
fn off_axes(
    path: &str,
    present: &[(usize, &ArrayLayout)],
    layouts: &[SourceLayout],
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let (i0, a0) = present[0];
    for &(i, a) in &present[1..] {
        if a.shape != a0.shape || a.dtype != a0.dtype || a.values != a0.values {
            findings.push(
                Finding::error(
                    FindingKind::Mismatch,
                    "differs from the first file's, and it is not along the mosaic axes",
                )
                .file(&layouts[i].url)
                .array(path)
                .fix(format!(
                    "make '{path}' the same in {} as in {}, or select the other variables with --var",
                    display_file(&layouts[i].url),
                    display_file(&layouts[i0].url)
                )),
            );
        }
    }
    if findings.is_empty() {
        single(path, i0, &layouts[i0].url, a0, findings)
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
