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

// Loops over the two mosaic axes index several per-axis arrays at once.
#![allow(clippy::needless_range_loop)]

use crate::combine::place::{base_plan, inline_coord};
use crate::combine::single::single;
use crate::rules::{grid::validate, masks::check_masks, padded::own_axis};
use crate::{display_file, ArrayPlan, Finding, FindingKind, Options, Plan, PlannedChunk, Severity};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use vzplan_core::{ArrayLayout, AxisEdges, ChunkData, EdgeStorage, SourceLayout};

/// One line of an explicit layout: a file and its offset in the mosaic (rows, columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutEntry {
    /// A file URL (`file:///…`), an absolute or relative path, or a bare file name.
    pub path: String,
    pub row: u64,
    pub col: u64,
}

/// Parses an explicit layout: one `PATH ROW COL` per line (whitespace-separated; `#` comments
/// and blank lines ignored), or a JSON list of `{"path": …, "row": …, "col": …}`.
pub fn parse_layout(text: &str) -> Result<Vec<LayoutEntry>, String> {
    let t = text.trim_start();
    if t.starts_with('[') {
        let v: Value = serde_json::from_str(t).map_err(|e| format!("bad JSON layout: {e}"))?;
        let list = v.as_array().ok_or("a JSON layout is a list")?;
        return list
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let get = |k: &str| e.get(k).and_then(Value::as_u64);
                match (
                    e.get("path").and_then(Value::as_str),
                    get("row"),
                    get("col"),
                ) {
                    (Some(p), Some(r), Some(c)) => Ok(LayoutEntry {
                        path: p.to_string(),
                        row: r,
                        col: c,
                    }),
                    _ => Err(format!(
                        "layout entry {i}: wants {{\"path\": …, \"row\": N, \"col\": N}}"
                    )),
                }
            })
            .collect();
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let parts: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("line {}: wants `PATH ROW COL`, got {line:?}", n + 1);
        if parts.len() != 3 {
            return Err(bad());
        }
        out.push(LayoutEntry {
            path: parts[0].to_string(),
            row: parts[1].parse().map_err(|_| bad())?,
            col: parts[2].parse().map_err(|_| bad())?,
        });
    }
    Ok(out)
}

/// A rectangle of the combined array: rows `r0..r1`, columns `c0..c1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rect {
    pub r0: u64,
    pub r1: u64,
    pub c0: u64,
    pub c1: u64,
}

impl Rect {
    fn intersect(&self, o: &Rect) -> Option<Rect> {
        let r = Rect {
            r0: self.r0.max(o.r0),
            r1: self.r1.min(o.r1),
            c0: self.c0.max(o.c0),
            c1: self.c1.min(o.c1),
        };
        (r.r0 < r.r1 && r.c0 < r.c1).then_some(r)
    }
    fn describe(&self, dims: &[String; 2]) -> String {
        format!(
            "{} {}..{}, {} {}..{}: {}×{} pixels",
            dims[0],
            self.r0,
            self.r1,
            dims[1],
            self.c0,
            self.c1,
            self.r1 - self.r0,
            self.c1 - self.c0
        )
    }
}

/// How a tile fits the combined grid (the colours of the HTML report).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TileStatus {
    /// Every global cut falls on its block boundaries.
    Fits,
    /// Fits, with a padded block that is last on its axis (or rescued as a byte prefix).
    Padded,
    /// A global cut falls inside one of its blocks.
    Staggered,
    /// A padded block would sit inside the combined array.
    PaddedInterior,
    /// Overlaps a later tile by a region that is not whole blocks.
    Overlap,
    /// Lost whole blocks to a later, overlapping tile (last file wins).
    OverlapResolved,
    /// Could not be placed (no georeferencing, another CRS, pixel size or alignment).
    Unplaced,
}

/// One tile of a mosaic view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TileView {
    /// Index into [`Plan::sources`].
    pub source: usize,
    pub file: String,
    /// Offset (row, column) in the combined array; `None` when unplaced.
    pub offset: Option<[u64; 2]>,
    pub shape: [u64; 2],
    pub block: [u64; 2],
    pub status: TileStatus,
    /// Blocks (row, column in the tile's own grid) dropped because a later tile covers them.
    pub dropped: Vec<[u64; 2]>,
}

/// A global cut that falls inside a block of a tile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StaggerView {
    pub source: usize,
    /// 0: along rows (a horizontal line), 1: along columns (a vertical line).
    pub axis: usize,
    pub position: u64,
    /// The tile's block index along that axis.
    pub block: u64,
}

/// An overlap between an earlier and a later tile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverlapView {
    pub earlier: usize,
    pub later: usize,
    pub rect: Rect,
    pub resolved: bool,
}

/// What the HTML report draws for one mosaic array.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MosaicView {
    pub array: String,
    /// The two mosaic dimensions (rows, columns).
    pub dims: [String; 2],
    pub shape: [u64; 2],
    /// Global cut positions per axis, from 0 to the axis length.
    pub cuts: [Vec<u64>; 2],
    pub tiles: Vec<TileView>,
    pub gaps: Vec<Rect>,
    pub overlaps: Vec<OverlapView>,
    pub staggered: Vec<StaggerView>,
    /// Whether the array was planned.
    pub planned: bool,
}

/// Dimension pairs (rows, columns) recognised as the mosaic axes.
const DIM_PAIRS: [(&str, &str); 4] = [
    ("y", "x"),
    ("lat", "lon"),
    ("latitude", "longitude"),
    ("rlat", "rlon"),
];

fn mosaic_dims(a: &ArrayLayout) -> Option<(usize, usize)> {
    DIM_PAIRS.iter().find_map(|(r, c)| {
        let ky = a.dims.iter().position(|d| d.name == *r)?;
        let kx = a.dims.iter().position(|d| d.name == *c)?;
        (ky < kx).then_some((ky, kx))
    })
}

/// Where the georeferencing of one file says it sits.
struct Geo {
    /// `spatial:transform`, or (for coordinate variables) `[dx, 0, x0, 0, dy, y0]` of pixel
    /// centres.
    t: [f64; 6],
    crs: Option<Value>,
    registration: Option<Value>,
    /// Tolerance in pixels for alignment (float32 coordinates are coarser).
    tol: f64,
    from_coords: bool,
}

fn transform_of(a: &ArrayLayout) -> Option<[f64; 6]> {
    let v = a.attrs.get("spatial:transform")?.as_array()?;
    let f: Vec<f64> = v.iter().filter_map(Value::as_f64).collect();
    (f.len() == 6).then(|| [f[0], f[1], f[2], f[3], f[4], f[5]])
}

/// A regular coordinate's first value and step.
fn regular(a: &ArrayLayout) -> Option<(f64, f64, f64)> {
    let v = a.values_f64()?;
    let tol = if a.dtype.size <= 4 { 1e-3 } else { 1e-6 };
    match v.len() {
        0 => None,
        1 => Some((v[0], 0.0, tol)),
        n => {
            let step = (v[n - 1] - v[0]) / (n - 1) as f64;
            let ok = step != 0.0
                && step.is_finite()
                && v.iter()
                    .enumerate()
                    .all(|(i, x)| ((v[0] + i as f64 * step) - x).abs() <= tol * step.abs());
            ok.then_some((v[0], step, tol))
        }
    }
}

fn georef(l: &SourceLayout, rows: &str, cols: &str) -> Result<Geo, String> {
    let data = l
        .arrays
        .iter()
        .find(|a| a.dims.iter().any(|d| d.name == rows) && a.dims.iter().any(|d| d.name == cols));
    if let Some(a) = data {
        if let Some(t) = transform_of(a) {
            return Ok(Geo {
                t,
                crs: a.attrs.get("proj:code").cloned(),
                registration: a.attrs.get("spatial:registration").cloned(),
                tol: 1e-6,
                from_coords: false,
            });
        }
    }
    let coord = |d: &str| {
        l.arrays
            .iter()
            .find(|a| a.path == d && a.dims.len() == 1 && a.dims[0].name == d)
    };
    match (coord(rows), coord(cols)) {
        (Some(y), Some(x)) => {
            let (Some((y0, dy, ty)), Some((x0, dx, tx))) = (regular(y), regular(x)) else {
                return Err(format!(
                    "its '{rows}'/'{cols}' coordinates are not regularly spaced, so the tile cannot be placed by them"
                ));
            };
            let units = |a: &ArrayLayout| a.attrs.get("units").cloned();
            Ok(Geo {
                t: [dx, 0.0, x0, 0.0, dy, y0],
                crs: Some(json!([units(y), units(x)])),
                registration: None,
                tol: ty.max(tx),
                from_coords: true,
            })
        }
        _ => Err(format!(
            "no georeferencing (no spatial:transform, no '{rows}'/'{cols}' coordinate variables)"
        )),
    }
}

/// Offsets (row, column) of each file from georeferencing, relative to the first placed file;
/// `Err` = why a file cannot be placed.
fn place_geo(layouts: &[SourceLayout], rows: &str, cols: &str) -> Vec<Result<[i64; 2], String>> {
    let geos: Vec<Result<Geo, String>> = layouts.iter().map(|l| georef(l, rows, cols)).collect();
    let Some(g0) = geos.iter().find_map(|g| g.as_ref().ok()) else {
        return geos
            .into_iter()
            .map(|g| Err(g.err().unwrap_or_default()))
            .collect();
    };
    let (a0, e0) = (g0.t[0], g0.t[4]);
    let single_px = |a: f64| a == 0.0;
    geos.iter()
        .map(|g| {
            let g = g.as_ref().map_err(|e| e.clone())?;
            let t = g.t;
            if t[1] != 0.0 || t[3] != 0.0 {
                return Err(format!(
                    "its transform {t:?} is rotated or sheared; only north-up tiles can be placed"
                ));
            }
            if g.crs != g0.crs {
                return Err(format!(
                    "its CRS {} differs from {} of the first tile",
                    g.crs.as_ref().map_or("(none)".into(), |c| c.to_string()),
                    g0.crs.as_ref().map_or("(none)".into(), |c| c.to_string())
                ));
            }
            if g.registration != g0.registration {
                return Err("its pixel registration (area/point) differs from the first tile's".into());
            }
            let (a, e) = (
                if single_px(t[0]) { a0 } else { t[0] },
                if single_px(t[4]) { e0 } else { t[4] },
            );
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs().max(1e-300);
            if !close(a, a0) || !close(e, e0) {
                return Err(format!(
                    "its pixel size {a} × {e} differs from {a0} × {e0} of the first tile"
                ));
            }
            let col = (t[2] - g0.t[2]) / a0;
            let row = (t[5] - g0.t[5]) / e0;
            let tol = g.tol.max(g0.tol);
            if (col - col.round()).abs() > tol || (row - row.round()).abs() > tol {
                return Err(format!(
                    "it is not aligned to the first tile's pixels: offset {row:.3} rows, {col:.3} columns"
                ));
            }
            if g.from_coords != g0.from_coords {
                return Err("placed by coordinates here but by a transform in the first tile".into());
            }
            Ok([row.round() as i64, col.round() as i64])
        })
        .collect()
}

fn place_explicit(
    layouts: &[SourceLayout],
    entries: &[LayoutEntry],
) -> Vec<Result<[i64; 2], String>> {
    layouts
        .iter()
        .map(|l| {
            let path = display_file(&l.url);
            let base = path.rsplit('/').next().unwrap_or(&path).to_string();
            let hit = entries
                .iter()
                .find(|e| e.path == l.url || e.path == path)
                .or_else(|| {
                    entries
                        .iter()
                        .find(|e| path.ends_with(&format!("/{}", e.path.trim_start_matches("./"))))
                })
                .or_else(|| entries.iter().find(|e| e.path == base));
            match hit {
                Some(e) => Ok([e.row as i64, e.col as i64]),
                None => Err("not listed in the --mosaic-layout file".into()),
            }
        })
        .collect()
}

/// One tile's view of one axis.
#[derive(Clone, Copy)]
struct Ax {
    o: u64,
    n: u64,
    b: u64,
}

impl Ax {
    fn end(&self) -> u64 {
        self.o + self.n
    }
    fn nblocks(&self) -> u64 {
        if self.b == 0 {
            0
        } else {
            self.n.div_ceil(self.b)
        }
    }
    /// Global positions of the tile's edges and block boundaries.
    fn boundaries(&self) -> Vec<u64> {
        let mut v: Vec<u64> = (0..self.nblocks()).map(|k| self.o + k * self.b).collect();
        v.push(self.end());
        v
    }
}

struct Tile<'a> {
    src: usize,
    url: &'a str,
    a: &'a ArrayLayout,
    ax: [Ax; 2],
    /// Blocks (tile grid, rows × columns) dropped in favour of later tiles.
    dropped: HashSet<[u64; 2]>,
    covered: bool,
}

impl Tile<'_> {
    fn rect(&self) -> Rect {
        Rect {
            r0: self.ax[0].o,
            r1: self.ax[0].end(),
            c0: self.ax[1].o,
            c1: self.ax[1].end(),
        }
    }
    fn padded(&self, m: usize) -> bool {
        self.a.chunks.edges == EdgeStorage::Padded
            && self.ax[m].b > 0
            && !self.ax[m].n.is_multiple_of(self.ax[m].b)
    }
    /// Whether any kept block has index `k` along axis `m`.
    fn kept_along(&self, m: usize, k: u64) -> bool {
        let other = self.ax[1 - m].nblocks();
        (0..other).any(|j| {
            let key = if m == 0 { [k, j] } else { [j, k] };
            !self.dropped.contains(&key)
        })
    }
}

/// Whether axis `k` of `a` is the row axis of its blocks: every earlier axis has block 1, so a
/// range of rows of a block is a byte range of its decoded (unfiltered) bytes.
fn row_axis(a: &ArrayLayout, k: usize) -> bool {
    a.chunks.block.iter().take(k).all(|&b| b == 1)
}

/// Bytes of one row along axis `k` of a block.
fn row_bytes(a: &ArrayLayout, k: usize) -> u64 {
    a.chunks.block.iter().skip(k + 1).product::<u64>() * a.dtype.size as u64
}

/// Plans a mosaic: called by [`super::plan`] when `--mosaic` (or a layout) is given.
pub(crate) fn plan(layouts: Vec<SourceLayout>, opts: &Options, p: &mut Plan) {
    crate::combine::common_metadata(&layouts, p);
    let Some((rows, cols)) = layouts.iter().flat_map(|l| &l.arrays).find_map(|a| {
        mosaic_dims(a).map(|(ky, kx)| (a.dims[ky].name.clone(), a.dims[kx].name.clone()))
    }) else {
        p.findings.push(Finding::error(
            FindingKind::Missing,
            "no array has a pair of mosaic dimensions (y/x, lat/lon, latitude/longitude); nothing to place",
        ));
        p.left_out.extend(
            layouts
                .iter()
                .flat_map(|l| l.arrays.iter().map(|a| a.path.clone()))
                .collect::<BTreeSet<_>>(),
        );
        return;
    };
    let dims = [rows.clone(), cols.clone()];
    let placed = match &opts.mosaic_layout {
        Some(entries) => place_explicit(&layouts, entries),
        None => place_geo(&layouts, &rows, &cols),
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
    p.mosaic_dims = Some(dims.clone());

    // Array paths in first-seen order.
    let mut paths: Vec<String> = Vec::new();
    for l in &layouts {
        for a in l
            .arrays
            .iter()
            .map(|a| &a.path)
            .chain(l.problems.iter().map(|x| &x.path))
        {
            if !paths.contains(a) {
                paths.push(a.clone());
            }
        }
    }
    let wanted = |path: &str| {
        opts.vars.is_empty()
            || opts.vars.iter().any(|v| v == path)
            || dims.iter().any(|d| d == path)
    };
    // The tile extent per file: that of the placing array (the first with both dimensions).
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

    for path in paths.iter().filter(|p| wanted(p)) {
        let mut findings = Vec::new();
        for (i, l) in layouts.iter().enumerate() {
            for pr in l.problems.iter().filter(|x| &x.path == path) {
                findings.push(
                    Finding::error(FindingKind::Unsupported, pr.reason.clone())
                        .file(&l.url)
                        .array(path),
                );
                let _ = i;
            }
        }
        let present: Vec<(usize, &ArrayLayout)> = layouts
            .iter()
            .enumerate()
            .filter(|(i, _)| offsets[*i].is_some())
            .filter_map(|(i, l)| l.arrays.iter().find(|a| &a.path == path).map(|a| (i, a)))
            .collect();
        let Some(&(i0, a0)) = present.first() else {
            p.findings.extend(findings);
            if !p.left_out.contains(path) {
                p.left_out.push(path.clone());
            }
            continue;
        };
        let planned = if !findings.is_empty() {
            None
        } else if let Some(m) = dims
            .iter()
            .position(|d| d == path)
            .filter(|_| a0.dims.len() == 1)
        {
            mosaic_coord(
                path,
                m,
                &present,
                &offsets,
                &extent,
                &layouts,
                &mut findings,
            )
        } else if let Some((ky, kx)) =
            mosaic_dims(a0).filter(|&(ky, kx)| a0.dims[ky].name == rows && a0.dims[kx].name == cols)
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
                        format!("not part of the mosaic: its extent along {rows}/{cols} differs from the tile's"),
                    )
                    .array(path),
                );
                continue;
            }
            let (a, view) = mosaic_array(
                path,
                [ky, kx],
                &dims,
                &present,
                &offsets,
                &layouts,
                &mut findings,
            );
            let mut view = view;
            view.planned = a.is_some() && !findings.iter().any(|f| f.severity == Severity::Error);
            // Unplaced files belong in the picture too.
            for &u in &p.unplaced {
                view.tiles.push(TileView {
                    source: u,
                    file: display_file(&layouts[u].url),
                    offset: None,
                    shape: extent[u].unwrap_or([0, 0]),
                    block: [0, 0],
                    status: TileStatus::Unplaced,
                    dropped: vec![],
                });
            }
            p.mosaics.push(view);
            a
        } else {
            // Not along the mosaic axes: taken from the first file; the others must agree.
            for &(i, a) in &present[1..] {
                if a.shape != a0.shape || a.dtype != a0.dtype || a.values != a0.values {
                    findings.push(
                        Finding::error(
                            FindingKind::Mismatch,
                            "differs from the first file's, and it is not along the mosaic axes",
                        )
                        .file(&layouts[i].url)
                        .array(path),
                    );
                }
            }
            if findings.is_empty() {
                single(path, i0, &layouts[i0].url, a0, &mut findings)
            } else {
                None
            }
        };
        let failed = findings.iter().any(|f| f.severity == Severity::Error);
        p.findings.extend(findings);
        match planned {
            Some(a) if !failed => p.arrays.push(a),
            _ => p.left_out.push(path.clone()),
        }
    }
}

/// A coordinate along a mosaic axis: the tiles' values placed at their offsets, the gaps filled
/// by the regular step; written inline.
fn mosaic_coord(
    path: &str,
    m: usize,
    present: &[(usize, &ArrayLayout)],
    offsets: &[Option<[u64; 2]>],
    extent: &[Option<[u64; 2]>],
    layouts: &[SourceLayout],
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let a0 = present[0].1;
    let n = present
        .iter()
        .filter_map(|(i, a)| Some(offsets[*i]?[m] + a.shape[0]))
        .max()
        .unwrap_or(0);
    let size = a0.dtype.size;
    let mut out = vec![0u8; (n as usize).saturating_mul(size)];
    let mut have = vec![false; n as usize];
    for &(i, a) in present {
        let (Some(o), Some(v)) = (offsets[i], a.values.as_ref()) else {
            findings.push(
                Finding::error(FindingKind::Unsupported, "coordinate values were not read")
                    .file(&layouts[i].url)
                    .array(path),
            );
            return None;
        };
        if a.dtype != a0.dtype || extent[i].is_some_and(|e| e[m] != a.shape[0]) {
            findings.push(
                Finding::error(
                    FindingKind::Mismatch,
                    "dtype or length differs from the first tile's",
                )
                .file(&layouts[i].url)
                .array(path),
            );
            return None;
        }
        let start = o[m] as usize;
        for k in 0..a.shape[0] as usize {
            let (Some(src), Some(dst)) = (
                v.get(k * size..(k + 1) * size),
                out.get_mut((start + k) * size..(start + k + 1) * size),
            ) else {
                continue;
            };
            dst.copy_from_slice(src);
            have[start + k] = true;
        }
    }
    // Gaps in the coordinate: extrapolate the first tile's regular step, in its dtype.
    if have.iter().any(|h| !h) {
        let (i0, a) = present[0];
        let (v0, step, _) = regular(a)?;
        let o0 = offsets[i0]?[m] as f64;
        for (k, h) in have.iter().enumerate() {
            if *h {
                continue;
            }
            let x = v0 + (k as f64 - o0) * step;
            let bytes: Vec<u8> = match (a.dtype.kind, size) {
                (vzplan_core::Kind::Float, 8) => x.to_le_bytes().to_vec(),
                (vzplan_core::Kind::Float, 4) => (x as f32).to_le_bytes().to_vec(),
                (vzplan_core::Kind::Int, 4) => (x.round() as i32).to_le_bytes().to_vec(),
                (vzplan_core::Kind::Int, 8) => (x.round() as i64).to_le_bytes().to_vec(),
                _ => return None,
            };
            let bytes: Vec<u8> = match a.dtype.endian {
                vzplan_core::Endian::Little => bytes,
                vzplan_core::Endian::Big => bytes.into_iter().rev().collect(),
            };
            out[k * size..(k + 1) * size].copy_from_slice(&bytes);
        }
    }
    Some(inline_coord(path, a0, out, n, present.len()))
}

/// The fill value in words, for gap findings.
fn fill_words(a: &ArrayLayout) -> String {
    match a.fill_value.as_deref().and_then(|f| a.dtype.decode_f64(f)) {
        Some(v) => format!("{v}"),
        None => "0 (none set)".to_string(),
    }
}

/// The dimension name of an axis for messages.
fn axis_word(dims: &[String; 2], m: usize) -> &str {
    &dims[m]
}

/// The mosaic of one array. Returns the plan (None when it cannot be planned) and the view.
#[allow(clippy::too_many_arguments)]
fn mosaic_array(
    path: &str,
    k: [usize; 2],
    dims: &[String; 2],
    present: &[(usize, &ArrayLayout)],
    offsets: &[Option<[u64; 2]>],
    layouts: &[SourceLayout],
    findings: &mut Vec<Finding>,
) -> (Option<ArrayPlan>, MosaicView) {
    let a0 = present[0].1;
    let mut tiles: Vec<Tile> = present
        .iter()
        .filter_map(|&(src, a)| {
            let o = offsets[src]?;
            Some(Tile {
                src,
                url: &layouts[src].url,
                a,
                ax: [0, 1].map(|m| Ax {
                    o: o[m],
                    n: a.shape[k[m]],
                    b: a.chunks.block.get(k[m]).copied().unwrap_or(1).max(1),
                }),
                dropped: HashSet::new(),
                covered: false,
            })
        })
        .collect();
    let shape = [0, 1].map(|m| tiles.iter().map(|t| t.ax[m].end()).max().unwrap_or(0));
    let mut view = MosaicView {
        array: path.to_string(),
        dims: dims.clone(),
        shape,
        cuts: [vec![], vec![]],
        tiles: vec![],
        gaps: vec![],
        overlaps: vec![],
        staggered: vec![],
        planned: false,
    };
    let mut bad: BTreeMap<usize, TileStatus> = BTreeMap::new();
    let mut ok = true;

    // Everything but the mosaic axes must match the first tile.
    for t in &tiles[1..] {
        let a = t.a;
        let why = if a
            .dims
            .iter()
            .map(|d| &d.name)
            .ne(a0.dims.iter().map(|d| &d.name))
        {
            Some(format!(
                "dimensions ({}) differ from ({}) in the first tile",
                a.dim_names().join(", "),
                a0.dim_names().join(", ")
            ))
        } else if a.dtype != a0.dtype {
            Some(format!(
                "dtype {} differs from {} in the first tile",
                a.dtype.numpy_str(),
                a0.dtype.numpy_str()
            ))
        } else if a.codecs != a0.codecs {
            Some("its codecs differ from the first tile's".to_string())
        } else if a.fill_value != a0.fill_value {
            Some("its fill value differs from the first tile's".to_string())
        } else {
            (0..a.shape.len())
                .filter(|i| !k.contains(i))
                .find(|&i| {
                    a.shape[i] != a0.shape[i] || a.chunks.block.get(i) != a0.chunks.block.get(i)
                })
                .map(|i| {
                    format!(
                        "its length or block along '{}' differs from the first tile's",
                        a.dims[i].name
                    )
                })
        };
        if let Some(w) = why {
            findings.push(
                Finding::error(FindingKind::Mismatch, w)
                    .file(t.url)
                    .array(path)
                    .fix("rewrite it with the same data type, codecs, fill value and block shape as the others (e.g. `gdal_translate -co COMPRESS=… -co TILED=…`)"),
            );
            ok = false;
        }
    }
    for t in &tiles {
        if !check_masks(path, t.url, t.a, findings) {
            ok = false;
        }
    }

    // Overlaps: the later file wins where the overlap is whole blocks of the earlier tile.
    for i in 0..tiles.len() {
        for j in i + 1..tiles.len() {
            let Some(r) = tiles[i].rect().intersect(&tiles[j].rect()) else {
                continue;
            };
            let ti = &tiles[i];
            let lo = [r.r0, r.c0];
            let hi = [r.r1, r.c1];
            let mut inside = None;
            for m in 0..2 {
                let ax = ti.ax[m];
                for &pos in &[lo[m], hi[m]] {
                    if pos != ax.o && pos != ax.end() && !(pos - ax.o).is_multiple_of(ax.b) {
                        inside = Some((m, pos, (pos - ax.o) / ax.b));
                    }
                }
            }
            let (fi, fj) = (display_file(ti.url), display_file(tiles[j].url));
            view.overlaps.push(OverlapView {
                earlier: ti.src,
                later: tiles[j].src,
                rect: r,
                resolved: inside.is_none(),
            });
            match inside {
                None => {
                    let b = [0, 1].map(|m| {
                        (
                            (lo[m] - ti.ax[m].o) / ti.ax[m].b,
                            (hi[m] - ti.ax[m].o).div_ceil(ti.ax[m].b),
                        )
                    });
                    let mut n = 0;
                    for by in b[0].0..b[0].1 {
                        for bx in b[1].0..b[1].1 {
                            if tiles[i].dropped.insert([by, bx]) {
                                n += 1;
                            }
                        }
                    }
                    findings.push(
                        Finding::new(
                            FindingKind::OverlapResolved,
                            Severity::Info,
                            format!("overlaps {fj} ({}); resolved as GDAL VRT does, the last file wins: {n} whole block(s) of this file are dropped", r.describe(dims)),
                        )
                        .file(tiles[i].url)
                        .array(path),
                    );
                    bad.entry(i).or_insert(TileStatus::OverlapResolved);
                }
                Some((m, pos, blk)) => {
                    ok = false;
                    findings.push(
                        Finding::error(
                            FindingKind::Overlap,
                            format!(
                                "overlaps {fj} ({}); two chunks cannot cover the same pixels, and the overlap does not end on this file's block boundaries, so its blocks cannot simply be dropped (the later file would win, as in GDAL VRT)",
                                r.describe(dims)
                            ),
                        )
                        .file(ti.url)
                        .array(path)
                        .at(format!("{} {pos} falls inside block {blk} along {} of {fi}", axis_word(dims, m), axis_word(dims, m)))
                        .fix(format!("crop {fi} or {fj} so that they meet without overlap (`gdal_translate -srcwin …`), or mosaic them with `gdalwarp`/`gdal_merge`")),
                    );
                    bad.insert(i, TileStatus::Overlap);
                    bad.entry(j).or_insert(TileStatus::Overlap);
                }
            }
        }
    }
    for t in tiles.iter_mut() {
        let total = t.ax[0].nblocks() * t.ax[1].nblocks();
        t.covered = total > 0 && t.dropped.len() as u64 >= total;
    }

    // Global cuts: every kept tile's edges and block boundaries; remember who made each.
    let mut cut_src: [BTreeMap<u64, (usize, bool)>; 2] = [BTreeMap::new(), BTreeMap::new()];
    for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
        for m in 0..2 {
            for pos in t.ax[m].boundaries() {
                let edge = pos == t.ax[m].o || pos == t.ax[m].end();
                let e = cut_src[m].entry(pos).or_insert((ti, edge));
                if edge && !e.1 {
                    *e = (ti, true);
                }
            }
        }
    }
    for m in 0..2 {
        cut_src[m].entry(0).or_insert((usize::MAX, true));
    }
    let cuts: [Vec<u64>; 2] = [0, 1].map(|m| cut_src[m].keys().copied().collect());
    view.cuts = cuts.clone();

    // Staggered cuts.
    let mut split_ok: Vec<[bool; 2]> = vec![[false; 2]; tiles.len()];
    for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
        for m in 0..2 {
            let ax = t.ax[m];
            let splittable = t.a.chunks.splittable
                && t.a.codecs.is_empty()
                && row_axis(t.a, k[m])
                && !t.padded(m);
            for &c in cuts[m].iter().filter(|&&c| c > ax.o && c < ax.end()) {
                let local = c - ax.o;
                if local % ax.b == 0 {
                    continue;
                }
                let blk = local / ax.b;
                if !t.kept_along(m, blk) {
                    continue;
                }
                if splittable {
                    split_ok[ti][m] = true;
                    continue;
                }
                ok = false;
                let (who, edge) = cut_src[m].get(&c).copied().unwrap_or((usize::MAX, true));
                let from = match tiles.get(who) {
                    Some(_) if who == ti => "its own".to_string(),
                    Some(w) => format!(
                        "the {} of {}",
                        if edge { "edge" } else { "block boundary" },
                        display_file(w.url)
                    ),
                    None => "the array's start".into(),
                };
                let from = if from == "its own" {
                    "a block boundary of this file".to_string()
                } else {
                    from
                };
                let d = axis_word(dims, m);
                let (bs, be) = (blk * ax.b, ((blk + 1) * ax.b).min(ax.n));
                findings.push(
                    Finding::error(
                        FindingKind::StaggeredCut,
                        format!(
                            "the grid is cut at {d} {c} ({from}), which falls inside block {blk} along {d} ({d} {bs}..{be} of the file), stored as one piece"
                        ),
                    )
                    .file(t.url)
                    .array(path)
                    .at(format!("{d} {c} of the mosaic, {local} in the file, block {blk} along {d}"))
                    .fix("rewrite the file with blocks that end on every cut (see the rewrite suggestion), or crop the tiles so that they line up"),
                );
                view.staggered.push(StaggerView {
                    source: t.src,
                    axis: m,
                    position: c,
                    block: blk,
                });
                bad.insert(ti, TileStatus::Staggered);
            }
        }
    }

    // Padded blocks: only the last chunk of the combined axis, else a byte prefix (rows, raw).
    let mut edges: [Vec<u64>; 2] =
        [0, 1].map(|m| cuts[m].windows(2).map(|w| w[1] - w[0]).collect());
    let mut prefix: Vec<[bool; 2]> = vec![[false; 2]; tiles.len()];
    for m in 0..2 {
        let n = shape[m];
        let Some(&c_last) = cuts[m].iter().rev().nth(1) else {
            continue;
        };
        let at_end: Vec<usize> = (0..tiles.len())
            .filter(|&ti| {
                !tiles[ti].covered
                    && tiles[ti].ax[m].end() == n
                    && tiles[ti].kept_along(m, tiles[ti].ax[m].nblocks().saturating_sub(1))
            })
            .collect();
        let exact_end = at_end.iter().any(|&ti| !tiles[ti].padded(m));
        let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
        for &ti in &at_end {
            let ax = tiles[ti].ax[m];
            if tiles[ti].padded(m) && ax.o + (ax.nblocks() - 1) * ax.b == c_last {
                *counts.entry(ax.b).or_default() += 1;
            }
        }
        let e_last = if exact_end {
            n - c_last
        } else {
            counts
                .iter()
                .max_by_key(|(_, c)| **c)
                .map(|(b, _)| *b)
                .unwrap_or(n - c_last)
        };
        if let Some(l) = edges[m].last_mut() {
            *l = e_last;
        }
        for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
            if !t.padded(m) || !t.kept_along(m, t.ax[m].nblocks() - 1) {
                continue;
            }
            let ax = t.ax[m];
            let start = ax.o + (ax.nblocks() - 1) * ax.b;
            if ax.end() == n && start == c_last && ax.b == e_last {
                bad.entry(ti).or_insert(TileStatus::Padded);
                continue;
            }
            let r = ax.end() - start;
            let full = t.a.block_bytes();
            let rescuable = row_axis(t.a, k[m])
                && t.a.codecs.is_empty()
                && t.a.chunks.entries.iter().all(|e| match &e.data {
                    ChunkData::Ref { length, .. } => *length == full,
                    ChunkData::Inline(d) => d.len() as u64 == full,
                });
            let d = axis_word(dims, m);
            let where_ = format!(
                "{d} {start}..{} of the mosaic, block {} along {d} of the file",
                ax.end(),
                ax.nblocks() - 1
            );
            if rescuable {
                prefix[ti][m] = true;
                bad.entry(ti).or_insert(TileStatus::Padded);
                findings.push(
                    Finding::new(
                        FindingKind::RescuedPrefix,
                        Severity::Info,
                        format!("its last block along {d} holds {r} of {} rows, stored padded but unfiltered: referenced as its first {} bytes", ax.b, r * row_bytes(t.a, k[m])),
                    )
                    .file(t.url)
                    .array(path)
                    .at(where_),
                );
            } else {
                ok = false;
                bad.insert(ti, TileStatus::PaddedInterior);
                let why = if ax.end() == n {
                    format!("it ends the mosaic, but the last chunk along {d} is {e_last} long there (other tiles end it too)")
                } else {
                    format!("the tile ends at {d} {}, inside the mosaic ({n} long), so this chunk would not be last on its axis", ax.end())
                };
                let rows_per_strip = t.ax[0].b;
                findings.push(
                    Finding::error(
                        FindingKind::PaddedInteriorChunk,
                        format!("its last block along {d} holds {r} of {} pixels and is stored padded; {why}, and a padded chunk may only be the last on its axis", ax.b),
                    )
                    .file(t.url)
                    .array(path)
                    .at(where_)
                    .fix(format!("rewrite it as strips, which are not padded (`gdal_translate -co TILED=NO -co BLOCKYSIZE={rows_per_strip} in.tif out.tif`), or with a block that divides its {} {d} pixels, or place it last along {d}", ax.n))
                );
            }
        }
    }

    // Which tile covers each cell (the last one in input order).
    let ncell = [
        cuts[0].len().saturating_sub(1),
        cuts[1].len().saturating_sub(1),
    ];
    let mut owner: Vec<Option<usize>> = vec![None; ncell[0] * ncell[1]];
    let mut cell_of = [BTreeMap::new(), BTreeMap::new()];
    for m in 0..2 {
        for (i, &c) in cuts[m].iter().enumerate() {
            cell_of[m].insert(c, i);
        }
    }
    for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
        let (Some(&y0), Some(&y1), Some(&x0), Some(&x1)) = (
            cell_of[0].get(&t.ax[0].o),
            cell_of[0].get(&t.ax[0].end()),
            cell_of[1].get(&t.ax[1].o),
            cell_of[1].get(&t.ax[1].end()),
        ) else {
            continue;
        };
        for cy in y0..y1 {
            for cx in x0..x1 {
                owner[cy * ncell[1] + cx] = Some(ti);
            }
        }
    }
    // Gaps: runs of uncovered cells per row, merged down when they match.
    let mut gaps: Vec<Rect> = Vec::new();
    for cy in 0..ncell[0] {
        let mut cx = 0;
        while cx < ncell[1] {
            if owner[cy * ncell[1] + cx].is_some() {
                cx += 1;
                continue;
            }
            let s = cx;
            while cx < ncell[1] && owner[cy * ncell[1] + cx].is_none() {
                cx += 1;
            }
            let r = Rect {
                r0: cuts[0][cy],
                r1: cuts[0][cy + 1],
                c0: cuts[1][s],
                c1: cuts[1][cx],
            };
            if let Some(g) = gaps
                .iter_mut()
                .find(|g| g.r1 == r.r0 && g.c0 == r.c0 && g.c1 == r.c1)
            {
                g.r1 = r.r1;
            } else {
                gaps.push(r);
            }
        }
    }
    let fill = fill_words(a0);
    for g in &gaps {
        findings.push(
            Finding::new(
                FindingKind::Gap,
                Severity::Warning,
                format!(
                    "no tile covers {}: missing chunks, read as the fill value {fill}",
                    g.describe(dims)
                ),
            )
            .array(path),
        );
    }
    view.gaps = gaps;

    // The tiles' statuses for the picture.
    for (ti, t) in tiles.iter().enumerate() {
        let mut dropped: Vec<[u64; 2]> = t.dropped.iter().copied().collect();
        dropped.sort();
        view.tiles.push(TileView {
            source: t.src,
            file: display_file(t.url),
            offset: Some([t.ax[0].o, t.ax[1].o]),
            shape: [t.ax[0].n, t.ax[1].n],
            block: [t.ax[0].b, t.ax[1].b],
            status: bad.get(&ti).copied().unwrap_or(TileStatus::Fits),
            dropped,
        });
    }
    if !ok {
        suggest_rewrite(path, dims, &tiles, &view, findings);
        return (None, view);
    }

    // The chunks: each kept block of each tile, at the cells it owns.
    let mut p = base_plan(path, a0);
    for m in 0..2 {
        p.shape[k[m]] = shape[m];
    }
    p.files = tiles.iter().filter(|t| !t.covered).count();
    for i in 0..a0.shape.len() {
        if let Some(m) = k.iter().position(|&x| x == i) {
            p.edges.push(AxisEdges::from(if edges[m].is_empty() {
                vec![1]
            } else {
                edges[m].clone()
            }));
            continue;
        }
        p.edges.push(own_axis(a0, i));
    }
    if let Some(t0) = tiles.first() {
        mosaic_attrs(&mut p.attrs, t0, shape);
    }
    for (ti, t) in tiles.iter().enumerate().filter(|(_, t)| !t.covered) {
        let grid = t.a.chunks.grid_shape(&t.a.shape);
        for e in &t.a.chunks.entries {
            if e.index.len() != grid.len() || e.index.iter().zip(&grid).any(|(i, g)| i >= g) {
                continue;
            }
            let bi = [e.index[k[0]], e.index[k[1]]];
            if t.dropped.contains(&bi) {
                continue;
            }
            // The cells this block spans, per axis, as (cell, row range within the block).
            let mut spans: [Vec<(usize, u64, u64)>; 2] = [vec![], vec![]];
            for m in 0..2 {
                let ax = t.ax[m];
                let s = ax.o + bi[m] * ax.b;
                let end = (s + ax.b).min(ax.end());
                let Some(&c0) = cell_of[m].get(&s) else {
                    continue;
                };
                let mut c = c0;
                while c + 1 < cuts[m].len() && cuts[m][c] < end {
                    spans[m].push((c, cuts[m][c] - s, cuts[m][c + 1].min(end) - s));
                    c += 1;
                }
            }
            for &(cy, y0, y1) in &spans[0] {
                for &(cx, _, _) in &spans[1] {
                    if owner[cy * ncell[1] + cx] != Some(ti) {
                        continue;
                    }
                    let mut key = e.index.clone();
                    key[k[0]] = cy as u64;
                    key[k[1]] = cx as u64;
                    // Rows cut out of the block: a split strip or a rescued padded block.
                    let whole = spans[0].len() == 1 && !prefix[ti][0];
                    let data = if whole {
                        e.data.clone()
                    } else {
                        let rb = row_bytes(t.a, k[0]);
                        let (o, l) = (y0 * rb, (y1 - y0) * rb);
                        match &e.data {
                            ChunkData::Ref { offset, length } if o + l <= *length => {
                                ChunkData::Ref {
                                    offset: offset + o,
                                    length: l,
                                }
                            }
                            ChunkData::Inline(d) if (o + l) as usize <= d.len() => {
                                ChunkData::Inline(d[o as usize..(o + l) as usize].to_vec())
                            }
                            _ => {
                                findings.push(
                                    Finding::error(
                                        FindingKind::InvalidGrid,
                                        "a block is shorter than the rows it should hold",
                                    )
                                    .file(t.url)
                                    .array(path)
                                    .at(format!("block {:?}", e.index)),
                                );
                                return (None, view);
                            }
                        }
                    };
                    let _ = split_ok[ti];
                    p.chunks.push(PlannedChunk {
                        key,
                        source: t.src,
                        data,
                    });
                }
            }
        }
    }
    p.chunks.sort_by(|a, b| a.key.cmp(&b.key));
    if !validate(&p, findings) {
        return (None, view);
    }
    (Some(p), view)
}

/// The combined array's georeferencing: the first tile's transform moved to the mosaic origin.
fn mosaic_attrs(attrs: &mut Map<String, Value>, t0: &Tile, shape: [u64; 2]) {
    let Some(t) = transform_of(t0.a) else {
        return;
    };
    let (r, c) = (t0.ax[0].o as f64, t0.ax[1].o as f64);
    let (x0, y0) = (t[2] - c * t[0], t[5] - r * t[4]);
    let num = |v: f64| -> Value {
        if v.fract() == 0.0 && v.abs() < 9e15 {
            json!(v as i64)
        } else {
            json!(v)
        }
    };
    attrs.insert(
        "spatial:transform".into(),
        json!([num(t[0]), num(t[1]), num(x0), num(t[3]), num(t[4]), num(y0)]),
    );
    attrs.insert("spatial:shape".into(), json!(shape));
    if let Some(Value::Array(tp)) = attrs.get_mut("ModelTiepoint") {
        if tp.len() >= 6 {
            tp[0] = json!(0);
            tp[1] = json!(0);
            tp[3] = num(x0);
            tp[4] = num(y0);
        }
    }
    if let Some(Value::Array(mt)) = attrs.get_mut("ModelTransformation") {
        if mt.len() >= 8 {
            mt[3] = num(x0);
            mt[7] = num(y0);
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A small set of files whose rewriting (with a named block size) lets the rest fit. Greedy:
/// start with the tiles that break a rule, give each the largest block that ends on every cut
/// crossing it, and add any tile that the new blocks break, until nothing changes.
fn suggest_rewrite(
    path: &str,
    dims: &[String; 2],
    tiles: &[Tile],
    view: &MosaicView,
    findings: &mut Vec<Finding>,
) {
    let broken = |s: TileStatus| matches!(s, TileStatus::Staggered | TileStatus::PaddedInterior);
    let mut r: BTreeSet<usize> = view
        .tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| broken(t.status))
        .map(|(i, _)| i)
        .collect();
    if r.is_empty() || tiles.iter().any(|t| t.covered) || view.overlaps.iter().any(|o| !o.resolved)
    {
        return;
    }
    let n = [view.shape[0], view.shape[1]];
    let mut blocks: BTreeMap<usize, [u64; 2]> = BTreeMap::new();
    for _ in 0..=tiles.len() + 1 {
        // Cuts: all edges, kept tiles' block boundaries, rewritten tiles' new boundaries.
        let mut cuts: [BTreeSet<u64>; 2] = [BTreeSet::new(), BTreeSet::new()];
        for (i, t) in tiles.iter().enumerate() {
            for m in 0..2 {
                cuts[m].insert(t.ax[m].o);
                cuts[m].insert(t.ax[m].end());
                if !r.contains(&i) {
                    cuts[m].extend(t.ax[m].boundaries());
                } else if let Some(b) = blocks.get(&i) {
                    cuts[m].extend(Ax { b: b[m], ..t.ax[m] }.boundaries());
                }
            }
        }
        let mut changed = false;
        for &i in &r {
            let t = &tiles[i];
            let inside = |m: usize| -> Vec<u64> {
                cuts[m]
                    .iter()
                    .filter(|&&c| c > t.ax[m].o && c < t.ax[m].end())
                    .map(|c| c - t.ax[m].o)
                    .collect()
            };
            let last = [t.ax[0].end() == n[0], t.ax[1].end() == n[1]];
            let ix = inside(1);
            let bx = if ix.is_empty() {
                t.ax[1].n
            } else {
                ix.iter()
                    .fold(if last[1] { 0 } else { t.ax[1].n }, |g, &c| gcd(g, c))
            };
            let iy = inside(0);
            let strips = bx == t.ax[1].n;
            let seed = if strips || last[0] { 0 } else { t.ax[0].n };
            let by = if iy.is_empty() && seed == 0 {
                t.ax[0].n
            } else {
                iy.iter().fold(seed, |g, &c| gcd(g, c))
            };
            let nb = [by.max(1), bx.max(1)];
            if blocks.get(&i) != Some(&nb) {
                blocks.insert(i, nb);
                changed = true;
            }
        }
        // Tiles that the current cuts break join the rewrite set.
        for (i, t) in tiles.iter().enumerate() {
            if r.contains(&i) {
                continue;
            }
            let splittable = t.a.chunks.splittable && t.a.codecs.is_empty();
            let hit = (0..2).any(|m| {
                cuts[m].iter().any(|&c| {
                    c > t.ax[m].o
                        && c < t.ax[m].end()
                        && (c - t.ax[m].o) % t.ax[m].b != 0
                        && !(m == 0 && splittable)
                })
            });
            if hit {
                r.insert(i);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let bytes: u64 = r.iter().map(|&i| tiles[i].a.stored_bytes()).sum();
    let total: u64 = tiles.iter().map(|t| t.a.stored_bytes()).sum();
    let mut cmds = Vec::new();
    let mut names = Vec::new();
    for &i in &r {
        let t = &tiles[i];
        let b = blocks.get(&i).copied().unwrap_or([t.ax[0].n, t.ax[1].n]);
        let f = display_file(t.url);
        names.push(format!(
            "{} ({}×{} blocks)",
            f.rsplit('/').next().unwrap_or(&f),
            b[0],
            b[1]
        ));
        let cmd = if b[1] == t.ax[1].n {
            format!(
                "gdal_translate -co TILED=NO -co BLOCKYSIZE={} {f} {f}.new",
                b[0]
            )
        } else if b[0] % 16 == 0 && b[1] % 16 == 0 {
            format!(
                "gdal_translate -co TILED=YES -co BLOCKXSIZE={} -co BLOCKYSIZE={} {f} {f}.new",
                b[1], b[0]
            )
        } else {
            format!("{f}: {}×{} blocks are not multiples of 16, which TIFF tiles must be: build one file from the mosaic instead (`gdalbuildvrt m.vrt … && gdal_translate m.vrt m.tif`)", b[0], b[1])
        };
        cmds.push(cmd);
    }
    let word = |m: usize| dims[m].as_str();
    findings.push(
        Finding::new(
            FindingKind::RewriteSuggestion,
            Severity::Warning,
            format!(
                "rewriting {} of {} files makes the rest fit: {}; {} of {} bytes of data would be rewritten (a greedy choice: the files that break a rule plus any that their new blocks would break; not proven minimal). Block sizes are {}×{}",
                r.len(),
                tiles.len(),
                names.join(", "),
                bytes,
                total,
                word(0),
                word(1)
            ),
        )
        .array(path)
        .fix(cmds.join("; ")),
    );
}

#[cfg(test)]
mod tests;
