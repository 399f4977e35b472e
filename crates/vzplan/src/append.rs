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

use crate::build::{gather, BuildOptions, BuildReport, Continue, Source};
use crate::kept::{identify, legacy_token, Header};
use crate::verify::Drift;
use crate::{Error, Output, ProgressSink};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use vzplan_core::SourceLayout;
use vzplan_io::{IoOptions, ObjectMeta};
use vzplan_plan::{ScanFailure, SourceRef};

pub use crate::kept::{default_layouts, default_layouts_for_repo};

/// Appends the files of `new` to the collection whose layouts were kept at `kept`, writing
/// `opts`' outputs (and the layouts again, at `opts.keep_layouts` or else `kept`). With no new
/// files it rewrites the collection from its kept layouts (finishing an append that was killed).
pub fn append(
    kept: &Path,
    new: &Source,
    opts: BuildOptions,
    progress: &dyn ProgressSink,
) -> Result<BuildReport, Error> {
    let io = new.io().clone();
    let opts = BuildOptions {
        keep_layouts: Some(
            opts.keep_layouts
                .clone()
                .unwrap_or_else(|| kept.to_path_buf()),
        ),
        ..opts
    };
    // Locked before the kept layouts are read, until the outputs are in place: a second append
    // waits, then reads what this one wrote.
    let mut targets: Vec<(&'static str, std::path::PathBuf)> =
        opts.outputs.iter().flat_map(|o| o.targets()).collect();
    targets.extend(opts.keep_layouts.iter().map(|p| ("layouts", p.clone())));
    let lock = crate::build::lock(&targets, progress)?;
    let (old, mut failures) = read_kept(kept, &io)?;
    check_named(kept, &old, &opts.sources_under)?;
    let (parent, expect) = continuity(kept, &opts.outputs)?;
    let (l, f) = if has_inputs(new) {
        gather(new, progress)?
    } else {
        (Vec::new(), Vec::new())
    };
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
    let all = Source::Given {
        layouts,
        failures,
        io,
    };
    let cont = Continue {
        lock,
        parent,
        expect,
    };
    crate::build::build_kept(&all, &opts, progress, cont)
}

/// Whether `new` names any file (an append without files only rewrites the collection).
fn has_inputs(new: &Source) -> bool {
    match new {
        Source::Scan { inputs, .. } => !inputs.paths.is_empty() || !inputs.files_from.is_empty(),
        Source::Layouts { patterns, .. } => !patterns.is_empty(),
        Source::Given {
            layouts, failures, ..
        } => !layouts.is_empty() || !failures.is_empty(),
    }
}

/// For an output with a history of its own (an Icechunk branch): the kept layouts must be those
/// its head was committed with (by their SHA-256), or one append ahead of it (their header's
/// `parent` is the head's: a run killed between renaming the layouts and committing). Returns
/// the new layouts' `parent` and the record the head must still carry at the commit.
fn continuity(
    kept: &Path,
    outputs: &[Box<dyn Output>],
) -> Result<(Option<String>, Option<String>), Error> {
    for o in outputs {
        let Some(record) = o.layouts_record()? else {
            continue;
        };
        let read_err = |source| Error::LayoutRead {
            file: kept.display().to_string(),
            source,
        };
        let (hash, Header { parent, .. }) = identify(kept).map_err(read_err)?;
        let matches = |r: &String| {
            *r == hash || parent.as_ref() == Some(r) || legacy_token(kept).ok().as_ref() == Some(r)
        };
        return match record.filter(matches) {
            Some(r) => Ok((Some(r.clone()), Some(r))),
            None => Err(Error::NotTheHead {
                layouts: kept.display().to_string(),
            }),
        };
    }
    Ok((None, None))
}

/// Kept objects are asked about (listed, or a HEAD each) only under named prefixes
/// ([`crate::named`]); local files are `stat`ed, never read.
fn check_named(kept: &Path, old: &[SourceLayout], under: &[String]) -> Result<(), Error> {
    let named = crate::Named::new([], under)?;
    let prefixes: BTreeSet<String> = old
        .iter()
        .filter(|l| vzplan_io::is_url(&l.url) && !named.allows(&l.url))
        .map(|l| crate::named::parent(&l.url))
        .collect();
    if prefixes.is_empty() {
        return Ok(());
    }
    Err(Error::KeptNotNamed {
        layouts: kept.display().to_string(),
        prefixes: prefixes
            .into_iter()
            .map(|p| vzplan_io::redact(&p))
            .collect(),
    })
}

/// Splits the kept layouts into those whose files are as they were scanned (size, ETag, mtime:
/// what `verify` checks) and the failures of the others, which are left out as files: their
/// kept chunk tables may no longer point at their data. Local files are looked at one by one;
/// objects by listing each prefix once (one request per prefix, not one per object).
fn unchanged(old: Vec<SourceLayout>, io: &IoOptions) -> (Vec<SourceLayout>, Vec<ScanFailure>) {
    let listed = list_prefixes(&old, io);
    let drift: Vec<Option<Drift>> = old
        .par_iter()
        .map(|l| {
            let s = SourceRef::of(l);
            if !vzplan_io::is_url(&l.url) {
                return crate::verify::drift(&s, io);
            }
            match listed.get(&l.url) {
                Some(Ok(m)) => crate::verify::compare(&s, m).map(Drift::from),
                Some(Err(e)) => Some(Drift {
                    message: e.0.clone(),
                    unreachable: e.1,
                }),
                None => Some(format!("{}: no longer listed", l.url).into()),
            }
        })
        .collect();
    let mut kept = Vec::with_capacity(old.len());
    let mut failed = Vec::new();
    for (l, d) in old.into_iter().zip(drift) {
        match d {
            None => kept.push(l),
            Some(d) if d.unreachable => failed.push(ScanFailure {
                url: l.url,
                error: d.message,
                unreachable: true,
            }),
            Some(d) => failed.push(ScanFailure {
                url: l.url,
                error: format!(
                    "changed since it was scanned ({}); give it again to scan it anew",
                    d.message
                ),
                unreachable: false,
            }),
        }
    }
    (kept, failed)
}

/// An object's metadata, or why it could not be had (and whether that was an outage).
type Looked = Result<ObjectMeta, (String, bool)>;

/// The metadata of every object under the prefixes of the kept objects, by URL; a prefix that
/// cannot be listed (an HTTP server, a failure) gives its objects a HEAD each instead.
fn list_prefixes(old: &[SourceLayout], io: &IoOptions) -> HashMap<String, Looked> {
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
                    let m = vzplan_io::remote::head(&l.url, io)
                        .map_err(|e| (e.to_string(), e.is_unreachable()));
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
