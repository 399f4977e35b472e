//! The plan as one self-contained HTML page (`vzplan plan --html report.html`): inline CSS and
//! SVG, no scripts, no external assets.
//!
//! For a mosaic, each mosaic array is drawn as its tiles over the global grid, coloured by
//! status (fits, padded, staggered, overlapping, gap), with the cuts along each axis, the
//! staggered cuts marked on the tile they break and the blocks dropped by overlap resolution.
//! For a concatenation ([`concat`]), each array is drawn as bands along the concat axis: one band
//! per file with its chunks, the padded, rescued or patched chunks marked on their own; a left-out
//! array is drawn from the files' layouts with its offending chunks marked. Every array's
//! `chunk_grid` is shown as written to `zarr.json`, and the findings are listed beside their
//! array's drawing, grouped as in the text report ([`crate::summary`]).
//!
//! Elements carry `data-*` attributes (`data-tile`, `data-status`, `data-cut`, `data-band`, …)
//! so that tests can check the rendered DOM (`tests/conformance/test_html.py`).

mod concat;

pub use concat::FileAxes;

use crate::report::grid_summary;
use crate::summary;
use crate::zarr::chunk_grid;
use std::fmt::Write as _;
use vzplan_plan::{display_file, ArrayPlan, MosaicView, Plan, Severity, TileStatus};

/// The most marks (chunk rectangles, lines, runs) one drawing gets: each is ~200 bytes, and the
/// counts come from the files, so beyond this the drawing aggregates (runs) or leaves them out.
const MAX_MARKS: u64 = 2048;

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

fn status_name(s: TileStatus) -> &'static str {
    match s {
        TileStatus::Fits => "fits",
        TileStatus::Padded => "padded",
        TileStatus::Staggered => "staggered",
        TileStatus::PaddedInterior => "padded_interior",
        TileStatus::Overlap => "overlap",
        TileStatus::OverlapResolved => "overlap_resolved",
        TileStatus::Unplaced => "unplaced",
    }
}

/// Fill colours per status (also the legend).
const COLOURS: [(&str, &str, &str); 11] = [
    ("fits", "#8fd19e", "fits: one chunk per block"),
    (
        "padded",
        "#f7c873",
        "padded edge tile, last on its axis (or rescued as a byte prefix)",
    ),
    (
        "staggered",
        "#c39bd3",
        "staggered: a global cut falls inside one of its blocks",
    ),
    (
        "padded_interior",
        "#f0a35e",
        "padded block inside the mosaic",
    ),
    (
        "overlap",
        "#e57373",
        "overlapping (cannot be resolved by whole blocks)",
    ),
    (
        "overlap_resolved",
        "#a5c8f0",
        "overlap resolved: the last file wins",
    ),
    ("gap", "#eeeeee", "gap: no tile, read as the fill value"),
    (
        "rescued",
        "#f7e08a",
        "padded last chunk rescued as a byte prefix",
    ),
    ("unplaced", "#bbbbbb", "could not be placed"),
    ("patched", "#8ab6e8", "re-encoded inline (--patch)"),
    ("problem", "#e57373", "left out for another reason"),
];

fn colour(status: &str) -> &'static str {
    COLOURS
        .iter()
        .find(|c| c.0 == status)
        .map_or("#dddddd", |c| c.1)
}

const CSS: &str = "body{font-family:DejaVu Sans,Arial,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
.row{display:flex;gap:2em;align-items:flex-start;flex-wrap:wrap}
.findings{max-width:34em;flex:1 1 24em;font-size:.85em}.findings li{margin:.3em 0}
.sev-error{color:#b00020}.sev-warning{color:#8a6d00}.sev-info{color:#1b5e20}
pre{background:#f6f6f6;padding:.5em;font-size:.8em;max-width:60em;overflow:auto}
.legend span{display:inline-block;width:1em;height:1em;margin:0 .3em 0 1em;vertical-align:middle;border:1px solid #888}
.legend{font-size:.8em;margin:.5em 0}
svg text{font-family:DejaVu Sans,Arial,sans-serif}
.row>div>svg{display:block}";

/// The page, without the files' layouts: a left-out array of a concatenation is listed, not
/// drawn.
pub fn page(plan: &Plan) -> String {
    page_with(plan, &FileAxes::default())
}

/// The page; `axes` (from the layouts before planning) draws left-out arrays along the axis.
pub fn page_with(plan: &Plan, axes: &FileAxes) -> String {
    let mut s = String::new();
    let title = if plan.mosaic_dims.is_some() {
        format!("vzplan: mosaic of {} file(s)", plan.inputs().len())
    } else if let Some(d) = &plan.stack_dim {
        format!(
            "vzplan: {} file(s) stacked along '{d}'",
            plan.inputs().len()
        )
    } else if let Some(d) = plan.concat_dim.as_ref().filter(|_| plan.inputs().len() > 1) {
        format!(
            "vzplan: {} file(s) concatenated along '{d}'",
            plan.inputs().len()
        )
    } else {
        format!("vzplan: {} file(s)", plan.inputs().len())
    };
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{CSS}</style></head>\n<body data-kind=\"{}\">\n<h1>{}</h1>\n<p>{} array(s) planned, {} left out{}.</p>\n",
        esc(&title),
        if plan.mosaic_dims.is_some() { "mosaic" } else { "concat" },
        esc(&title),
        plan.arrays.len(),
        plan.left_out.len(),
        if plan.left_out.is_empty() {
            String::new()
        } else {
            format!(" ({})", esc(&plan.left_out.join(", ")))
        }
    );
    let groups = summary::groups(plan);
    let c = summary::counts(plan, &groups);
    let _ = writeln!(
        s,
        "<p data-summary=\"{} {} {} {} {}\">{} of {} file(s) fit as they are; {} need a rewrite ({} of files); {} cannot be read; {} have other findings.</p>",
        c.files, c.fit, c.rewrite, c.unreadable, c.other,
        c.fit, c.files, c.rewrite, summary::human_bytes(c.rewrite_bytes), c.unreadable, c.other
    );
    let axis = plan.concat_dim.as_ref().or(plan.stack_dim.as_ref());
    match (plan.mosaic_dims.is_some(), axis) {
        (false, Some(d)) => concat::legend(&mut s, d),
        _ => legend(&mut s, plan.mosaic_dims.is_some()),
    }
    for v in &plan.mosaics {
        let _ = write!(
            s,
            "<h2>{} ({}) — {}</h2>\n<div class=\"row\">",
            esc(&v.array),
            if v.planned { "planned" } else { "left out" },
            esc(&format!("{} × {}", v.shape[0], v.shape[1]))
        );
        mosaic_svg(&mut s, plan, v);
        findings(&mut s, plan, &groups, Some(&v.array));
        s.push_str("</div>\n");
        if let Some(a) = plan.arrays.iter().find(|a| a.path == v.array) {
            grid_block(&mut s, a);
        }
    }
    let drawn: Vec<&str> = plan.mosaics.iter().map(|v| v.array.as_str()).collect();
    concat_arrays(&mut s, plan, axes, &groups, &drawn);
    if plan.findings.iter().any(|f| f.array.is_none()) {
        s.push_str("<h2>Files</h2>\n");
        findings(&mut s, plan, &groups, None);
    }
    s.push_str("</body></html>\n");
    s
}

/// The arrays of a concatenation (or of a mosaic's arrays that are not drawn as a mosaic): data
/// arrays as bands, left-out arrays drawn from the layouts, inline coordinates as one table.
fn concat_arrays(
    s: &mut String,
    plan: &Plan,
    axes: &FileAxes,
    groups: &[summary::Group],
    drawn: &[&str],
) {
    let axis = plan.concat_dim.as_ref().or(plan.stack_dim.as_ref());
    let rest: Vec<&ArrayPlan> = plan
        .arrays
        .iter()
        .filter(|a| !drawn.contains(&a.path.as_str()))
        .collect();
    // Inline coordinates without findings are a table row each, not a page-wide bar.
    let quiet = |a: &&ArrayPlan| {
        a.values.is_some()
            && !plan
                .findings
                .iter()
                .any(|f| f.array.as_deref() == Some(&a.path))
    };
    for a in rest.iter().filter(|a| !quiet(a)) {
        let _ = write!(s, "<h2>{}</h2>\n<div class=\"row\">", esc(&a.path));
        s.push_str("<div>");
        if let Some(k) = axis
            .and_then(|d| a.dims.iter().position(|x| x == d))
            .filter(|_| a.values.is_none())
        {
            concat::bands_svg(s, plan, a, k);
        }
        // Axes of one chunk are a line of text, not a bar across the page.
        let mut whole = Vec::new();
        for (i, d) in a.dims.iter().enumerate() {
            match a.edges.get(i) {
                Some(e) if e.count() == 1 => whole.push(format!("{d} ({})", a.shape[i])),
                _ => concat::axis_svg(s, a, i),
            }
        }
        if !whole.is_empty() {
            let _ = write!(
                s,
                "<div data-kind=\"one-chunk-axes\" style=\"font-size:.8em\">one chunk along {}</div>",
                esc(&whole.join(", "))
            );
        }
        s.push_str("</div>");
        findings(s, plan, groups, Some(&a.path));
        s.push_str("</div>\n");
        grid_block(s, a);
    }
    for l in plan
        .left_out
        .iter()
        .filter(|l| !drawn.contains(&l.as_str()))
    {
        let _ = write!(s, "<h2>{} (left out)</h2>\n<div class=\"row\">", esc(l));
        let dim = axis.map_or("", String::as_str);
        if !(plan.mosaic_dims.is_none()
            && plan.stack_dim.is_none()
            && concat::left_out_svg(s, plan, axes, l, dim))
        {
            concat::files_table(s, plan, l, dim);
        }
        findings(s, plan, groups, Some(l));
        s.push_str("</div>\n");
    }
    let coords: Vec<&ArrayPlan> = rest.iter().copied().filter(quiet).collect();
    concat::coordinates_table(s, &coords);
}

fn legend(s: &mut String, mosaic: bool) {
    s.push_str("<div class=\"legend\">");
    for (name, c, what) in COLOURS {
        let show = if mosaic {
            !matches!(name, "rescued" | "patched" | "problem")
        } else {
            matches!(name, "fits" | "rescued" | "padded_interior")
        };
        if show {
            let _ = write!(
                s,
                "<span style=\"background:{c}\" data-legend=\"{name}\"></span>{}",
                esc(what)
            );
        }
    }
    s.push_str("</div>\n");
}

/// The findings about `array` (or about no array), grouped as in the text report: one entry
/// for many files with the same problem and fix, with the file list and one shell loop.
fn findings(s: &mut String, plan: &Plan, groups: &[summary::Group], array: Option<&str>) {
    let list: Vec<_> = groups
        .iter()
        .filter(|g| g.first.array.as_deref() == array)
        .collect();
    if list.is_empty() {
        return;
    }
    let known = summary::known_files(plan);
    let _ = write!(
        s,
        "<ul class=\"findings\" data-array=\"{}\">",
        esc(array.unwrap_or(""))
    );
    for g in list {
        let f = g.first;
        let sev = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        let kind = serde_json::to_value(f.kind)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        let _ = write!(
            s,
            "<li class=\"sev-{sev}\" data-finding=\"{}\" data-severity=\"{sev}\" data-file=\"{}\" data-files=\"{}\">",
            esc(&kind),
            esc(&f.file.as_deref().map(display_file).unwrap_or_default()),
            g.files.len().max(1)
        );
        if g.files.len() < 2 {
            let _ = write!(s, "[{sev}] {}</li>", esc(&f.to_string()));
            continue;
        }
        let _ = write!(
            s,
            "[{sev}] {} files: {}<details><summary>the files</summary>{}</details>",
            g.files.len(),
            esc(&g.what()),
            esc(&g.files.join(", "))
        );
        if let Some(fix) = g.fix_for_each() {
            let _ = write!(s, "<div>{}: {}</div>", g.fix_label(), esc(&fix));
        }
        if let Some(l) = g.shell_loop(&known) {
            let _ = write!(
                s,
                "<div>all at once: <code data-loop>{}</code></div>",
                esc(&l)
            );
        }
        s.push_str("</li>");
    }
    s.push_str("</ul>");
}

fn grid_block(s: &mut String, a: &ArrayPlan) {
    let grid = serde_json::to_string(&chunk_grid(a)).unwrap_or_default();
    let _ = writeln!(
        s,
        "<p>chunk grid of <b>{}</b> ({}), shape {:?}: {}</p><pre data-chunk-grid=\"{}\">{}</pre>",
        esc(&a.path),
        esc(&a.dims.join(", ")),
        a.shape,
        esc(&grid_summary(a)),
        esc(&a.path),
        esc(&grid)
    );
}

fn short(file: &str) -> String {
    file.rsplit('/').next().unwrap_or(file).to_string()
}

/// The mosaic: tiles over the grid, cuts, gaps, overlaps, staggered cuts.
fn mosaic_svg(s: &mut String, plan: &Plan, v: &MosaicView) {
    let (h, w) = (v.shape[0].max(1) as f64, v.shape[1].max(1) as f64);
    let scale = 560.0 / h.max(w);
    let (pw, ph) = (w * scale, h * scale);
    let (ml, mt) = (50.0, 30.0);
    let unplaced: Vec<_> = v.tiles.iter().filter(|t| t.offset.is_none()).collect();
    let extra = if unplaced.is_empty() {
        0.0
    } else {
        20.0 + 16.0 * unplaced.len() as f64
    };
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" data-kind=\"mosaic\" data-array=\"{}\" data-shape=\"{} {}\" width=\"{:.0}\" height=\"{:.0}\" viewBox=\"0 0 {:.0} {:.0}\">",
        esc(&v.array),
        v.shape[0],
        v.shape[1],
        pw + ml + 20.0,
        ph + mt + 30.0 + extra,
        pw + ml + 20.0,
        ph + mt + 30.0 + extra
    );
    let f = Frame { ml, mt, scale };
    let x = |c: u64| f.x(c);
    let y = |r: u64| f.y(r);
    let _ = write!(
        s,
        "<rect x=\"{ml}\" y=\"{mt}\" width=\"{pw:.2}\" height=\"{ph:.2}\" fill=\"#fafafa\" stroke=\"#999\"/>"
    );
    for g in &v.gaps {
        let _ = write!(
            s,
            "<rect data-gap=\"1\" data-status=\"gap\" x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"{}\" stroke=\"#bbb\" stroke-dasharray=\"4 3\"><title>gap: {} {}..{}, {} {}..{}</title></rect>",
            x(g.c0), y(g.r0), (g.c1 - g.c0) as f64 * scale, (g.r1 - g.r0) as f64 * scale, colour("gap"),
            esc(&v.dims[0]), g.r0, g.r1, esc(&v.dims[1]), g.c0, g.c1
        );
    }
    mosaic_tiles(s, plan, v, &f);
    mosaic_overlaps(s, v, &f);
    mosaic_cuts(s, v, &f, pw, ph);
    mosaic_staggered(s, v, &f);
    let _ = write!(
        s,
        "<text x=\"{:.2}\" y=\"{:.2}\" font-size=\"11\">{} →</text><text x=\"12\" y=\"{:.2}\" font-size=\"11\" transform=\"rotate(-90 12 {:.2})\">← {}</text>",
        ml, mt + ph + 16.0, esc(&v.dims[1]), mt + ph / 2.0, mt + ph / 2.0, esc(&v.dims[0])
    );
    for (i, t) in unplaced.iter().enumerate() {
        let yy = mt + ph + 36.0 + 16.0 * i as f64;
        let _ = write!(
            s,
            "<g data-tile=\"{}\" data-file=\"{}\" data-status=\"unplaced\"><rect x=\"{ml}\" y=\"{:.2}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"#333\"/><text x=\"{:.2}\" y=\"{:.2}\" font-size=\"11\">{} (not placed)</text></g>",
            t.source, esc(&t.file), yy - 10.0, colour("unplaced"), ml + 18.0, yy, esc(&short(&t.file))
        );
    }
    s.push_str("</svg>");
}

/// Where array coordinates land in the mosaic SVG: margins and pixels per element.
#[derive(Clone, Copy)]
struct Frame {
    ml: f64,
    mt: f64,
    scale: f64,
}

impl Frame {
    fn x(&self, c: u64) -> f64 {
        self.ml + c as f64 * self.scale
    }
    fn y(&self, r: u64) -> f64 {
        self.mt + r as f64 * self.scale
    }
}

/// Placed tiles with their internal block lines, dropped blocks and file name.
fn mosaic_tiles(s: &mut String, plan: &Plan, v: &MosaicView, f: &Frame) {
    let scale = f.scale;
    let x = |c: u64| f.x(c);
    let y = |r: u64| f.y(r);
    let budget = &mut MAX_MARKS.clone();
    for t in &v.tiles {
        let Some(o) = t.offset else { continue };
        let st = status_name(t.status);
        let _ = write!(
            s,
            "<g data-tile=\"{}\" data-file=\"{}\" data-status=\"{st}\"><rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"{}\" fill-opacity=\"0.85\" stroke=\"#333\" stroke-width=\"1.5\"><title>{}: {} at ({}, {}), {}×{} in {}×{} blocks — {st}</title></rect>",
            t.source,
            esc(&t.file),
            x(o[1]), y(o[0]), t.shape[1] as f64 * scale, t.shape[0] as f64 * scale,
            colour(st), esc(&t.file), esc(&plan.mosaic_dims.as_ref().map(|d| d.join("/")).unwrap_or_default()),
            o[0], o[1], t.shape[0], t.shape[1], t.block[0], t.block[1]
        );
        // Internal block boundaries, thin; a tile with too many to draw is left plain (the
        // counts come from the files: the page stays small for any input).
        for m in 0..2 {
            let (b, n) = (t.block[m], t.shape[m]);
            if b == 0 || b >= n || n.div_ceil(b) > *budget {
                continue;
            }
            *budget -= n.div_ceil(b);
            let mut p = b;
            while p < n {
                if m == 0 {
                    let _ = write!(s, "<line data-block-line=\"0\" x1=\"{:.2}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\" stroke=\"#555\" stroke-width=\"0.5\" stroke-opacity=\"0.6\"/>", x(o[1]), y(o[0] + p), x(o[1] + t.shape[1]), y(o[0] + p));
                } else {
                    let _ = write!(s, "<line data-block-line=\"1\" x1=\"{:.2}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\" stroke=\"#555\" stroke-width=\"0.5\" stroke-opacity=\"0.6\"/>", x(o[1] + p), y(o[0]), x(o[1] + p), y(o[0] + t.shape[0]));
                }
                p += b;
            }
        }
        for d in t.dropped.iter().take(MAX_MARKS as usize) {
            let (r0, c0) = (o[0] + d[0] * t.block[0], o[1] + d[1] * t.block[1]);
            let (r1, c1) = (
                (r0 + t.block[0]).min(o[0] + t.shape[0]),
                (c0 + t.block[1]).min(o[1] + t.shape[1]),
            );
            let _ = write!(
                s,
                "<rect data-dropped=\"{} {}\" x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"none\" stroke=\"#1565c0\" stroke-dasharray=\"2 2\"/>",
                d[0], d[1], x(c0), y(r0), (c1 - c0) as f64 * scale, (r1 - r0) as f64 * scale
            );
        }
        let _ = write!(
            s,
            "<text x=\"{:.2}\" y=\"{:.2}\" font-size=\"11\">{}</text></g>",
            x(o[1]) + 3.0,
            y(o[0]) + 13.0,
            esc(&short(&t.file))
        );
    }
}

/// Overlaps, drawn over the tiles.
fn mosaic_overlaps(s: &mut String, v: &MosaicView, f: &Frame) {
    let scale = f.scale;
    let x = |c: u64| f.x(c);
    let y = |r: u64| f.y(r);
    // Overlaps drawn over the tiles (the later one drawn last wins the picture too).
    for ov in &v.overlaps {
        let r = ov.rect;
        let st = if ov.resolved {
            "overlap_resolved"
        } else {
            "overlap"
        };
        let _ = write!(
            s,
            "<rect data-overlap=\"{} {}\" data-status=\"{st}\" x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"#b71c1c\" stroke-width=\"2\"><title>overlap of {} pixels — {st}</title></rect>",
            ov.earlier, ov.later, x(r.c0), y(r.r0), (r.c1 - r.c0) as f64 * scale, (r.r1 - r.r0) as f64 * scale,
            if ov.resolved { colour("overlap_resolved") } else { colour("overlap") },
            if ov.resolved { "0.35" } else { "0.7" },
            (r.r1 - r.r0) * (r.c1 - r.c0)
        );
    }
}

/// Global cuts: dashed lines across the whole array, with positions on the axes.
fn mosaic_cuts(s: &mut String, v: &MosaicView, f: &Frame, pw: f64, ph: f64) {
    let (ml, mt) = (f.ml, f.mt);
    let x = |c: u64| f.x(c);
    let y = |r: u64| f.y(r);
    let label_every = |n: usize| n.div_ceil(24).max(1);
    let marks = |n: usize| if n as u64 > MAX_MARKS { 0 } else { n };
    for (i, &c) in v.cuts[0].iter().enumerate().take(marks(v.cuts[0].len())) {
        let _ = write!(s, "<line data-cut=\"0\" data-pos=\"{c}\" x1=\"{:.2}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\" stroke=\"#0d47a1\" stroke-width=\"0.8\" stroke-dasharray=\"5 3\"/>", ml - 6.0, y(c), ml + pw, y(c));
        if i % label_every(v.cuts[0].len()) == 0 || i + 1 == v.cuts[0].len() {
            let _ = write!(
                s,
                "<text x=\"{:.2}\" y=\"{:.2}\" font-size=\"9\" text-anchor=\"end\">{c}</text>",
                ml - 8.0,
                y(c) + 3.0
            );
        }
    }
    for (i, &c) in v.cuts[1].iter().enumerate().take(marks(v.cuts[1].len())) {
        let _ = write!(s, "<line data-cut=\"1\" data-pos=\"{c}\" x1=\"{:.2}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\" stroke=\"#0d47a1\" stroke-width=\"0.8\" stroke-dasharray=\"5 3\"/>", x(c), mt - 6.0, x(c), mt + ph);
        if i % label_every(v.cuts[1].len()) == 0 || i + 1 == v.cuts[1].len() {
            let _ = write!(
                s,
                "<text x=\"{:.2}\" y=\"{:.2}\" font-size=\"9\" text-anchor=\"middle\">{c}</text>",
                x(c),
                mt - 9.0
            );
        }
    }
}

/// Staggered cuts: a thick red segment across the tile they break.
fn mosaic_staggered(s: &mut String, v: &MosaicView, f: &Frame) {
    let x = |c: u64| f.x(c);
    let y = |r: u64| f.y(r);
    for st in v.staggered.iter().take(MAX_MARKS as usize) {
        let Some(t) = v.tiles.iter().find(|t| t.source == st.source) else {
            continue;
        };
        let Some(o) = t.offset else { continue };
        let (x1, y1, x2, y2) = if st.axis == 0 {
            (
                x(o[1]),
                y(st.position),
                x(o[1] + t.shape[1]),
                y(st.position),
            )
        } else {
            (
                x(st.position),
                y(o[0]),
                x(st.position),
                y(o[0] + t.shape[0]),
            )
        };
        let _ = write!(
            s,
            "<line data-staggered=\"{}\" data-axis=\"{}\" data-pos=\"{}\" data-file=\"{}\" x1=\"{x1:.2}\" y1=\"{y1:.2}\" x2=\"{x2:.2}\" y2=\"{y2:.2}\" stroke=\"#c62828\" stroke-width=\"3\"><title>staggered cut at {} {} through block {} of {}</title></line>",
            st.source, st.axis, st.position, esc(&t.file),
            esc(&v.dims[st.axis]), st.position, st.block, esc(&t.file)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn empty_plan_is_a_page() {
        let p = Plan::default();
        let h = page(&p);
        assert!(h.starts_with("<!DOCTYPE html>"));
        assert!(h.ends_with("</html>\n"));
        assert!(
            !h.contains("http://")
                || h.contains("xmlns=\"http://www.w3.org/2000/svg\"")
                || !h.contains("src=")
        );
    }
}
