//! The same source given twice (overlapping globs, a file listed in two layout files) is one
//! source: used once, at its first position, with an `info` finding. Done at the planner's entry so
//! it holds for scans and `--from-layouts` alike; without it the file overlaps itself along the
//! concat axis and every variable is left out.

use crate::FastMap;
use crate::{Finding, FindingKind, ScanFailure, Severity};
use vzplan_core::SourceLayout;

/// Keeps the first layout and the first failure of every URL; reports the rest.
pub(crate) fn dedupe(
    layouts: Vec<SourceLayout>,
    failures: &[ScanFailure],
    findings: &mut Vec<Finding>,
) -> (Vec<SourceLayout>, Vec<ScanFailure>) {
    // Counted over borrowed URLs (no copy of each URL at 10^5 files), then filtered by position.
    let urls = || {
        let failed = failures.iter().map(|f| f.url.as_str());
        layouts.iter().map(|l| l.url.as_str()).chain(failed)
    };
    let mut times: FastMap<&str, usize> = FastMap::default();
    times.reserve(layouts.len() + failures.len());
    let first: Vec<bool> = urls()
        .map(|u| {
            let n = times.entry(u).or_insert(0);
            *n += 1;
            *n == 1
        })
        .collect();
    // Each repeated URL once, at its first place (when there is one: fewer URLs than inputs).
    let repeated = times.len() < first.len();
    for (u, _) in urls().zip(&first).filter(|(_, &f)| f && repeated) {
        let n = times.get(u).copied().unwrap_or(1);
        if n > 1 {
            findings.push(
                Finding::new(
                    FindingKind::Duplicate,
                    Severity::Info,
                    format!(
                        "given {n} times (overlapping inputs, or links to one file); used once"
                    ),
                )
                .file(u),
            );
        }
    }
    let (keep_layouts, keep_failures) = first.split_at(layouts.len());
    let failures = failures
        .iter()
        .zip(keep_failures)
        .filter(|(_, &k)| k)
        .map(|(f, _)| f.clone())
        .collect();
    let mut keep = keep_layouts.iter();
    let layouts = layouts
        .into_iter()
        .filter(|_| keep.next().copied().unwrap_or(true))
        .collect();
    (layouts, failures)
}
