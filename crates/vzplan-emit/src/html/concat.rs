//! The HTML page of a concatenation: each array as bands along the concat axis, one per file,
//! with the chunks that matter marked on their own (a padded chunk that would sit inside the
//! axis, a padded last chunk rescued as a byte prefix or re-encoded inline); a left-out array is
//! drawn the same way from the files' layouts ([`FileAxes`]); coordinates written inline are one
//! compact table, not a bar each.
//!
//! ```html
//! <g data-band="0" data-file="data/tas_1.nc" data-status="padded_interior">
//!   <rect data-chunk="3" data-chunk-mark="padded_interior" …/>
//! </g>
//! ```

use super::{colour, esc, short, MAX_MARKS};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use vzplan_core::SourceLayout;
use vzplan_plan::{display_file, ArrayPlan, FindingKind, Plan, Severity};

/// What the page needs of the files' layouts to draw an array the plan left out: each file's
/// arrays with their dimensions, shape and block shape (a few numbers per array; no chunks).
#[derive(Clone, Debug, Default)]
pub struct FileAxes {
    /// By file URL (as in the plan's sources).
    files: BTreeMap<String, Vec<ArrayAxes>>,
}

#[derive(Clone, Debug)]
struct ArrayAxes {
    path: String,
    dims: Vec<String>,
    shape: Vec<u64>,
    block: Vec<u64>,
}

impl FileAxes {
    /// Takes what the page needs from the layouts (before planning consumes them).
    pub fn from_layouts(layouts: &[SourceLayout]) -> Self {
        let files = layouts
            .iter()
            .map(|l| {
                let arrays = l
                    .arrays
                    .iter()
                    .map(|a| ArrayAxes {
                        path: a.path.clone(),
                        dims: a.dims.iter().map(|d| d.name.clone()).collect(),
                        shape: a.shape.clone(),
                        block: a.chunks.block.clone(),
                    })
                    .collect();
                (l.url.clone(), arrays)
            })
            .collect();
        FileAxes { files }
    }

    /// A file's length and block length along `dim` for `array`, when it has both.
    fn along(&self, file: &str, array: &str, dim: &str) -> Option<(u64, u64)> {
        let a = self.files.get(file)?.iter().find(|a| a.path == array)?;
        let k = a.dims.iter().position(|d| d == dim)?;
        Some((*a.shape.get(k)?, (*a.block.get(k)?).max(1)))
    }
}

/// The concat legend: what each colour means along the axis `dim`.
pub(super) fn legend(s: &mut String, dim: &str) {
    let entries = [
        ("fits", "chunks referenced as stored".to_string()),
        (
            "padded_interior",
            format!("padded chunk that would sit inside the '{dim}' axis (not at its end): the array is left out"),
        ),
        (
            "rescued",
            "padded last chunk of a file, referenced as its byte prefix (exact)".to_string(),
        ),
        (
            "patched",
            "padded or filter-skipped chunk re-encoded inline (--patch)".to_string(),
        ),
        (
            "problem",
            "file left out of the array for another reason (see its finding)".to_string(),
        ),
    ];
    s.push_str("<div class=\"legend\">");
    for (name, what) in entries {
        let _ = write!(
            s,
            "<span style=\"background:{}\" data-legend=\"{name}\"></span>{}",
            colour(name),
            esc(&what)
        );
    }
    s.push_str("</div>\n");
}

/// A file's status for an array (the band's colour), and its chunks marked by findings
/// (file-local chunk index along `dim` → mark).
fn file_marks(
    plan: &Plan,
    array: &str,
    file: &str,
    dim: &str,
) -> (&'static str, Vec<(u64, &'static str)>) {
    let mut status = "fits";
    let mut marks = Vec::new();
    for f in plan
        .findings
        .iter()
        .filter(|f| f.array.as_deref() == Some(array) && f.file.as_deref() == Some(file))
    {
        let mark = match f.kind {
            FindingKind::PaddedInteriorChunk => "padded_interior",
            FindingKind::RescuedPrefix => "rescued",
            FindingKind::Patched => "patched",
            _ if f.severity == Severity::Error => {
                status = "problem";
                continue;
            }
            _ => continue,
        };
        if status == "fits" || mark == "padded_interior" {
            status = mark;
        }
        if let Some(i) = f.location.as_deref().and_then(|l| chunk_along(l, dim)) {
            marks.push((i, mark));
        }
    }
    (status, marks)
}

/// `"time 90..100 of the file, chunk 3 along time"` → 3.
fn chunk_along(location: &str, dim: &str) -> Option<u64> {
    let tail = format!(" along {dim}");
    location.split(", ").find_map(|part| {
        part.trim()
            .strip_prefix("chunk ")?
            .strip_suffix(&tail)?
            .parse()
            .ok()
    })
}

/// One chunk rectangle of a band; marked chunks carry `data-chunk-mark`.
fn chunk_rect(s: &mut String, i: u64, x0: f64, x1: f64, mark: Option<&str>, title: &str) {
    let fill = colour(mark.unwrap_or("fits"));
    let attr = mark.map_or(String::new(), |m| format!(" data-chunk-mark=\"{m}\""));
    // A marked chunk stays visible however narrow; a stroke only where it does not hide the fill.
    let w = (x1 - x0).max(if mark.is_some() { 2.0 } else { 0.5 });
    // Widened to the left, so that the next file's band does not cover it.
    let x0 = x1 - w;
    let stroke = if w >= MIN_PX {
        " stroke=\"#555\" stroke-width=\"0.6\""
    } else {
        ""
    };
    let _ = write!(
        s,
        "<rect data-chunk=\"{i}\"{attr} x=\"{x0:.2}\" y=\"20\" width=\"{w:.2}\" height=\"40\" fill=\"{fill}\"{stroke}>",
    );
    if !title.is_empty() {
        let _ = write!(s, "<title>{}</title>", esc(title));
    }
    s.push_str("</rect>");
}

/// The band's outline (when its chunks were drawn one by one), label and closing tag.
fn band_end(s: &mut String, x0: f64, x1: f64, url: &str, outline: bool) {
    if outline && x1 - x0 >= MIN_PX {
        let _ = write!(
            s,
            "<rect x=\"{x0:.2}\" y=\"20\" width=\"{:.2}\" height=\"40\" fill=\"none\" stroke=\"#222\" stroke-width=\"1.2\"/>",
            (x1 - x0).max(0.5)
        );
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

const WIDTH: f64 = 760.0;

/// Narrowest chunk (in pixels) drawn on its own with an outline; narrower ones are drawn as
/// their file's band (marked chunks still are, without outline).
const MIN_PX: f64 = 3.0;

fn svg_open(s: &mut String, array: &str, dim: &str, status: &str) {
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" data-kind=\"bands\" data-array=\"{}\" data-dim=\"{}\" data-array-status=\"{status}\" width=\"{:.0}\" height=\"96\" viewBox=\"0 0 {:.0} 96\">",
        esc(array), esc(dim), WIDTH + 20.0, WIDTH + 20.0
    );
}

fn svg_close(s: &mut String, caption: &str, len: u64) {
    let _ = write!(s, "<text x=\"10\" y=\"12\" font-size=\"11\">{}</text><text x=\"10\" y=\"90\" font-size=\"10\">0</text><text x=\"{:.2}\" y=\"90\" font-size=\"10\" text-anchor=\"end\">{len}</text></svg>", esc(caption), WIDTH + 10.0);
}

/// Bands of a planned array along the concat (or stack) axis `k`: one per file, with its chunks;
/// a rescued or patched chunk is marked alone, not its whole file.
pub(super) fn bands_svg(s: &mut String, plan: &Plan, a: &ArrayPlan, k: usize) {
    let Some(e) = a.edges.get(k) else { return };
    let scale = WIDTH / a.shape[k].max(1) as f64;
    // Source of each chunk index along k, then runs of chunks per file.
    let mut src: BTreeMap<u64, usize> = BTreeMap::new();
    for c in &a.chunks {
        if let Some(i) = c.index.get(k) {
            src.entry(i).or_insert(c.source);
        }
    }
    let mut runs: Vec<(usize, u64, u64)> = Vec::new();
    for (&i, &f) in &src {
        match runs.last_mut() {
            Some(r) if r.0 == f && r.2 == i => r.2 = i + 1,
            _ => runs.push((f, i, i + 1)),
        }
    }
    let dim = &a.dims[k];
    svg_open(s, &a.path, dim, "planned");
    let pos = |i: u64| 10.0 + e.start_of(i).unwrap_or(a.shape[k]).min(a.shape[k]) as f64 * scale;
    // Chunks are drawn one by one only when there are few enough to see (and to keep the page
    // small); marked chunks always are.
    let each = e.count() <= MAX_MARKS && WIDTH / e.count().max(1) as f64 >= MIN_PX;
    for (f, i0, i1) in runs.iter().take(MAX_MARKS as usize) {
        let url = plan.sources.get(*f).map(|s| s.url.as_str()).unwrap_or("");
        let (st, marks) = file_marks(plan, &a.path, url, dim);
        let (x0, x1) = (pos(*i0), pos(*i1));
        let _ = write!(
            s,
            "<g data-band=\"{f}\" data-file=\"{}\" data-status=\"{st}\" data-chunks=\"{}\"><title>{}: chunks {i0}..{i1} along {}</title>",
            esc(&display_file(url)), i1 - i0, esc(&display_file(url)), esc(dim)
        );
        if !each {
            chunk_rect(s, *i0, x0, x1, None, "");
        }
        for i in *i0..*i1 {
            let mark = marks.iter().find(|m| i0 + m.0 == i).map(|m| m.1);
            if each || mark.is_some() {
                let t = format!("chunk {i} along {dim} ({} of this file)", i - i0);
                chunk_rect(s, i, pos(i), pos(i + 1), mark, &t);
            }
        }
        band_end(s, x0, x1, url, each);
    }
    let caption = format!(
        "{} — {} chunk(s) from {} file(s) along {dim}",
        a.path,
        e.count(),
        runs.len()
    );
    svg_close(s, &caption, a.shape[k]);
}

/// A left-out array drawn from the files' layouts: each file's extent along `dim` with its
/// chunks, the offending ones marked; files without the array (or without `dim`) get no band.
/// Returns false when no file could be drawn.
pub(super) fn left_out_svg(
    s: &mut String,
    plan: &Plan,
    axes: &FileAxes,
    array: &str,
    dim: &str,
) -> bool {
    let files: Vec<(&str, u64, u64)> = plan
        .sources
        .iter()
        .filter_map(|src| {
            let (len, block) = axes.along(&src.url, array, dim)?;
            Some((src.url.as_str(), len, block))
        })
        .collect();
    let total = files.iter().fold(0u64, |t, f| t.saturating_add(f.1));
    if files.is_empty() || total == 0 {
        return false;
    }
    let scale = WIDTH / total as f64;
    let chunks = files
        .iter()
        .fold(0u64, |t, f| t.saturating_add(f.1.div_ceil(f.2)));
    let each = chunks <= MAX_MARKS && WIDTH / chunks.max(1) as f64 >= MIN_PX;
    svg_open(s, array, dim, "left_out");
    let mut p = 0u64;
    // At most MAX_MARKS bands (the page stays small for any number of files).
    for (f, (url, len, block)) in files.iter().enumerate().take(MAX_MARKS as usize) {
        let (st, marks) = file_marks(plan, array, url, dim);
        let x = |q: u64| 10.0 + p.saturating_add(q.min(*len)) as f64 * scale;
        let _ = write!(
            s,
            "<g data-band=\"{f}\" data-file=\"{}\" data-status=\"{st}\" data-chunks=\"{}\"><title>{}: {dim} {p}..{} ({len} in chunks of {block})</title>",
            esc(&display_file(url)), len.div_ceil(*block), esc(&display_file(url)), p.saturating_add(*len)
        );
        let whole = if st == "problem" {
            Some("problem")
        } else {
            None
        };
        if !each || whole.is_some() {
            chunk_rect(s, 0, x(0), x(*len), whole, "");
        }
        for j in 0..len.div_ceil(*block) {
            let mark = marks.iter().find(|m| m.0 == j).map(|m| m.1);
            if (each && whole.is_none()) || mark.is_some() {
                let (a, b) = (j.saturating_mul(*block), (j + 1).saturating_mul(*block));
                let t = format!("chunk {j} of this file: {dim} {a}..{}", b.min(*len));
                chunk_rect(s, j, x(a), x(b), mark, &t);
            }
        }
        band_end(s, x(0), x(*len), url, each && whole.is_none());
        p = p.saturating_add(*len);
    }
    let caption = format!(
        "{array} (left out) — {} file(s) along {dim}, as stored",
        files.len()
    );
    svg_close(s, &caption, total);
    true
}

/// Coordinates written inline (their values are in refs.json): one row each, not a drawing.
pub(super) fn coordinates_table(s: &mut String, arrays: &[&ArrayPlan]) {
    if arrays.is_empty() {
        return;
    }
    s.push_str("<h2>Coordinates (written inline)</h2>\n<table data-kind=\"coordinates\" style=\"font-size:.85em\"><tr><th align=\"left\">name</th><th align=\"left\">dimensions</th><th align=\"left\">shape</th><th align=\"left\">chunk grid</th></tr>");
    for a in arrays {
        let _ = write!(
            s,
            "<tr data-coord=\"{}\"><td><b>{}</b></td><td>{}</td><td>{:?}</td><td>{}</td></tr>",
            esc(&a.path),
            esc(&a.path),
            esc(&a.dims.join(", ")),
            a.shape,
            esc(&crate::report::grid_summary(a))
        );
    }
    s.push_str("</table>\n");
}

/// The cuts along one axis of an array.
pub(super) fn axis_svg(s: &mut String, a: &ArrayPlan, i: usize) {
    let Some(e) = a.edges.get(i) else { return };
    let n = a.shape[i].max(1) as f64;
    let total = (e.sum() as f64).max(n);
    let scale = WIDTH / total;
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" data-kind=\"axis\" data-array=\"{}\" data-dim=\"{}\" data-chunks=\"{}\" width=\"{:.0}\" height=\"40\" viewBox=\"0 0 {:.0} 40\"><text x=\"10\" y=\"11\" font-size=\"10\">{}: {} chunk(s), length {}</text>",
        esc(&a.path), esc(&a.dims[i]), e.count(), WIDTH + 20.0, WIDTH + 20.0, esc(&a.dims[i]), e.count(), a.shape[i]
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

/// Files of a left-out array with their status, when it cannot be drawn along an axis.
pub(super) fn files_table(s: &mut String, plan: &Plan, array: &str, dim: &str) {
    s.push_str("<table data-kind=\"files\" style=\"font-size:.85em\">");
    for src in &plan.sources {
        let (st, _) = file_marks(plan, array, &src.url, dim);
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
    fn chunk_locations_are_read() {
        assert_eq!(
            chunk_along("time 90..100 of the file, chunk 3 along time", "time"),
            Some(3)
        );
        assert_eq!(chunk_along("chunk 12 along t", "t"), Some(12));
        assert_eq!(chunk_along("chunk 3 along time", "lat"), None);
        assert_eq!(chunk_along("rows 1..2", "time"), None);
    }
}
