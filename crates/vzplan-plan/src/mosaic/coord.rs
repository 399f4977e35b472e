//! Coordinates along a mosaic axis, stitched from the tiles' values and written inline.

use super::georef::regular;
use crate::combine::place::inline_coord;
use crate::{display_file, ArrayPlan, Finding, FindingKind};
use vzplan_core::{ArrayLayout, SourceLayout};

/// A coordinate along a mosaic axis: the tiles' values placed at their offsets, the gaps filled
/// by the regular step; written inline.
pub(super) fn mosaic_coord(
    path: &str,
    m: usize,
    present: &[(usize, &ArrayLayout)],
    offsets: &[Option<[u64; 2]>],
    extent: &[Option<[u64; 2]>],
    layouts: &[SourceLayout],
    findings: &mut Vec<Finding>,
) -> Option<ArrayPlan> {
    let a0 = present[0].1;
    let n = present
        .iter()
        .filter_map(|(i, a)| Some(offsets[*i]?[m] + a.shape[0]))
        .max()
        .unwrap_or(0);
    let size = a0.dtype.size;
    let mut out = vec![0u8; (n as usize).saturating_mul(size)];
    let mut have = vec![false; n as usize];
    for &(i, a) in present {
        let (Some(o), Some(v)) = (offsets[i], a.values.as_ref()) else {
            findings.push(
                Finding::error(FindingKind::Unsupported, "coordinate values were not read")
                    .file(&layouts[i].url)
                    .array(path)
                    .fix(
                        "place the tiles with --mosaic-layout, or plan the files without --mosaic",
                    ),
            );
            return None;
        };
        if a.dtype != a0.dtype || extent[i].is_some_and(|e| e[m] != a.shape[0]) {
            findings.push(
                Finding::error(
                    FindingKind::Mismatch,
                    "dtype or length differs from the first tile's",
                )
                .file(&layouts[i].url)
                .array(path)
                .fix(format!(
                    "rewrite '{path}' in {} with the first tile's data type and one value per pixel",
                    display_file(&layouts[i].url)
                )),
            );
            return None;
        }
        let start = o[m] as usize;
        for k in 0..a.shape[0] as usize {
            let (Some(src), Some(dst)) = (
                v.get(k * size..(k + 1) * size),
                out.get_mut((start + k) * size..(start + k + 1) * size),
            ) else {
                continue;
            };
            dst.copy_from_slice(src);
            have[start + k] = true;
        }
    }
    // Gaps in the coordinate: extrapolate the first tile's regular step, in its dtype.
    if have.iter().any(|h| !h) {
        let (i0, a) = present[0];
        let (v0, step, _) = regular(a)?;
        let o0 = offsets[i0]?[m] as f64;
        for (k, h) in have.iter().enumerate() {
            if *h {
                continue;
            }
            let x = v0 + (k as f64 - o0) * step;
            let bytes: Vec<u8> = match (a.dtype.kind, size) {
                (vzplan_core::Kind::Float, 8) => x.to_le_bytes().to_vec(),
                (vzplan_core::Kind::Float, 4) => (x as f32).to_le_bytes().to_vec(),
                (vzplan_core::Kind::Int, 4) => (x.round() as i32).to_le_bytes().to_vec(),
                (vzplan_core::Kind::Int, 8) => (x.round() as i64).to_le_bytes().to_vec(),
                _ => return None,
            };
            let bytes: Vec<u8> = match a.dtype.endian {
                vzplan_core::Endian::Little => bytes,
                vzplan_core::Endian::Big => bytes.into_iter().rev().collect(),
            };
            out[k * size..(k + 1) * size].copy_from_slice(&bytes);
        }
    }
    Some(inline_coord(path, a0, out, n, present.len()))
}
