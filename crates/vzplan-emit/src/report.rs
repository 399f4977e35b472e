//! Reports of a plan: text for people, JSON for scripts (`--json`).

use crate::zarr::chunk_grid;
use serde_json::{json, Value};
use vzplan_core::edges_to_json;
use vzplan_plan::{display_file, Plan, Severity};

/// The chunk grid in short form: `[366, [365, 3]] × 4 × 8`.
pub fn grid_summary(a: &vzplan_plan::ArrayPlan) -> String {
    a.edges
        .iter()
        .map(|e| edges_to_json(e).to_string().replace(',', ", "))
        .collect::<Vec<_>>()
        .join(" × ")
}

/// The text report: per array its shape and grid, then every finding as
/// `file: what is wrong (where) — how to fix`.
pub fn text(plan: &Plan) -> String {
    let mut s = String::new();
    let along = match (&plan.concat_dim, &plan.stack_dim) {
        (_, Some(d)) => format!(", stacked along new dimension '{d}'"),
        (Some(d), None) if plan.sources.len() > 1 => format!(", concatenated along '{d}'"),
        _ => String::new(),
    };
    s.push_str(&format!(
        "{} file(s){along}: {} array(s) planned, {} left out\n",
        plan.sources.len(),
        plan.arrays.len(),
        plan.left_out.len()
    ));
    let width = plan.arrays.iter().map(|a| a.path.len()).max().unwrap_or(0);
    for a in &plan.arrays {
        let kind = if a.values.is_some() {
            "inline".to_string()
        } else {
            format!("{} chunks from {} file(s)", a.chunks.len(), a.files)
        };
        s.push_str(&format!(
            "  {:width$}  {} ({}) {:?}  chunks {}  [{kind}]\n",
            a.path,
            a.dtype.numpy_str(),
            a.dims.join(", "),
            a.shape,
            grid_summary(a),
        ));
    }
    for l in &plan.left_out {
        s.push_str(&format!("  {l:width$}  LEFT OUT (see findings)\n"));
    }
    let shown: Vec<_> = plan.findings.iter().collect();
    if !shown.is_empty() {
        s.push_str("findings:\n");
        for f in shown {
            let tag = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "info",
            };
            s.push_str(&format!("  [{tag}] {f}\n"));
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
    })
}
