//! Listing a URL pattern on object storage, page by page.
//!
//! A listing is handed over as it arrives ([`list_each`]), so that scanning starts with the
//! first page instead of after the last: stores list at most 1,000 keys a request, and each page
//! needs the previous one's continuation token, so a listing of N pages costs N round trips in a
//! row. A page that fails is asked for again from the last key received (`start-after` on S3,
//! `startOffset` on GCS), not from the start, with the retries and backoff of every request.

use super::{block_on, glob_prefix, meta_of, parse, store_for, Listed, Scheme};
use crate::retry::{classify, with_retries, Counters};
use crate::{IoError, IoOptions};
use futures::stream::{BoxStream, StreamExt};
use futures::FutureExt;
use object_store::path::Path as StorePath;
use tokio::sync::Mutex;

/// Objects handed over at most at once: about one page of a store's listing.
const BATCH: usize = 1000;

/// Lists the objects matching a URL with a glob pattern in its key (`s3://b/data/*/tas_*.nc`;
/// `*` stays within one `/` segment, `**` crosses them), sorted by key. A URL without a wildcard
/// lists the single object (or nothing). HTTP(S) cannot be listed.
pub fn list(pattern_url: &str, opts: &IoOptions) -> Result<Vec<Listed>, IoError> {
    let mut out = Vec::new();
    list_each(pattern_url, opts, &mut |batch| {
        out.extend(batch);
        true
    })?;
    out.sort_by(|a, b| a.url.cmp(&b.url));
    Ok(out)
}

/// Whether `pattern_url` can be listed (a scheme with listings, a valid pattern and prefix),
/// without asking the store: a slip is told before a long scan reaches the pattern.
pub fn check_pattern(pattern_url: &str) -> Result<(), IoError> {
    prepare(pattern_url).map(|_| ())
}

/// The parsed URL, the literal prefix listed, and the pattern the keys must match (none: the
/// key itself).
fn prepare(pattern_url: &str) -> Result<(super::Loc, StorePath, Option<glob::Pattern>), IoError> {
    let loc = parse(pattern_url)?;
    if loc.scheme == Scheme::Http {
        return Err(super::bad_url(
            pattern_url,
            "HTTP(S) servers cannot be listed; give each file's URL",
        ));
    }
    let (prefix, pattern) = match glob_prefix(&loc.key) {
        Some(p) => (
            p.to_string(),
            Some(
                glob::Pattern::new(&loc.key)
                    .map_err(|e| super::bad_url(pattern_url, &format!("bad pattern: {e}")))?,
            ),
        ),
        None => (loc.key.clone(), None),
    };
    let prefix =
        StorePath::parse(&prefix).map_err(|e| super::bad_url(pattern_url, &e.to_string()))?;
    Ok((loc, prefix, pattern))
}

/// [`list`] handed over in batches as the store returns them, in the store's order (by key on
/// S3, GCS and Azure; a store may list in another order, and the caller sorts if it must).
/// `each` returns `false` to stop listing. Returns how many objects matched.
pub fn list_each(
    pattern_url: &str,
    opts: &IoOptions,
    each: &mut dyn FnMut(Vec<Listed>) -> bool,
) -> Result<usize, IoError> {
    let (loc, prefix, pattern) = prepare(pattern_url)?;
    let store = store_for(&loc, opts, pattern_url)?;
    let glob_opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    let matches = |key: &str| match &pattern {
        Some(p) => p.matches_with(key, glob_opts),
        None => key == loc.key,
    };
    let pages = Pages {
        store,
        prefix,
        state: Mutex::new(State::default()),
    };
    let counters = Counters::default();
    let mut found = 0;
    loop {
        let batch = block_on(with_retries(opts, &counters, pattern_url, "LIST", || {
            pages.next()
        }))?;
        let Some(batch) = batch else { return Ok(found) };
        let listed: Vec<Listed> = batch
            .iter()
            .filter(|m| matches(m.location.as_ref()))
            .map(|m| Listed {
                url: format!("{}/{}", loc.root, m.location.as_ref()),
                meta: meta_of(m),
            })
            .collect();
        found += listed.len();
        if !listed.is_empty() && !each(listed) {
            return Ok(found);
        }
    }
}

/// A listing in progress: the stream of objects, and what has been received of it.
///
/// A failed page is asked for again after the greatest key received while the keys have come in
/// key order (`start-after` on S3, `startOffset` on GCS), else from the start (a store that lists
/// in another order, such as an S3 directory bucket, would lose objects to an offset). Keys
/// already received are left out either way, so a store that ignores the offset, or repeats a
/// page, gives no object twice; one that lists nothing new [`STALE`] times in a row fails.
struct Pages {
    store: std::sync::Arc<dyn object_store::ObjectStore>,
    prefix: StorePath,
    state: Mutex<State>,
}

/// Batches in a row with no key not already received, after which a listing fails (past those
/// a stream listing from the start again passes over first).
const STALE: u32 = 3;

struct State {
    stream: Option<BoxStream<'static, object_store::Result<object_store::ObjectMeta>>>,
    /// The greatest key received.
    last: Option<StorePath>,
    /// Every key has come after the one before it.
    in_order: bool,
    /// Hashes of the keys received (8 bytes a key: 8 MB for a listing of 10⁶).
    seen: std::collections::HashSet<u64>,
    stale: u32,
    /// Batches in a row with nothing new that this stream may give: [`STALE`], and when it
    /// lists from the start again, the batches of what was received before.
    allowed: u32,
    done: bool,
}

impl Default for State {
    fn default() -> Self {
        State {
            stream: None,
            last: None,
            in_order: true,
            seen: Default::default(),
            stale: 0,
            allowed: STALE,
            done: false,
        }
    }
}

impl State {
    /// `batch` without the keys already received; notes its keys.
    fn fresh(&mut self, batch: Vec<object_store::ObjectMeta>) -> Vec<object_store::ObjectMeta> {
        use std::hash::{BuildHasher, BuildHasherDefault};
        // SipHash with fixed keys: 64 bits make a collision among 10⁶ keys a 1-in-10⁷ event.
        let hasher = BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
        let mut out = Vec::with_capacity(batch.len());
        for m in batch {
            if !self.seen.insert(hasher.hash_one(m.location.as_ref())) {
                continue;
            }
            match &self.last {
                Some(l) if m.location <= *l => self.in_order = false,
                _ => self.last = Some(m.location.clone()),
            }
            out.push(m);
        }
        out
    }
}

impl Pages {
    /// The next objects not received before (those that have arrived, at most [`BATCH`]), or
    /// `None` at the end. After a failure the stream is dropped, and the next call lists again.
    async fn next(&self) -> Result<Option<Vec<object_store::ObjectMeta>>, crate::retry::Failure> {
        let mut st = self.state.lock().await;
        if st.done {
            return Ok(None);
        }
        let prefix = (!self.prefix.as_ref().is_empty()).then_some(&self.prefix);
        // Taken out while it is polled: an attempt cut short by its timeout drops it.
        let mut stream = match (st.stream.take(), st.last.clone(), st.in_order) {
            (Some(s), _, _) => s,
            (None, Some(last), true) => {
                st.allowed = STALE;
                self.store.list_with_offset(prefix, &last)
            }
            (None, _, _) => {
                let again = u32::try_from(st.seen.len().div_ceil(BATCH)).unwrap_or(u32::MAX);
                st.allowed = STALE.saturating_add(again);
                self.store.list(prefix)
            }
        };
        let mut batch = match stream.next().await {
            None => {
                st.done = true;
                return Ok(None);
            }
            Some(Err(e)) => return Err(classify(e)),
            Some(Ok(m)) => vec![m],
        };
        // What else has arrived with it (the rest of its page), without waiting for more.
        let mut keep = true;
        while batch.len() < BATCH {
            match stream.next().now_or_never() {
                Some(Some(Ok(m))) => batch.push(m),
                // The next call lists again.
                Some(Some(Err(_))) => {
                    keep = false;
                    break;
                }
                Some(None) => {
                    st.done = true;
                    break;
                }
                None => break,
            }
        }
        let fresh = st.fresh(batch);
        st.stale = if fresh.is_empty() { st.stale + 1 } else { 0 };
        if st.stale >= st.allowed {
            return Err(crate::retry::Failure::Permanent(
                object_store::Error::Generic {
                    store: "LIST",
                    source: "the store lists keys it has already listed, again and again".into(),
                },
            ));
        }
        if keep && !st.done {
            st.stream = Some(stream);
        }
        Ok(Some(fresh))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::memory::InMemory;
    use object_store::{ObjectStoreExt, PutPayload};

    fn meta(key: &str) -> object_store::ObjectMeta {
        object_store::ObjectMeta {
            location: StorePath::from(key),
            last_modified: Default::default(),
            size: 1,
            e_tag: None,
            version: None,
        }
    }

    #[test]
    fn keys_already_received_are_left_out_and_order_is_watched() {
        let mut st = State::default();
        let keys = |v: Vec<object_store::ObjectMeta>| -> Vec<String> {
            v.iter().map(|m| m.location.to_string()).collect()
        };
        assert_eq!(keys(st.fresh(vec![meta("a"), meta("b")])), ["a", "b"]);
        assert!(st.in_order);
        // A page again (a store that ignored the offset): nothing new.
        assert!(st.fresh(vec![meta("a"), meta("b")]).is_empty());
        assert_eq!(keys(st.fresh(vec![meta("d"), meta("c")])), ["d", "c"]);
        assert!(!st.in_order, "c came after d");
        assert_eq!(st.last, Some(StorePath::from("d")));
    }

    /// A listing asked for again after the greatest key received, and a store that repeats
    /// itself.
    #[test]
    fn a_listing_resumes_and_a_store_that_repeats_itself_fails() {
        let store = std::sync::Arc::new(InMemory::new());
        block_on(async {
            for k in ["d/a", "d/b", "d/c"] {
                let payload = PutPayload::from_static(b"x");
                store.put(&StorePath::from(k), payload).await.unwrap();
            }
        });
        let pages = |st: State| Pages {
            store: store.clone(),
            prefix: StorePath::from("d"),
            state: Mutex::new(st),
        };
        let names = |v: Option<Vec<object_store::ObjectMeta>>| -> Vec<String> {
            v.unwrap_or_default()
                .iter()
                .map(|m| m.location.to_string())
                .collect()
        };
        // After "d/b" in order: from the offset on ("d/a", before it, is not listed again).
        let mut st = State::default();
        st.fresh(vec![meta("d/b")]);
        assert_eq!(names(block_on(pages(st).next()).ok().flatten()), ["d/c"]);
        // Out of order: from the start, "d/a" not given again.
        let mut st = State::default();
        st.fresh(vec![meta("d/c"), meta("d/a")]);
        assert!(!st.in_order);
        assert_eq!(names(block_on(pages(st).next()).ok().flatten()), ["d/b"]);
        // Nothing new, batch after batch: listing from the start passes over what came (one
        // batch here), then the third batch with nothing new fails.
        let p = pages(State::default());
        assert!(block_on(p.next()).is_ok());
        let mut outcomes = Vec::new();
        for _ in 0..=STALE {
            let mut st = block_on(p.state.lock());
            (st.stream, st.done, st.in_order) = (None, false, false);
            drop(st);
            outcomes.push(block_on(p.next()).is_err());
        }
        assert_eq!(outcomes, [false, false, false, true]);
    }
}
