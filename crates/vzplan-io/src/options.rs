//! How objects are reached: endpoints, credentials' mode, retries and timeouts, the block caches
//! and batching. One value serves a whole run; [`crate::IoSettings`] makes one from what a person
//! gives.

use crate::CacheConfig;
use std::time::Duration;

/// How objects are reached. One value serves a whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct IoOptions {
    /// S3 endpoint (MinIO, Ceph, a test server), e.g. `http://127.0.0.1:9000`; path-style requests.
    pub s3_endpoint: Option<String>,
    /// GCS endpoint (an emulator such as fake-gcs-server, a private endpoint), e.g.
    /// `http://127.0.0.1:4443`.
    pub gcs_endpoint: Option<String>,
    /// Unsigned requests (public buckets).
    pub anon: bool,
    /// S3 region (default: `AWS_REGION`/`AWS_DEFAULT_REGION`, else `us-east-1`).
    pub region: Option<String>,
    /// Retries of a failed request (so at most `retries + 1` attempts).
    pub retries: u32,
    /// Time limit of one attempt, body included.
    pub timeout: Duration,
    /// First backoff; doubles per retry up to `backoff_max`, each wait drawn uniformly below it.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// Block cache in front of every object on object storage (and HTTP).
    pub cache: CacheConfig,
    /// Block cache in front of every local file (small reads: [`CacheConfig::local`]).
    pub local_cache: CacheConfig,
    /// GETs in flight per batched read.
    pub concurrency: usize,
    /// Ranges of one batch closer than this are fetched as one GET.
    pub coalesce_gap: u64,
    /// Bytes a batch may read beyond what it needs to save GETs (or as many as it needs, when
    /// that is more): about what a request's latency would download (see `coalesce`). Used only
    /// when the batch would take more than one wave of [`IoOptions::concurrency`] GETs: GETs sent
    /// together cost one round trip.
    pub merge_budget: u64,
}

impl Default for IoOptions {
    fn default() -> Self {
        IoOptions {
            s3_endpoint: None,
            gcs_endpoint: None,
            anon: false,
            region: None,
            retries: crate::DEFAULT_RETRIES,
            timeout: Duration::from_secs_f64(crate::DEFAULT_TIMEOUT_SECS),
            backoff_base: Duration::from_millis(100),
            backoff_max: Duration::from_secs(10),
            cache: CacheConfig::default(),
            local_cache: CacheConfig::local(),
            concurrency: 16,
            coalesce_gap: 64 * 1024,
            merge_budget: 1024 * 1024,
        }
    }
}
