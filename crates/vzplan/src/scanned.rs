//! One file's scan result, as progress reports and callers see it: its layout, or why not.

use crate::formats::FormatError;
use vzplan_core::SourceLayout;
use vzplan_io::{IoError, Stats};

/// Why one file has no layout.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error(transparent)]
    Open(#[from] IoError),
    #[error(transparent)]
    Read(#[from] FormatError),
    /// Not scanned: an earlier file failed under `fail_fast`.
    #[error("{0}: not scanned: an earlier file failed (--fail-fast)")]
    NotScanned(String),
    /// Not scanned: the same file as an earlier input (a link to it); planned once.
    #[error("{url}: the same file as {first}")]
    Same { url: String, first: String },
    /// Not a regular file (left out without being opened).
    #[error("{url}: {reason}")]
    NotRegular { url: String, reason: String },
    /// Read, but some of its requests failed after every retry as an outage fails: what the
    /// reader made of the rest would be incomplete.
    #[error("{url}: unreachable: {requests} request(s) failed after every retry")]
    Unreachable { url: String, requests: u64 },
}

/// One scanned file.
#[derive(Debug)]
pub struct Scanned {
    /// As given or listed.
    pub input: String,
    /// Canonical URL.
    pub url: String,
    pub result: Result<SourceLayout, FileError>,
    pub stats: Stats,
}

impl Scanned {
    /// Not scanned because an earlier file failed under `fail_fast`.
    pub fn skipped(&self) -> bool {
        matches!(
            self.result,
            Err(FileError::NotScanned(_) | FileError::Same { .. })
        )
    }

    /// Failed because its store could not be reached (an outage), not because it is bad.
    pub fn unreachable(&self) -> bool {
        match &self.result {
            Err(e) => self.stats.unreachable > 0 || unreachable(e),
            Ok(_) => false,
        }
    }
}

pub(crate) fn unreachable(e: &FileError) -> bool {
    match e {
        FileError::Unreachable { .. } => true,
        FileError::Open(e) | FileError::Read(FormatError::Io(e)) => e.is_unreachable(),
        _ => false,
    }
}
