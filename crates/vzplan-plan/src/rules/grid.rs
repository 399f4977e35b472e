//! The last check before anything is written: the planned grid obeys the rectilinear grid's
//! rules (edges sum to the shape, every chunk key inside the grid and used once).

use crate::{fix, ArrayPlan, Finding, FindingKind};
use std::collections::BTreeMap;

/// Final check of the grid rules; a failure is a bug, reported rather than written.
pub(crate) fn validate(p: &ArrayPlan, findings: &mut Vec<Finding>) -> bool {
    if p.edges.len() != p.shape.len() {
        findings.push(
            Finding::error(
                FindingKind::InvalidGrid,
                "grid rank differs from the array's",
            )
            .array(&p.path)
            .fix(fix::REPORT_BUG),
        );
        return false;
    }
    for (axis, (e, &n)) in p.edges.iter().zip(&p.shape).enumerate() {
        if let Err(err) = e.validate(axis, n) {
            findings.push(
                Finding::error(FindingKind::InvalidGrid, err.to_string())
                    .array(&p.path)
                    .fix(fix::REPORT_BUG),
            );
            return false;
        }
    }
    let mut keys: BTreeMap<&[u64], ()> = BTreeMap::new();
    for c in &p.chunks {
        let inside =
            c.key.len() == p.edges.len() && c.key.iter().zip(&p.edges).all(|(k, e)| *k < e.count());
        if !inside || keys.insert(&c.key, ()).is_some() {
            findings.push(
                Finding::error(
                    FindingKind::InvalidGrid,
                    format!("chunk key {:?} is outside the grid or repeated", c.key),
                )
                .array(&p.path)
                .fix(fix::REPORT_BUG),
            );
            return false;
        }
    }
    true
}
