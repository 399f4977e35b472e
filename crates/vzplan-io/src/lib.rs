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
mod local;
mod mem;
mod options;
mod stamp;
pub(crate) use stamp::{rfc3339, rfc3339_secs};
mod coalesce;
pub mod remote;
mod retry;
mod secret;
mod settings;
mod source_url;

pub use cache::{CacheConfig, CachedReader};
mod linked;
pub use linked::{lexical_join, linked_urls, LinkError, Linker};
pub use local::{file_url, not_regular, open_local, regular, FileId, LocalFile};
pub use mem::MemObject;
pub use options::IoOptions;
pub use remote::{canonical_url, is_url, Listed, ObjectReader};
pub use retry::throttled;
pub use secret::{has_secret, redact, redact_text, REDACTED};
pub use settings::{
    IoSettings, SettingError, DEFAULT_BLOCK_SIZE, DEFAULT_FIRST_READ, DEFAULT_GROW_TO,
    DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECS,
};
pub use source_url::{check_source_url, special_host, valid_etag, valid_mtime};

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
    /// There is no object at this URL.
    #[error("{url}: no such object")]
    Missing { url: String },
    /// An object-store request that failed for good: access denied, a bad request.
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

    /// Whether there is no such file or object.
    pub fn is_missing(&self) -> bool {
        match self {
            IoError::Open { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            IoError::Missing { .. } => true,
            _ => false,
        }
    }
}

/// Requests made and bytes fetched from the underlying store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Every attempt, failed ones included.
    pub requests: u64,
    /// Dependent round trips: requests sent together (a batch, up to the concurrency) count
    /// once, a request that waited for an earlier one's answer counts again. On object storage
    /// this times the latency a file costs; retries are not counted here (see `retried`).
    pub round_trips: u64,
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
    /// ask for (a reader without a cache, a small local file read whole, needs no hints).
    fn prefetches(&self) -> bool {
        false
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

/// Buffers read as copies, as shared bytes ([`RangeRead::read_many_bytes`] without a view to give).
pub(crate) fn into_bytes(bufs: Vec<Vec<u8>>) -> Vec<bytes::Bytes> {
    bufs.into_iter().map(bytes::Bytes::from).collect()
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

#[cfg(test)]
mod tests;
