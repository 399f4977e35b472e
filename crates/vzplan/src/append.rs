//! Appending files to a collection without scanning its files again.
//!
//! `build` with [`BuildOptions::keep_layouts`] keeps every file's layout beside the outputs (JSON
//! lines, the format of `vzplan scan`; failures as `{"url", "error"}` lines). [`append`] reads
//! them back, scans only the new files, and plans all of them together, so the result is what
//! `build` of every file would write, byte for byte: the same planner sees the same layouts, and
//! the files are ordered along the concat coordinate as before. Every output is rewritten (staged,
//! then renamed together), the kept layouts too.
//!
//! A kept file that changed since it was scanned (size, ETag or mtime, as `verify` checks) is left
//! out as a file, with a finding, unless it is given again, when it is scanned anew.
//!
//! A collection built without kept layouts cannot be appended to: its refs alone do not say how
//! each file was stored (padded or exact last chunks, the time units before rebasing), and a
//! guess could read back wrong; such a collection is refused with a message saying how to keep
//! them.

use crate::build::{gather, BuildOptions, BuildReport, Source};
use crate::outputs::write::{self, Staged};
use crate::{Error, ProgressSink};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use vzplan_core::SourceLayout;
use vzplan_io::{IoOptions, ObjectMeta};
use vzplan_plan::{ScanFailure, SourceRef};

/// Where the kept layouts go by default: beside refs.json (`refs.json` → `refs.layouts.jsonl`).
pub fn default_layouts(refs: &Path) -> PathBuf {
    let stem = refs
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "refs".into());
    refs.with_file_name(format!("{stem}.layouts.jsonl"))
}

/// Where an Icechunk repository's kept layouts go by default: beside a local repository
/// (`out/repo` → `out/repo.layouts.jsonl`); none for one on object storage (give a path).
pub fn default_layouts_for_repo(repo: &str) -> Option<PathBuf> {
    match vzplan_icechunk::Target::parse(repo).ok()? {
        vzplan_icechunk::Target::Local(dir) => {
            let name = dir.file_name()?.to_string_lossy().to_string();
            Some(dir.with_file_name(format!("{name}.layouts.jsonl")))
        }
        _ => None,
    }
}

/// Stages the layouts file (renamed into place with the other outputs); returns its token.
pub(crate) fn stage(
    path: &Path,
    layouts: &[SourceLayout],
    failures: &[ScanFailure],
) -> Result<(Staged, String), Error> {
    let staged = write::stage(path, |w| {
        for l in layouts {
            serde_json::to_writer(&mut *w, l)?;
            w.write_all(b"\n")?;
        }
        for f in failures {
            let line = serde_json::json!({"url": f.url, "error": f.error});
            serde_json::to_writer(&mut *w, &line)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    let token = token_of(staged.path()).map_err(|source| Error::LayoutRead {
        file: path.display().to_string(),
        source,
    })?;
    Ok((staged, token))
}

/// A kept layouts file's token: its inode, length and modification time (nanoseconds). The
/// staged file keeps all three when it is renamed into place, and a later run's file (a new
/// temp file, renamed over it) differs, so an append tells whether the file is still the one it
/// read with a `stat`, never reading it again. Not an integrity check against an adversary.
pub(crate) fn token_of(path: &Path) -> std::io::Result<String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok(format!(
        "{}:{}:{}.{:09}",
        m.ino(),
        m.len(),
        m.mtime(),
        m.mtime_nsec()
    ))
}

/// Appends the files of `new` to the collection whose layouts were kept at `kept`, writing
/// `opts`' outputs (and the layouts again, at `opts.keep_layouts` or else `kept`).
pub fn append(
    kept: &Path,
    new: &Source,
    opts: BuildOptions,
    progress: &dyn ProgressSink,
) -> Result<BuildReport, Error> {
    let io = new.io().clone();
    let read = token_of(kept).ok();
    let (old, mut failures) = read_kept(kept, &io)?;
    let (l, f) = gather(new, progress)?;
    // A file given again is scanned again: its new layout replaces the kept one.
    let again: HashSet<&str> = l
        .iter()
        .map(|x| x.url.as_str())
        .chain(f.iter().map(|x| x.url.as_str()))
        .collect();
    let old: Vec<SourceLayout> = old
        .into_iter()
        .filter(|x| !again.contains(x.url.as_str()))
        .collect();
    failures.retain(|x| !again.contains(x.url.as_str()));
    let (mut layouts, changed) = unchanged(old, &io);
    failures.extend(changed);
    layouts.extend(l);
    failures.extend(f);
    let opts = BuildOptions {
        keep_layouts: Some(
            opts.keep_layouts
                .clone()
                .unwrap_or_else(|| kept.to_path_buf()),
        ),
        ..opts
    };
    let all = Source::Given {
        layouts,
        failures,
        io,
    };
    let read = read.as_deref().map(|t| (kept, t));
    crate::build::build_kept(&all, &opts, progress, read)
}

/// Splits the kept layouts into those whose files are as they were scanned (size, ETag, mtime:
/// what `verify` checks) and the failures of the others, which are left out as files: their
/// kept chunk tables may no longer point at their data. Local files are looked at one by one;
/// objects by listing each prefix once (one request per prefix, not one per object).
fn unchanged(old: Vec<SourceLayout>, io: &IoOptions) -> (Vec<SourceLayout>, Vec<ScanFailure>) {
    let listed = list_prefixes(&old, io);
    let drift: Vec<Option<String>> = old
        .par_iter()
        .map(|l| {
            let s = SourceRef::of(l);
            if !vzplan_io::is_url(&l.url) {
                return crate::verify::drift(&s, io);
            }
            match listed.get(&l.url) {
                Some(Ok(m)) => crate::verify::compare(&s, m),
                Some(Err(e)) => Some(e.clone()),
                None => Some(format!("{}: no longer listed", l.url)),
            }
        })
        .collect();
    let mut kept = Vec::with_capacity(old.len());
    let mut failed = Vec::new();
    for (l, d) in old.into_iter().zip(drift) {
        match d {
            None => kept.push(l),
            Some(why) => failed.push(ScanFailure {
                url: l.url,
                error: format!(
                    "changed since it was scanned ({why}); give it again to scan it anew"
                ),
            }),
        }
    }
    (kept, failed)
}

/// The metadata of every object under the prefixes of the kept objects, by URL; a prefix that
/// cannot be listed (an HTTP server, a failure) gives its objects a HEAD each instead.
fn list_prefixes(
    old: &[SourceLayout],
    io: &IoOptions,
) -> HashMap<String, Result<ObjectMeta, String>> {
    let prefixes: BTreeSet<&str> = old
        .iter()
        .filter(|l| vzplan_io::is_url(&l.url))
        .filter_map(|l| l.url.rsplit_once('/').map(|(p, _)| p))
        .collect();
    let mut out = HashMap::new();
    for p in prefixes {
        match vzplan_io::remote::list(&format!("{p}/*"), io) {
            Ok(list) => out.extend(list.into_iter().map(|x| (x.url, Ok(x.meta)))),
            Err(_) => {
                let here = old
                    .iter()
                    .filter(|l| l.url.rsplit_once('/').map(|(q, _)| q) == Some(p));
                for l in here {
                    let m = vzplan_io::remote::head(&l.url, io).map_err(|e| e.to_string());
                    out.insert(l.url.clone(), m);
                }
            }
        }
    }
    out
}

/// The kept layouts of a collection; a collection without them is refused, saying why.
fn read_kept(kept: &Path, io: &IoOptions) -> Result<(Vec<SourceLayout>, Vec<ScanFailure>), Error> {
    if !kept.is_file() {
        return Err(Error::NotAppendable {
            layouts: kept.display().to_string(),
        });
    }
    let input = crate::inputs::expand(&[kept.display().to_string()], io)?;
    crate::layouts::read(&input, io)
}
