//! Inputs: local paths and globs, object URLs (`s3://`, `gs://`, `az://`, `https://`) with glob
//! patterns listed on the store, file lists (`--files-from FILE|-`), shards of the list, and
//! layout files on local disk or object storage.

use clap::Args;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;
use vzplan_io::{CacheConfig, IoOptions, ObjectMeta};

/// How object storage is reached (flattened into every command that reads sources).
#[derive(Args, Clone, Debug)]
pub struct IoArgs {
    /// S3 endpoint URL (MinIO, Ceph, a test server), e.g. http://127.0.0.1:9000 (path-style).
    #[arg(long, value_name = "URL")]
    pub s3_endpoint: Option<String>,
    /// Unsigned requests, for public buckets (S3, GCS, Azure).
    #[arg(long, alias = "no-sign-request")]
    pub anon: bool,
    /// S3 region (default: AWS_REGION / AWS_DEFAULT_REGION, else us-east-1).
    #[arg(long)]
    pub region: Option<String>,
    /// Retries of a failed request (5xx, timeout, cut transfer), with exponential backoff.
    #[arg(long, default_value_t = 8)]
    pub retries: u32,
    /// Time limit of one request, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub io_timeout: f64,
    /// Size of the speculative first read of each file, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 512 * 1024)]
    pub first_read: u64,
    /// Block size of the read cache, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024)]
    pub block_size: u64,
}

impl IoArgs {
    pub fn options(&self) -> IoOptions {
        IoOptions {
            s3_endpoint: self.s3_endpoint.clone(),
            anon: self.anon,
            region: self.region.clone(),
            retries: self.retries,
            timeout: Duration::from_secs_f64(self.io_timeout.clamp(0.05, 86_400.0)),
            cache: CacheConfig {
                block_size: self.block_size.clamp(512, 64 << 20),
                first_read: self.first_read.min(256 << 20),
                ..CacheConfig::default()
            },
            ..IoOptions::default()
        }
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
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{0}: no such file, and no file matches it as a pattern")]
    NoMatch(String),
    #[error("{0}: bad pattern: {1}")]
    Pattern(String, String),
    #[error("{0}")]
    Io(#[from] vzplan_io::IoError),
    #[error("{0}: {1}")]
    Read(String, std::io::Error),
    #[error("{0}")]
    Write(String),
}

fn has_wildcard(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Expands paths, globs and URLs, in order; each pattern's matches sorted. A plain object URL is
/// taken as is (a missing object is then reported by name when it is scanned, and the batch goes
/// on); a URL pattern is listed on the store and must match something.
pub fn expand(patterns: &[String], io: &IoOptions) -> Result<Vec<Input>, InputError> {
    let mut out = Vec::new();
    for p in patterns {
        if vzplan_io::is_url(p) {
            if has_wildcard(p) {
                let listed = vzplan_io::remote::list(p, io)?;
                if listed.is_empty() {
                    return Err(InputError::NoMatch(p.clone()));
                }
                out.extend(listed.into_iter().map(|l| Input {
                    name: l.url.clone(),
                    url: l.url,
                    meta: Some(l.meta),
                }));
            } else {
                let url = vzplan_io::canonical_url(p)?;
                out.push(Input {
                    name: p.clone(),
                    url,
                    meta: None,
                });
            }
            continue;
        }
        let local = p.strip_prefix("file://").unwrap_or(p);
        if std::path::Path::new(local).exists() {
            out.push(local_input(local));
            continue;
        }
        let mut matches: Vec<PathBuf> = glob::glob(local)
            .map_err(|e| InputError::Pattern(local.to_string(), e.to_string()))?
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .collect();
        if matches.is_empty() {
            return Err(InputError::NoMatch(local.to_string()));
        }
        matches.sort();
        out.extend(
            matches
                .iter()
                .map(|m| local_input(&m.display().to_string())),
        );
    }
    Ok(out)
}

fn local_input(path: &str) -> Input {
    Input {
        name: path.to_string(),
        url: vzplan_io::file_url(std::path::Path::new(path)),
        meta: None,
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
pub fn write_bytes(dest: &str, data: Vec<u8>, io: &IoOptions) -> Result<(), InputError> {
    if vzplan_io::is_url(dest) {
        vzplan_io::remote::put_all(dest, data, io)?;
        return Ok(());
    }
    let path = std::path::Path::new(dest);
    vzplan_emit::write_atomic(path, |w| w.write_all(&data))
        .map_err(|e| InputError::Write(e.to_string()))
}

/// The shard `I/N` to scan: from `--shard I/N`, or from the environment variable `var` (an
/// array job's index; its value `I` with `count` = N, or `I/N` itself).
pub fn shard(
    explicit: Option<&str>,
    var: Option<&str>,
    count: Option<usize>,
) -> Result<Option<(usize, usize)>, String> {
    let spec = match (explicit, var) {
        (Some(_), Some(_)) => return Err("give --shard or --shard-from-env, not both".into()),
        (Some(s), None) => s.to_string(),
        (None, Some(v)) => {
            let val = std::env::var(v).map_err(|_| {
                format!("--shard-from-env {v}: the variable is not set (is this an array job?)")
            })?;
            let val = val.trim().to_string();
            if val.contains('/') {
                val
            } else {
                let n = count.ok_or_else(|| {
                    format!("--shard-from-env {v}: give the number of shards with --shard-count N")
                })?;
                format!("{val}/{n}")
            }
        }
        (None, None) => return Ok(None),
    };
    parse_shard(&spec).map(Some)
}

pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("a shard is I/N with 0 <= I < N, got {s:?}");
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
