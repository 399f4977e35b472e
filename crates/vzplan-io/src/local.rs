//! Local files, read with `pread` (one handle serves every thread), and what a local path is:
//! a regular file (its identity), or why it cannot be read as one; `file://` URLs of paths.

use crate::{
    check_range, rfc3339, CacheConfig, CachedReader, IoError, ObjectMeta, RangeRead, Stats,
};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A local file read with `pread`, so one handle serves many threads.
pub struct LocalFile {
    url: String,
    file: File,
    meta: ObjectMeta,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl LocalFile {
    pub fn open(path: impl AsRef<Path>) -> Result<Self, IoError> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = path.as_ref();
        let url = file_url(path);
        let refused = |why: String| IoError::Open {
            url: url.clone(),
            source: std::io::Error::other(why),
        };
        // Non-blocking, so that opening a FIFO returns at once (and is refused by its type below)
        // instead of waiting for a writer; reads of a regular file ignore the flag. One `fstat`
        // tells the type: no `stat` before opening.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|source| match not_regular(path) {
                // Told in its own words, of the same kind (a missing file stays missing).
                Some(why) => IoError::Open {
                    url: url.clone(),
                    source: std::io::Error::new(source.kind(), why),
                },
                None => IoError::Open {
                    url: url.clone(),
                    source,
                },
            })?;
        let md = file.metadata().map_err(|source| IoError::Open {
            url: url.clone(),
            source,
        })?;
        if let Some(why) = irregular(md.file_type()) {
            return Err(refused(why.to_string()));
        }
        let mtime = md.modified().ok().map(rfc3339);
        Ok(LocalFile {
            url,
            file,
            meta: ObjectMeta {
                size: md.len(),
                etag: None,
                mtime,
            },
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        })
    }
}

impl RangeRead for LocalFile {
    fn url(&self) -> &str {
        &self.url
    }
    fn meta(&self) -> &ObjectMeta {
        &self.meta
    }
    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>, IoError> {
        check_range(&self.url, self.meta.size, offset, len)?;
        let buf =
            pread_exact(&self.file, offset, len as usize).map_err(|source| IoError::Read {
                url: self.url.clone(),
                offset,
                len,
                source,
            })?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(len, Ordering::Relaxed);
        Ok(buf)
    }
    fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            // Each read waits for the one before: one round trip each.
            round_trips: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            ..Stats::default()
        }
    }
}

/// `len` bytes at `offset`, read into fresh memory without zeroing it first: zeroing a buffer
/// the kernel then overwrites is a pass over every byte read for nothing. A file that ends
/// early (truncated since it was opened) is an `UnexpectedEof`, as `read_exact_at` reports it.
fn pread_exact(file: &File, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    use std::os::fd::AsRawFd;
    let mut buf: Vec<u8> = Vec::with_capacity(len);
    while buf.len() < len {
        let at = offset + buf.len() as u64;
        let at = libc::off_t::try_from(at).map_err(std::io::Error::other)?;
        let spare = buf.spare_capacity_mut();
        // SAFETY: `spare` is writable memory of `spare.len()` bytes owned by `buf`; pread writes
        // at most that many and returns how many it wrote.
        let n =
            unsafe { libc::pread(file.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len(), at) };
        match n {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n if n < 0 => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            // SAFETY: pread initialised the first `n` bytes of the spare capacity.
            n => unsafe { buf.set_len(buf.len() + n as usize) },
        }
    }
    Ok(buf)
}

/// Why a local path cannot be read as a file, or None for a regular file (or a link to one):
/// a dangling link, a link loop, a directory, a FIFO, a socket, a device. Looked at without
/// opening the path.
pub fn not_regular(path: &Path) -> Option<String> {
    regular(path).err()
}

/// A file's identity on this machine: (device, inode).
pub type FileId = (u64, u64);

/// The identity of a local path that is a regular file (or a link to one), from one `stat`;
/// else why it cannot be read as a file (as [`not_regular`]). Looked at without opening it.
pub fn regular(path: &Path) -> Result<FileId, String> {
    use std::os::unix::fs::MetadataExt;
    let md = match std::fs::metadata(path) {
        Ok(md) => md,
        Err(e) => {
            let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            return Err(match (link, e.raw_os_error()) {
                (true, Some(40)) => "symbolic link loop".to_string(),
                (true, _) if e.kind() == std::io::ErrorKind::NotFound => {
                    "dangling symbolic link (its target does not exist)".to_string()
                }
                _ => e.to_string(),
            });
        }
    };
    match irregular(md.file_type()) {
        Some(why) => Err(why.to_string()),
        None => Ok((md.dev(), md.ino())),
    }
}

/// Why a file of type `t` cannot be read as a file, or None for a regular file.
fn irregular(t: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let what = if t.is_file() {
        return None;
    } else if t.is_dir() {
        "is a directory"
    } else if t.is_fifo() {
        "is a FIFO (named pipe), not a regular file"
    } else if t.is_socket() {
        "is a socket, not a regular file"
    } else if t.is_block_device() || t.is_char_device() {
        "is a device, not a regular file"
    } else {
        "is not a regular file"
    };
    Some(what)
}

/// `file:///abs/path` for a local path (made absolute against the current directory).
pub fn file_url(path: &Path) -> String {
    match path.to_str().filter(|s| is_plain_absolute(s)) {
        Some(s) => ["file://", s].concat(),
        None => walked_url(path),
    }
}

/// [`file_url`] by components: made absolute, `.` and `..` dropped, lossy UTF-8.
pub(crate) fn walked_url(path: &Path) -> String {
    let abs: PathBuf = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    // Normalise `.` and `..` without touching the filesystem.
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in abs.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(p) => parts.push(p),
            _ => {}
        }
    }
    let mut s = String::from("file://");
    for p in parts {
        s.push('/');
        s.push_str(&p.to_string_lossy());
    }
    if s == "file://" {
        s.push('/');
    }
    s
}

/// An absolute path that [`file_url`]'s normalising would leave as it is: no `.`, `..` or empty
/// component and no trailing `/` (the common case, taken without splitting it into components).
fn is_plain_absolute(s: &str) -> bool {
    cfg!(unix)
        && s.len() > 1
        && s.starts_with('/')
        && !s.ends_with('/')
        && !s.ends_with("/.")
        && !s.ends_with("/..")
        && !s.contains("//")
        && !s.contains("/./")
        && !s.contains("/../")
}

/// Opens a local path behind the local-file cache ([`CacheConfig::local`]).
pub fn open_local(path: impl AsRef<Path>) -> Result<CachedReader, IoError> {
    Ok(CachedReader::new(
        Arc::new(LocalFile::open(path)?),
        CacheConfig::local(),
    ))
}
