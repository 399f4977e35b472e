//! Writes a vzplan [`Plan`] into an [Icechunk](https://icechunk.io) repository, as a new commit.
//!
//! - Every referenced chunk is a *virtual* reference (location, offset, length) with the source's
//!   ETag (object storage) or modification time (local files) as its checksum, so that Icechunk
//!   refuses to read a chunk whose source changed after the build.
//! - Inline data (coordinates, `--patch`ed chunks) goes in as native chunks.
//! - The repository config declares one virtual chunk container per source prefix (the source
//!   URL up to its last `/`), so readers authorise exactly those.
//! - The Zarr v3 metadata is the one `vzplan-emit` writes, except that a rectilinear grid lists
//!   every axis (Icechunk 2.3 refuses a bare integer in `chunk_shapes`).
//!
//! A build replaces the whole hierarchy on the branch: the previous content is cleared in the
//! same commit, so the branch history keeps every earlier build. A commit racing another one on
//! the same branch fails ([`Error::Conflict`]) instead of being rebased.

mod containers;
mod meta;
mod retry;
mod target;
mod write;

pub use containers::{container_prefix, source_checksum};
pub use meta::{array_json, list_chunk_shapes};
pub use target::Target;

use vzplan_plan::Plan;

/// How to write.
#[derive(Clone, Debug)]
pub struct IcechunkOptions {
    /// The branch to commit on (created from `main` when missing).
    pub branch: String,
    /// The commit message.
    pub message: String,
    /// Endpoint, region, anonymous access: the same options as for reading inputs. They reach
    /// the repository's storage and the S3 virtual chunk containers' declaration; credentials
    /// come from the environment and are never stored.
    pub io: vzplan_io::IoOptions,
    /// The kept layouts' SHA-256 to record in the commit's metadata (`vzplan_layouts`).
    pub layouts_record: Option<String>,
    /// For an append: the record the branch's head must carry, i.e. the layouts the append
    /// continues are those of the head. Another build or append since is refused, never
    /// overwritten.
    pub expect_layouts: Option<String>,
}

impl Default for IcechunkOptions {
    fn default() -> Self {
        IcechunkOptions {
            branch: "main".into(),
            message: "vzplan build".into(),
            io: vzplan_io::IoOptions::default(),
            layouts_record: None,
            expect_layouts: None,
        }
    }
}

/// What a write produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// The new snapshot's id.
    pub snapshot: String,
    pub branch: String,
    /// The repository did not exist before.
    pub created: bool,
    pub arrays: usize,
    pub virtual_refs: u64,
    pub native_chunks: u64,
    /// The URL prefixes of the virtual chunk containers the data needs (sorted).
    pub containers: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{target}: not a repository location: {reason}")]
    Target { target: String, reason: String },
    #[error("{target}: {reason}")]
    Storage { target: String, reason: String },
    #[error("{target}: {reason}")]
    Repository { target: String, reason: String },
    #[error("{url}: cannot declare a virtual chunk container for it: {reason}")]
    Container { url: String, reason: String },
    #[error("{url}: unusable modification time {mtime:?} as a chunk checksum: {reason}")]
    Checksum {
        url: String,
        mtime: String,
        reason: String,
    },
    #[error("{key}: cannot write: {reason}")]
    Write { key: String, reason: String },
    #[error(
        "branch {branch:?} moved while this build was being written (another commit landed \
         first); nothing was committed — run the build again"
    )]
    Conflict { branch: String },
    #[error(
        "branch {branch:?} is not the state whose layouts were kept (another build or append \
         committed since); nothing was committed — append again with the layouts kept by that \
         commit, or rebuild with --keep-layouts"
    )]
    Stale { branch: String },
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

impl Error {
    /// Whether the store failed the way an outage fails (a reset connection, a timeout, a 5xx),
    /// so that the write is worth trying again.
    pub fn transient(&self) -> bool {
        match self {
            Error::Storage { reason, .. }
            | Error::Repository { reason, .. }
            | Error::Write { reason, .. } => retry::transient_text(reason),
            _ => false,
        }
    }
}

/// Writes `plan` into the repository at `target` as one new commit on `opts.branch`, creating
/// the repository when there is none. A write the store fails as an outage fails is tried again
/// (`opts.io.retries` times, with backoff); a commit whose answer was lost is recognised on the
/// branch by its own mark and not made twice ([`retry`]).
pub fn write(plan: &Plan, target: &Target, opts: &IcechunkOptions) -> Result<Committed, Error> {
    runtime()?.block_on(retry::write(plan, target, opts))
}

/// The kept layouts' record on the branch's head (the head of `main` for a branch not made
/// yet); None when the repository, or its record, does not exist.
pub fn layouts_record(target: &Target, opts: &IcechunkOptions) -> Result<Option<String>, Error> {
    runtime()?.block_on(write::head_record(target, opts))
}

fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("vzplan-icechunk")
        .enable_all()
        .build()
        .map_err(Error::Runtime)
}

#[cfg(test)]
mod tests;
