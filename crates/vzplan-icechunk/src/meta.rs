//! The Zarr v3 metadata that goes to Icechunk: `vzplan-emit`'s, with rectilinear
//! `chunk_shapes` written as lists on every axis.

use serde_json::{json, Value};
use vzplan_core::{edges_to_json, AxisEdges};
use vzplan_plan::{ArrayPlan, Plan};

/// One axis of `chunk_shapes` as a list: `[[s, n]]` for a regular axis of `n` chunks of `s`
/// (`[s]` for one), else the RLE list vzplan always writes (`[[365, 3], 366]`). Icechunk 2.3
/// refuses the bare integer that the rectilinear extension allows for a regular axis.
pub fn list_chunk_shapes(edges: &AxisEdges) -> Value {
    match edges.regular_step() {
        Some(step) if edges.count() == 1 => json!([step]),
        Some(step) => json!([[step, edges.count()]]),
        None => edges_to_json(edges),
    }
}

/// An array's `zarr.json` for Icechunk: identical to `vzplan_emit::zarr::array_json` except for
/// the lists in a rectilinear grid's `chunk_shapes`.
pub fn array_json(plan: &Plan, a: &ArrayPlan) -> Value {
    let mut doc = vzplan_emit::zarr::array_json(plan, a);
    let rectilinear = doc.pointer("/chunk_grid/name") == Some(&json!("rectilinear"));
    if let (true, Some(shapes)) = (
        rectilinear,
        doc.pointer_mut("/chunk_grid/configuration/chunk_shapes"),
    ) {
        *shapes = Value::Array(a.edges.iter().map(list_chunk_shapes).collect());
    }
    doc
}
