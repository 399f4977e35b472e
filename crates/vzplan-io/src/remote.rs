//! Object storage behind [`RangeRead`]: S3 (and S3-compatible servers), Google Cloud Storage,
//! Azure Blob Storage and plain HTTP(S), through the `object_store` crate.
//!
//! Readers are synchronous, so each call blocks its (scan worker) thread on one shared tokio runtime.
//! What this module adds on top of `object_store`:
//! - **Counting**: every attempt of every GET is one request in [`Stats`]; `object_store`'s own
//!   retries are switched off so that nothing is hidden from the count.
//! - **Retries**: transient failures (5xx, connection resets, timeouts, bodies shorter than the
//!   range asked for) are retried with exponential backoff and full jitter, up to
//!   [`IoOptions::retries`] times, each attempt bounded by [`IoOptions::timeout`]. Permanent errors
//!   (not found, access denied) fail at once and name the object.
//! - **No HEAD**: opening an object by URL makes the speculative first read (a ranged GET of
//!   [`CacheConfig::first_read`] bytes), which also tells the size, ETag and mtime; an object found by
//!   listing already knows them.
//! - **Coalesced, concurrent batches**: [`RangeRead::read_many`] merges ranges closer than
//!   [`IoOptions::coalesce_gap`], then across larger gaps within the bytes the batch needs, and
//!   within a byte budget ([`IoOptions::merge_budget`], see `coalesce`) when it would take more
//!   than one wave of [`IoOptions::concurrency`] GETs in flight.
//! - **Canonical URLs**: `s3://bucket/key`, `gs://bucket/key`, `az://container/key`,
//!   `https://host/path`; never an endpoint, a query string (signed URL) or a credential.
//!
//! Credentials come from each cloud's usual environment variables (`AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL`, …;
//! `GOOGLE_SERVICE_ACCOUNT`, `GOOGLE_APPLICATION_CREDENTIALS`; `AZURE_STORAGE_ACCOUNT_NAME`,
//! `AZURE_STORAGE_ACCOUNT_KEY`, …) through the builders' `from_env`, then [`IoOptions`] applies.

use crate::coalesce;
use crate::retry::{classify, with_retries, Counters, Failure};
use crate::{check_range, rfc3339_secs, IoError, IoOptions, ObjectMeta, RangeRead, Stats};
use bytes::Bytes;
use futures::stream::{StreamExt, TryStreamExt};
use object_store::path::Path as StorePath;
use object_store::{
    ClientOptions, GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig,
};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// An object found by listing (its metadata saves a request when it is opened).
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub url: String,
    pub meta: ObjectMeta,
}

/// Is this an object-store URL (anything with a scheme but `file://`)?
pub fn is_url(s: &str) -> bool {
    s.contains("://") && !s.starts_with("file://")
}

/// A parsed object URL.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Loc {
    /// `s3://bucket`, `https://host:port`, … — what one store serves.
    root: String,
    scheme: Scheme,
    /// Bucket/container, or the HTTP origin.
    bucket: String,
    /// The key (no leading slash).
    key: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    S3,
    Gcs,
    Azure,
    Http,
}

impl Loc {
    fn canonical(&self) -> String {
        format!("{}/{}", self.root, self.key)
    }
}

fn bad_url(url: &str, why: &str) -> IoError {
    IoError::Url {
        url: crate::redact(url),
        reason: why.to_string(),
    }
}

fn parse(url: &str) -> Result<Loc, IoError> {
    let u = url::Url::parse(url).map_err(|e| bad_url(url, &e.to_string()))?;
    if !u.username().is_empty() || u.password().is_some() {
        return Err(bad_url(
            url,
            "credentials in the URL would end up in the refs; pass them in the environment",
        ));
    }
    if u.query().is_some() || u.fragment().is_some() {
        return Err(bad_url(
            url,
            "query strings (signed URLs) would end up in the refs; give the plain object URL \
             and credentials in the environment",
        ));
    }
    let scheme = match u.scheme() {
        "s3" | "s3a" => Scheme::S3,
        "gs" | "gcs" => Scheme::Gcs,
        "az" | "azure" | "abfs" | "abfss" => Scheme::Azure,
        "http" | "https" => Scheme::Http,
        s => {
            return Err(bad_url(
                url,
                &format!("unsupported scheme {s:?} (s3, gs, az, http, https, file)"),
            ))
        }
    };
    let host = u
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| bad_url(url, "no bucket/host"))?;
    // Keys are taken as written after the bucket (S3 keys are not percent-encoded in s3:// URLs).
    let after = url
        .split_once("://")
        .map(|(_, r)| r)
        .unwrap_or_default()
        .split_once('/')
        .map(|(_, k)| k)
        .unwrap_or_default()
        .to_string();
    let (root, bucket) = match scheme {
        Scheme::S3 => (format!("s3://{host}"), host.to_string()),
        Scheme::Gcs => (format!("gs://{host}"), host.to_string()),
        Scheme::Azure => (format!("az://{host}"), host.to_string()),
        Scheme::Http => {
            let origin = u.origin().ascii_serialization();
            (origin.clone(), origin)
        }
    };
    Ok(Loc {
        root,
        scheme,
        bucket,
        key: after,
    })
}

/// The canonical form of an object URL (validated), or `file:///abs` for a local path.
pub fn canonical_url(s: &str) -> Result<String, IoError> {
    if is_url(s) {
        Ok(parse(s)?.canonical())
    } else {
        Ok(crate::file_url(std::path::Path::new(
            s.strip_prefix("file://").unwrap_or(s),
        )))
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("vzplan-io")
            .enable_all()
            .build()
            .expect("cannot start the I/O runtime")
    })
}

/// Runs a future to completion from synchronous code (a scan worker thread).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    runtime().block_on(f)
}

fn store_for(loc: &Loc, opts: &IoOptions, url: &str) -> Result<Arc<dyn ObjectStore>, IoError> {
    type Stores = Mutex<HashMap<String, Arc<dyn ObjectStore>>>;
    static STORES: OnceLock<Stores> = OnceLock::new();
    let key = format!(
        "{}|{:?}|{}|{:?}|{:?}",
        loc.root, opts.s3_endpoint, opts.anon, opts.region, opts.timeout
    );
    // Built under the lock: the scan's workers all ask at once when nothing was listed first
    // (`--files-from`, plain URLs), and each store built besides would cost its own HTTP client
    // (root certificates loaded again) and its own connection pool.
    let mut stores = STORES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(s) = stores.get(&key) {
        return Ok(s.clone());
    }
    let store = build_store(loc, opts).map_err(|e| bad_url(url, &e.to_string()))?;
    stores.insert(key, store.clone());
    Ok(store)
}

fn build_store(loc: &Loc, opts: &IoOptions) -> Result<Arc<dyn ObjectStore>, object_store::Error> {
    // Our own retry loop counts every attempt; object_store's would hide them.
    let retry = RetryConfig {
        max_retries: 0,
        retry_timeout: opts.timeout,
        ..Default::default()
    };
    let endpoint = match loc.scheme {
        Scheme::S3 => opts.s3_endpoint.as_deref(),
        Scheme::Gcs => opts.gcs_endpoint.as_deref(),
        _ => None,
    };
    let http_endpoint = endpoint.is_some_and(|e| e.starts_with("http://"));
    let client = ClientOptions::new()
        .with_timeout(opts.timeout)
        .with_connect_timeout(opts.timeout.min(Duration::from_secs(10)))
        .with_allow_http(http_endpoint || loc.scheme == Scheme::Http);
    Ok(match loc.scheme {
        Scheme::S3 => {
            let mut b = object_store::aws::AmazonS3Builder::from_env()
                .with_bucket_name(&loc.bucket)
                .with_retry(retry)
                .with_client_options(client)
                .with_skip_signature(opts.anon);
            if let Some(e) = &opts.s3_endpoint {
                b = b
                    .with_endpoint(e.trim_end_matches('/'))
                    .with_allow_http(http_endpoint);
            }
            let region = opts.region.clone().or_else(|| {
                std::env::var("AWS_REGION")
                    .or_else(|_| std::env::var("AWS_DEFAULT_REGION"))
                    .ok()
            });
            b = b.with_region(region.unwrap_or_else(|| "us-east-1".into()));
            Arc::new(b.build()?)
        }
        Scheme::Gcs => {
            let mut b = object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&loc.bucket)
                .with_retry(retry)
                .with_client_options(client)
                .with_skip_signature(opts.anon);
            if let Some(e) = &opts.gcs_endpoint {
                b = b.with_base_url(e.trim_end_matches('/'));
            }
            Arc::new(b.build()?)
        }
        Scheme::Azure => Arc::new(
            object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_container_name(&loc.bucket)
                .with_retry(retry)
                .with_client_options(client)
                .with_skip_signature(opts.anon)
                .build()?,
        ),
        Scheme::Http => Arc::new(
            object_store::http::HttpBuilder::new()
                .with_url(&loc.bucket)
                .with_retry(retry)
                .with_client_options(client)
                .build()?,
        ),
    })
}

fn store_path(loc: &Loc, url: &str) -> Result<StorePath, IoError> {
    let p = if loc.scheme == Scheme::Http {
        StorePath::from_url_path(&loc.key)
    } else {
        StorePath::parse(&loc.key)
    };
    p.map_err(|e| bad_url(url, &e.to_string()))
}

async fn get_range(
    store: &dyn ObjectStore,
    path: &StorePath,
    start: u64,
    end: u64,
) -> Result<(Bytes, object_store::ObjectMeta), Failure> {
    let r = store
        .get_opts(
            path,
            GetOptions {
                range: Some(GetRange::Bounded(start..end)),
                ..Default::default()
            },
        )
        .await
        .map_err(classify)?;
    let meta = r.meta.clone();
    let data = r.bytes().await.map_err(classify)?;
    // The body must hold the whole range (up to the object's end): a short body is a cut transfer.
    let want = end.min(meta.size).saturating_sub(start);
    if data.len() as u64 != want {
        return Err(Failure::Transient(format!(
            "body holds {} of {want} bytes",
            data.len()
        )));
    }
    Ok((data, meta))
}

/// An ETag in its HTTP form, quoted (`"0x8D…"`): Azure's listing gives it bare while its GET and
/// HEAD quote it, so a recorded ETag would never match the object's again. Weak ETags (`W/"…"`)
/// and quoted ones are kept as they are.
pub fn normalize_etag(e: &str) -> String {
    let e = e.trim();
    if e.starts_with('"') || e.starts_with("W/") {
        e.to_string()
    } else {
        format!("\"{e}\"")
    }
}

fn meta_of(m: &object_store::ObjectMeta) -> ObjectMeta {
    ObjectMeta {
        size: m.size,
        etag: m.e_tag.as_deref().map(normalize_etag),
        mtime: Some(rfc3339_secs(m.last_modified.into())),
    }
}

/// One object in a store, read by ranged GETs.
pub struct ObjectReader {
    url: String,
    store: Arc<dyn ObjectStore>,
    path: StorePath,
    meta: ObjectMeta,
    opts: IoOptions,
    /// The bytes of the speculative first read made at open, served without new requests.
    head: Bytes,
    counters: Counters,
}

impl ObjectReader {
    /// Opens by URL: one ranged GET of the first `opts.cache.first_read` bytes (size and identity
    /// come with it), or `known` metadata from a listing and no request at all.
    pub fn open(url: &str, known: Option<ObjectMeta>, opts: &IoOptions) -> Result<Self, IoError> {
        let loc = parse(url)?;
        let canonical = loc.canonical();
        let store = store_for(&loc, opts, url)?;
        let path = store_path(&loc, url)?;
        let counters = Counters::default();
        let (meta, head) = match known {
            Some(m) => (m, Bytes::new()),
            None => {
                let first = opts.cache.first_read.max(1);
                let res = block_on(with_retries(opts, &counters, &canonical, "GET", || {
                    get_range(store.as_ref(), &path, 0, first)
                }));
                match res {
                    Ok((data, m)) => (meta_of(&m), data),
                    Err(e) => {
                        // An empty object has no byte 0 to range over: ask for its metadata.
                        let head =
                            block_on(with_retries(opts, &counters, &canonical, "HEAD", || {
                                let (s, p) = (store.clone(), path.clone());
                                async move { s.head(&p).await.map_err(classify) }
                            }));
                        match head {
                            Ok(m) if m.size == 0 => (meta_of(&m), Bytes::new()),
                            _ => return Err(e),
                        }
                    }
                }
            }
        };
        counters
            .bytes
            .fetch_add(head.len() as u64, Ordering::Relaxed);
        let opened = counters.requests.load(Ordering::Relaxed).min(1);
        counters.round_trips.fetch_add(opened, Ordering::Relaxed);
        Ok(ObjectReader {
            url: canonical,
            store,
            path,
            meta,
            opts: opts.clone(),
            head,
            counters,
        })
    }

    /// Failed attempts that were retried so far.
    pub fn retried(&self) -> u64 {
        self.counters.retried.load(Ordering::Relaxed)
    }
}

impl RangeRead for ObjectReader {
    fn url(&self) -> &str {
        &self.url
    }
    fn meta(&self) -> &ObjectMeta {
        &self.meta
    }
    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>, IoError> {
        Ok(self.read_many(&[(offset, len)])?.pop().unwrap_or_default())
    }
    fn read_many(&self, ranges: &[(u64, u64)]) -> Result<Vec<Vec<u8>>, IoError> {
        for &(o, l) in ranges {
            check_range(&self.url, self.meta.size, o, l)?;
        }
        let mut out: Vec<Option<Vec<u8>>> = vec![None; ranges.len()];
        // Ranges outside the prefetched head, merged into as few GETs as the budget allows.
        let mut todo: Vec<(u64, u64, usize)> = Vec::new();
        for (i, &(o, l)) in ranges.iter().enumerate() {
            if l == 0 {
                out[i] = Some(Vec::new());
            } else if o + l <= self.head.len() as u64 {
                out[i] = Some(self.head[o as usize..(o + l) as usize].to_vec());
            } else {
                todo.push((o, o + l, i));
            }
        }
        // GETs sent in one wave cost one round trip however many there are: bytes are read for
        // nothing to save GETs only when the batch would otherwise take more than one wave.
        let wave = self.opts.concurrency.max(1);
        let mut groups = coalesce::groups(todo.clone(), self.opts.coalesce_gap, 0);
        if groups.len() > wave {
            groups = coalesce::groups(todo, self.opts.coalesce_gap, self.opts.merge_budget);
        }
        // The batch's GETs go out together, up to the concurrency at a time.
        let waves = groups.len().div_ceil(wave) as u64;
        self.counters
            .round_trips
            .fetch_add(waves, Ordering::Relaxed);
        let fetched: Vec<(usize, Bytes)> = block_on(async {
            futures::stream::iter(groups.iter().enumerate())
                .map(|(g, &(s, e, _))| async move {
                    let (data, _) =
                        with_retries(&self.opts, &self.counters, &self.url, "GET", || {
                            get_range(self.store.as_ref(), &self.path, s, e)
                        })
                        .await?;
                    Ok::<_, IoError>((g, data))
                })
                .buffer_unordered(self.opts.concurrency.max(1))
                .try_collect()
                .await
        })?;
        for (g, data) in fetched {
            self.counters
                .bytes
                .fetch_add(data.len() as u64, Ordering::Relaxed);
            let (gs, _, members) = &groups[g];
            for &i in members {
                let (o, l) = ranges[i];
                let lo = (o - gs) as usize;
                // A body cut short by an object that shrank since it was opened.
                let bytes = data
                    .get(lo..lo + l as usize)
                    .ok_or_else(|| IoError::Remote {
                        url: self.url.clone(),
                        reason: format!(
                            "object changed while read: {} bytes returned for {o}..{}",
                            data.len(),
                            o + l
                        ),
                    })?;
                out[i] = Some(bytes.to_vec());
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }
    fn stats(&self) -> Stats {
        Stats {
            requests: self.counters.requests.load(Ordering::Relaxed),
            round_trips: self.counters.round_trips.load(Ordering::Relaxed),
            bytes: self.counters.bytes.load(Ordering::Relaxed),
            retried: self.counters.retried.load(Ordering::Relaxed),
            unreachable: self.counters.unreachable.load(Ordering::Relaxed),
        }
    }
}

mod listing;
pub use listing::{check_pattern, list, list_each};

/// The literal key prefix of a glob pattern (up to the last `/` before the first wildcard), or
/// `None` when the key has no wildcard.
fn glob_prefix(key: &str) -> Option<&str> {
    let first = key.find(['*', '?', '['])?;
    Some(key[..first].rfind('/').map_or("", |i| &key[..i]))
}

/// Reads a whole object (layout files), with retries.
pub fn get_all(url: &str, opts: &IoOptions) -> Result<Vec<u8>, IoError> {
    let loc = parse(url)?;
    let store = store_for(&loc, opts, url)?;
    let path = store_path(&loc, url)?;
    let counters = Counters::default();
    let data = block_on(with_retries(opts, &counters, url, "GET", || {
        let (s, p) = (store.clone(), path.clone());
        async move {
            let r = s.get(&p).await.map_err(classify)?;
            let want = r.meta.size;
            let data = r.bytes().await.map_err(classify)?;
            if data.len() as u64 != want {
                return Err(Failure::Transient(format!(
                    "body holds {} of {want} bytes",
                    data.len()
                )));
            }
            Ok(data)
        }
    }))?;
    Ok(data.to_vec())
}

/// Writes a whole object in one PUT (atomic on every supported store), with retries.
pub fn put_all(url: &str, data: Vec<u8>, opts: &IoOptions) -> Result<(), IoError> {
    let loc = parse(url)?;
    let store = store_for(&loc, opts, url)?;
    let path = store_path(&loc, url)?;
    let payload = PutPayload::from(Bytes::from(data));
    let counters = Counters::default();
    block_on(with_retries(opts, &counters, url, "PUT", || {
        let (s, p, b) = (store.clone(), path.clone(), payload.clone());
        async move { s.put(&p, b).await.map(|_| ()).map_err(classify) }
    }))
}

/// Size and identity of an object (a HEAD request), e.g. to check a source is unchanged.
pub fn head(url: &str, opts: &IoOptions) -> Result<ObjectMeta, IoError> {
    let loc = parse(url)?;
    let store = store_for(&loc, opts, url)?;
    let path = store_path(&loc, url)?;
    let counters = Counters::default();
    let m = block_on(with_retries(opts, &counters, url, "HEAD", || {
        let (s, p) = (store.clone(), path.clone());
        async move { s.head(&p).await.map_err(classify) }
    }))?;
    Ok(meta_of(&m))
}

#[cfg(test)]
mod etag_tests {
    use super::normalize_etag;

    #[test]
    fn etags_are_compared_in_their_quoted_form() {
        // Azure: listed bare, returned quoted by GET/HEAD.
        assert_eq!(normalize_etag("0x8DCB1"), "\"0x8DCB1\"");
        assert_eq!(normalize_etag("\"0x8DCB1\""), "\"0x8DCB1\"");
        // S3 multipart and weak ETags stay as they are.
        assert_eq!(normalize_etag("\"abc-2\""), "\"abc-2\"");
        assert_eq!(normalize_etag("W/\"x\""), "W/\"x\"");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_canonical_and_credential_free() {
        assert_eq!(
            canonical_url("s3://bkt/a/b c.nc").unwrap(),
            "s3://bkt/a/b c.nc"
        );
        assert_eq!(canonical_url("gcs://bkt/x.nc").unwrap(), "gs://bkt/x.nc");
        assert_eq!(
            canonical_url("https://example.org:8443/d/x.nc").unwrap(),
            "https://example.org:8443/d/x.nc"
        );
        assert!(canonical_url("s3://bkt/x.nc?X-Amz-Signature=1").is_err());
        assert!(canonical_url("https://u:p@example.org/x.nc").is_err());
        assert!(canonical_url("ftp://example.org/x.nc").is_err());
        assert!(canonical_url("/tmp/x.nc").unwrap().starts_with("file:///"));
    }

    #[test]
    fn glob_prefixes() {
        assert_eq!(glob_prefix("data/2000/*.nc"), Some("data/2000"));
        assert_eq!(glob_prefix("*.nc"), Some(""));
        assert_eq!(glob_prefix("data/y*/a.nc"), Some("data"));
        assert_eq!(glob_prefix("data/a.nc"), None);
    }
}
