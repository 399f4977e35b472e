//! The same source given twice (overlapping globs, a file listed in two layout files) is one
//! source: used once, at its first position, with an `info` finding. Done at the planner's entry so
//! it holds for scans and `--from-layouts` alike; without it the file overlaps itself along the
//! concat axis and every variable is left out.

use crate::{Finding, FindingKind, ScanFailure, Severity};
use std::collections::HashMap;
use vzplan_core::SourceLayout;

/// Keeps the first layout and the first failure of every URL; reports the rest.
pub(crate) fn dedupe(
    layouts: Vec<SourceLayout>,
    failures: &[ScanFailure],
    findings: &mut Vec<Finding>,
) -> (Vec<SourceLayout>, Vec<ScanFailure>) {
    let mut times: HashMap<String, usize> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut count = |url: &str| {
        let n = times.entry(url.to_string()).or_insert(0);
        if *n == 0 {
            order.push(url.to_string());
        }
        *n += 1;
        *n == 1
    };
    let layouts: Vec<SourceLayout> = layouts.into_iter().filter(|l| count(&l.url)).collect();
    let failures: Vec<ScanFailure> = failures.iter().filter(|f| count(&f.url)).cloned().collect();
    for url in order {
        let n = times.get(&url).copied().unwrap_or(1);
        if n > 1 {
            findings.push(
                Finding::new(
                    FindingKind::Duplicate,
                    Severity::Info,
                    format!("given {n} times (overlapping inputs); used once"),
                )
                .file(&url),
            );
        }
    }
    (layouts, failures)
}
