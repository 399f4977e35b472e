//! The facade's error type. Every message reads as the command line printed it before the facade
//! existed (tests and scripts match on them).

use vzplan_plan::{Plan, ScanFailure};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no inputs given")]
    NoInputs,
    #[error("give either INPUTS or --from-layouts, not both")]
    InputsAndLayouts,
    #[error(transparent)]
    Input(#[from] crate::inputs::InputError),
    #[error(transparent)]
    Shard(#[from] crate::inputs::ShardError),
    #[error(transparent)]
    Io(#[from] vzplan_io::IoError),
    /// `fail_fast`: the first file that failed, and how many were not scanned.
    #[error("{first}\nstopped (--fail-fast); {skipped} file(s) not scanned")]
    FailFast { first: String, skipped: usize },
    /// The caller set [`crate::ScanOptions::cancel`].
    #[error("cancelled")]
    Cancelled,
    /// Every input failed to scan; each failure is carried for the caller to show.
    #[error("no input could be read")]
    NothingRead { failures: Vec<ScanFailure> },
    /// The plan has no array; the plan is carried so that its findings can be shown.
    #[error("nothing could be built; no output written")]
    NothingBuilt { plan: Box<Plan> },
    /// A layout file that cannot be read.
    #[error("{file}: {source}")]
    LayoutRead {
        file: String,
        source: std::io::Error,
    },
    /// A line of a layout file that is not a layout (1-based line number).
    #[error("{file}:{line}: {source}")]
    LayoutLine {
        file: String,
        line: usize,
        source: serde_json::Error,
    },
    #[error("{path}: {source}")]
    MosaicLayoutRead {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    MosaicLayout { path: String, message: String },
    /// Writing an output (refs.json, zarr.json, HTML, a layouts file).
    #[error(transparent)]
    Emit(#[from] vzplan_emit::EmitError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// `verify`: the refs file cannot be read or is not vzplan's.
    #[error("{path}: {message}")]
    Refs { path: String, message: String },
}
