//! Whether the last strips of a striped image are stored short or padded, plane by plane.
//!
//! Spec: TIFF Revision 6.0, <https://www.itu.int/itudoc/itu-t/com16/tiff-fx/docs/tiff6.pdf>.
//!
//! A Zarr chunk is decoded at its listed length, so every plane's last strip must decode to the
//! same number of rows. Writers mostly agree with themselves, with one common exception: GDAL
//! writes a band-interleaved (PlanarConfiguration 2) file's strips short, but fills the strips of
//! a band that was never written with one compressed *full-size* empty block (its
//! `FillEmptyTiles`), so those planes' last strips are padded. Such a strip holds only the fill
//! value, so it is left out of the chunk table (a missing chunk reads as the fill value) and the
//! image keeps short last strips.
//!
//! An image codec's last strip is measured by its frame's height (`frames.rs`). CCITT strips are
//! always exact: the CCITT codecs decode the rows of the chunk's shape and ignore the rest, so a
//! last strip stored short or padded decodes the same.

use crate::built::{Built, NotBuilt};
use crate::codecs::compression_name;
use crate::frames;
use crate::ifd::Tiff;
use crate::probe;
use vzplan_core::EdgeStorage;
use vzplan_core::ProblemKind;

/// Largest compressed last strip we decode to measure it (bigger ones are reported as problems).
const MAX_PROBE_BYTES: u64 = 64 << 20;

/// The strip grid of one image.
pub(crate) struct Strips<'a> {
    pub h: u64,
    pub rows_per_strip: u64,
    pub down: u64,
    pub planes: u64,
    pub row_bytes: u64,
    pub compression: u64,
    pub offsets: &'a [u64],
    pub counts: &'a [u64],
    /// One element of the fill value (GDAL_NODATA, else zeros), as stored.
    pub fill: &'a [u8],
}

/// The image's edge storage and the chunk-table positions of last strips to leave out (padded
/// last strips holding only the fill value, beside planes whose last strips are short). The inner
/// `Err` is the reason the image cannot be referenced.
pub(crate) fn last_strips(t: &Tiff, s: &Strips) -> Built<(EdgeStorage, Vec<usize>)> {
    let short_rows = s.h % s.rows_per_strip;
    if short_rows == 0 || matches!(s.compression, 2..=4) {
        return Ok((EdgeStorage::Exact, Vec::new()));
    }
    let short_bytes = short_rows * s.row_bytes;
    let full_bytes = s.rows_per_strip * s.row_bytes;
    let uncompressed = s.compression == 1;
    let mut any_short = false;
    // (chunk-table position, holds only the fill value) of each padded last strip.
    let mut padded: Vec<(usize, bool)> = Vec::new();
    for p in 0..s.planes {
        let i = (p * s.down + s.down - 1) as usize;
        let (Some(&off), Some(&cnt)) = (s.offsets.get(i), s.counts.get(i)) else {
            continue;
        };
        if cnt == 0 {
            continue;
        }
        if uncompressed {
            if cnt >= full_bytes {
                padded.push((i, false));
            } else if cnt >= short_bytes {
                any_short = true;
            } else {
                return Err(NotBuilt::Problem(ProblemKind::Storage, format!(
                    "the last strip stores {cnt} bytes, fewer than its {short_rows} rows need ({short_bytes})"
                )));
            }
            continue;
        }
        if cnt > MAX_PROBE_BYTES {
            return Err(NotBuilt::Problem(
                ProblemKind::Storage,
                format!(
                    "the last strip ({cnt} bytes) is too large to measure whether it is padded"
                ),
            ));
        }
        let data = t.read(off, cnt, "last strip")?;
        let limit = full_bytes.saturating_add(1);
        let len = match frames::rows(s.compression, &data) {
            Some(rows) => Some(rows.saturating_mul(s.row_bytes).min(limit)),
            None => probe::decoded_len(s.compression, &data, limit),
        };
        match len {
            Some(l) if l == short_bytes => any_short = true,
            Some(l) if l >= full_bytes => {
                let fill = s.planes > 1
                    && probe::holds_only(s.compression, &data, full_bytes, s.fill) == Some(true);
                padded.push((i, fill));
            }
            Some(l) => {
                return Err(NotBuilt::Problem(ProblemKind::Storage, format!(
                    "the last strip decodes to {l} bytes, neither its short size ({short_bytes}) nor a full strip ({full_bytes})"
                )))
            }
            None => {
                return Err(NotBuilt::Problem(ProblemKind::Storage, format!(
                    "cannot tell whether the last strip ({short_rows} of {} rows) is stored short or padded: its {} data could not be measured",
                    s.rows_per_strip,
                    compression_name(s.compression)
                )))
            }
        }
    }
    if padded.is_empty() {
        return Ok((EdgeStorage::Exact, Vec::new()));
    }
    if !any_short {
        return Ok((EdgeStorage::Padded, Vec::new()));
    }
    if uncompressed {
        // A padded uncompressed strip's prefix is the short strip: every plane's last strip is
        // referenced at its short length.
        return Ok((EdgeStorage::Exact, Vec::new()));
    }
    if padded.iter().all(|&(_, fill)| fill) {
        return Ok((EdgeStorage::Exact, padded.iter().map(|&(i, _)| i).collect()));
    }
    Err(NotBuilt::Problem(ProblemKind::Storage, format!(
        "the last strips of the sample planes differ: some short, some padded with data — rewrite with `gdal_translate -co INTERLEAVE=PIXEL`, or with a BLOCKYSIZE that divides the image height ({})",
        s.h
    )))
}
