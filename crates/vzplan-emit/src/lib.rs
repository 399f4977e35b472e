//! Output: kerchunk references, Zarr v3 metadata, reports.
//!
//! `refs.json` is the kerchunk reference format, version 1 (fsspec/kerchunk `docs/source/spec.rst`),
//! with one template per source file and the Zarr v3 metadata inline, so that it opens on its own
//! with fsspec's `ReferenceFileSystem` and zarr-python (`array.rectilinear_chunks` enabled):
//! ```json
//! {"version": 1,
//!  "templates": {"u0": "file:///data/tas_2000.nc", "u1": "file:///data/tas_2001.nc"},
//!  "refs": {"zarr.json": "{…group…}",
//!           "tas/zarr.json": "{…array…}",
//!           "tas/c/0/0/0": ["{{u0}}", 30712, 918213],
//!           "time/c/0": "base64:…"}}
//! ```
//! Writing is to any `Write`: the `vzplan` facade stages the files beside their targets and
//! renames them into place together.
//!
//! kerchunk reference specification: <https://fsspec.github.io/kerchunk/spec.html>

pub mod cf;
pub mod html;
mod refbuf;
pub mod report;
pub mod summary;
pub mod zarr;

use base64::Engine;
use refbuf::{Piece, RefBuf, MAX_DIGITS, WINDOW};
use std::io::{self, Write};
use std::path::Path;
use vzplan_core::{ChunkList, DataRef, KeyColumn, LengthColumn, PlainColumns};
use vzplan_plan::{ArrayPlan, Plan};

#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("{path}: cannot write: {source}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// The chunk key of a grid index under the default `/` encoding: `tas/c/1/0/3` (`tas/c` for 0-d).
pub fn chunk_key(array: &str, key: &[u64]) -> String {
    let mut s = format!("{array}/c");
    for k in key {
        s.push('/');
        s.push_str(&k.to_string());
    }
    s
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// How `refs.json` is written.
#[derive(Clone, Copy, Debug)]
pub struct RefsOptions {
    /// One kerchunk template per source (`{{u0}}`); `false` writes every reference with its full
    /// URL, for readers that ignore templates (VirtualiZarr's `KerchunkJSONParser`, GDAL).
    pub templates: bool,
}

impl Default for RefsOptions {
    fn default() -> Self {
        Self { templates: true }
    }
}

/// Streams `refs.json` for a plan. One line per key keeps diffs and greps useful.
pub fn write_refs(plan: &Plan, w: &mut dyn Write) -> io::Result<()> {
    write_refs_with(plan, RefsOptions::default(), w)
}

/// [`write_refs`] with options.
pub fn write_refs_with(plan: &Plan, opts: RefsOptions, w: &mut dyn Write) -> io::Result<()> {
    let b64 = &base64::engine::general_purpose::STANDARD;
    write!(w, "{{\"version\":1,")?;
    // What follows a reference's key up to its offset, per source: `":[URL,`, where URL is a
    // template (`"{{u3}}"`) or the source's URL itself. Written straight into place: at one
    // source a file, five strings a source were a percent of a small-file build.
    let mut mid = Vec::new();
    let mut mids: Vec<Piece> = Vec::with_capacity(plan.sources.len());
    if opts.templates {
        w.write_all(b"\"templates\":{")?;
        for (i, s) in plan.sources.iter().enumerate() {
            let sep: &[u8] = if i > 0 { b",\"u" } else { b"\"u" };
            w.write_all(sep)?;
            write!(w, "{i}\":")?;
            serde_json::to_writer(&mut *w, &s.url)?;
            mid.clear();
            mid.extend_from_slice(b"\":[\"{{u");
            write!(mid, "{i}")?;
            mid.extend_from_slice(b"}}\",");
            mids.push(Piece::new(&mid));
        }
        w.write_all(b"},")?;
    } else {
        for s in &plan.sources {
            mid.clear();
            mid.extend_from_slice(b"\":[");
            serde_json::to_writer(&mut mid, &s.url)?;
            mid.push(b',');
            mids.push(Piece::new(&mid));
        }
    }
    write!(w, "\n\"refs\":{{\n")?;
    write!(w, "\"zarr.json\":{}", json_str(&zarr::root_json(plan)))?;
    for (g, doc) in zarr::groups_json(plan) {
        let doc = doc.to_string();
        write!(
            w,
            ",\n{}:{}",
            json_str(&format!("{g}/zarr.json")),
            json_str(&doc)
        )?;
    }
    let mut buf = RefBuf::new();
    for a in &plan.arrays {
        write_array(plan, a, &mids, &mut buf, w, b64)?;
    }
    writeln!(w, "\n}}}}")?;
    Ok(())
}

fn write_array(
    plan: &Plan,
    a: &ArrayPlan,
    mids: &[Piece],
    buf: &mut RefBuf,
    w: &mut dyn Write,
    b64: &base64::engine::GeneralPurpose,
) -> io::Result<()> {
    let meta = zarr::array_json(plan, a).to_string();
    write!(
        w,
        ",\n{}:{}",
        json_str(&format!("{}/zarr.json", a.path)),
        json_str(&meta)
    )?;
    // References go into one buffer (`RefBuf`), written out every MiB: no allocation and no
    // call through `w` per reference. JSON escapes character by character, so the quoted
    // key is the quoted `{path}/c` prefix plus the (digit-only) index.
    // The constant pieces joined ahead (`,\n"path/c` here, `":[URL,` per source): fewer copies
    // per reference.
    let prefix = json_str(&chunk_key(&a.path, &[]));
    let head = Piece::new(
        &[
            b",\n",
            prefix.strip_suffix('"').unwrap_or(&prefix).as_bytes(),
        ]
        .concat(),
    );
    let pieces = Pieces {
        path: &a.path,
        head: &head,
        mids,
        // The longest reference to a range: its key, URL and two numbers, and the window a
        // short piece is copied in.
        ref_room: head.len()
            + a.chunks.rank().unwrap_or(0) * (1 + MAX_DIGITS)
            + mids.iter().map(Piece::len).max().unwrap_or(0)
            + 2 * MAX_DIGITS
            + 2
            + WINDOW,
    };
    match a.chunks.plain_columns() {
        Some(cols) => pieces.write_plain(cols, buf, w)?,
        None => pieces.write_entries(&a.chunks, buf, w, b64)?,
    }
    buf.flush(w)
}

/// The constant pieces of an array's references.
struct Pieces<'a> {
    path: &'a str,
    /// `,\n"path/c`.
    head: &'a Piece,
    /// `":[URL,` per source.
    mids: &'a [Piece],
    ref_room: usize,
}

impl Pieces<'_> {
    fn mid(&self, source: usize) -> io::Result<&Piece> {
        match self.mids.get(source) {
            Some(m) => Ok(m),
            None => Err(io::Error::other(format!(
                "{}: chunk names source {source} of {}",
                self.path,
                self.mids.len()
            ))),
        }
    }

    /// Plain ranges (nearly every array): straight from the columns.
    fn write_plain(
        &self,
        c: PlainColumns<'_>,
        buf: &mut RefBuf,
        w: &mut dyn Write,
    ) -> io::Result<()> {
        match c.index {
            KeyColumn::Narrow(index) => {
                let mut keys = index.chunks_exact(c.rank);
                self.write_ranges(c, buf, w, |buf| {
                    for &k in keys.next().unwrap_or_default() {
                        buf.byte(b'/');
                        buf.num(u64::from(k));
                    }
                })
            }
            KeyColumn::Grid(shape) => {
                // A full grid in C order: the keys counted rather than read.
                let mut key = vec![0u64; shape.len()];
                self.write_ranges(c, buf, w, |buf| {
                    for &k in &key {
                        buf.byte(b'/');
                        buf.num(k);
                    }
                    for (x, &n) in key.iter_mut().zip(shape).rev() {
                        *x += 1;
                        if *x < n {
                            break;
                        }
                        *x = 0;
                    }
                })
            }
        }
    }

    /// The references of `c`, each key written by `key` (called once per entry, in order).
    fn write_ranges(
        &self,
        c: PlainColumns<'_>,
        buf: &mut RefBuf,
        w: &mut dyn Write,
        mut key: impl FnMut(&mut RefBuf),
    ) -> io::Result<()> {
        // Every source named is checked once here, so the loop indexes without an error path.
        let highest = c.source.iter().max().map_or(0, |&s| s as usize);
        if !c.offset.is_empty() {
            self.mid(highest)?;
        }
        for (i, &offset) in c.offset.iter().enumerate() {
            let length = match c.length {
                LengthColumn::Narrow(l) => l.get(i).map(|&x| u64::from(x)),
                LengthColumn::Wide(l) => l.get(i).copied(),
            };
            let mid = &self.mids[c.source.get(i).map_or(0, |&s| s as usize)];
            buf.room(self.ref_room);
            buf.piece(self.head);
            key(buf);
            buf.range(mid, offset, length.unwrap_or(0));
            buf.flush_full(w)?;
        }
        Ok(())
    }

    /// Any list, entry by entry (the same bytes as [`Pieces::write_plain`] for a plain one).
    fn write_entries(
        &self,
        chunks: &ChunkList,
        buf: &mut RefBuf,
        w: &mut dyn Write,
        b64: &base64::engine::GeneralPurpose,
    ) -> io::Result<()> {
        for c in chunks {
            match c.data {
                DataRef::Ref { .. } => buf.room(self.ref_room),
                DataRef::Inline(b) => {
                    let key = self.head.len() + c.index.len() * (1 + MAX_DIGITS);
                    buf.room(key + 12 + b.len().div_ceil(3) * 4 + WINDOW)
                }
            }
            buf.piece(self.head);
            for k in c.index {
                buf.byte(b'/');
                buf.num(k);
            }
            match c.data {
                DataRef::Ref { offset, length } => {
                    buf.range(self.mid(c.source)?, offset, length);
                }
                DataRef::Inline(bytes) => {
                    buf.bytes(b"\":\"base64:");
                    let room = bytes.len().div_ceil(3) * 4;
                    let n = b64
                        .encode_slice(bytes, buf.take(room))
                        .map_err(io::Error::other)?;
                    buf.give_back(room - n);
                    buf.byte(b'"');
                }
            }
            buf.flush_full(w)?;
        }
        Ok(())
    }
}

/// Where the consolidated `zarr.json` goes beside `refs.json`: `refs.json` → `refs.zarr.json`.
pub fn zarr_json_path(refs: &Path) -> std::path::PathBuf {
    let stem = refs
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "refs".into());
    refs.with_file_name(format!("{stem}.zarr.json"))
}

#[cfg(test)]
mod tests;
