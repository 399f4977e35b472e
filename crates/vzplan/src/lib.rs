//! vzplan as a library: the one entry point the `vzplan` command, a Python binding or any other
//! caller uses.
//!
//! ```text
//! Inputs (paths, globs, URLs, --files-from lists, a shard)
//!   → scan (formats: one FormatReader per file format)   → SourceLayout per file
//!   → layouts (optionally written to / read from JSON-lines files)
//!   → plan (vzplan-plan)                                  → Plan
//!   → outputs (Output: refs.json + zarr.json; the HTML page)
//! ```
//! [`build::build`] and [`build::plan`] run the whole flow; [`scan::scan`], [`layouts`] and
//! [`verify::verify`] are the other subcommands. Options are plain structs, progress goes to a
//! [`ProgressSink`], errors are [`Error`].

pub mod append;
pub mod build;
mod error;
mod failpoint;
pub mod feed;
pub mod formats;
pub mod icechunk;
pub mod info;
pub mod inputs;
mod kept;
pub mod layouts;
mod limit;
pub mod memory;
pub mod named;
pub mod outputs;
mod progress;
pub mod request;
pub mod run;
pub mod scan;
mod scanned;
pub mod shell;
pub mod sidecar;
mod together;
pub mod verify;

pub use append::{append, default_layouts, default_layouts_for_repo};
pub use build::{build, plan, BuildOptions, BuildReport, PlanOptions, Source};
pub use error::Error;
pub use formats::{FormatError, FormatReader, ReadOptions, FORMATS};
pub use icechunk::IcechunkOutput;
pub use info::{info, FileInfo, InfoError};
pub use inputs::{Input, InputError, Inputs, Shard, ShardError};
pub use named::{Named, PrefixError};
pub use outputs::{HtmlReport, Output, RefsOutput};
pub use progress::{NoProgress, Progress, ProgressSink};
pub use request::{Destinations, Keep, Request, DEFAULT_BRANCH};
pub use scan::{scan, FileError, ScanOptions, Scanned};
pub use shell::{Opt, Shell};
pub use verify::{verify, VerifyReport};

// The types callers need to configure a run and read its result, so that they depend on this
// crate only.
pub use vzplan_core::{text, SourceLayout};
pub use vzplan_io::{
    redact, redact_text, CacheConfig, IoError, IoOptions, IoSettings, ObjectMeta, RangeRead, Stats,
    DEFAULT_BLOCK_SIZE, DEFAULT_FIRST_READ, DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECS,
};
pub use vzplan_plan::{Plan, ScanFailure};

/// Reports on a plan, for printing.
pub mod report {
    pub use vzplan_emit::report::{json, text};
}

/// The name of every Zarr codec vzplan writes (its readers' codec registry), for readers to
/// configure: `numcodecs.zlib`, `imagecodecs_jpeg`, …
pub fn codec_names() -> Vec<&'static str> {
    vzplan_core::CodecId::ALL
        .iter()
        .map(|(_, name, _)| *name)
        .collect()
}

/// Opens a local path or object URL behind the read cache (for scanning one file by hand).
pub fn open(url_or_path: &str, io: &IoOptions) -> Result<std::sync::Arc<dyn RangeRead>, Error> {
    Ok(vzplan_io::open(url_or_path, io)?)
}
