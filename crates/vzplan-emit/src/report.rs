//! Reports of a plan: text for people, JSON for scripts (`--json`).

use crate::summary::{self, Group};
use crate::zarr::chunk_grid;
use serde_json::{json, Value};
use vzplan_core::edges_to_json;
use vzplan_core::text::shown;
use vzplan_plan::{display_file, Plan, Severity};

/// The chunk grid in short form: `[366, [365, 3]] × 4 × 8`.
pub fn grid_summary(a: &vzplan_plan::ArrayPlan) -> String {
    a.edges
        .iter()
        .map(|e| edges_to_json(e).to_string().replace(',', ", "))
        .collect::<Vec<_>>()
        .join(" × ")
}

/// The text report: a summary of the files (see [`crate::summary`]), per array its shape and
/// grid, then the findings as `file: what is wrong (where) — how to fix`, grouped when many
/// files have the same problem and fix.
pub fn text(plan: &Plan) -> String {
    let mut s = String::new();
    let along = match (&plan.concat_dim, &plan.stack_dim) {
        (_, Some(d)) => format!(", stacked along new dimension '{d}'"),
        (Some(d), None) if plan.inputs().len() > 1 => format!(", concatenated along '{d}'"),
        _ => String::new(),
    };
    line(
        &mut s,
        format!(
            "{} file(s){along}: {} array(s) planned, {} left out",
            plan.inputs().len(),
            plan.arrays.len(),
            plan.left_out.len()
        ),
    );
    let groups = summary::groups(plan);
    s.push_str(&summary_text(plan, &groups));
    let width = plan.arrays.iter().map(|a| a.path.len()).max().unwrap_or(0);
    for a in &plan.arrays {
        let kind = if a.values.is_some() {
            "inline".to_string()
        } else {
            format!("{} chunks from {} file(s)", a.chunks.len(), a.files)
        };
        line(
            &mut s,
            format!(
                "  {:width$}  {} ({}) {:?}  chunks {}  [{kind}]",
                a.path,
                a.dtype.numpy_str(),
                a.dims.join(", "),
                a.shape,
                grid_summary(a),
            ),
        );
    }
    for l in &plan.left_out {
        line(&mut s, format!("  {l:width$}  LEFT OUT (see findings)"));
    }
    s.push_str(&findings_text(plan, &groups));
    s
}

/// The summary lines: how many files fit, how many need which rewrite (and the bytes of files
/// that is), how many cannot be read.
fn summary_text(plan: &Plan, groups: &[Group]) -> String {
    let c = summary::counts(plan, groups);
    let mut s = format!("summary: {} of {} file(s) fit as they are", c.fit, c.files);
    if c.rewrite > 0 {
        s.push_str(&format!(
            "; {} need a rewrite ({} of files)",
            c.rewrite,
            summary::human_bytes(c.rewrite_bytes)
        ));
    }
    if c.unreadable > 0 {
        s.push_str(&format!("; {} cannot be read", c.unreadable));
    }
    if c.other > 0 {
        s.push_str(&format!("; {} have other findings", c.other));
    }
    s.push('\n');
    for g in groups {
        let Some(cmd) = g.command() else { continue };
        if g.first.severity == Severity::Info {
            continue;
        }
        let on = g.first.array.as_deref().map(|a| format!(" in {a}"));
        let cmd = match g.files.as_slice() {
            [one] => g.command_on(one).unwrap_or(cmd),
            _ => cmd,
        };
        line(
            &mut s,
            format!(
                "  {} file(s) ({}), {}{}: {cmd}",
                g.files.len(),
                summary::human_bytes(summary::bytes_of(plan, &g.files)),
                kind_words(g.first.kind),
                on.unwrap_or_default(),
            ),
        );
    }
    s
}

/// Pushes one line of the report: its text [`shown`] (names from files may hold control
/// characters, newlines too), then the newline.
fn line(out: &mut String, text: String) {
    out.push_str(&shown(&text));
    out.push('\n');
}

/// `padded_interior_chunk` → `padded interior chunk`.
fn kind_words(k: vzplan_plan::FindingKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default()
}

/// Files of a group shown in a text report before "and N more".
const FILES_SHOWN: usize = 3;

/// The findings, grouped: one line for a finding about one file (or none), and for many files
/// with the same problem and fix, one entry with the file list and one shell loop.
fn findings_text(plan: &Plan, groups: &[Group]) -> String {
    let mut s = String::new();
    if groups.is_empty() {
        return s;
    }
    line(&mut s, "findings:".into());
    let known = summary::known_files(plan);
    for g in groups {
        let tag = match g.first.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        if g.files.len() < 2 {
            line(&mut s, format!("  [{tag}] {}", g.first));
            continue;
        }
        line(
            &mut s,
            format!("  [{tag}] {} files: {}", g.files.len(), g.what()),
        );
        let listed = g
            .files
            .iter()
            .take(FILES_SHOWN)
            .cloned()
            .collect::<Vec<_>>();
        let more = g.files.len().saturating_sub(FILES_SHOWN);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        line(&mut s, format!("      {}{more}", listed.join(", ")));
        if let Some(fix) = g.fix_for_each() {
            line(&mut s, format!("      {}: {fix}", g.fix_label()));
        }
        if let Some(l) = g.shell_loop(&known) {
            line(&mut s, format!("      all at once: {l}"));
        }
    }
    s
}

/// The JSON report (stable field names; used by scripts and tests).
pub fn json(plan: &Plan) -> Value {
    let arrays: Vec<Value> = plan
        .arrays
        .iter()
        .map(|a| {
            json!({
                "path": a.path,
                "dtype": a.dtype.numpy_str(),
                "dimension_names": a.dims,
                "shape": a.shape,
                "chunk_grid": chunk_grid(a),
                "chunks": a.chunks.len(),
                "files": a.files,
                "inline": a.values.is_some(),
            })
        })
        .collect();
    let findings: Vec<Value> = plan
        .findings
        .iter()
        .map(|f| {
            let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.insert("text".into(), json!(f.to_string()));
            }
            v
        })
        .collect();
    json!({
        "sources": plan.sources.iter().map(|s| display_file(&s.url)).collect::<Vec<_>>(),
        "concat_dim": plan.concat_dim,
        "stack_dim": plan.stack_dim,
        "arrays": arrays,
        "left_out": plan.left_out,
        "findings": findings,
        "complete": !plan.incomplete(),
        "summary": summary::json(plan),
    })
}
