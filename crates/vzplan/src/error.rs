//! The facade's error type. Every message reads as the command line printed it before the facade
//! existed (tests and scripts match on them).

use vzplan_core::text::shown;
use vzplan_plan::{Plan, ScanFailure};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no inputs given")]
    NoInputs,
    /// Two options that cannot go together (named as flags; see [`crate::Shell`]).
    #[error("give either {a} or {b}, not both")]
    Conflict { a: &'static str, b: &'static str },
    /// An option that means something only with another.
    #[error("{option} goes with {needs}")]
    Needs {
        option: &'static str,
        needs: &'static str,
    },
    /// A build or append with nowhere to write.
    #[error("the output is required: --output OUT.json (or --icechunk REPO)")]
    NoOutput,
    /// An option whose value cannot mean anything.
    #[error("{option}: {reason}")]
    Invalid {
        option: &'static str,
        reason: &'static str,
    },
    #[error("give either INPUTS or --from-layouts, not both")]
    InputsAndLayouts,
    /// A `--stack-coord` that is not `NAME=PATTERN` or `NAME=datetime`.
    #[error("--stack-coord: {0}")]
    StackCoord(String),
    #[error(transparent)]
    Input(#[from] crate::inputs::InputError),
    #[error(transparent)]
    Shard(#[from] crate::inputs::ShardError),
    /// A `--sources-under` prefix that names no directory or bucket prefix.
    #[error(transparent)]
    Prefix(#[from] crate::named::PrefixError),
    #[error(transparent)]
    Io(#[from] vzplan_io::IoError),
    /// `fail_fast`: the first file that failed, and how many were not scanned.
    #[error("{first}\nstopped (--fail-fast); {skipped} file(s) not scanned")]
    FailFast { first: String, skipped: usize },
    /// The caller set [`crate::ScanOptions::cancel`].
    #[error("cancelled")]
    Cancelled,
    /// Sources whose store could not be reached after every retry (an outage, not bad files):
    /// nothing is written, so an outage never replaces a good collection with a partial one.
    #[error("{} source(s) could not be reached (the store failed after every retry): {}{}; nothing was written — run again once the store answers, or pass --allow-unreachable to build without them", sources.len(), names(&sources[..sources.len().min(3)]), if sources.len() > 3 { ", …" } else { "" })]
    Unreachable { sources: Vec<String> },
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
    /// Writing an Icechunk repository.
    #[error(transparent)]
    Icechunk(#[from] vzplan_icechunk::Error),
    /// `append`: the collection's layouts were not kept.
    #[error("{layouts}: no kept layouts, so the collection cannot be appended to without scanning its files again; build it once with --keep-layouts (then append), or build all the files together")]
    NotAppendable { layouts: String },
    /// `append` to an Icechunk repository: its branch's head was not committed with these kept
    /// layouts (nor one append before them).
    #[error("{layouts}: the repository's branch head is not the state whose layouts were kept here (another build or append committed since); nothing was committed — append with the layouts that commit kept, or rebuild with --keep-layouts")]
    NotTheHead { layouts: String },
    /// `append`: the kept layouts name objects under prefixes this command did not name; an
    /// append asks the store whether they changed, so they must be named (`--sources-under`).
    #[error("{layouts}: the kept layouts name objects under {} that this command did not name; an append checks with the store that kept objects are unchanged, so name them: --sources-under PREFIX for each", names(prefixes))]
    KeptNotNamed {
        layouts: String,
        prefixes: Vec<String>,
    },
    /// `append`/`keep_layouts` to an Icechunk repository on object storage: where to keep them?
    #[error("{repo}: give the kept layouts a local path (--keep-layouts=FILE) for a repository on object storage")]
    LayoutsPathNeeded { repo: String },
    /// `verify`: the refs file cannot be read or is not vzplan's.
    #[error("{path}: {message}")]
    Refs { path: String, message: String },
    /// An output that would destroy something, or one path given for two outputs.
    #[error(transparent)]
    Output(#[from] crate::outputs::OutputError),
    /// `--var NAME` names no variable of any file.
    #[error(
        "--var {}: no such variable; the files have: {}",
        shown(name),
        names(available)
    )]
    UnknownVar {
        name: String,
        available: Vec<String>,
    },
    /// `--concat-dim NAME` names no dimension of any file.
    #[error(
        "--concat-dim {}: no such dimension; the files have: {}",
        shown(name),
        names(available)
    )]
    UnknownDim {
        name: String,
        available: Vec<String>,
    },
}

impl From<vzplan_io::SettingError> for Error {
    fn from(e: vzplan_io::SettingError) -> Self {
        let option = match e.setting {
            "timeout_secs" => "--io-timeout",
            _ => e.setting,
        };
        Error::Invalid {
            option,
            reason: e.reason,
        }
    }
}

/// Names from files, listed for a message (each [`shown`]).
fn names(v: &[String]) -> String {
    v.iter().map(|n| shown(n)).collect::<Vec<_>>().join(", ")
}

/// The exit code of a run whose standard output's reader went away (`-o - | head`): 128 +
/// SIGPIPE, what a shell reports for a command killed by it.
pub const BROKEN_PIPE: u8 = 141;

impl Error {
    /// Whether the run stopped because standard output's reader went away: nothing to report.
    pub fn broken_pipe(&self) -> bool {
        use crate::outputs::OutputError as O;
        matches!(self, Error::Output(O::Io { source, .. })
            if source.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// The error as a JSON document (what `--json` prints when a run fails): `error` (the message,
    /// URLs redacted) and `exit_code`, plus the report there is: the plan's report for
    /// [`Error::NothingBuilt`], the failures for [`Error::NothingRead`].
    pub fn json(&self) -> serde_json::Value {
        let mut doc = match self {
            Error::NothingBuilt { plan } => match vzplan_emit::report::json(plan) {
                serde_json::Value::Object(m) => m,
                _ => serde_json::Map::new(),
            },
            Error::NothingRead { failures } => {
                let f: Vec<serde_json::Value> = failures
                    .iter()
                    .map(|f| {
                        serde_json::json!({
                            "url": vzplan_io::redact(&f.url),
                            "error": vzplan_io::redact_text(&f.error),
                        })
                    })
                    .collect();
                serde_json::Map::from_iter([("failures".to_string(), f.into())])
            }
            _ => serde_json::Map::new(),
        };
        doc.insert(
            "error".into(),
            vzplan_io::redact_text(&self.to_string()).into(),
        );
        doc.insert("exit_code".into(), self.exit_code().into());
        serde_json::Value::Object(doc)
    }

    /// The exit code of a run that ends with this error: 2 for a usage error (what was asked
    /// cannot mean anything: no inputs, an unknown name, an output that would destroy a file),
    /// 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        use crate::outputs::OutputError as O;
        if self.broken_pipe() {
            return BROKEN_PIPE;
        }
        match self {
            Error::NoInputs
            | Error::Conflict { .. }
            | Error::Needs { .. }
            | Error::NoOutput
            | Error::Invalid { .. }
            | Error::InputsAndLayouts
            | Error::StackCoord(_)
            | Error::Shard(_)
            | Error::Prefix(_)
            | Error::KeptNotNamed { .. }
            | Error::UnknownVar { .. }
            | Error::UnknownDim { .. }
            | Error::Output(
                O::IsInput { .. } | O::NotOurs { .. } | O::Twice { .. } | O::NotAFile { .. },
            ) => 2,
            _ => 1,
        }
    }
}
