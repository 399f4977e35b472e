//! The plan as one self-contained HTML page (`vzplan plan --html report.html`): inline CSS and
//! SVG, no scripts, no external assets.
//!
//! For a mosaic, each mosaic array is drawn as its tiles over the global grid, coloured by
//! status (fits, padded, staggered, overlapping, gap), with the cuts along each axis, the
//! staggered cuts marked on the tile they break and the blocks dropped by overlap resolution.
//! For a concatenation, each array is drawn as bands along the concat axis: one band per file
//! with its chunks, padded and rescued files marked. Every array's `chunk_grid` is shown as
//! written to `zarr.json`, and the findings are listed beside the drawing.
//!
//! Elements carry `data-*` attributes (`data-tile`, `data-status`, `data-cut`, `data-band`, …)
//! so that tests can check the rendered DOM (`scripts/html_check.py`).

use crate::report::grid_summary;
use crate::zarr::chunk_grid;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use vzplan_plan::{display_file, ArrayPlan, FindingKind, MosaicView, Plan, Severity, TileStatus};

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
const COLOURS: [(&str, &str, &str); 9] = [
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
.findings{max-width:48em;font-size:.85em}.findings li{margin:.3em 0}
.sev-error{color:#b00020}.sev-warning{color:#8a6d00}.sev-info{color:#1b5e20}
pre{background:#f6f6f6;padding:.5em;font-size:.8em;max-width:60em;overflow:auto}
.legend span{display:inline-block;width:1em;height:1em;margin:0 .3em 0 1em;vertical-align:middle;border:1px solid #888}
.legend{font-size:.8em;margin:.5em 0}
svg text{font-family:DejaVu Sans,Arial,sans-serif}";

/// The page.
pub fn page(plan: &Plan) -> String {
    let mut s = String::new();
    let title = if plan.mosaic_dims.is_some() {
        format!("vzplan: mosaic of {} file(s)", plan.sources.len())
    } else if let Some(d) = &plan.stack_dim {
        format!("vzplan: {} file(s) stacked along '{d}'", plan.sources.len())
    } else if let Some(d) = plan.concat_dim.as_ref().filter(|_| plan.sources.len() > 1) {
        format!(
            "vzplan: {} file(s) concatenated along '{d}'",
            plan.sources.len()
        )
    } else {
        format!("vzplan: {} file(s)", plan.sources.len())
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
    legend(&mut s, plan.mosaic_dims.is_some());
    for v in &plan.mosaics {
        let _ = write!(
            s,
            "<h2>{} ({}) — {}</h2>\n<div class=\"row\">",
            esc(&v.array),
            if v.planned { "planned" } else { "left out" },
            esc(&format!("{} × {}", v.shape[0], v.shape[1]))
        );
        mosaic_svg(&mut s, plan, v);
        findings(&mut s, plan, Some(&v.array));
        s.push_str("</div>\n");
        if let Some(a) = plan.arrays.iter().find(|a| a.path == v.array) {
            grid_block(&mut s, a);
        }
    }
    let drawn: Vec<&str> = plan.mosaics.iter().map(|v| v.array.as_str()).collect();
    for a in plan
        .arrays
        .iter()
        .filter(|a| !drawn.contains(&a.path.as_str()))
    {
        let _ = write!(s, "<h2>{}</h2>\n<div class=\"row\">", esc(&a.path));
        s.push_str("<div>");
        if let Some(k) = plan
            .concat_dim
            .as_ref()
            .or(plan.stack_dim.as_ref())
            .and_then(|d| a.dims.iter().position(|x| x == d))
            .filter(|_| a.values.is_none())
        {
            bands_svg(&mut s, plan, a, k);
        }
        for (i, _) in a.dims.iter().enumerate() {
            axis_svg(&mut s, a, i);
        }
        s.push_str("</div>");
        findings(&mut s, plan, Some(&a.path));
        s.push_str("</div>\n");
        grid_block(&mut s, a);
    }
    // Left-out arrays without a drawing, and findings about no array.
    for l in plan
        .left_out
        .iter()
        .filter(|l| !drawn.contains(&l.as_str()))
    {
        let _ = write!(s, "<h2>{} (left out)</h2>\n<div class=\"row\">", esc(l));
        files_table(&mut s, plan, l);
        findings(&mut s, plan, Some(l));
        s.push_str("</div>\n");
    }
    if plan.findings.iter().any(|f| f.array.is_none()) {
        s.push_str("<h2>Files</h2>\n");
        findings(&mut s, plan, None);
    }
    s.push_str("</body></html>\n");
    s
}

fn legend(s: &mut String, mosaic: bool) {
    s.push_str("<div class=\"legend\">");
    for (name, c, what) in COLOURS {
        let show = if mosaic {
            name != "rescued"
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

fn findings(s: &mut String, plan: &Plan, array: Option<&str>) {
    let list: Vec<_> = plan
        .findings
        .iter()
        .filter(|f| f.array.as_deref() == array)
        .collect();
    if list.is_empty() {
        return;
    }
    s.push_str("<ul class=\"findings\">");
    for f in list {
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
            "<li class=\"sev-{sev}\" data-finding=\"{}\" data-severity=\"{sev}\" data-file=\"{}\">[{sev}] {}</li>",
            esc(&kind),
            esc(&f.file.as_deref().map(display_file).unwrap_or_default()),
            esc(&f.to_string())
        );
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
    let x = |c: u64| ml + c as f64 * scale;
    let y = |r: u64| mt + r as f64 * scale;
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
    // Global cuts: dashed lines across the whole array, with positions on the axes.
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
    // Staggered cuts: a thick red segment across the tile they break.
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

/// Per-file status of a concatenated array, from the findings.
fn file_status(plan: &Plan, array: &str, file: &str) -> &'static str {
    let mut st = "fits";
    for f in plan
        .findings
        .iter()
        .filter(|f| f.array.as_deref() == Some(array) && f.file.as_deref() == Some(file))
    {
        match f.kind {
            FindingKind::PaddedInteriorChunk => return "padded_interior",
            FindingKind::RescuedPrefix => st = "rescued",
            _ => {}
        }
    }
    st
}

/// Bands along the concat (or stack) axis: one per file, with its chunks.
fn bands_svg(s: &mut String, plan: &Plan, a: &ArrayPlan, k: usize) {
    let Some(e) = a.edges.get(k) else { return };
    let n = a.shape[k].max(1) as f64;
    let width = 760.0;
    let scale = width / n;
    // Source of each chunk index along k.
    let mut src: BTreeMap<u64, usize> = BTreeMap::new();
    for c in &a.chunks {
        if let Some(&i) = c.key.get(k) {
            src.entry(i).or_insert(c.source);
        }
    }
    // Runs of chunks per file.
    let mut runs: Vec<(usize, u64, u64)> = Vec::new();
    for (&i, &f) in &src {
        match runs.last_mut() {
            Some(r) if r.0 == f && r.2 == i => r.2 = i + 1,
            _ => runs.push((f, i, i + 1)),
        }
    }
    let dim = &a.dims[k];
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" data-kind=\"bands\" data-array=\"{}\" data-dim=\"{}\" width=\"{:.0}\" height=\"96\" viewBox=\"0 0 {:.0} 96\">",
        esc(&a.path), esc(dim), width + 20.0, width + 20.0
    );
    let pos = |i: u64| -> f64 {
        let p = e.start_of(i).unwrap_or(a.shape[k]);
        10.0 + p.min(a.shape[k]) as f64 * scale
    };
    // Chunk edges are drawn only when there are few enough to see (and to keep the page small).
    let edges_drawn = e.count() <= MAX_MARKS;
    for (f, i0, i1) in runs.iter().take(MAX_MARKS as usize) {
        let url = plan.sources.get(*f).map(|s| s.url.as_str()).unwrap_or("");
        let st = file_status(plan, &a.path, url);
        let (x0, x1) = (pos(*i0), pos(*i1));
        let _ = write!(
            s,
            "<g data-band=\"{f}\" data-file=\"{}\" data-status=\"{st}\" data-chunks=\"{}\"><rect x=\"{x0:.2}\" y=\"20\" width=\"{:.2}\" height=\"40\" fill=\"{}\" stroke=\"#333\"><title>{}: chunks {}..{} along {}</title></rect>",
            esc(&display_file(url)), i1 - i0, (x1 - x0).max(0.5), colour(st), esc(&display_file(url)), i0, i1, esc(dim)
        );
        for i in (*i0 + 1..*i1).filter(|_| edges_drawn) {
            let _ = write!(s, "<line data-chunk-edge=\"{i}\" x1=\"{:.2}\" y1=\"20\" x2=\"{:.2}\" y2=\"60\" stroke=\"#555\" stroke-width=\"0.6\"/>", pos(i), pos(i));
        }
        if x1 - x0 > 40.0 {
            let _ = write!(
                s,
                "<text x=\"{:.2}\" y=\"75\" font-size=\"10\">{}</text>",
                x0 + 2.0,
                esc(&short(url))
            );
        }
        s.push_str("</g>");
    }
    let _ = write!(s, "<text x=\"10\" y=\"12\" font-size=\"11\">{} — {} chunk(s) from {} file(s) along {}</text><text x=\"10\" y=\"90\" font-size=\"10\">0</text><text x=\"{:.2}\" y=\"90\" font-size=\"10\" text-anchor=\"end\">{}</text></svg>", esc(&a.path), e.count(), runs.len(), esc(dim), width + 10.0, a.shape[k]);
}

/// The cuts along one axis of an array.
fn axis_svg(s: &mut String, a: &ArrayPlan, i: usize) {
    let Some(e) = a.edges.get(i) else { return };
    let n = a.shape[i].max(1) as f64;
    let total = (e.sum() as f64).max(n);
    let width = 760.0;
    let scale = width / total;
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" data-kind=\"axis\" data-array=\"{}\" data-dim=\"{}\" data-chunks=\"{}\" width=\"{:.0}\" height=\"40\" viewBox=\"0 0 {:.0} 40\"><text x=\"10\" y=\"11\" font-size=\"10\">{}: {} chunk(s), length {}</text>",
        esc(&a.path), esc(&a.dims[i]), e.count(), width + 20.0, width + 20.0, esc(&a.dims[i]), e.count(), a.shape[i]
    );
    let _ = write!(
        s,
        "<rect x=\"10\" y=\"16\" width=\"{:.2}\" height=\"14\" fill=\"#e3f2fd\" stroke=\"#333\"/>",
        n * scale
    );
    if e.count() <= MAX_MARKS {
        let mut p = 0u64;
        for (j, len) in e.to_vec().into_iter().enumerate() {
            let x = 10.0 + p as f64 * scale;
            let over = p + len > a.shape[i];
            let _ = write!(
                s,
                "<rect data-axis-chunk=\"{j}\" x=\"{x:.2}\" y=\"16\" width=\"{:.2}\" height=\"14\" fill=\"{}\" fill-opacity=\"0.5\" stroke=\"#1565c0\" stroke-width=\"0.7\"><title>chunk {j}: {p}..{}{}</title></rect>",
                len as f64 * scale,
                if over { "#ffe0b2" } else { "#bbdefb" },
                p + len,
                if over { " (overhangs the end)" } else { "" }
            );
            p += len;
        }
    } else {
        axis_runs_svg(s, e, a.shape[i], scale);
    }
    s.push_str("</svg>");
}

/// Too many chunks to draw one by one: one rectangle per run of equal chunks (at most
/// [`MAX_MARKS`] runs; the rest are summed up in one more).
fn axis_runs_svg(s: &mut String, e: &vzplan_core::AxisEdges, len: u64, scale: f64) {
    let (mut p, mut j) = (0u64, 0u64);
    let runs = e.runs();
    for (r, &(l, c)) in runs.iter().enumerate() {
        let end = p.saturating_add(l.saturating_mul(c));
        let x = 10.0 + p as f64 * scale;
        if r as u64 == MAX_MARKS {
            let _ = write!(
                s,
                "<rect data-axis-rest=\"{j}\" x=\"{x:.2}\" y=\"16\" width=\"{:.2}\" height=\"14\" fill=\"#bbdefb\" stroke=\"#1565c0\" stroke-width=\"0.7\"><title>chunks {j}..{}: {} more runs</title></rect>",
                len.saturating_sub(p) as f64 * scale,
                e.count(),
                runs.len() - r
            );
            return;
        }
        let _ = write!(
            s,
            "<rect data-axis-run=\"{j}\" data-count=\"{c}\" x=\"{x:.2}\" y=\"16\" width=\"{:.2}\" height=\"14\" fill=\"{}\" fill-opacity=\"0.5\" stroke=\"#1565c0\" stroke-width=\"0.7\"><title>chunks {j}..{}: {c} of length {l}, {p}..{end}</title></rect>",
            end.min(len).saturating_sub(p) as f64 * scale,
            if end > len { "#ffe0b2" } else { "#bbdefb" },
            j.saturating_add(c),
        );
        p = end;
        j = j.saturating_add(c);
    }
}

/// Files of a left-out array with their status, from the findings.
fn files_table(s: &mut String, plan: &Plan, array: &str) {
    s.push_str("<table data-kind=\"files\" style=\"font-size:.85em\">");
    for src in &plan.sources {
        let st = file_status(plan, array, &src.url);
        let bad = plan.findings.iter().any(|f| {
            f.array.as_deref() == Some(array)
                && f.file.as_deref() == Some(src.url.as_str())
                && f.severity == Severity::Error
        });
        let st = if bad && st == "fits" { "overlap" } else { st };
        let _ = write!(
            s,
            "<tr data-band-file=\"{}\" data-status=\"{st}\"><td style=\"background:{};width:1em\"></td><td>{}</td><td>{st}</td></tr>",
            esc(&display_file(&src.url)),
            colour(st),
            esc(&display_file(&src.url))
        );
    }
    s.push_str("</table>");
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
