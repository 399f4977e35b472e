//! What the HTML report draws for a mosaic: the tiles with their status, the global cuts, the
//! gaps, overlaps and staggered cuts. Serialised as is into the report's JSON.

use serde::Serialize;

/// A rectangle of the combined array: rows `r0..r1`, columns `c0..c1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rect {
    pub r0: u64,
    pub r1: u64,
    pub c0: u64,
    pub c1: u64,
}

impl Rect {
    pub(super) fn intersect(&self, o: &Rect) -> Option<Rect> {
        let r = Rect {
            r0: self.r0.max(o.r0),
            r1: self.r1.min(o.r1),
            c0: self.c0.max(o.c0),
            c1: self.c1.min(o.c1),
        };
        (r.r0 < r.r1 && r.c0 < r.c1).then_some(r)
    }
    pub(super) fn describe(&self, dims: &[String; 2]) -> String {
        format!(
            "{} {}..{}, {} {}..{}: {}×{} pixels",
            dims[0],
            self.r0,
            self.r1,
            dims[1],
            self.c0,
            self.c1,
            self.r1 - self.r0,
            self.c1 - self.c0
        )
    }
}

/// How a tile fits the combined grid (the colours of the HTML report).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TileStatus {
    /// Every global cut falls on its block boundaries.
    Fits,
    /// Fits, with a padded block that is last on its axis (or rescued as a byte prefix).
    Padded,
    /// A global cut falls inside one of its blocks.
    Staggered,
    /// A padded block would sit inside the combined array.
    PaddedInterior,
    /// Overlaps a later tile by a region that is not whole blocks.
    Overlap,
    /// Lost whole blocks to a later, overlapping tile (last file wins).
    OverlapResolved,
    /// Could not be placed (no georeferencing, another CRS, pixel size or alignment).
    Unplaced,
}

/// One tile of a mosaic view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TileView {
    /// Index into [`Plan::sources`].
    pub source: usize,
    pub file: String,
    /// Offset (row, column) in the combined array; `None` when unplaced.
    pub offset: Option<[u64; 2]>,
    pub shape: [u64; 2],
    pub block: [u64; 2],
    pub status: TileStatus,
    /// Blocks (row, column in the tile's own grid) dropped because a later tile covers them.
    pub dropped: Vec<[u64; 2]>,
}

/// A global cut that falls inside a block of a tile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StaggerView {
    pub source: usize,
    /// 0: along rows (a horizontal line), 1: along columns (a vertical line).
    pub axis: usize,
    pub position: u64,
    /// The tile's block index along that axis.
    pub block: u64,
}

/// An overlap between an earlier and a later tile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverlapView {
    pub earlier: usize,
    pub later: usize,
    pub rect: Rect,
    pub resolved: bool,
}

/// What the HTML report draws for one mosaic array.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MosaicView {
    pub array: String,
    /// The two mosaic dimensions (rows, columns).
    pub dims: [String; 2],
    pub shape: [u64; 2],
    /// Global cut positions per axis, from 0 to the axis length.
    pub cuts: [Vec<u64>; 2],
    pub tiles: Vec<TileView>,
    pub gaps: Vec<Rect>,
    pub overlaps: Vec<OverlapView>,
    pub staggered: Vec<StaggerView>,
    /// Whether the array was planned.
    pub planned: bool,
}
