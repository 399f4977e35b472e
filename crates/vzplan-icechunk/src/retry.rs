//! Writes that survive a flaky store. Icechunk's storage retries most requests itself, but not a
//! conditional write whose connection was cut mid-request (a new snapshot, the branch's ref):
//! the store may or may not have taken it. So a write that fails as an outage fails is tried
//! again as a whole — a fresh session, fresh chunk and manifest objects (new ids, nothing
//! overwritten) — and before each new try, and on a conflict after one, the branch's head is
//! asked whether it already carries this write's mark (a random id recorded in the commit's
//! metadata): then the commit landed and only its answer was lost.

use crate::write::{self, MARK_KEY};
use crate::{Committed, Error, IcechunkOptions, Target};
use std::time::Duration;
use vzplan_plan::Plan;

/// [`crate::write`]'s loop; see the module.
pub(crate) async fn write(
    plan: &Plan,
    target: &Target,
    opts: &IcechunkOptions,
) -> Result<Committed, Error> {
    let mark = new_mark();
    let existed = write::exists(target, opts).await.ok();
    let mut attempt = 0u32;
    loop {
        let result = async {
            let prepared = write::prepare(plan, target, opts, &mark).await?;
            write::commit(prepared, &opts.message).await
        }
        .await;
        let e = match result {
            Ok(c) => return Ok(c),
            Err(e) => e,
        };
        let after_outage = attempt > 0 && matches!(e, Error::Conflict { .. } | Error::Stale { .. });
        if e.transient() || after_outage {
            if let Ok(Some(c)) = landed(plan, target, opts, &mark, existed).await {
                return Ok(c);
            }
        }
        if !e.transient() || attempt >= opts.io.retries {
            return Err(e);
        }
        tokio::time::sleep(backoff(opts, attempt)).await;
        attempt += 1;
    }
}

/// The commit of this write, if the branch's head is it.
pub(crate) async fn landed(
    plan: &Plan,
    target: &Target,
    opts: &IcechunkOptions,
    mark: &str,
    existed: Option<bool>,
) -> Result<Option<Committed>, Error> {
    let Some((snapshot, meta)) = write::head(target, opts).await? else {
        return Ok(None);
    };
    if meta.get(MARK_KEY).and_then(|v| v.as_str()) != Some(mark) {
        return Ok(None);
    }
    let (arrays, virtual_refs, native_chunks) = write::counts(plan);
    Ok(Some(Committed {
        snapshot,
        branch: opts.branch.clone(),
        created: existed == Some(false),
        arrays,
        virtual_refs,
        native_chunks,
        containers: write::referenced_prefixes(plan).into_iter().collect(),
    }))
}

/// A mark no other write makes: the process, the time and a counter.
fn new_mark() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{nanos:x}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The wait before try `attempt + 1`: the reads' backoff (base doubling to the cap).
fn backoff(opts: &IcechunkOptions, attempt: u32) -> Duration {
    opts.io
        .backoff_base
        .saturating_mul(1u32 << attempt.min(20))
        .min(opts.io.backoff_max)
}

/// Whether an error's text (its whole chain) tells of an outage rather than of something wrong
/// with the request: a reset or refused connection, a timeout, throttling, a 5xx. Credentials,
/// permissions and missing buckets are never tried again.
pub(crate) fn transient_text(reason: &str) -> bool {
    let r = reason.to_ascii_lowercase();
    const PERMANENT: [&str; 9] = [
        "403",
        "401",
        "forbidden",
        "access denied",
        "accessdenied",
        "unauthorized",
        "not authenticated",
        "nosuchbucket",
        "signaturedoesnotmatch",
    ];
    const OUTAGE: [&str; 16] = [
        "connection reset",
        "connection closed",
        "connection refused",
        "broken pipe",
        "error sending request",
        "timed out",
        "timeout",
        "throttled",
        "slowdown",
        "service unavailable",
        "internal error",
        "unexpected eof",
        "incomplete message",
        "500 ",
        "502 ",
        "503 ",
    ];
    !PERMANENT.iter().any(|p| r.contains(p)) && OUTAGE.iter().any(|p| r.contains(p))
}

#[cfg(test)]
mod tests {
    use super::transient_text;

    #[test]
    fn outages_are_tried_again_and_refusals_are_not() {
        for t in [
            "object store error Generic S3 error: error sending request for url (http://127.0.0.1:9/b/r): connection reset by peer",
            "storage error: request timed out",
            "storage throttled the request: SlowDown: reduce your request rate",
            "server returned 503 Service Unavailable",
        ] {
            assert!(transient_text(t), "{t}");
        }
        for t in [
            "object store error: 403 Forbidden: AccessDenied",
            "object not found",
            "the branch moved",
            "bad object store prefix",
        ] {
            assert!(!transient_text(t), "{t}");
        }
    }
}
