//! How to reach object storage as a person gives it — flags on the command line, keyword
//! arguments in Python — and the one place that turns it into [`IoOptions`]: defaults for what
//! was not given, bounds for what was.

use crate::{CacheConfig, IoOptions};
use std::time::Duration;

/// Retries of a failed request when none is given.
pub const DEFAULT_RETRIES: u32 = 8;
/// Seconds one request may take when none is given.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// Bytes of the speculative first read of an object when none is given: netCDF-C and h5py put
/// the superblock, the root group and the headers of a few variables in the first KiBs, and a
/// COG's IFDs and tile arrays lie in its first KiBs too (measured in docs/benchmarks.md).
pub const DEFAULT_FIRST_READ: u64 = 64 * 1024;
/// Bytes of a cached block of an object when none is given: a chunk-index node or a header's
/// continuation block lies in one, where a larger block would read the data around it.
pub const DEFAULT_BLOCK_SIZE: u64 = 16 * 1024;
/// How far the region read from offset 0 grows when the metadata runs past the first read
/// ([`crate::CacheConfig::grow_to`]).
pub const DEFAULT_GROW_TO: u64 = 512 * 1024;

/// The object-storage settings of a run; `None` is "the default".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IoSettings {
    pub s3_endpoint: Option<String>,
    pub gcs_endpoint: Option<String>,
    pub anon: bool,
    pub region: Option<String>,
    pub retries: Option<u32>,
    /// Seconds; fractions allowed.
    pub timeout_secs: Option<f64>,
    pub first_read: Option<u64>,
    pub block_size: Option<u64>,
}

/// A setting that cannot mean anything.
#[derive(Debug, thiserror::Error)]
#[error("{setting}: {reason}")]
pub struct SettingError {
    /// The setting's name as [`IoSettings`] spells it (`timeout_secs`).
    pub setting: &'static str,
    pub reason: &'static str,
}

impl IoSettings {
    /// The options these settings ask for: defaults filled in, sizes and times kept within what a
    /// run can use (a timeout from 50 ms to a day, blocks from 512 B to 64 MiB, a first read of
    /// at most 256 MiB).
    pub fn options(&self) -> Result<IoOptions, SettingError> {
        let secs = self.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS);
        if !secs.is_finite() {
            return Err(SettingError {
                setting: "timeout_secs",
                reason: "must be a number of seconds",
            });
        }
        Ok(IoOptions {
            s3_endpoint: self.s3_endpoint.clone(),
            gcs_endpoint: self.gcs_endpoint.clone(),
            anon: self.anon,
            region: self.region.clone(),
            retries: self.retries.unwrap_or(DEFAULT_RETRIES),
            timeout: Duration::from_secs_f64(secs.clamp(0.05, 86_400.0)),
            cache: CacheConfig {
                block_size: self
                    .block_size
                    .unwrap_or(DEFAULT_BLOCK_SIZE)
                    .clamp(512, 64 << 20),
                first_read: self.first_read.unwrap_or(DEFAULT_FIRST_READ).min(256 << 20),
                ..CacheConfig::default()
            },
            ..IoOptions::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_options_defaults_and_values_are_bounded() {
        let d = IoSettings::default().options().unwrap();
        assert_eq!(d, IoOptions::default());
        let o = IoSettings {
            retries: Some(2),
            timeout_secs: Some(0.001),
            block_size: Some(1),
            first_read: Some(u64::MAX),
            ..IoSettings::default()
        }
        .options()
        .unwrap();
        assert_eq!(o.retries, 2);
        assert_eq!(o.timeout, Duration::from_millis(50));
        assert_eq!((o.cache.block_size, o.cache.first_read), (512, 256 << 20));
        let bad = IoSettings {
            timeout_secs: Some(f64::NAN),
            ..IoSettings::default()
        };
        assert!(bad.options().is_err());
    }
}
