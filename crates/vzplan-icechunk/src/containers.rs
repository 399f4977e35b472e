//! Virtual chunk containers (one per source prefix) and the checksums of virtual references.

use crate::target::{azure_account, s3_options};
use crate::Error;
use icechunk::config::HttpConfig;
use icechunk::format::manifest::{Checksum, SecondsSinceEpoch};
use icechunk::storage::ETag;
use icechunk::virtual_chunks::VirtualChunkContainer;
use icechunk::ObjectStoreConfig;
use std::collections::HashMap;
use vzplan_io::IoOptions;
use vzplan_plan::SourceRef;

/// The container prefix of a source URL: everything up to and including its last `/`
/// (`file:///data/tas/2001.nc` → `file:///data/tas/`, `s3://b/k.nc` → `s3://b/`).
pub fn container_prefix(url: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    match url[start..].rfind('/') {
        Some(i) => url[..start + i + 1].to_string(),
        None => format!("{url}/"),
    }
}

/// The container declaration for a prefix: how a reader reaches those objects. Only
/// non-secret settings are stored (S3 endpoint, region, anonymous; the Azure account name).
pub(crate) fn container(prefix: &str, io: &IoOptions) -> Result<VirtualChunkContainer, Error> {
    let bad = |reason: String| Error::Container {
        url: prefix.to_string(),
        reason,
    };
    let scheme = prefix.split_once("://").map_or("", |(s, _)| s);
    let store = match scheme {
        "file" => {
            let dir = prefix.strip_prefix("file://").unwrap_or(prefix);
            ObjectStoreConfig::LocalFileSystem(dir.into())
        }
        "s3" => {
            let o = s3_options(io);
            if o.endpoint_url.is_some() {
                ObjectStoreConfig::S3Compatible(o)
            } else {
                ObjectStoreConfig::S3(o)
            }
        }
        "gs" | "gcs" => ObjectStoreConfig::Gcs(HashMap::new()),
        "az" | "azure" | "abfs" => {
            let account = azure_account().ok_or_else(|| {
                bad("set AZURE_STORAGE_ACCOUNT_NAME (az:// URLs name only the container)".into())
            })?;
            ObjectStoreConfig::Azure(HashMap::from([("account".to_string(), account)]))
        }
        "http" | "https" => ObjectStoreConfig::Http(HttpConfig::default()),
        other => return Err(bad(format!("unsupported scheme {other:?}"))),
    };
    VirtualChunkContainer::new(prefix.to_string(), store).map_err(bad)
}

/// The checksum Icechunk checks when it reads a virtual chunk: the ETag when the source has one
/// (object storage), else its modification time. Icechunk keeps whole seconds and refuses an
/// object modified *after* the stored time, so the time is rounded up: an untouched file with a
/// fractional mtime stays readable, and any later second is caught.
pub fn source_checksum(s: &SourceRef) -> Result<Option<Checksum>, Error> {
    if let Some(etag) = s.etag.as_deref().filter(|e| !e.is_empty()) {
        return Ok(Some(Checksum::ETag(ETag(etag.to_string()))));
    }
    let Some(mtime) = s.mtime.as_deref() else {
        return Ok(None);
    };
    let bad = |reason: &str| Error::Checksum {
        url: s.url.clone(),
        mtime: mtime.to_string(),
        reason: reason.to_string(),
    };
    let t = chrono::DateTime::parse_from_rfc3339(mtime).map_err(|e| bad(&e.to_string()))?;
    let secs = t.timestamp() + i64::from(t.timestamp_subsec_nanos() > 0);
    let secs = u32::try_from(secs).map_err(|_| bad("outside 1970..2106"))?;
    Ok(Some(Checksum::LastModified(SecondsSinceEpoch(secs))))
}
