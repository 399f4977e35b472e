//! One array's mosaic while its rules run: the tiles, the grid so far, the tiles that do not
//! fit, the findings. The rules (`overlap`, `cuts`, `padded`, `cells`) each work on it.

use super::tile::Tile;
use super::view::{MosaicView, TileStatus};
use crate::Finding;
use std::collections::BTreeMap;
use vzplan_core::ArrayLayout;

/// One array's mosaic while its rules run.
pub(super) struct Mosaic<'a, 'f> {
    pub path: &'a str,
    /// The array's axes that are the mosaic's rows and columns.
    pub k: [usize; 2],
    pub dims: &'a [String; 2],
    /// The first tile's array: what the others must agree with.
    pub a0: &'a ArrayLayout,
    pub tiles: Vec<Tile<'a>>,
    pub shape: [u64; 2],
    pub view: MosaicView,
    /// Tiles that do not simply fit, and how.
    pub bad: BTreeMap<usize, TileStatus>,
    /// No error so far.
    pub ok: bool,
    pub findings: &'f mut Vec<Finding>,
}

/// The fill value in words, for gap findings.
pub(super) fn fill_words(a: &ArrayLayout) -> String {
    match a.fill_value.as_deref().and_then(|f| a.dtype.decode_f64(f)) {
        Some(v) => format!("{v}"),
        None => "0 (none set)".to_string(),
    }
}

/// The dimension name of an axis for messages.
pub(super) fn axis_word(dims: &[String; 2], m: usize) -> &str {
    &dims[m]
}
