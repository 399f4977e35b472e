//! Range reads for the format readers.
//!
//! One small trait sits at the centre, [`RangeRead`]: the size of an object and reads of byte ranges
//! out of it, counted. Readers are synchronous: a scan runs one file per worker thread, and an
//! object-store backend blocks its worker on the request, so parsers stay plain recursive code.
//! [`CachedReader`] wraps any source with an aligned block cache, a speculative first read sized to
//! where metadata usually lives, and coalescing of batched reads ([`RangeRead::read_many`]), which is
//! what keeps a netCDF-4 file at a handful of requests on object storage. Local files get a small
//! cache instead ([`CacheConfig::local`]: 4 KiB blocks, a 16 KiB first read, files of up to 64 KiB
//! in one read, batches read as asked): a `pread` costs a
//! system call, not a round trip, so reading 640 KiB to save two of them is a loss.
//!
//! Backends: [`LocalFile`] (`pread`), [`ObjectReader`] (S3, GCS, Azure, HTTP through `object_store`,
//! with retries, timeouts and request counting; see [`remote`]) and [`MemObject`]. [`open`] picks
//! one from a path or URL and puts the cache of [`IoOptions::cache`] in front of it.
//!
//! Every read is checked against the object's size before anything is allocated, so a parser that
//! follows a corrupt length gets [`IoError::PastEnd`] instead of a huge allocation.

mod cache;
mod stamp;
pub(crate) use stamp::{rfc3339, rfc3339_secs};
mod coalesce;
pub mod remote;
mod retry;
mod secret;
mod settings;
mod source_url;

pub use cache::{CacheConfig, CachedReader};
pub use remote::{canonical_url, is_url, IoOptions, Listed, ObjectReader};
pub use secret::{has_secret, redact, redact_text, REDACTED};
pub use settings::{
    IoSettings, SettingError, DEFAULT_BLOCK_SIZE, DEFAULT_FIRST_READ, DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_SECS,
};
pub use source_url::{check_source_url, special_host, valid_etag, valid_mtime};

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum IoError {
    #[error("{url}: cannot open: {source}")]
    Open {
        url: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{url}: read of {len} bytes at offset {offset} failed: {source}")]
    Read {
        url: String,
        offset: u64,
        len: u64,
        #[source]
        source: std::io::Error,
    },
    #[error("{url}: read of {len} bytes at offset {offset} runs past the end of the file ({size} bytes)")]
    PastEnd {
        url: String,
        offset: u64,
        len: u64,
        size: u64,
    },
    /// A URL that cannot be used (scheme, credentials or query string in it, bad key).
    #[error("{url}: {reason}")]
    Url { url: String, reason: String },
    /// An object-store request that failed for good: not found, access denied.
    #[error("{url}: {reason}")]
    Remote { url: String, reason: String },
    /// The store could not be reached: every attempt of a request failed the way an outage
    /// fails (5xx, reset connections, timeouts, bodies cut short). Not a fact about the object.
    #[error("{url}: unreachable: {reason}")]
    Unreachable { url: String, reason: String },
}

impl IoError {
    /// Whether this is an outage rather than something wrong with the object.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, IoError::Unreachable { .. })
    }
}

/// Requests made and bytes fetched from the underlying store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Every attempt, failed ones included.
    pub requests: u64,
    pub bytes: u64,
    /// Failed attempts that were retried (object storage only).
    pub retried: u64,
    /// Requests given up after every retry failed as an outage fails ([`IoError::Unreachable`]).
    pub unreachable: u64,
}

/// Identity of an object, for drift detection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectMeta {
    pub size: u64,
    pub etag: Option<String>,
    /// RFC 3339, UTC.
    pub mtime: Option<String>,
}

/// Byte-range access to one object (a local file, an S3 object, …).
pub trait RangeRead: Send + Sync {
    /// The canonical URL, used in references and messages.
    fn url(&self) -> &str;
    /// Size and identity.
    fn meta(&self) -> &ObjectMeta;
    fn size(&self) -> u64 {
        self.meta().size
    }
    /// Reads exactly `len` bytes at `offset`; errors if the range passes the end.
    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>, IoError>;
    /// [`RangeRead::read_at`] as shared bytes: a cache hands out a slice of the buffer it holds
    /// instead of a copy.
    fn read_bytes(&self, offset: u64, len: u64) -> Result<bytes::Bytes, IoError> {
        self.read_at(offset, len).map(bytes::Bytes::from)
    }
    /// Reads several ranges; backends may issue them concurrently or coalesced.
    fn read_many(&self, ranges: &[(u64, u64)]) -> Result<Vec<Vec<u8>>, IoError> {
        ranges.iter().map(|&(o, l)| self.read_at(o, l)).collect()
    }
    /// [`RangeRead::read_many`] as shared bytes: views of a cached buffer where the reader has
    /// one (no copy of each range), else the copies themselves, read the same way.
    fn read_many_bytes(&self, ranges: &[(u64, u64)]) -> Result<Vec<bytes::Bytes>, IoError> {
        Ok(into_bytes(self.read_many(ranges)?))
    }
    /// A hint that `ranges` will be read soon, so that a cache fetches them in one batch (one
    /// round trip on object storage). Readers without a cache ignore it, so nothing is read twice.
    fn prefetch(&self, _ranges: &[(u64, u64)]) {}
    /// Whether [`RangeRead::prefetch`] does anything here: a reader can skip working out what to
    /// ask for (a small local file read whole needs no hints).
    fn prefetches(&self) -> bool {
        true
    }
    /// Requests and bytes so far.
    fn stats(&self) -> Stats;
}

/// Checks a range against an object's size (before any allocation).
pub fn check_range(url: &str, size: u64, offset: u64, len: u64) -> Result<(), IoError> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        _ => Err(IoError::PastEnd {
            url: url.to_string(),
            offset,
            len,
            size,
        }),
    }
}

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
                Some(why) => refused(why),
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

/// Buffers read as copies, as shared bytes ([`RangeRead::read_many_bytes`] without a view to give).
pub(crate) fn into_bytes(bufs: Vec<Vec<u8>>) -> Vec<bytes::Bytes> {
    bufs.into_iter().map(bytes::Bytes::from).collect()
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
fn walked_url(path: &Path) -> String {
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

/// Opens a local path, a `file://` URL or an object-store URL (`s3://`, `gs://`, `az://`,
/// `https://`) behind the block cache of `opts` ([`IoOptions::cache`] for object storage,
/// [`IoOptions::local_cache`] for local files).
pub fn open(url_or_path: &str, opts: &IoOptions) -> Result<Arc<dyn RangeRead>, IoError> {
    open_with_meta(url_or_path, None, opts)
}

/// [`open`] with the size and identity already known (from a listing), which saves the request
/// that would find them.
pub fn open_with_meta(
    url_or_path: &str,
    known: Option<ObjectMeta>,
    opts: &IoOptions,
) -> Result<Arc<dyn RangeRead>, IoError> {
    let (inner, cfg): (Arc<dyn RangeRead>, _) = if is_url(url_or_path) {
        let r = ObjectReader::open(url_or_path, known, opts)?;
        (Arc::new(r), opts.cache)
    } else {
        let p = url_or_path.strip_prefix("file://").unwrap_or(url_or_path);
        (Arc::new(LocalFile::open(p)?), opts.local_cache)
    };
    Ok(Arc::new(CachedReader::new(inner, cfg)))
}

/// An in-memory object: for tests of parsers on corrupt bytes and for inline data.
pub struct MemObject {
    url: String,
    data: Vec<u8>,
    meta: ObjectMeta,
    requests: AtomicU64,
}

impl MemObject {
    pub fn new(url: impl Into<String>, data: Vec<u8>) -> Self {
        let meta = ObjectMeta {
            size: data.len() as u64,
            ..Default::default()
        };
        MemObject {
            url: url.into(),
            data,
            meta,
            requests: AtomicU64::new(0),
        }
    }
}

impl RangeRead for MemObject {
    fn url(&self) -> &str {
        &self.url
    }
    fn meta(&self) -> &ObjectMeta {
        &self.meta
    }
    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>, IoError> {
        check_range(&self.url, self.meta.size, offset, len)?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        Ok(self.data[offset as usize..(offset + len) as usize].to_vec())
    }
    fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            ..Stats::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(block_size: u64, first_read: u64, max_bytes: u64) -> CacheConfig {
        CacheConfig {
            block_size,
            first_read,
            whole_file: 0,
            max_bytes,
            direct_batches: false,
        }
    }

    fn mem(n: usize) -> Arc<dyn RangeRead> {
        Arc::new(MemObject::new(
            "mem://x",
            (0..n).map(|i| (i % 251) as u8).collect(),
        ))
    }

    /// Opening tells the type from the open file (no `stat` before): a FIFO is refused at once
    /// rather than blocking for a writer, a directory by name.
    #[test]
    fn opening_refuses_what_is_not_a_regular_file_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("p.nc");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()));
        let err = LocalFile::open(&fifo).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("FIFO")),
            "{err:?}"
        );
        let err = LocalFile::open(d.path()).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("is a directory")),
            "{err:?}"
        );
        let err = LocalFile::open(d.path().join("missing.nc")).err();
        assert!(err.is_some());
        let file = d.path().join("f.nc");
        std::fs::write(&file, b"abc").unwrap();
        let f = LocalFile::open(&file).unwrap();
        assert_eq!(f.read_at(1, 2).unwrap(), b"bc");
    }

    /// `read_bytes` returns what `read_at` does wherever the range lies: inside one read's buffer
    /// (shared), across two reads' buffers, in a buffer over the sharing limit (copied).
    #[test]
    fn shared_reads_equal_copied_reads() {
        let raw = mem(3 << 20);
        let c = CachedReader::new(raw.clone(), cfg(1000, 4000, 1 << 30));
        c.prefetch(&[(10_000, 5000), (15_000, 3000)]);
        c.prefetch(&[(100_000, 1_500_000)]);
        for (o, l) in [
            (0, 10),
            (10, 3990),
            (999, 2),
            (10_500, 6000),
            (3_990, 20),
            (17_999, 1),
            (100_000, 10),
            (1_000_000, 3000),
            (2_000_000, 0),
        ] {
            let want = raw.read_at(o, l).unwrap();
            assert_eq!(c.read_bytes(o, l).unwrap(), want, "{o} {l}");
        }
        assert!(c.read_bytes(3 << 20, 1).is_err());
        // Shared: two reads inside one buffer are views of the same memory.
        let (a, b) = (c.read_bytes(0, 10).unwrap(), c.read_bytes(5, 5).unwrap());
        assert_eq!(a.as_ptr().wrapping_add(5), b.as_ptr());
        let (a, b) = (
            c.read_bytes(100_000, 10).unwrap(),
            c.read_bytes(100_005, 5).unwrap(),
        );
        assert_ne!(
            a.as_ptr().wrapping_add(5),
            b.as_ptr(),
            "over the limit: copies"
        );
    }

    /// A local file of up to 64 KiB costs one read whatever the parser asks for; a larger one its
    /// 16 KiB first read, then blocks. A file cut short after it was opened is an error, not
    /// short or uninitialised bytes.
    #[test]
    fn small_local_files_are_read_whole_and_a_shrunk_file_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
        let (small, large) = (d.path().join("s.nc"), d.path().join("l.nc"));
        std::fs::write(&small, &data[..40_000]).unwrap();
        std::fs::write(&large, &data).unwrap();
        let s = open_local(&small).unwrap();
        assert_eq!(s.read_at(0, 8).unwrap(), data[..8]);
        assert_eq!(s.read_at(39_990, 10).unwrap(), data[39_990..40_000]);
        assert_eq!(s.stats().requests, 1);
        let l = open_local(&large).unwrap();
        assert_eq!(l.read_at(0, 8).unwrap(), data[..8]);
        assert_eq!(l.read_at(90_000, 10).unwrap(), data[90_000..90_010]);
        assert_eq!(l.stats().requests, 2);
        let f = LocalFile::open(&large).unwrap();
        std::fs::write(&large, &data[..50_000]).unwrap();
        assert_eq!(f.read_at(49_000, 1000).unwrap(), data[49_000..50_000]);
        let err = f.read_at(49_000, 2000).unwrap_err().to_string();
        assert!(err.contains("end of file"), "{err}");
    }

    /// A prefetch fetches its ranges in one batch; the reads that follow are cache hits, and a
    /// range past the end is ignored rather than an error.
    #[test]
    fn prefetched_ranges_are_read_from_the_cache() {
        let raw = mem(300_000);
        let cfg = cfg(1000, 4000, 1 << 30);
        let c = CachedReader::new(raw.clone(), cfg);
        c.read_at(0, 10).unwrap();
        let ranges = [(10_000, 50), (150_000, 1500), (290_000, 9)];
        c.prefetch(&ranges);
        c.prefetch(&[(299_999, 2)]);
        let fetched = raw.stats().requests;
        assert_eq!(fetched, 1 + 3, "the first read, then one request per range");
        for (o, l) in ranges {
            assert_eq!(c.read_at(o, l).unwrap(), raw.read_at(o, l).unwrap());
        }
        assert_eq!(
            raw.stats().requests,
            fetched + 3,
            "only the comparison reads"
        );
        // Without a cache, a prefetch reads nothing.
        raw.prefetch(&ranges);
        assert_eq!(raw.stats().requests, fetched + 3);
    }

    /// A file within `whole_file` is one request, whatever is read after it and however: copies,
    /// shared views of that one buffer, batches and hints, with past-the-end reads refused as
    /// before. A file one byte larger goes through the blocks.
    #[test]
    fn a_small_file_is_read_whole_once_and_sliced() {
        let raw = mem(10_000);
        let whole = CacheConfig {
            whole_file: 10_000,
            ..cfg(1000, 4000, 1 << 30)
        };
        let c = CachedReader::new(raw.clone(), whole);
        c.prefetch(&[(9000, 500)]);
        let a = c.read_bytes(100, 50).unwrap();
        let b = c.read_bytes(150, 9850).unwrap();
        assert_eq!(
            a.as_ptr().wrapping_add(50),
            b.as_ptr(),
            "views of one buffer"
        );
        assert_eq!(c.read_at(9990, 10).unwrap(), raw.read_at(9990, 10).unwrap());
        let got = c.read_many(&[(0, 10), (5000, 0), (2500, 3000)]).unwrap();
        let want = [(0, 10), (5000, 0), (2500, 3000)].map(|(o, l)| raw.read_at(o, l).unwrap());
        assert_eq!(got, want);
        let shared = c
            .read_many_bytes(&[(0, 10), (5000, 0), (2500, 3000)])
            .unwrap();
        assert_eq!(shared, want);
        assert_eq!(
            shared[2].as_ptr(),
            a.as_ptr().wrapping_add(2400),
            "views, not copies"
        );
        assert_eq!(a, raw.read_at(100, 50).unwrap());
        let requests = raw.stats().requests;
        assert!(c.read_at(9990, 11).is_err());
        assert!(c.read_bytes(u64::MAX, 2).is_err());
        assert!(c.read_many(&[(0, 10), (10_000, 1)]).is_err());
        assert!(c.read_many_bytes(&[(0, 10), (10_000, 1)]).is_err());
        assert_eq!(
            requests,
            1 + 4 + 1,
            "one read of the cache, the rest comparisons"
        );
        assert!(!c.prefetches(), "hints are for the blocks");
        let c = CachedReader::new(mem(10_001), whole);
        assert!(c.prefetches());
        c.read_at(0, 10).unwrap();
        c.read_at(9000, 10).unwrap();
        assert_eq!(c.stats().requests, 2, "a first read and a block");
    }

    /// Ranges from untrusted bytes may all name the same bytes: 200,000 ranges over a whole
    /// 8 MB object are one read of its blocks, not a list of 400 million block numbers (which
    /// the cache made before it merged ranges into spans).
    #[test]
    fn many_overlapping_ranges_cost_the_object_once() {
        let raw = mem(8_000_000);
        let cfg = cfg(4096, 4096, 1 << 30);
        let c = CachedReader::new(raw.clone(), cfg);
        let ranges = vec![(0, 8_000_000); 200_000];
        c.prefetch(&ranges);
        assert_eq!(raw.stats().requests, 1);
        assert_eq!(
            c.read_at(7_999_000, 1000).unwrap(),
            raw.read_at(7_999_000, 1000).unwrap()
        );
    }

    /// A batch that finds the cache over its budget still gets every range it asked for, the
    /// cached ones included (the cache used to drop them after counting them as cached, and the
    /// batch failed with "past the end" on an in-range read).
    #[test]
    fn a_batch_over_the_cache_budget_keeps_its_cached_blocks() {
        let raw = mem(20_000);
        let c = CachedReader::new(raw.clone(), cfg(1000, 1000, 2500));
        c.read_at(0, 10).unwrap(); // block 0: 1,000 bytes cached
        c.read_at(5000, 2000).unwrap(); // blocks 5 and 6: 3,000 bytes, over the budget
        let got = c.read_many(&[(0, 10), (9000, 10)]).unwrap();
        assert_eq!(
            got,
            [raw.read_at(0, 10).unwrap(), raw.read_at(9000, 10).unwrap()]
        );
    }

    #[test]
    fn cached_reads_match_and_coalesce() {
        let raw = mem(300_000);
        let c = CachedReader::new(raw.clone(), cfg(1000, 4000, 1 << 30));
        let got = c.read_at(3500, 2000).unwrap();
        assert_eq!(got, raw.read_at(3500, 2000).unwrap());
        // First call: the speculative first blocks and the requested ones, coalesced into one request.
        assert_eq!(c.stats().requests, 2); // 1 by the cache + 1 by the comparison read above
        let before = c.stats().requests;
        c.read_at(100, 10).unwrap();
        assert_eq!(c.stats().requests, before, "served from cache");
        let many = c
            .read_many(&[(10_000, 5), (200_000, 7), (299_990, 10)])
            .unwrap();
        assert_eq!(many[2], raw.read_at(299_990, 10).unwrap());
        assert!(matches!(
            c.read_at(299_999, 2),
            Err(IoError::PastEnd { .. })
        ));
        assert!(matches!(
            c.read_at(u64::MAX, 2),
            Err(IoError::PastEnd { .. })
        ));
    }

    /// Local files: a 16 KiB first read and 4 KiB blocks, not object storage's 512 KiB + 64 KiB.
    #[test]
    fn local_files_are_read_in_small_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.bin");
        let data: Vec<u8> = (0..2_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let opts = IoOptions::default();
        for name in [p.display().to_string(), format!("file://{}", p.display())] {
            let r = open(&name, &opts).unwrap();
            assert_eq!(r.read_at(100, 50).unwrap(), &data[100..150]);
            assert_eq!((r.stats().requests, r.stats().bytes), (1, 16 * 1024));
            assert_eq!(
                r.read_at(1_000_000, 10).unwrap(),
                &data[1_000_000..1_000_010]
            );
            assert_eq!((r.stats().requests, r.stats().bytes), (2, 20 * 1024));
            // A batch (an index level): the cached range copied, the other read as asked, its
            // 5000 bytes only rather than the two 4 KiB blocks around them, and not cached.
            let got = r.read_many(&[(40_000, 5000), (8000, 10)]).unwrap();
            assert_eq!(got[0], &data[40_000..45_000]);
            assert_eq!(got[1], &data[8000..8010]);
            assert_eq!((r.stats().requests, r.stats().bytes), (3, 20 * 1024 + 5000));
            let again = r.read_many(&[(40_000, 5000)]).unwrap();
            assert_eq!(again[0], &data[40_000..45_000]);
            assert_eq!(
                (r.stats().requests, r.stats().bytes),
                (4, 20 * 1024 + 10_000)
            );
            assert!(matches!(
                r.read_many(&[(8000, 10), (1_999_999, 2)]),
                Err(IoError::PastEnd { .. })
            ));
            // Small ranges at most a block apart (a netCDF classic coordinate in records): one
            // read for the three, whatever their order; a far one on its own.
            let asks = [(100_400, 8), (300_000, 4), (100_000, 8), (100_200, 8)];
            let got = r.read_many(&asks).unwrap();
            for (g, &(o, l)) in got.iter().zip(&asks) {
                assert_eq!(g, &data[o as usize..(o + l) as usize]);
            }
            assert_eq!(
                (r.stats().requests, r.stats().bytes),
                (6, 20 * 1024 + 10_412)
            );
            let past = r.read_at(1_999_999, 2).unwrap_err();
            assert!(matches!(past, IoError::PastEnd { .. }));
            let says = past.to_string();
            assert!(says.contains("read of 2 bytes at offset 1999999 runs past the end"));
            assert!(says.ends_with("(2000000 bytes)"), "{says}");
            // Repeated and empty ranges in a batch: each gets its bytes, the repeats share one
            // read, and an empty range reads nothing wherever it starts (cached or not).
            let asks = [(700_000, 16), (500_001, 0), (700_000, 16), (12, 0)];
            let got = r.read_many(&asks).unwrap();
            assert_eq!(got[0], &data[700_000..700_016]);
            assert_eq!(got[2], got[0]);
            assert!(got[1].is_empty() && got[3].is_empty());
            assert_eq!(
                (r.stats().requests, r.stats().bytes),
                (7, 20 * 1024 + 10_428)
            );
            assert!(r.read_at(900_001, 0).unwrap().is_empty());
            assert_eq!(r.stats().requests, 7);
        }
        // Object storage keeps its large first read and blocks: requests cost more than bytes.
        assert_eq!(opts.cache.first_read, 512 * 1024);
        assert_eq!(opts.cache.block_size, 64 * 1024);
    }

    #[test]
    fn file_urls_are_absolute_and_normalised() {
        assert_eq!(file_url(Path::new("/a/./b/../c.nc")), "file:///a/c.nc");
        assert!(file_url(Path::new("x.nc")).starts_with("file:///"));
        // The shortcut for plain absolute paths gives what the component walk gives.
        for p in [
            "/",
            "/a",
            "/a/b.nc",
            "/a/",
            "/a/.",
            "/a/..",
            "//a",
            "/a//b",
            "/./a",
            "/a/./b",
            "/a/../b",
            "/a/.b/..c/c..",
            "/a/b/...",
            "/d\u{e9}j\u{e0}/x y.nc",
        ] {
            assert_eq!(file_url(Path::new(p)), walked_url(Path::new(p)), "{p}");
        }
    }
}
