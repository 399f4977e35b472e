//! Findings: what the planner could not combine (or had to work around), with the reason and a fix.
//!
//! Printed as `file: what is wrong (where) — how to fix`, the CLI contract in design.md.

use serde::{Deserialize, Serialize};
use vzplan_core::text::shown;

/// How bad a finding is. `Error` findings leave their array out of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A repair vzplan made (a rescued padded chunk): the output is exact.
    Info,
    /// Worth knowing; the output is exact.
    Warning,
    /// The array (or file) is left out.
    Error,
}

/// What kind of problem a finding is. The names are stable (used in `--json` output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A file could not be read at all, or not whole (it is left out as a file).
    FileError,
    /// The same source was given more than once; it is used once.
    Duplicate,
    /// The reader found the array but cannot reference it (unsupported filter, datatype, layout).
    Unsupported,
    /// A padded block would sit in the middle of the combined array.
    PaddedInteriorChunk,
    /// A padded, unfiltered block referenced by its byte prefix instead (exact).
    RescuedPrefix,
    /// Files disagree on something that must match (cuts, codecs, dtype, fill value, shape).
    Mismatch,
    /// The array is missing from some files.
    Missing,
    /// A chunk was stored with some filters skipped.
    FilterMask,
    /// Coordinate values along the concat axis overlap between files or repeat.
    Overlap,
    /// Coordinate values along the concat axis are not in order.
    NonMonotonic,
    /// A gap in the coordinate values between two files (the output is still exact).
    Gap,
    /// A chunk that cannot be referenced as stored, re-encoded inline (`--patch`).
    Patched,
    /// A file's time coordinate was converted to the first file's units (exact; inline values).
    Rebased,
    /// The combined grid breaks a rule of the rectilinear grid (should not happen).
    InvalidGrid,
    /// Mosaic: a global cut falls inside a block of a tile (staggered tiles).
    StaggeredCut,
    /// Mosaic: an overlap settled by dropping whole blocks of the earlier file (last file wins).
    OverlapResolved,
    /// Mosaic: which files to rewrite, with which block size, to make the rest fit.
    RewriteSuggestion,
    /// GeoTIFF: georeferencing that cannot be carried whole into coordinates and a grid mapping.
    Georeference,
    /// `--stack-coord`: a file without a date, or files with the same one, left out of the stack.
    StackCoord,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub severity: Severity,
    /// The file the finding is about, if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The array (variable) path, if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<String>,
    /// What is wrong, in words.
    pub message: String,
    /// Where: the chunk, axis or range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// How to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Finding {
    pub fn new(kind: FindingKind, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            kind,
            severity,
            file: None,
            array: None,
            message: message.into(),
            location: None,
            fix: None,
        }
    }
    pub fn error(kind: FindingKind, message: impl Into<String>) -> Self {
        Self::new(kind, Severity::Error, message)
    }
    pub fn file(mut self, f: impl Into<String>) -> Self {
        self.file = Some(f.into());
        self
    }
    pub fn array(mut self, a: impl Into<String>) -> Self {
        self.array = Some(a.into());
        self
    }
    pub fn at(mut self, l: impl Into<String>) -> Self {
        self.location = Some(l.into());
        self
    }
    pub fn fix(mut self, f: impl Into<String>) -> Self {
        self.fix = Some(f.into());
        self
    }
}

impl std::fmt::Display for Finding {
    /// `file: what is wrong (where) — how to fix`, each piece [`shown`] (names from files may
    /// hold control characters).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = match (&self.file, &self.array) {
            (Some(file), _) => display_file(file),
            (None, Some(a)) => a.clone(),
            (None, None) => "vzplan".to_string(),
        };
        write!(f, "{}: ", shown(&who))?;
        if let (Some(_), Some(a)) = (&self.file, &self.array) {
            write!(f, "{}: ", shown(a))?;
        }
        write!(f, "{}", shown(&self.message))?;
        if let Some(l) = &self.location {
            write!(f, " ({})", shown(l))?;
        }
        if let Some(x) = &self.fix {
            write!(f, " — {}", shown(x))?;
        }
        Ok(())
    }
}

/// Local file URLs are shown as paths.
pub fn display_file(url: &str) -> String {
    url.strip_prefix("file://").unwrap_or(url).to_string()
}
