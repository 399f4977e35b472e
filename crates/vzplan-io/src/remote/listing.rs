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

/// [`list`] handed over in batches as the store returns them, in the store's order (by key on
/// S3, GCS and Azure; a store may list in another order, and the caller sorts if it must).
/// `each` returns `false` to stop listing. Returns how many objects matched.
pub fn list_each(
    pattern_url: &str,
    opts: &IoOptions,
    each: &mut dyn FnMut(Vec<Listed>) -> bool,
) -> Result<usize, IoError> {
    let loc = parse(pattern_url)?;
    if loc.scheme == Scheme::Http {
        return Err(super::bad_url(
            pattern_url,
            "HTTP(S) servers cannot be listed; give each file's URL",
        ));
    }
    let store = store_for(&loc, opts, pattern_url)?;
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

/// A listing in progress: the stream of objects, and the greatest key received, after which a
/// failed page is asked for again (stores list by key; one that does not would lose objects to a
/// failed page here, as to any listing resumed by offset).
struct Pages {
    store: std::sync::Arc<dyn object_store::ObjectStore>,
    prefix: StorePath,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    stream: Option<BoxStream<'static, object_store::Result<object_store::ObjectMeta>>>,
    last: Option<StorePath>,
    done: bool,
}

impl Pages {
    /// The next objects (those already received, at least one, at most [`BATCH`]), or `None` at
    /// the end. After a failure the stream is dropped; the next call lists again after the last
    /// key received.
    async fn next(&self) -> Result<Option<Vec<object_store::ObjectMeta>>, crate::retry::Failure> {
        let mut st = self.state.lock().await;
        if st.done {
            return Ok(None);
        }
        let prefix = (!self.prefix.as_ref().is_empty()).then_some(&self.prefix);
        // Taken out while it is polled: an attempt cut short by its timeout drops it.
        let mut stream = match (st.stream.take(), &st.last) {
            (Some(s), _) => s,
            (None, Some(last)) => self.store.list_with_offset(prefix, last),
            (None, None) => self.store.list(prefix),
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
                // The next call asks again after the last key received.
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
        // The greatest key received: a page in another order than by key still resumes after it.
        if let Some(max) = batch.iter().map(|m| &m.location).max() {
            if st.last.as_ref().is_none_or(|l| max > l) {
                st.last = Some(max.clone());
            }
        }
        if keep && !st.done {
            st.stream = Some(stream);
        }
        Ok(Some(batch))
    }
}
