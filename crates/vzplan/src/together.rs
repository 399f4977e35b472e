//! Whether a collection's files belong to one state: refs.json (the commit point, which carries
//! its own metadata), the consolidated zarr.json beside it, and the kept layouts. A run killed
//! between its renames ([`crate::outputs::write::commit`]) leaves refs.json whole but may leave a
//! zarr.json of the state before, or kept layouts one append ahead; `verify` says so, and the
//! next build or append (an append with no new files too) puts them together again.

use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// What does not belong with refs.json at `refs` (whose parsed document is `doc`), one message
/// each; the default places beside it are looked at (`refs.zarr.json`, `refs.layouts.jsonl`).
pub(crate) fn check(refs: &Path, doc: &Value, sources: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let zarr = vzplan_emit::zarr_json_path(refs);
    if let Ok(text) = std::fs::read_to_string(&zarr) {
        if let Some(why) = zarr_json_differs(doc, &text) {
            out.push(format!(
                "{}: not the state of {} ({why}): a build or append was interrupted; build or \
                 append again to rewrite it",
                zarr.display(),
                refs.display()
            ));
        }
    }
    let kept = crate::kept::default_layouts(refs);
    if let Some(n) = kept_ahead(&kept, sources) {
        out.push(format!(
            "{}: the kept layouts list {n} file(s) that {} does not (an append was interrupted \
             after keeping them); `vzplan append -o {}` with no new files finishes it",
            kept.display(),
            refs.display(),
            refs.display()
        ));
    }
    out
}

/// Why the consolidated document differs from refs.json's own metadata, if it does.
fn zarr_json_differs(doc: &Value, text: &str) -> Option<String> {
    let Ok(z) = serde_json::from_str::<Value>(text) else {
        return Some("not JSON".into());
    };
    let refs = doc.get("refs").and_then(Value::as_object)?;
    let parse =
        |key: &str| -> Option<Value> { serde_json::from_str(refs.get(key)?.as_str()?).ok() };
    let root = parse("zarr.json")?;
    if root.get("attributes") != z.get("attributes") {
        return Some("its root attributes, the sources among them, differ".into());
    }
    let empty = Map::new();
    let nodes = z
        .pointer("/consolidated_metadata/metadata")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let theirs: BTreeSet<&str> = refs
        .keys()
        .filter_map(|k| k.strip_suffix("/zarr.json"))
        .collect();
    if theirs != nodes.keys().map(String::as_str).collect() {
        return Some("it lists other arrays and groups".into());
    }
    let differs = nodes
        .iter()
        .find(|(path, meta)| parse(&format!("{path}/zarr.json")).as_ref() != Some(meta));
    differs.map(|(path, _)| format!("the metadata of {path:?} differs"))
}

/// How many files the kept layouts list that the refs' sources do not, if any.
fn kept_ahead(kept: &Path, sources: &BTreeSet<String>) -> Option<usize> {
    use std::io::BufRead;
    let f = std::fs::File::open(kept).ok()?;
    #[derive(serde::Deserialize)]
    struct Url {
        url: String,
    }
    let mut extra = 0;
    for line in std::io::BufReader::new(f).lines() {
        let line = line.ok()?;
        if line
            .as_bytes()
            .starts_with(crate::outputs::write::LAYOUTS_HEADER)
        {
            continue;
        }
        // Failure lines name files that are not sources of the refs either.
        if line.contains("\"error\"") {
            continue;
        }
        let u: Url = serde_json::from_str(&line).ok()?;
        extra += usize::from(!sources.contains(&u.url));
    }
    (extra > 0).then_some(extra)
}
