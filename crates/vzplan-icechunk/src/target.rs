//! Where the repository lives, and the Icechunk storage that reaches it.

use crate::Error;
use icechunk::storage::{S3Credentials, S3Options};
use icechunk::Storage;
use std::path::PathBuf;
use std::sync::Arc;
use vzplan_io::IoOptions;

/// A repository location: a local directory, or an object-store prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Local(PathBuf),
    S3 { bucket: String, prefix: String },
    Gcs { bucket: String, prefix: String },
    Azure { container: String, prefix: String },
}

impl Target {
    /// `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix`, `file:///dir`, or a
    /// path. Credentials, query strings and other schemes are refused.
    pub fn parse(s: &str) -> Result<Target, Error> {
        let bad = |reason: &str| Error::Target {
            target: s.to_string(),
            reason: reason.to_string(),
        };
        let Some((scheme, rest)) = s.split_once("://") else {
            return Ok(Target::Local(PathBuf::from(s)));
        };
        if scheme == "file" {
            return Ok(Target::Local(PathBuf::from(rest)));
        }
        if rest.contains('?') || rest.contains('#') || rest.contains('@') {
            return Err(bad(
                "credentials or query strings do not belong in the URL; use the environment",
            ));
        }
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(bad("no bucket"));
        }
        let (bucket, prefix) = (bucket.to_string(), prefix.trim_matches('/').to_string());
        match scheme {
            "s3" | "s3a" => Ok(Target::S3 { bucket, prefix }),
            "gs" | "gcs" => Ok(Target::Gcs { bucket, prefix }),
            "az" | "azure" | "abfs" => Ok(Target::Azure {
                container: bucket,
                prefix,
            }),
            other => Err(bad(&format!(
                "unsupported scheme {other:?} (a path, file://, s3://, gs://, az://)"
            ))),
        }
    }

    /// The location as the user would write it (for messages).
    pub fn display(&self) -> String {
        match self {
            Target::Local(p) => p.display().to_string(),
            Target::S3 { bucket, prefix } => format!("s3://{bucket}/{prefix}"),
            Target::Gcs { bucket, prefix } => format!("gs://{bucket}/{prefix}"),
            Target::Azure { container, prefix } => format!("az://{container}/{prefix}"),
        }
    }

    pub(crate) async fn storage(
        &self,
        io: &IoOptions,
    ) -> Result<Arc<dyn Storage + Send + Sync>, Error> {
        let err = |e: icechunk::StorageError| Error::Storage {
            target: self.display(),
            reason: crate::write::chain(&e.kind),
        };
        let opt = |p: &str| (!p.is_empty()).then(|| p.to_string());
        match self {
            Target::Local(path) => {
                let abs = std::path::absolute(path).map_err(|e| Error::Target {
                    target: self.display(),
                    reason: e.to_string(),
                })?;
                icechunk::new_local_filesystem_storage(&abs)
                    .await
                    .map_err(err)
            }
            Target::S3 { bucket, prefix } => {
                let creds = if io.anon {
                    S3Credentials::Anonymous
                } else {
                    S3Credentials::FromEnv
                };
                icechunk::new_s3_object_store_storage(
                    s3_options(io),
                    bucket.clone(),
                    opt(prefix),
                    Some(creds),
                    Vec::new(),
                    Vec::new(),
                )
                .await
                .map_err(err)
            }
            Target::Gcs { bucket, prefix } => icechunk::storage::new_gcs_storage(
                bucket.clone(),
                opt(prefix),
                None,
                None,
                Vec::new(),
                Vec::new(),
            )
            .map_err(err),
            Target::Azure { container, prefix } => {
                let account = azure_account().ok_or_else(|| Error::Target {
                    target: self.display(),
                    reason: "set AZURE_STORAGE_ACCOUNT_NAME (az:// URLs name only the container)"
                        .into(),
                })?;
                icechunk::storage::new_azure_blob_storage(
                    account,
                    container.clone(),
                    opt(prefix),
                    None,
                    None,
                )
                .await
                .map_err(err)
            }
        }
    }
}

/// The Azure storage account, from the environment (as `object_store` reads it).
pub(crate) fn azure_account() -> Option<String> {
    ["AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
}

/// S3 options from vzplan's I/O options: endpoint (path-style; plain HTTP allowed only when the
/// endpoint says `http://`), region (else `AWS_REGION`/`AWS_DEFAULT_REGION`, else us-east-1),
/// anonymous access.
pub(crate) fn s3_options(io: &IoOptions) -> S3Options {
    let endpoint = io
        .s3_endpoint
        .as_deref()
        .map(|e| e.trim_end_matches('/').to_string());
    let region = io
        .region
        .clone()
        .or_else(|| std::env::var("AWS_REGION").ok())
        .or_else(|| std::env::var("AWS_DEFAULT_REGION").ok())
        .unwrap_or_else(|| "us-east-1".into());
    // S3Options is non-exhaustive: start from its defaults.
    let mut o = S3Options::default();
    o.region = Some(region);
    o.allow_http = endpoint
        .as_deref()
        .is_some_and(|e| e.starts_with("http://"));
    o.force_path_style = endpoint.is_some();
    o.endpoint_url = endpoint;
    o.anonymous = io.anon;
    o
}
