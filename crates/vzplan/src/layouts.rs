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
        Err(e) => failure_line(&s.url, &e.to_string(), s.unreachable()),
    })
}

/// A failed file's line: `{"url", "error"}`, and `"unreachable": true` for an outage.
pub(crate) fn failure_line(url: &str, error: &str, unreachable: bool) -> String {
    let mut v = serde_json::json!({"url": url, "error": error});
    if unreachable {
        v["unreachable"] = true.into();
    }
    v.to_string()
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
    if !vzplan_io::is_url(dest) {
        use crate::outputs::write;
        let read = write::unknown(scanned.iter().filter_map(|s| write::local_path(&s.url)));
        write::guard(&[("layouts", dest.into())], false, &read)?;
    }
    inputs::write_bytes(dest, buf, io)?;
    Ok(failed)
}

/// The longest layout line read. A line is one file's layout; its chunk table costs ~16–22 bytes per
/// chunk as columns (an offset and a length; the index too unless the table is a full grid), so
/// 32 MiB holds about 1.5 million chunks of one file (a line of 1.25 M chunks and 10 MB of inline
/// coordinate plans in 74 MB), and ~69 bytes per chunk in the entry objects of older lines
/// (480 000 chunks). A 3,072-chunk netCDF-4 file of the benchmarks makes a 67 KB line (238 KB as
/// entry objects).
/// A longer line is left out by name (file and line number) without being kept, and the other
/// lines are read.
pub const MAX_LINE: usize = 32 << 20;

/// A file that failed when it was scanned (borrowed from the line unless it has escapes).
#[derive(serde::Deserialize)]
struct FailedLine<'a> {
    #[serde(borrow)]
    url: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    error: std::borrow::Cow<'a, str>,
    /// The source's store could not be reached (written only when true).
    #[serde(default)]
    unreachable: bool,
}

/// Whether a line can be a [`FailedLine`]: only if it holds the key `"error"`, written plainly or
/// with `\u` escapes. Layout lines (almost) never do, so they are parsed once, not twice.
fn may_be_failure(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"\"error\"").is_some()
        || memchr::memmem::find(line, b"\\u").is_some()
}

/// Reads layout files (expanded inputs: local paths, `-`, object URLs) into layouts and the
/// failures they recorded. A bad line (over [`MAX_LINE`], not JSON, not a layout, or a URL with
/// credentials or a signature in it) is a failure named `FILE:LINE`; the other lines are read.
pub fn read(
    files: &[Input],
    io: &IoOptions,
) -> Result<(Vec<SourceLayout>, Vec<ScanFailure>), Error> {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for f in files {
        let name = &f.name;
        let read_err = |source| Error::LayoutRead {
            file: name.clone(),
            source,
        };
        // Read a line at a time: a layout file can be larger than the layouts it holds.
        let reader: Box<dyn std::io::BufRead> = if name == "-" {
            Box::new(std::io::stdin().lock())
        } else if vzplan_io::is_url(name) {
            Box::new(std::io::Cursor::new(vzplan_io::remote::get_all(name, io)?))
        } else {
            // A FIFO is read as a stream here (`--from-layouts <(…)`): layouts are not sources.
            let file = std::fs::File::open(name).map_err(read_err)?;
            Box::new(std::io::BufReader::with_capacity(1 << 20, file))
        };
        let mut lines = Lines::new(reader);
        let mut n = 0;
        while let Some(line) = lines.next_line(MAX_LINE).map_err(read_err)? {
            n += 1;
            let bad = |why: String| ScanFailure {
                url: format!("{name}:{n}"),
                error: format!("{name}:{n}: {why}"),
                ..Default::default()
            };
            let Some(line) = line else {
                failed.push(bad(format!(
                    "line longer than {} MiB; not a layout written by vzplan scan",
                    MAX_LINE >> 20
                )));
                continue;
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match take(line) {
                Ok(Line::Layout(l)) => ok.push(*l),
                Ok(Line::Failed(failure)) => failed.push(failure),
                Ok(Line::Header) => {}
                Err(why) => failed.push(bad(why.to_string())),
            }
        }
    }
    Ok((ok, failed))
}

/// What one line of a layout file holds.
pub(crate) enum Line {
    Layout(Box<SourceLayout>),
    /// A file that failed when it was scanned.
    Failed(ScanFailure),
    /// A kept layouts file's header: no file.
    Header,
}

/// Why a line is not a layout: kept typed until it becomes the failure that names the line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadLine {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Its URL fails the check every source URL passes ([`vzplan_io::check_source_url`]).
    #[error(transparent)]
    Url(#[from] vzplan_io::IoError),
    /// A field with a value no scan writes.
    #[error("{field} {value:?} is not {what}")]
    Field {
        field: &'static str,
        value: String,
        what: &'static str,
    },
}

/// One line: a layout, or a recorded failure; Err: why the line is not a layout. Layout lines are
/// untrusted (written by workers elsewhere, kept beside outputs anyone may edit): the URL passes
/// the one source-URL check and the file's identity fields are what a scan records.
pub(crate) fn take(line: &[u8]) -> Result<Line, BadLine> {
    if line.starts_with(crate::outputs::write::LAYOUTS_HEADER) {
        return Ok(Line::Header);
    }
    if let Some(f) = may_be_failure(line)
        .then(|| serde_json::from_slice::<FailedLine>(line).ok())
        .flatten()
    {
        vzplan_io::check_source_url(&f.url)?;
        return Ok(Line::Failed(ScanFailure {
            url: vzplan_io::redact(&f.url),
            error: vzplan_io::redact_text(&f.error),
            unreachable: f.unreachable,
        }));
    }
    // Checked as UTF-8 once, the line skips serde_json's check of each string; a line that is
    // not UTF-8 goes the byte way, for the same error message as before.
    let parsed = match std::str::from_utf8(line) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(line),
    };
    let mut l: SourceLayout = parsed?;
    vzplan_io::check_source_url(&l.url)?;
    // The tools that rewrite the file are its format's reader's (a line does not carry them).
    let Some(reader) = crate::formats::reader(l.format.as_str()) else {
        return Err(BadLine::Field {
            field: "format",
            value: l.format.as_str().chars().take(64).collect(),
            what: "a format vzplan reads",
        });
    };
    l.rewriter = reader.rewriter(&l.url);
    identity(l.mtime.as_deref(), l.etag.as_deref())?;
    // The files it links to are sources like itself.
    for s in &l.linked {
        vzplan_io::check_source_url(&s.url)?;
        identity(s.mtime.as_deref(), s.etag.as_deref())?;
    }
    Ok(Line::Layout(Box::new(l)))
}

/// A file's identity fields, as a scan records them.
fn identity(mtime: Option<&str>, etag: Option<&str>) -> Result<(), BadLine> {
    if let Some(t) = mtime.filter(|t| !vzplan_io::valid_mtime(t)) {
        return Err(BadLine::Field {
            field: "mtime",
            value: t.chars().take(64).collect(),
            what: "an RFC 3339 time in UTC",
        });
    }
    if let Some(e) = etag.filter(|e| !vzplan_io::valid_etag(e)) {
        return Err(BadLine::Field {
            field: "etag",
            value: e.chars().take(64).collect(),
            what: "an entity tag (printable ASCII, at most 1 KiB)",
        });
    }
    Ok(())
}

/// Lines of at most a given length, without keeping more of a longer one.
struct Lines<R> {
    r: R,
    buf: Vec<u8>,
}

impl<R: std::io::BufRead> Lines<R> {
    fn new(r: R) -> Self {
        Lines { r, buf: Vec::new() }
    }

    /// The next line without its newline; Some(None): a line longer than `max` (skipped).
    fn next_line(&mut self, max: usize) -> std::io::Result<Option<Option<&[u8]>>> {
        self.buf.clear();
        let mut over = false;
        let mut any = false;
        loop {
            let chunk = self.r.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (part, done) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (&chunk[..i], Some(i + 1)),
                None => (chunk, None),
            };
            if !over && self.buf.len() + part.len() <= max {
                self.buf.extend_from_slice(part);
            } else {
                over = true;
                self.buf = Vec::new();
            }
            let used = done.unwrap_or(part.len());
            self.r.consume(used);
            if done.is_some() {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        Ok(Some((!over).then_some(self.buf.as_slice())))
    }
}

/// Expands layout-file patterns (globs, URLs) and reads them.
pub fn read_patterns(
    patterns: &[String],
    io: &IoOptions,
) -> Result<(Vec<SourceLayout>, Vec<ScanFailure>), Error> {
    read(&inputs::expand(patterns, io)?, io)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Line {
        fn layout(self) -> SourceLayout {
            match self {
                Line::Layout(l) => *l,
                Line::Failed(f) => panic!("a failure: {}", f.error),
                Line::Header => panic!("a header"),
            }
        }
        fn failure(self) -> Option<ScanFailure> {
            match self {
                Line::Failed(f) => Some(f),
                _ => None,
            }
        }
    }

    /// A layout line as `vzplan scan` writes it (the one file of a real scan, trimmed).
    const LAYOUT: &str = r#"{"url":"file:///d/a.nc","size":9,"format":"hdf5","attrs":{"history":"no error here"},"arrays":[{"path":"v","dims":[{"name":"x"}],"shape":[2],"dtype":{"kind":"int","size":2,"endian":"little"},"chunks":{"block":[2],"edges":"exact","entries":[{"index":[0],"data":{"ref":{"offset":1,"length":4}}}]}}]}"#;

    /// Layout lines are parsed once; a line is a failure exactly when it has `url` and `error`
    /// strings, however its keys are written.
    #[test]
    fn failure_lines_are_told_from_layouts_in_one_pass() {
        let l = take(LAYOUT.as_bytes()).unwrap().layout();
        assert_eq!(l.arrays[0].chunks.entries.len(), 1);
        assert!(!may_be_failure(LAYOUT.as_bytes()));
        for failure in [
            r#"{"url":"file:///d/b.nc","error":"truncated"}"#,
            r#"{"url":"file:///d/b.nc","e\u0072ror":"truncated"}"#,
            r#"{"\u0075rl":"file:///d/b.nc","error":"trunc\"ated"}"#,
        ] {
            let f = take(failure.as_bytes()).unwrap().failure().unwrap();
            assert_eq!(f.url, "file:///d/b.nc", "{failure}");
            assert!(f.error.starts_with("trunc"), "{failure}");
        }
        // A layout with an `error` key too was, and stays, a failure.
        let both = LAYOUT.replacen('{', r#"{"error":"x","#, 1);
        assert!(take(both.as_bytes()).unwrap().failure().is_some());
        // `error` only as a value: a layout; neither: a bad line.
        let valued = LAYOUT.replace("no error here", "error");
        assert!(take(valued.as_bytes()).unwrap().failure().is_none());
        assert!(take(br#"{"url":"x"}"#).is_err());
        // Bad lines are told as serde_json tells them from the bytes, UTF-8 or not.
        for bad in [
            &br#"{"url":"x","size":1,"#[..],
            b"{\"url\":\"\xff\"}",
            b"\xfe{",
        ] {
            let want = serde_json::from_slice::<SourceLayout>(bad)
                .unwrap_err()
                .to_string();
            assert_eq!(take(bad).err().map(|e| e.to_string()), Some(want));
        }
        // Chunk indexes of two ranks in one table: a bad line, not a table of mixed keys.
        let mixed = LAYOUT.replace(
            r#"}}]}}]}"#,
            r#"}},{"index":[1,0],"data":{"ref":{"offset":5,"length":4}}}]}}]}"#,
        );
        assert_ne!(mixed, LAYOUT);
        let err = take(mixed.as_bytes()).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("rank 2")),
            "{err:?}"
        );
        // A failure line's URL passes the same check; its secret is not repeated.
        let e = take(br#"{"url":"s3://b/k?X-Amz-Signature=abc","error":"e"}"#)
            .err()
            .map(|e| e.to_string());
        assert!(e.as_deref().is_some_and(|e| !e.contains("abc")), "{e:?}");
    }

    /// Every URL of a layout line passes the source-URL check, and the identity fields are what
    /// a scan records: a line that fails is a bad line (named by file and line by the caller).
    #[test]
    fn layout_urls_and_identity_fields_are_checked() {
        let with = |from: &str, to: &str| LAYOUT.replacen(from, to, 1);
        for (line, why) in [
            (with("file:///d/a.nc", "../../../../etc/passwd"), "absolute"),
            (with("file:///d/a.nc", "file:///work/../etc/passwd"), "'..'"),
            (with("file:///d/a.nc", "javascript:alert(1)"), "absolute"),
            (with("file:///d/a.nc", "data:text/plain,x"), "absolute"),
            (with("file:///d/a.nc", "s3a://b/a.nc"), "canonical"),
            (
                with(r#""size":9,"#, r#""size":9,"mtime":"yesterday","#),
                "mtime",
            ),
            (
                with(r#""size":9,"#, r#""size":9,"etag":"\u001b]0;x\u0007","#),
                "etag",
            ),
        ] {
            let e = take(line.as_bytes()).err().map(|e| e.to_string());
            assert!(
                e.as_deref().is_some_and(|e| e.contains(why)),
                "{line}: {e:?}"
            );
        }
        let stamped = with(
            r#""size":9,"#,
            r#""size":9,"mtime":"2026-12-03T15:52:08.280181428Z","etag":"\"ab\"","#,
        );
        assert!(matches!(take(stamped.as_bytes()), Ok(Line::Layout(_))));
        let failed = r#"{"url":"file:///etc/../passwd","error":"e"}"#;
        assert!(take(failed.as_bytes()).is_err());
    }
}
