//! Writing outputs without destroying anything.
//!
//! - Before anything is written, every target is checked ([`guard`]): never over an input, never
//!   over an existing file that is not a vzplan output (refs.json, zarr.json, layouts, HTML: told
//!   by its first bytes) unless forced, never two outputs onto one path.
//! - A symbolic link is written through (its target is replaced, the link stays); `-` is standard
//!   output; a path that is not a regular file (a device, a FIFO) is written directly.
//! - A regular file is written to a temp file beside its target, `.NAME.vzplan-tmp-PID-RAND`,
//!   created with the umask's mode (0666 & !umask), and renamed into place only when every output
//!   of the run is written ([`commit`]); a temp file left by a killed run (its PID gone) is removed
//!   by the next run writing beside it.

use super::commit::names;
pub use super::commit::{commit, commit_now, Commit, Staged};
use crate::Error;
use std::collections::HashSet;
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use vzplan_io::FileId;

/// Why an output cannot be written there.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{path}: is one of the inputs; refusing to write over it")]
    IsInput { path: String },
    #[error(
        "{path}: exists and is not a vzplan output (it starts with \"{head}\"); refusing to write \
         over it (pass --force to replace it)"
    )]
    NotOurs { path: String, head: String },
    #[error("{path}: given for two outputs ({first} and {second})")]
    Twice {
        path: String,
        first: &'static str,
        second: &'static str,
    },
    #[error("{path}: is a directory")]
    Directory { path: String },
    #[error(
        "{path}: ends with '/', so it names a directory, not an output file; give a file name"
    )]
    NotAFile { path: String },
    #[error("{path}: {source}")]
    Io { path: String, source: io::Error },
}

/// Where bytes for a path end up.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Dest {
    Stdout,
    /// Not a regular file (a device, a FIFO): written directly.
    Direct(PathBuf),
    /// A regular file, or none yet: replaced by rename (symbolic links followed).
    Replace(PathBuf),
}

fn io_err(path: &Path) -> impl Fn(io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The final path behind `path`: symbolic links followed, also to a target that does not exist
/// yet.
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p)?;
                p = match (t.is_absolute(), p.parent()) {
                    (false, Some(d)) => d.join(t),
                    _ => t,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

pub(crate) fn dest(path: &Path) -> Result<Dest, OutputError> {
    if path.as_os_str() == "-" {
        return Ok(Dest::Stdout);
    }
    // `-o newdir/` names a directory, never a file called `newdir`.
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(OutputError::NotAFile {
            path: path.display().to_string(),
        });
    }
    // The kernel follows the links of what exists (also /proc's magic links behind /dev/stdout,
    // whose text is no path); a link to a file not created yet is followed by hand.
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(OutputError::Directory {
            path: path.display().to_string(),
        }),
        Ok(m) if !m.is_file() => Ok(Dest::Direct(path.to_path_buf())),
        Ok(_) => Ok(Dest::Replace(
            std::fs::canonicalize(path).map_err(io_err(path))?,
        )),
        Err(_) => Ok(Dest::Replace(absolute(
            &follow_links(path).map_err(io_err(path))?,
        ))),
    }
}

/// A path not created yet, with its directory resolved (so that `r.json` and `./r.json` are
/// told to be one path); as given when the directory does not exist either.
fn absolute(p: &Path) -> PathBuf {
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(dir), p.file_name()) {
        (Ok(d), Some(name)) => d.join(name),
        _ => p.to_path_buf(),
    }
}

/// How a kept layouts file starts ([`crate::kept`]).
pub(crate) const LAYOUTS_HEADER: &[u8] = b"{\"vzplan_layouts\":";

/// Whether these first bytes are those of a file vzplan writes.
fn is_vzplan_output(head: &[u8]) -> bool {
    const PREFIXES: [&[u8]; 6] = [
        b"{\"version\":1,\"templates\":{",
        b"{\n  \"zarr_format\": 3,\n  \"node_type\": \"group\",",
        b"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>",
        b"{\"url\":\"",
        b"{\"error\":\"",
        LAYOUTS_HEADER,
    ];
    head.is_empty() || PREFIXES.iter().any(|p| head.starts_with(p))
}

fn head_of(path: &Path) -> io::Result<Vec<u8>> {
    use std::io::Read;
    // As long as the longest prefix of `is_vzplan_output` (the HTML page's is 75 bytes).
    let mut buf = Vec::with_capacity(128);
    std::fs::File::open(path)?.take(128).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Checks every output target before anything is written. `targets`: what each is ("refs.json")
/// and its path; `inputs`: the local files read (sources and layout files), each with its
/// (device, inode) when already known this run (from classifying the inputs), else `stat`ed here.
pub fn guard(
    targets: &[(&'static str, PathBuf)],
    force: bool,
    inputs: &[(PathBuf, Option<FileId>)],
) -> Result<(), OutputError> {
    let mut seen: Vec<(&'static str, &PathBuf, Dest)> = Vec::new();
    let mut existing: HashSet<(u64, u64)> = HashSet::new();
    let mut not_ours = None;
    for (kind, path) in targets {
        let d = dest(path)?;
        if let Some((first, _, _)) = seen.iter().find(|(_, _, o)| *o == d && d != Dest::Stdout) {
            return Err(OutputError::Twice {
                path: path.display().to_string(),
                first,
                second: kind,
            });
        }
        if let Dest::Replace(t) = &d {
            if let Ok(m) = std::fs::metadata(t) {
                existing.insert((m.dev(), m.ino()));
                let head = head_of(t).map_err(io_err(path))?;
                if !force && !is_vzplan_output(&head) && not_ours.is_none() {
                    not_ours = Some(OutputError::NotOurs {
                        path: path.display().to_string(),
                        head: head
                            .iter()
                            .take(8)
                            .flat_map(|b| std::ascii::escape_default(*b))
                            .map(char::from)
                            .collect(),
                    });
                }
            }
        }
        seen.push((kind, path, d));
    }
    if existing.is_empty() {
        return Ok(());
    }
    // Being an input is told first: it is the graver slip, and --force does not lift it.
    for (i, known) in inputs {
        let id = known.or_else(|| std::fs::metadata(i).ok().map(|m| (m.dev(), m.ino())));
        let Some(id) = id.filter(|id| existing.contains(id)) else {
            continue;
        };
        let path = seen
            .iter()
            .find_map(|(_, p, d)| matches!(d, Dest::Replace(t) if same_file(t, id)).then_some(*p))
            .unwrap_or(i);
        return Err(OutputError::IsInput {
            path: path.display().to_string(),
        });
    }
    not_ours.map_or(Ok(()), Err)
}

fn same_file(p: &Path, id: FileId) -> bool {
    std::fs::metadata(p).is_ok_and(|n| (n.dev(), n.ino()) == id)
}

/// Local paths read, their identities not known yet (to be `stat`ed by [`guard`]).
pub fn unknown(paths: impl IntoIterator<Item = PathBuf>) -> Vec<(PathBuf, Option<FileId>)> {
    paths.into_iter().map(|p| (p, None)).collect()
}

/// The local path of an input URL (`file:///abs` or a plain path); None for object storage.
pub fn local_path(url: &str) -> Option<PathBuf> {
    if vzplan_io::is_url(url) {
        return None;
    }
    Some(PathBuf::from(url.strip_prefix("file://").unwrap_or(url)))
}

/// Writes `path`'s bytes: to a temp file beside a regular file's target (returned staged), or
/// directly to standard output or a device/FIFO (nothing left to commit).
pub fn stage(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Staged, Error> {
    let err = io_err(path);
    match dest(path)? {
        Dest::Stdout => {
            direct(&mut io::stdout().lock(), f).map_err(&err)?;
            Ok(Staged {
                tmp: None,
                target: path.to_path_buf(),
            })
        }
        Dest::Direct(t) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .open(&t)
                .map_err(&err)?;
            direct(&mut file, f).map_err(&err)?;
            Ok(Staged {
                tmp: None,
                target: t,
            })
        }
        Dest::Replace(target) => {
            names::remove_stale(&target);
            let tmp = names::unique(&target, names::TMP);
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .open(&tmp)
                .map_err(&err)?;
            // From here on, dropping `staged` removes the temp file.
            let staged = Staged {
                tmp: Some(tmp),
                target,
            };
            let mut bw = io::BufWriter::with_capacity(BUFFER, &file);
            f(&mut bw).map_err(&err)?;
            bw.flush().map_err(&err)?;
            drop(bw);
            file.sync_all().map_err(&err)?;
            Ok(staged)
        }
    }
}

/// Bytes an output is written in: large enough that a write call costs little beside its copy,
/// small enough that a refs.json of hundreds of KB is not laid out whole in fresh pages (at
/// 1 MiB, the 700 KB of a 1,000-file build were 170 page faults).
const BUFFER: usize = 256 * 1024;

fn direct(w: &mut dyn Write, f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut bw = io::BufWriter::with_capacity(BUFFER, w);
    f(&mut bw)?;
    bw.flush()
}

/// Stages and commits one output.
pub fn write_now(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), Error> {
    commit_now(vec![stage(path, f)?])
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_tell_vzplan_outputs() {
        assert!(is_vzplan_output(b"{\"version\":1,\"templates\":{\"u0\""));
        assert!(is_vzplan_output(b""));
        assert!(!is_vzplan_output(b"\x89HDF\r\n\x1a\n"));
        assert!(!is_vzplan_output(b"CDF\x01"));
        assert!(!is_vzplan_output(b"{\"version\":1}"));
    }

    #[test]
    fn an_input_is_told_by_its_known_identity_else_by_a_stat() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("a.nc");
        std::fs::write(&src, b"CDF\x01").unwrap();
        let out = dir.path().join("refs.json");
        std::fs::hard_link(&src, &out).unwrap();
        let m = std::fs::metadata(&src).unwrap();
        let targets = [("refs.json", out.clone())];
        let is_input = |inputs: &[(PathBuf, Option<FileId>)]| {
            matches!(guard(&targets, true, inputs), Err(OutputError::IsInput { path })
                if path == out.display().to_string())
        };
        assert!(is_input(&[(src.clone(), None)]));
        // A known identity is taken as is: no `stat` of the path.
        assert!(is_input(&[(
            dir.path().join("gone"),
            Some((m.dev(), m.ino()))
        )]));
        assert!(!is_input(&[(src.clone(), Some((m.dev(), m.ino() + 1)))]));
        assert!(guard(&targets, true, &unknown([dir.path().join("gone")])).is_ok());
    }
}
