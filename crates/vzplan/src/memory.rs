//! In-memory inputs and outputs, for bindings: layouts handed over as JSON lines (scanned
//! elsewhere, e.g. on a cluster's workers) and the refs/zarr.json documents as bytes instead of
//! files. The bytes are exactly what [`crate::RefsOutput`] writes.

use crate::build::Source;
use crate::{layouts, Error};
use vzplan_io::IoOptions;
use vzplan_plan::{Plan, ScanFailure};

/// A [`Source`] from layout lines as `vzplan scan` writes them (one file each). As with
/// `--from-layouts`, a failure line is kept as a failure and a bad line (not JSON, not a layout,
/// a URL with credentials) becomes a failure naming its line. `io` is how patched chunks are read.
pub fn source_from_lines<'a>(lines: impl IntoIterator<Item = &'a str>, io: IoOptions) -> Source {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for (n, line) in lines.into_iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match layouts::take(line.as_bytes()) {
            Ok(layouts::Line::Layout(l)) => ok.push(*l),
            Ok(layouts::Line::Failed(f)) => failed.push(f),
            Ok(layouts::Line::Header) => {}
            Err(why) => failed.push(ScanFailure {
                url: format!("<layouts>:{}", n + 1),
                error: format!("<layouts>:{}: {why}", n + 1),
                ..Default::default()
            }),
        }
    }
    Source::Given {
        layouts: ok,
        failures: failed,
        io,
    }
}

/// The kerchunk refs.json document, byte for byte as [`crate::RefsOutput`] writes it (`templates`
/// as [`crate::RefsOutput::templates`]).
pub fn refs_bytes(plan: &Plan, templates: bool) -> Result<Vec<u8>, Error> {
    let mut buf = Vec::new();
    let opts = vzplan_emit::RefsOptions { templates };
    vzplan_emit::write_refs_with(plan, opts, &mut buf).map_err(|source| {
        vzplan_emit::EmitError::Write {
            path: "<memory>".into(),
            source,
        }
    })?;
    Ok(buf)
}

/// The consolidated zarr.json document, byte for byte as [`crate::RefsOutput`] writes it.
pub fn zarr_json_bytes(plan: &Plan) -> Result<Vec<u8>, Error> {
    let doc = vzplan_emit::zarr::consolidated_json(plan);
    let mut buf = serde_json::to_vec_pretty(&doc)?;
    buf.push(b'\n');
    Ok(buf)
}
