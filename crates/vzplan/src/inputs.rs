//! Inputs: local paths and globs, object URLs (`s3://`, `gs://`, `az://`, `https://`) with glob
//! patterns listed on the store, file lists (`--files-from FILE|-`), shards of the list, and
//! layout files on local disk or object storage.

use std::io::Read;
use std::path::{Path, PathBuf};
use vzplan_io::{FileId, IoOptions, ObjectMeta};

/// What to scan: paths, globs and object URLs, file lists (`--files-from`), and optionally one
/// shard of the expanded list.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub paths: Vec<String>,
    /// Files listing more inputs, one per line (`-`: standard input; a URL: object storage).
    pub files_from: Vec<String>,
    pub shard: Option<Shard>,
}

impl Inputs {
    /// These paths, globs or URLs.
    pub fn new<S: Into<String>>(paths: impl IntoIterator<Item = S>) -> Self {
        Inputs {
            paths: paths.into_iter().map(Into::into).collect(),
            ..Inputs::default()
        }
    }

    /// The files to scan, in order: every path and list entry expanded, then the shard taken.
    pub fn expand(&self, io: &IoOptions) -> Result<Vec<Input>, crate::Error> {
        let mut inputs = expand(&self.all_patterns(io)?, io)?;
        if let Some(s) = &self.shard {
            inputs = take_shard(inputs, s.resolve()?);
        }
        Ok(inputs)
    }

    /// Every path, pattern and URL given, with the entries of the file lists.
    pub(crate) fn all_patterns(&self, io: &IoOptions) -> Result<Vec<String>, crate::Error> {
        let mut all = self.paths.clone();
        for f in &self.files_from {
            all.extend(files_from(f, io)?);
        }
        if all.is_empty() {
            return Err(crate::Error::NoInputs);
        }
        Ok(all)
    }
}

/// One file to scan.
#[derive(Clone, Debug)]
pub struct Input {
    /// As given or listed: a local path or an object URL.
    pub name: String,
    /// Canonical URL (`file:///abs/path`, `s3://bucket/key`).
    pub url: String,
    /// Size and identity when a listing told them.
    pub meta: Option<ObjectMeta>,
    /// A local path that is not a regular file (a directory, FIFO, socket, device, dangling link,
    /// link loop), with the reason: left out without being opened.
    pub rejected: Option<String>,
    /// A local regular file's (device, inode), learned when it was classified: the output guard
    /// tells an input by it without another `stat`.
    pub id: Option<FileId>,
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{0}: no such file, and no file matches it as a pattern")]
    NoMatch(String),
    #[error("{0}: the listing stopped before its end")]
    ListingStopped(String),
    #[error("{0}: bad pattern: {1}")]
    Pattern(String, String),
    #[error("{0}")]
    Io(#[from] vzplan_io::IoError),
    #[error("{0}: {1}")]
    Read(String, std::io::Error),
    #[error(transparent)]
    Write(#[from] vzplan_emit::EmitError),
}

pub(crate) fn has_wildcard(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Expands paths, globs and URLs, in order; each pattern's matches sorted. A plain object URL is
/// taken as is (a missing object is then reported by name when it is scanned, and the batch goes
/// on); a URL pattern is listed on the store and must match something.
pub fn expand(patterns: &[String], io: &IoOptions) -> Result<Vec<Input>, InputError> {
    // Most patterns are plain paths (a shell's glob already expanded): one input each.
    let mut out = Vec::with_capacity(patterns.len());
    for p in patterns {
        if vzplan_io::is_url(p) {
            if has_wildcard(p) {
                let listed = vzplan_io::remote::list(p, io)?;
                if listed.is_empty() {
                    return Err(InputError::NoMatch(p.clone()));
                }
                out.extend(listed.into_iter().map(listed_input));
            } else {
                let url = vzplan_io::canonical_url(p)?;
                out.push(Input {
                    name: p.clone(),
                    url,
                    meta: None,
                    rejected: None,
                    id: None,
                });
            }
            continue;
        }
        let local = p.strip_prefix("file://").unwrap_or(p);
        // A path that exists as a directory entry (a dangling link or a loop too) is an input
        // as given; whether it can be read is decided without opening it. A regular file takes
        // one `stat`; only what is not one is looked at again.
        let class = vzplan_io::regular(Path::new(local));
        if class.is_ok() || std::fs::symlink_metadata(local).is_ok() {
            out.push(local_input(local, class));
            continue;
        }
        // A pattern's matches: directories are not inputs; anything else that is not a regular
        // file (a FIFO, a dangling link…) is left out by name.
        // One `stat` per regular file; only what is not one is asked whether it is a directory.
        let mut matches: Vec<(PathBuf, Result<FileId, String>)> = glob::glob(local)
            .map_err(|e| InputError::Pattern(local.to_string(), e.to_string()))?
            .filter_map(Result::ok)
            .map(|p| {
                let class = vzplan_io::regular(&p);
                (p, class)
            })
            .filter(|(p, class)| class.is_ok() || !p.is_dir())
            .collect();
        if matches.is_empty() {
            return Err(InputError::NoMatch(local.to_string()));
        }
        matches.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(
            matches
                .into_iter()
                .map(|(m, class)| local_input(&m.display().to_string(), class)),
        );
    }
    Ok(out)
}

/// An object a listing found. A key the store lists is named by the store, not by the user: one
/// that is not a normalised URL (a `..` segment, a control character) is left out by name.
pub(crate) fn listed_input(l: vzplan_io::remote::Listed) -> Input {
    Input {
        rejected: vzplan_io::check_source_url(&l.url).err().map(|e| match e {
            vzplan_io::IoError::Url { reason, .. } => reason,
            e => e.to_string(),
        }),
        name: l.url.clone(),
        url: l.url,
        meta: Some(l.meta),
        id: None,
    }
}

/// A local input: its identity, or why it cannot be read as a file ([`vzplan_io::regular`]).
fn local_input(path: &str, class: Result<FileId, String>) -> Input {
    let p = Path::new(path);
    let rejected = class.as_ref().err().cloned().map(|why| {
        if p.is_dir() {
            let glob = p.join("*.nc");
            format!("{why} — did you mean '{}'?", glob.display())
        } else {
            why
        }
    });
    Input {
        name: path.to_string(),
        url: vzplan_io::file_url(p),
        meta: None,
        rejected,
        id: class.ok(),
    }
}

/// The entries of a file list: one path, URL or pattern per line; blank lines and lines starting
/// with `#` are skipped. `-` reads standard input; a URL reads the list from object storage.
pub fn files_from(src: &str, io: &IoOptions) -> Result<Vec<String>, InputError> {
    let text = read_text(src, io)?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

/// A whole text file from a local path, `-` (stdin) or an object URL.
pub fn read_text(src: &str, io: &IoOptions) -> Result<String, InputError> {
    let bytes = if src == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| InputError::Read("<stdin>".into(), e))?;
        b
    } else if vzplan_io::is_url(src) {
        vzplan_io::remote::get_all(src, io)?
    } else {
        std::fs::read(src).map_err(|e| InputError::Read(src.to_string(), e))?
    };
    String::from_utf8(bytes).map_err(|e| {
        InputError::Read(
            src.to_string(),
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

/// Writes a whole file to a local path (atomically) or an object URL (one PUT).
pub fn write_bytes(dest: &str, data: Vec<u8>, io: &IoOptions) -> Result<(), crate::Error> {
    if vzplan_io::is_url(dest) {
        vzplan_io::remote::put_all(dest, data, io)?;
        return Ok(());
    }
    let path = std::path::Path::new(dest);
    crate::outputs::write::write_now(path, |w| w.write_all(&data))
}

/// Why a shard cannot be worked out.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("give --shard or --shard-from-env, not both")]
    Both,
    #[error("--shard-from-env {0}: the variable is not set (is this an array job?)")]
    Unset(String),
    #[error("--shard-from-env {0}: give the number of shards with --shard-count N")]
    NoCount(String),
    #[error("a shard is I/N with 0 <= I < N, got {0:?}")]
    Bad(String),
}

/// Which slice of the expanded list to take; worked out after expansion (an environment
/// variable is read then).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shard {
    /// Slice I of N.
    Slice(usize, usize),
    /// `I/N` as given (`--shard`).
    Spec(String),
    /// From an array job's index variable: its value is `I` (with `count` = N) or `I/N`.
    FromEnv { var: String, count: Option<usize> },
}

impl Shard {
    /// The shard of the command line: `--shard I/N`, or `--shard-from-env VAR` with an optional
    /// `--shard-count N`.
    pub fn from_args(
        explicit: Option<&str>,
        var: Option<&str>,
        count: Option<usize>,
    ) -> Result<Option<Shard>, ShardError> {
        Ok(match (explicit, var) {
            (Some(_), Some(_)) => return Err(ShardError::Both),
            (Some(s), None) => Some(Shard::Spec(s.to_string())),
            (None, Some(v)) => Some(Shard::FromEnv {
                var: v.to_string(),
                count,
            }),
            (None, None) => None,
        })
    }

    /// Slice `(I, N)`.
    pub fn resolve(&self) -> Result<(usize, usize), ShardError> {
        match self {
            Shard::Slice(i, n) => parse_shard(&format!("{i}/{n}")),
            Shard::Spec(s) => parse_shard(s),
            Shard::FromEnv { var, count } => {
                let val = std::env::var(var).map_err(|_| ShardError::Unset(var.clone()))?;
                let val = val.trim().to_string();
                if val.contains('/') {
                    parse_shard(&val)
                } else {
                    let n = count.ok_or_else(|| ShardError::NoCount(var.clone()))?;
                    parse_shard(&format!("{val}/{n}"))
                }
            }
        }
    }
}

pub fn parse_shard(s: &str) -> Result<(usize, usize), ShardError> {
    let bad = || ShardError::Bad(s.to_string());
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The I-th of N deterministic slices: every N-th input starting at I, in list order.
pub fn take_shard<T>(inputs: Vec<T>, (i, n): (usize, usize)) -> Vec<T> {
    inputs
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % n == i)
        .map(|(_, f)| f)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_list_once() {
        let all: Vec<usize> = (0..10).collect();
        let mut seen: Vec<usize> = (0..3)
            .flat_map(|i| take_shard(all.clone(), (i, 3)))
            .collect();
        seen.sort();
        assert_eq!(seen, all);
        assert!(parse_shard("3/3").is_err());
        assert!(parse_shard("x").is_err());
        assert_eq!(parse_shard(" 1 / 4 ").unwrap(), (1, 4));
    }

    fn shard(
        explicit: Option<&str>,
        var: Option<&str>,
        count: Option<usize>,
    ) -> Result<Option<(usize, usize)>, ShardError> {
        Shard::from_args(explicit, var, count)?
            .map(|s| s.resolve())
            .transpose()
    }

    #[test]
    fn shard_from_env() {
        std::env::set_var("VZPLAN_TEST_SHARD_A", "2");
        std::env::set_var("VZPLAN_TEST_SHARD_B", "1/5");
        assert_eq!(
            shard(None, Some("VZPLAN_TEST_SHARD_A"), Some(4)).unwrap(),
            Some((2, 4))
        );
        assert!(shard(None, Some("VZPLAN_TEST_SHARD_A"), None).is_err());
        assert_eq!(
            shard(None, Some("VZPLAN_TEST_SHARD_B"), None).unwrap(),
            Some((1, 5))
        );
        assert!(shard(None, Some("VZPLAN_TEST_SHARD_UNSET"), Some(2)).is_err());
        assert!(shard(Some("0/2"), Some("VZPLAN_TEST_SHARD_A"), None).is_err());
        assert_eq!(shard(None, None, None).unwrap(), None);
    }
}
