//! What the planner returns: the [`Plan`] with its arrays, chunks and patches, and the
//! [`Options`] that shape it. Plain data; the emitters (`vzplan-emit`) write it out.

use crate::mosaic::{LayoutEntry, MosaicView};
use crate::{Finding, FindingKind};
use serde_json::{Map, Value};
use vzplan_core::{AxisEdges, ChunkList, Codec, DType, Field, GroupLayout, SourceLayout};

/// How to combine the files.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The dimension to concatenate along; default: the unlimited dimension, else `time`.
    pub concat_dim: Option<String>,
    /// Stack the files along a new leading dimension of this name instead.
    pub stack_dim: Option<String>,
    /// With `stack_dim`: each file's date as a time coordinate along it, the files in its order.
    pub stack_coord: Option<crate::StackCoord>,
    /// Only these variables (and the coordinate variables of their dimensions).
    pub vars: Vec<String>,
    /// Place the files side by side in 2-D (a mosaic) by their georeferencing.
    pub mosaic: bool,
    /// Place the files of a mosaic at these offsets instead (implies `mosaic`).
    pub mosaic_layout: Option<Vec<LayoutEntry>>,
    /// Repair instead of refusing: chunks stored padded in the middle, or with filters skipped,
    /// are planned as [`Patch`]es (materialised inline by `vzplan-patch`).
    pub patch: bool,
}

/// A source file as the output references it (template `u{index}`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SourceRef {
    pub url: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
}

impl SourceRef {
    /// A file another file's arrays have blocks in.
    pub fn linked(s: &vzplan_core::LinkedSource) -> Self {
        SourceRef {
            url: s.url.clone(),
            size: s.size,
            etag: s.etag.clone(),
            mtime: s.mtime.clone(),
        }
    }

    /// The source a scanned file is: its URL and what identifies its version.
    pub fn of(l: &vzplan_core::SourceLayout) -> Self {
        SourceRef {
            url: l.url.clone(),
            size: l.size,
            etag: l.etag.clone(),
            mtime: l.mtime.clone(),
        }
    }
}

/// One output array.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayPlan {
    pub path: String,
    pub dims: Vec<String>,
    pub shape: Vec<u64>,
    pub dtype: DType,
    pub fill_value: Option<Vec<u8>>,
    pub attrs: Map<String, Value>,
    pub codecs: Vec<Codec>,
    /// Chunk edge lengths per axis.
    pub edges: Vec<AxisEdges>,
    /// The chunks: grid key (`index`), index into [`Plan::sources`] (meaningless for inline
    /// data) and bytes, as columns.
    pub chunks: ChunkList,
    /// How many files contribute chunks.
    pub files: usize,
    /// Coordinate values (decoded, dtype byte order) when the array is a coordinate written inline.
    pub values: Option<Vec<u8>>,
    /// Chunks to materialise inline (`--patch`) before the plan is written.
    pub patches: Vec<Patch>,
    /// A `struct` element's fields (empty for every other kind).
    pub fields: Vec<Field>,
}

impl ArrayPlan {
    /// The dimensions a GeoTIFF image's affine transform maps (`spatial:dimensions`), `y` and `x`
    /// unless it says otherwise.
    pub fn spatial_dims(&self) -> Vec<String> {
        match self.attrs.get("spatial:dimensions") {
            Some(Value::Array(d)) => d
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            _ => vec!["y".into(), "x".into()],
        }
    }
}

/// A chunk that cannot be referenced as it is stored: read it, decode it, keep its leading
/// `keep` sub-block, re-encode it with the array's codecs, and write it inline.
#[derive(Clone, Debug, PartialEq)]
pub struct Patch {
    /// Index into [`ArrayPlan::chunks`]; that chunk's data is the stored byte range.
    pub chunk: usize,
    /// Filters skipped when the block was stored (bit i = codec i).
    pub skipped: u32,
    /// The block's shape as stored (decoded).
    pub stored: Vec<u64>,
    /// The leading sub-block to keep (equal to `stored` when nothing is cut).
    pub keep: Vec<u64>,
}

/// The result of planning: what will be written, and what will not and why.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// The files planned, then the files they link to (see [`Plan::files`]).
    pub sources: Vec<SourceRef>,
    /// How many of `sources` are the files planned; the rest hold blocks those files link to.
    pub files: usize,
    pub concat_dim: Option<String>,
    pub stack_dim: Option<String>,
    pub attrs: Map<String, Value>,
    pub groups: Vec<GroupLayout>,
    pub arrays: Vec<ArrayPlan>,
    /// Arrays left out, each with at least one error finding.
    pub left_out: Vec<String>,
    pub findings: Vec<Finding>,
    /// For a mosaic: its two dimensions (rows, columns).
    pub mosaic_dims: Option<[String; 2]>,
    /// For a mosaic: what the HTML report draws, one view per mosaic array.
    pub mosaics: Vec<MosaicView>,
    /// For a mosaic: files (indexes into `sources`) that could not be placed.
    pub unplaced: Vec<usize>,
    /// The layouts the plan was made from, their chunk tables now the plan's: freed with the plan,
    /// so that a program about to exit can leave both to the exit.
    pub(crate) remains: Remains,
}

/// What is left of planned layouts: thousands of small maps and strings.
#[derive(Clone, Default)]
pub(crate) struct Remains(pub(crate) Vec<SourceLayout>);

impl std::fmt::Debug for Remains {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} layouts", self.0.len())
    }
}

impl Plan {
    /// The files planned (without the files they link to).
    pub fn inputs(&self) -> &[SourceRef] {
        match self.files {
            0 => &self.sources,
            n => &self.sources[..n.min(self.sources.len())],
        }
    }

    /// True when something was left out (a file, an array, or a file that contributes nothing):
    /// the CLI's exit code 3.
    pub fn incomplete(&self) -> bool {
        !self.left_out.is_empty()
            || !self.unplaced.is_empty()
            || self.findings.iter().any(|f| {
                f.kind == FindingKind::FileError
                    || (f.kind == FindingKind::StackCoord && f.severity == crate::Severity::Error)
                    || (f.kind == FindingKind::Missing
                        && f.message.starts_with(CONTRIBUTES_NOTHING))
            })
    }
}

/// How the finding about a file none of whose arrays is used starts.
pub const CONTRIBUTES_NOTHING: &str = "contributes nothing";

/// A file that could not be scanned.
#[derive(Clone, Debug, Default)]
pub struct ScanFailure {
    pub url: String,
    pub error: String,
    /// Its store could not be reached (an outage), as opposed to a file that was read and is bad.
    pub unreachable: bool,
}
