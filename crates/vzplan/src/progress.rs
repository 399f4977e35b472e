//! Progress reports. Scanning calls the sink from its worker threads, hence `Sync`.

use crate::scanned::Scanned;

/// What happened.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// Scanning starts: this many files known; with `listing`, URL patterns add theirs
    /// ([`Progress::Listed`]) as they are listed.
    ScanStarted { files: usize, listing: bool },
    /// A listing found this many more files to scan.
    Listed { files: usize },
    /// One file is done (or skipped under `fail_fast`), in completion order.
    FileScanned(&'a Scanned),
    /// Every file is done, at most this many at once (just before [`Progress::ScanFinished`]).
    InFlight { files: usize },
    /// Every file is done; the results in input order (before any `fail_fast` error).
    ScanFinished(&'a [Scanned]),
    /// `--patch` re-encoded this many chunks, written inline in this many bytes.
    Patched { chunks: usize, bytes: u64 },
    /// Another run holds the lock of the collection at this path; this one waits for it.
    Waiting { path: &'a std::path::Path },
}

/// Receives [`Progress`] reports; any `Fn(Progress) + Sync` closure is one.
pub trait ProgressSink: Sync {
    fn report(&self, event: Progress<'_>);
}

impl<F: Fn(Progress<'_>) + Sync> ProgressSink for F {
    fn report(&self, event: Progress<'_>) {
        self(event)
    }
}

/// Ignores every report.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn report(&self, _: Progress<'_>) {}
}
