//! In-memory inputs and outputs, for bindings: layouts handed over as JSON lines (scanned
//! elsewhere, e.g. on a cluster's workers) and the refs/zarr.json documents as bytes instead of
//! files. The bytes are exactly what [`crate::RefsOutput`] writes.

use crate::build::Source;
use crate::{layouts, Error};
use vzplan_io::IoOptions;
use vzplan_plan::Plan;

/// A [`Source`] from layout lines as `vzplan scan` writes them (one file each; a failure line
/// is kept as a failure). `io` is how patched chunks are read.
pub fn source_from_lines<'a>(
    lines: impl IntoIterator<Item = &'a str>,
    io: IoOptions,
) -> Result<Source, Error> {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for (n, line) in lines.into_iter().enumerate() {
        layouts::parse_line(line, &mut ok, &mut failed).map_err(|source| Error::LayoutLine {
            file: "<layouts>".into(),
            line: n + 1,
            source,
        })?;
    }
    Ok(Source::Given {
        layouts: ok,
        failures: failed,
        io,
    })
}

/// The kerchunk refs.json document, byte for byte as [`crate::RefsOutput`] writes it.
pub fn refs_bytes(plan: &Plan) -> Result<Vec<u8>, Error> {
    let mut buf = Vec::new();
    vzplan_emit::write_refs(plan, &mut buf).map_err(|source| vzplan_emit::EmitError::Write {
        path: "<memory>".into(),
        source,
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
