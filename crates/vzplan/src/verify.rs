//! `verify`: are the sources a refs.json references unchanged (size, ETag, mtime)?

use crate::Error;
use std::path::Path;
use vzplan_io::remote::normalize_etag;
use vzplan_io::{IoOptions, ObjectMeta};
use vzplan_plan::SourceRef;

/// The sources checked and what changed, one message per changed source.
#[derive(Clone, Debug)]
pub struct VerifyReport {
    pub sources: usize,
    pub changed: Vec<String>,
    /// Sources not checked, with why: a URL no scan writes, or a loopback, link-local or cloud
    /// metadata host that only the refs name (refs.json is a file like any other).
    pub refused: Vec<String>,
    /// Files of the collection that do not belong with refs.json (an interrupted run).
    pub apart: Vec<String>,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.changed.is_empty() && self.refused.is_empty() && self.apart.is_empty()
    }
}

/// Compares each source recorded in `refs` (a refs.json written by `build`) with the file or
/// object as it is now.
pub fn verify(
    refs: &Path,
    io: &IoOptions,
    sources_under: &[String],
) -> Result<VerifyReport, Error> {
    let named = crate::Named::new([], sources_under)?;
    let bad = |message: String| Error::Refs {
        path: refs.display().to_string(),
        message,
    };
    let text = std::fs::read_to_string(refs).map_err(|e| bad(e.to_string()))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let root = v["refs"]["zarr.json"]
        .as_str()
        .ok_or_else(|| bad("no inline zarr.json: not written by vzplan build".into()))?;
    let root: serde_json::Value = serde_json::from_str(root)?;
    let sources: Vec<SourceRef> =
        serde_json::from_value(root["attributes"]["vzplan"]["sources"].clone())
            .map_err(|e| bad(format!("no vzplan provenance: {e}")))?;
    let (mut changed, mut refused) = (Vec::new(), Vec::new());
    for s in &sources {
        match refusal(&s.url, &named) {
            Some(why) => refused.push(why),
            None => changed.extend(drift(s, io).map(|d| d.message)),
        }
    }
    let urls = sources.iter().map(|s| s.url.clone()).collect();
    let apart = crate::together::check(refs, &v, &urls);
    Ok(VerifyReport {
        sources: sources.len(),
        changed,
        refused,
        apart,
    })
}

/// Why a source the refs name is not asked about, if it is not.
fn refusal(url: &str, named: &crate::Named) -> Option<String> {
    if let Err(e) = vzplan_io::check_source_url(url) {
        return Some(format!("not checked: {e}"));
    }
    let host = vzplan_io::special_host(url).filter(|_| !named.allows(url))?;
    Some(format!(
        "{}: not checked: {host} that only the refs name (pass --sources-under {} to check it)",
        vzplan_io::redact(url),
        vzplan_io::redact(&crate::named::parent(url))
    ))
}

/// How a source differs from its record, or why it could not be looked at.
pub(crate) struct Drift {
    pub message: String,
    /// Its store could not be reached: nothing is known about the source itself.
    pub unreachable: bool,
}

impl From<String> for Drift {
    fn from(message: String) -> Self {
        Drift {
            message,
            unreachable: false,
        }
    }
}

impl From<&vzplan_io::IoError> for Drift {
    fn from(e: &vzplan_io::IoError) -> Self {
        Drift {
            message: e.to_string(),
            unreachable: e.is_unreachable(),
        }
    }
}

/// How one source differs from its record, if it does.
pub(crate) fn drift(s: &SourceRef, io: &IoOptions) -> Option<Drift> {
    match meta_now(&s.url, io) {
        Err(e) => Some(Drift::from(&e)),
        Ok(m) => compare(s, &m).map(Drift::from),
    }
}

/// A file's size and identity now: a `stat` of a local file, a HEAD of an object.
pub(crate) fn meta_now(url: &str, io: &IoOptions) -> Result<ObjectMeta, vzplan_io::IoError> {
    if vzplan_io::is_url(url) {
        vzplan_io::remote::head(url, io)
    } else {
        use vzplan_io::RangeRead;
        let path = url.strip_prefix("file://").unwrap_or(url);
        vzplan_io::LocalFile::open(path).map(|f| f.meta().clone())
    }
}

/// How a source's metadata now (`m`) differs from its record, if it does.
pub(crate) fn compare(s: &SourceRef, m: &ObjectMeta) -> Option<String> {
    if s.etag.is_none() && s.mtime.is_none() {
        // Described, not scanned (a DMR++ sidecar's granule nobody named; a server that gives
        // no ETag or time): the recorded size is the least the references need, not the file's.
        return (m.size < s.size).then(|| {
            format!(
                "{}: size is {} bytes, less than the {} its references reach",
                s.url, m.size, s.size
            )
        });
    }
    if m.size != s.size {
        Some(format!(
            "{}: size is {} bytes, was {}",
            s.url, m.size, s.size
        ))
    } else if s.etag.is_some()
        && m.etag.as_deref().map(normalize_etag) != s.etag.as_deref().map(normalize_etag)
    {
        Some(format!(
            "{}: ETag is {}, was {}",
            s.url,
            m.etag.as_deref().unwrap_or("?"),
            s.etag.as_deref().unwrap_or("?")
        ))
    } else if s.mtime.is_some() && !same_mtime(s.mtime.as_deref(), m.mtime.as_deref()) {
        Some(format!(
            "{}: modified at {}, was {}",
            s.url,
            m.mtime.as_deref().unwrap_or("?"),
            s.mtime.as_deref().unwrap_or("?")
        ))
    } else {
        None
    }
}

/// Whether a recorded modification time is the one now. Outputs written before times were kept
/// to the nanosecond recorded whole seconds (`…T15:52:08Z`): those match any time within that
/// second, rather than reporting every source changed.
fn same_mtime(recorded: Option<&str>, now: Option<&str>) -> bool {
    match (recorded, now) {
        (Some(r), Some(n)) if r == n => true,
        (Some(r), Some(n)) if !r.contains('.') => {
            let whole = |t: &str| {
                t.split('.')
                    .next()
                    .unwrap_or(t)
                    .trim_end_matches('Z')
                    .to_string()
            };
            whole(r) == whole(n)
        }
        _ => recorded == now,
    }
}

#[cfg(test)]
mod tests {
    use super::same_mtime;

    #[test]
    fn whole_second_records_match_within_their_second_only() {
        let now = Some("2026-12-03T15:52:08.280181428Z");
        assert!(same_mtime(Some("2026-12-03T15:52:08Z"), now));
        assert!(!same_mtime(Some("2026-12-03T15:52:07Z"), now));
        assert!(!same_mtime(Some("2026-12-03T15:52:08.280181427Z"), now));
        assert!(same_mtime(now, now));
    }
}
