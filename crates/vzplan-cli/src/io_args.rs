//! How object storage is reached: flags flattened into every command that reads sources.

use clap::Args;
use std::time::Duration;
use vzplan::{CacheConfig, IoOptions};

#[derive(Args, Clone, Debug)]
pub struct IoArgs {
    /// S3 endpoint URL (MinIO, Ceph, a test server), e.g. http://127.0.0.1:9000 (path-style).
    #[arg(long, value_name = "URL")]
    pub s3_endpoint: Option<String>,
    /// GCS endpoint URL (an emulator, a private endpoint), e.g. http://127.0.0.1:4443.
    #[arg(long, value_name = "URL")]
    pub gcs_endpoint: Option<String>,
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
    /// Size of the speculative first read of each object (object storage; local files read 16 KiB).
    #[arg(long, value_name = "BYTES", default_value_t = 512 * 1024)]
    pub first_read: u64,
    /// Block size of the read cache for object storage, in bytes (local files: 4 KiB).
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024)]
    pub block_size: u64,
}

impl IoArgs {
    pub fn options(&self) -> IoOptions {
        IoOptions {
            s3_endpoint: self.s3_endpoint.clone(),
            gcs_endpoint: self.gcs_endpoint.clone(),
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
