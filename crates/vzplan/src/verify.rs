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
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.changed.is_empty()
    }
}

/// Compares each source recorded in `refs` (a refs.json written by `build`) with the file or
/// object as it is now.
pub fn verify(refs: &Path, io: &IoOptions) -> Result<VerifyReport, Error> {
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
    let changed = sources.iter().filter_map(|s| drift(s, io)).collect();
    Ok(VerifyReport {
        sources: sources.len(),
        changed,
    })
}

/// How one source differs from its record, if it does.
pub(crate) fn drift(s: &SourceRef, io: &IoOptions) -> Option<String> {
    let path = s.url.strip_prefix("file://").unwrap_or(&s.url);
    let now: Result<ObjectMeta, _> = if vzplan_io::is_url(&s.url) {
        vzplan_io::remote::head(&s.url, io)
    } else {
        use vzplan_io::RangeRead;
        vzplan_io::LocalFile::open(path).map(|f| f.meta().clone())
    };
    match now {
        Err(e) => Some(e.to_string()),
        Ok(m) => compare(s, &m),
    }
}

/// How a source's metadata now (`m`) differs from its record, if it does.
pub(crate) fn compare(s: &SourceRef, m: &ObjectMeta) -> Option<String> {
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
