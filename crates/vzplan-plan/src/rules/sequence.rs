//! The sequence rule: along the concat axis the coordinate must be strictly increasing within
//! each file and run on from one file to the next (no overlap, no repeat); a jump larger than the
//! common step is reported as a gap.

use crate::{display_file, Finding, FindingKind, Severity};
use vzplan_core::SourceLayout;

/// Checks the files in `order`; false when the coordinate does not run on (overlaps, repeats,
/// or a file not increasing), so arrays along it cannot be concatenated.
pub(crate) fn check(
    layouts: &[SourceLayout],
    coords: &[Option<Vec<f64>>],
    order: &[usize],
    dim: &str,
    findings: &mut Vec<Finding>,
) -> bool {
    let mut ok = true;
    // A common step within files, if there is one, lets us spot gaps between files.
    let n: usize = coords
        .iter()
        .flatten()
        .map(|c| c.len().saturating_sub(1))
        .sum();
    let mut steps = Vec::with_capacity(n);
    for c in coords.iter().flatten() {
        steps.extend(c.windows(2).map(|w| w[1] - w[0]));
    }
    let step = steps
        .first()
        .copied()
        .filter(|s| steps.iter().all(|x| (x - s).abs() <= s.abs() * 1e-9));
    let mut prev: Option<(usize, f64)> = None;
    for &i in order {
        let c = coords[i].as_deref().unwrap_or(&[]);
        if let Some(w) = c.windows(2).position(|w| w[1] <= w[0]) {
            ok = false;
            findings.push(
                Finding::error(
                    FindingKind::NonMonotonic,
                    format!("'{dim}' is not strictly increasing within the file"),
                )
                .file(&layouts[i].url)
                .array(dim)
                .at(format!(
                    "index {} → {}: {} then {}",
                    w,
                    w + 1,
                    c[w],
                    c[w + 1]
                ))
                .fix(format!(
                    "sort the file along '{dim}' (e.g. `cdo sorttimestamp`)"
                )),
            );
        }
        if let (Some((j, last)), Some(&head)) = (prev, c.first()) {
            if head <= last {
                ok = false;
                let what = if head == last { "repeats" } else { "overlaps" };
                findings.push(
                    Finding::error(
                        FindingKind::Overlap,
                        format!(
                            "'{dim}' {what} the previous file {}: starts at {head}, which is not after its last value {last}",
                            display_file(&layouts[j].url)
                        ),
                    )
                    .file(&layouts[i].url)
                    .array(dim)
                    .fix("remove the duplicate file or trim the overlapping steps"),
                );
            } else if let Some(s) = step {
                let gap = head - last;
                if (gap - s).abs() > s.abs() * 1e-9 {
                    findings.push(
                        Finding::new(
                            FindingKind::Gap,
                            Severity::Warning,
                            format!(
                                "'{dim}' jumps from {last} to {head} after {}, where the step is {s}",
                                display_file(&layouts[j].url)
                            ),
                        )
                        .file(&layouts[i].url)
                        .array(dim)
                        .fix(format!(
                            "if files between {} and {} are missing, add them; if the jump is real, nothing to do: '{dim}' records it",
                            display_file(&layouts[j].url),
                            display_file(&layouts[i].url)
                        )),
                    );
                }
            }
        }
        if let Some(&tail) = c.last() {
            prev = Some((i, tail));
        }
    }

    ok
}
