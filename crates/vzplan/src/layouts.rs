//! Layout files: one JSON line per scanned file, a [`SourceLayout`] or `{"url", "error"}` for a
//! file that failed. Written by `vzplan scan` (one per shard), read by `build --from-layouts`.

use crate::inputs::{self, Input};
use crate::scan::Scanned;
use crate::Error;
use vzplan_core::SourceLayout;
use vzplan_io::IoOptions;
use vzplan_plan::ScanFailure;

/// One file's line (without the newline).
pub fn line(s: &Scanned) -> Result<String, Error> {
    Ok(match &s.result {
        Ok(l) => serde_json::to_string(l)?,
        Err(e) => serde_json::json!({"url": s.url, "error": e.to_string()}).to_string(),
    })
}

/// Writes every file's line to `dest` (a local path, written atomically, or an object URL).
/// Returns the number of files that failed.
pub fn write(scanned: &[Scanned], dest: &str, io: &IoOptions) -> Result<usize, Error> {
    let mut buf: Vec<u8> = Vec::new();
    let mut failed = 0;
    for s in scanned {
        failed += usize::from(s.result.is_err());
        buf.extend_from_slice(line(s)?.as_bytes());
        buf.push(b'\n');
    }
    inputs::write_bytes(dest, buf, io)?;
    Ok(failed)
}

/// Reads layout files (expanded inputs: local paths, `-`, object URLs) into layouts and the
/// failures they recorded.
pub fn read(
    files: &[Input],
    io: &IoOptions,
) -> Result<(Vec<SourceLayout>, Vec<ScanFailure>), Error> {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for f in files {
        let name = &f.name;
        let mut take = |n: usize, line: &str| -> Result<(), Error> {
            parse_line(line, &mut ok, &mut failed).map_err(|source| Error::LayoutLine {
                file: name.clone(),
                line: n + 1,
                source,
            })
        };
        if name != "-" && !vzplan_io::is_url(name) {
            // Local layout files are read a line at a time: they can be larger than the layouts.
            use std::io::BufRead;
            let read_err = |source| Error::LayoutRead {
                file: name.clone(),
                source,
            };
            let file = std::fs::File::open(name).map_err(read_err)?;
            for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
                take(n, &line.map_err(read_err)?)?;
            }
        } else {
            let text = inputs::read_text(name, io)?;
            for (n, line) in text.lines().enumerate() {
                take(n, line)?;
            }
        }
    }
    Ok((ok, failed))
}

/// One line of a layout file into `ok` (a layout) or `failed` (a recorded failure); blank lines
/// are skipped.
pub fn parse_line(
    line: &str,
    ok: &mut Vec<SourceLayout>,
    failed: &mut Vec<ScanFailure>,
) -> Result<(), serde_json::Error> {
    if line.trim().is_empty() {
        return Ok(());
    }
    let v: serde_json::Value = serde_json::from_str(line)?;
    if let (Some(url), Some(err)) = (v.get("url"), v.get("error")) {
        failed.push(ScanFailure {
            url: url.as_str().unwrap_or_default().to_string(),
            error: err.as_str().unwrap_or_default().to_string(),
        });
        return Ok(());
    }
    ok.push(serde_json::from_value(v)?);
    Ok(())
}

/// Expands layout-file patterns (globs, URLs) and reads them.
pub fn read_patterns(
    patterns: &[String],
    io: &IoOptions,
) -> Result<(Vec<SourceLayout>, Vec<ScanFailure>), Error> {
    read(&inputs::expand(patterns, io)?, io)
}
