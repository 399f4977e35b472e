//! Time rebasing: files that count time from different reference dates in one calendar are
//! brought to the first file's units before they are ordered (CF conventions, section 4.4).

use crate::order::coord_of;
use crate::{cftime, Finding, FindingKind, Severity};
use serde_json::Value;
use vzplan_core::SourceLayout;

/// When files count time from different reference dates (`days since 2001-01-01` vs
/// `days since 2000-01-01`) in one calendar, rewrites every file's coordinate values (which are
/// written inline) into the first file's units. Leaves everything as it was when any file's units
/// or values cannot be converted exactly (the units check that follows then reports it).
pub(crate) fn rebase_time(
    layouts: &mut [SourceLayout],
    coords: &mut [Option<Vec<f64>>],
    dim: &str,
    findings: &mut Vec<Finding>,
) {
    let attr = |l: &SourceLayout, k: &str| -> Option<String> {
        coord_of(l, dim)
            .and_then(|a| a.attrs.get(k))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let Some(u0) = attr(&layouts[0], "units") else {
        return;
    };
    let cal0 = attr(&layouts[0], "calendar");
    if layouts
        .iter()
        .all(|l| attr(l, "units").as_deref() == Some(&u0))
    {
        return;
    }
    let Some(to) = cftime::parse(&u0, cal0.as_deref()) else {
        return;
    };
    let mut converted = Vec::with_capacity(layouts.len());
    for (l, c) in layouts.iter().zip(coords.iter()) {
        let (Some(u), Some(vals)) = (attr(l, "units"), c.as_ref()) else {
            return;
        };
        if attr(l, "calendar") != cal0 {
            return;
        }
        let Some(from) = cftime::parse(&u, cal0.as_deref()) else {
            return;
        };
        let Some(v) = cftime::convert(vals, from, to) else {
            return;
        };
        let Some(dtype) = coord_of(l, dim).map(|a| a.dtype) else {
            return;
        };
        let mut bytes = Vec::with_capacity(v.len() * dtype.size);
        for x in &v {
            match dtype.encode_f64(*x) {
                Some(b) => bytes.extend(b),
                None => return,
            }
        }
        converted.push((u, v, bytes));
    }
    for ((l, c), (u, v, bytes)) in layouts.iter_mut().zip(coords.iter_mut()).zip(converted) {
        if u != u0 {
            findings.push(
                Finding::new(
                    FindingKind::Rebased,
                    Severity::Info,
                    format!("'{dim}' converted from \"{u}\" to the first file's \"{u0}\""),
                )
                .file(&l.url)
                .array(dim),
            );
        }
        if let Some(a) = l.arrays.iter_mut().find(|a| a.path == dim) {
            a.values = Some(bytes);
            a.attrs.insert("units".into(), Value::String(u0.clone()));
        }
        *c = Some(v);
    }
}
