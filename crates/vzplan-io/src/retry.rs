//! Retries of one request to object storage: an attempt's failure is transient (5xx, a reset
//! connection, a timeout, a body cut short) or permanent (not found, access denied); transient
//! ones are retried up to [`IoOptions::retries`] times with exponential backoff and full jitter,
//! each attempt bounded by [`IoOptions::timeout`] and counted in [`Counters`].
//!
//! Retries wrap each request, not a whole reader: a batched read fetches coalesced ranges
//! concurrently, and retrying the batch from outside would fetch again the ranges that came.

use crate::IoError;
use crate::IoOptions;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// An attempt's failure, sorted into retry-or-not.
pub(crate) enum Failure {
    Transient(String),
    Permanent(object_store::Error),
}

pub(crate) fn classify(e: object_store::Error) -> Failure {
    use object_store::Error as E;
    match e {
        E::Generic { .. } | E::JoinError { .. } => Failure::Transient(e.to_string()),
        e => Failure::Permanent(e),
    }
}

/// Answers that asked the client to slow down, in this process so far.
static THROTTLED: AtomicU64 = AtomicU64::new(0);

/// How many answers so far asked to slow down (S3's 503 SlowDown, GCS's 429, Azure's 503
/// ServerBusy): a scan that keeps many files in flight watches it to back off.
pub fn throttled() -> u64 {
    THROTTLED.load(Ordering::Relaxed)
}

/// Whether a transient failure is the store asking for fewer requests: by the status in
/// `object_store`'s text ("status code: 503 …"; the key, the port and the time in the same text
/// may hold those digits too) or the store's own code.
fn is_throttle(msg: &str) -> bool {
    [
        "status code: 503",
        "status code: 429",
        "SlowDown",
        "Too Many Requests",
        "ServerBusy",
    ]
    .iter()
    .any(|w| msg.contains(w))
}

/// Request counters shared by one object's reader.
#[derive(Default)]
pub(crate) struct Counters {
    pub requests: AtomicU64,
    pub round_trips: AtomicU64,
    pub bytes: AtomicU64,
    pub retried: AtomicU64,
    pub unreachable: AtomicU64,
}

fn jitter_below(max: Duration) -> Duration {
    // SplitMix64 over a shared counter seeded from the clock: cheap, good enough for jitter.
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut z = STATE
        .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        .wrapping_add(seed);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let nanos = max.as_nanos().min(u64::MAX as u128) as u64;
    Duration::from_nanos(if nanos == 0 { 0 } else { z % nanos })
}

/// Backoff before retry number `attempt` (0-based): full jitter below `base * 2^attempt`, capped.
fn backoff(opts: &IoOptions, attempt: u32) -> Duration {
    let cap = opts
        .backoff_base
        .saturating_mul(1u32 << attempt.min(20))
        .min(opts.backoff_max);
    // At least a tenth of the cap, so a burst of failures does not retry in lockstep at once.
    cap / 10 + jitter_below(cap - cap / 10)
}

/// Runs `op` with timeouts and retries; `what` names the request in errors.
pub(crate) async fn with_retries<T, F, Fut>(
    opts: &IoOptions,
    counters: &Counters,
    url: &str,
    what: &str,
    mut op: F,
) -> Result<T, IoError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Failure>>,
{
    let mut attempt = 0u32;
    loop {
        counters.requests.fetch_add(1, Ordering::Relaxed);
        let outcome = match tokio::time::timeout(opts.timeout, op()).await {
            Ok(r) => r,
            Err(_) => Err(Failure::Transient(format!(
                "timed out after {:.1} s",
                opts.timeout.as_secs_f64()
            ))),
        };
        if let Err(Failure::Transient(msg)) = &outcome {
            if is_throttle(msg) {
                THROTTLED.fetch_add(1, Ordering::Relaxed);
            }
        }
        match outcome {
            Ok(v) => return Ok(v),
            Err(Failure::Permanent(e)) => return Err(permanent(url, e, opts.anon)),
            Err(Failure::Transient(msg)) if attempt >= opts.retries => {
                counters.unreachable.fetch_add(1, Ordering::Relaxed);
                return Err(IoError::Unreachable {
                    url: crate::redact(url),
                    reason: format!("{what}: {msg} (gave up after {} attempts)", attempt + 1),
                });
            }
            Err(Failure::Transient(_)) => {
                counters.retried.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(backoff(opts, attempt)).await;
                attempt += 1;
            }
        }
    }
}

#[cfg(test)]
#[test]
fn throttling_answers_are_told_from_other_failures() {
    assert!(is_throttle(
        "Server returned non-2xx status code: 503 Service Unavailable: <Code>SlowDown</Code>"
    ));
    assert!(is_throttle(
        "Server returned non-2xx status code: 429 Too Many Requests"
    ));
    assert!(!is_throttle("500 Internal Server Error"));
    assert!(!is_throttle(
        "Error performing GET http://127.0.0.1:45031/b/tas_day_20150301.nc in 3.429112ms - \
         Server returned non-2xx status code: 500 Internal Server Error"
    ));
    assert!(!is_throttle("timed out after 30.0 s"));
}

pub(crate) fn permanent(url: &str, e: object_store::Error, anon: bool) -> IoError {
    use object_store::Error as E;
    let reason = match &e {
        E::NotFound { .. } => {
            return IoError::Missing {
                url: crate::redact(url),
            }
        }
        E::PermissionDenied { .. } | E::Unauthenticated { .. } if anon => {
            format!("access denied to an unsigned request ({e}); drop --anon and set the cloud's credential environment variables")
        }
        E::PermissionDenied { .. } => {
            format!(
                "access denied ({e}); check the credentials, or pass --anon for a public bucket"
            )
        }
        E::Unauthenticated { .. } => {
            format!("not authenticated ({e}); set the cloud's credential environment variables, or pass --anon")
        }
        _ => e.to_string(),
    };
    IoError::Remote {
        url: crate::redact(url),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let o = IoOptions::default();
        for a in 0..30 {
            let b = backoff(&o, a);
            assert!(b <= o.backoff_max, "{a}: {b:?}");
        }
        assert!(backoff(&o, 0) <= o.backoff_base);
    }
}
