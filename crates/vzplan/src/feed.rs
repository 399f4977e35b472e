//! The inputs of a scan as they become known: what expands at once (local paths and patterns,
//! plain URLs, file lists), and URL patterns listed on their store while the files already known
//! are scanned.
//!
//! A store lists at most 1,000 keys a request, each page after the previous one, so a bucket of
//! 10⁶ objects takes a thousand round trips to list. Waiting for the whole listing before the
//! first GET would add all of them to the run; here the scan takes each page as it arrives, and
//! the lister runs at most a few pages ahead of it (a bounded channel), so memory does not grow
//! with the listing.
//!
//! The order of the results is the order [`Inputs::expand`](crate::Inputs::expand) gives: inputs
//! in the order given, each pattern's matches sorted by URL. A store that lists out of order has
//! those matches sorted after the scan ([`Outcome::sort`]). A shard is a slice of the sorted list,
//! so with a shard every pattern is listed whole first.

use crate::inputs::{listed_input, Input, InputError, Inputs};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use vzplan_io::IoOptions;

/// Batches of listed objects the lister may run ahead of the scan.
const AHEAD: usize = 4;

/// A scan's inputs: parts in the order given.
#[derive(Debug, Default)]
pub struct Feed {
    parts: Vec<Part>,
    io: IoOptions,
}

#[derive(Debug)]
enum Part {
    /// Expanded at once.
    Ready(Vec<Input>),
    /// Object URLs without a wildcard, each made canonical when the scan takes it (a list of
    /// 10⁶ URLs starts scanning at once).
    Urls(Vec<String>),
    /// A URL with a wildcard, listed during the scan.
    Listing(String),
}

impl Feed {
    /// The inputs of `inputs`: every path and list entry expanded but URL patterns (listed during
    /// the scan), unless a shard is asked for.
    pub fn new(inputs: &Inputs, io: &IoOptions) -> Result<Feed, crate::Error> {
        if inputs.shard.is_some() {
            return Ok(Feed::expanded(inputs.expand(io)?, io));
        }
        let mut parts: Vec<Part> = Vec::new();
        // Local paths and patterns are expanded now: the output guard checks them before the
        // scan, by the identity learned here.
        let mut local: Vec<String> = Vec::new();
        for p in inputs.all_patterns(io)? {
            let url = vzplan_io::is_url(&p);
            if !url {
                local.push(p);
                continue;
            }
            if !local.is_empty() {
                parts.push(Part::Ready(crate::inputs::expand(&local, io)?));
                local.clear();
            }
            if crate::inputs::has_wildcard(&p) {
                // A pattern that cannot be listed is told before the scan.
                vzplan_io::remote::check_pattern(&p).map_err(InputError::from)?;
                parts.push(Part::Listing(p));
            } else if let Some(Part::Urls(v)) = parts.last_mut() {
                v.push(p);
            } else {
                parts.push(Part::Urls(vec![p]));
            }
        }
        if !local.is_empty() {
            parts.push(Part::Ready(crate::inputs::expand(&local, io)?));
        }
        Ok(Feed {
            parts,
            io: io.clone(),
        })
    }

    /// Inputs already expanded.
    pub fn expanded(inputs: Vec<Input>, io: &IoOptions) -> Feed {
        Feed {
            parts: vec![Part::Ready(inputs)],
            io: io.clone(),
        }
    }

    /// The inputs expanded at once (every local one).
    pub fn ready(&self) -> impl Iterator<Item = &Input> {
        self.parts.iter().flat_map(|p| match p {
            Part::Ready(v) => v.as_slice(),
            Part::Urls(_) | Part::Listing(_) => &[],
        })
    }

    /// Whether every input was expanded at once (no object URLs, nothing to list).
    pub fn all_ready(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Ready(_)))
    }

    /// How many inputs are known before any listing.
    pub fn known(&self) -> usize {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Ready(v) => v.len(),
                Part::Urls(v) => v.len(),
                Part::Listing(_) => 0,
            })
            .sum()
    }

    /// The canonical URL of every input known before any listing.
    pub fn urls(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.known());
        for p in &self.parts {
            match p {
                Part::Ready(v) => out.extend(v.iter().map(|i| i.url.clone())),
                Part::Urls(v) => {
                    out.extend(v.iter().filter_map(|u| vzplan_io::canonical_url(u).ok()))
                }
                Part::Listing(_) => {}
            }
        }
        out
    }

    /// The URL patterns listed during the scan.
    pub fn patterns(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Listing(p) => Some(p.as_str()),
            Part::Ready(_) | Part::Urls(_) => None,
        })
    }

    /// Whether any input is (or is listed) on object storage.
    pub fn remote(&self) -> bool {
        self.parts.iter().any(|p| match p {
            Part::Ready(v) => v.iter().any(|i| vzplan_io::is_url(&i.name)),
            Part::Urls(_) | Part::Listing(_) => true,
        })
    }

    /// The inputs in order, listing each pattern when it is reached; `more` is told how many
    /// inputs each listed batch adds. Ends early once `stop` is set.
    /// What went wrong or needs sorting is left in `outcome`.
    pub fn iter<'a>(
        &'a self,
        stop: Option<&'a AtomicBool>,
        more: &'a (dyn Fn(usize) + Sync),
        outcome: &'a Outcome,
    ) -> Fed<'a> {
        Fed {
            feed: self,
            part: 0,
            at: 0,
            next: 0,
            listing: None,
            stop,
            more,
            outcome,
        }
    }
}

/// An object named by its URL (a missing one is reported by name when it is scanned).
fn url_input(name: &str, url: String) -> Input {
    Input {
        name: name.to_string(),
        url,
        meta: None,
        rejected: None,
        id: None,
    }
}

/// The inputs of a [`Feed`] as they come: `(position, input)`.
pub struct Fed<'a> {
    feed: &'a Feed,
    part: usize,
    /// The next input within a ready part.
    at: usize,
    /// The position of the next input yielded.
    next: usize,
    listing: Option<Listing>,
    stop: Option<&'a AtomicBool>,
    more: &'a (dyn Fn(usize) + Sync),
    outcome: &'a Outcome,
}

/// How the inputs of a [`Fed`] ended.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Why they ended early (a pattern that matched nothing, a listing that failed).
    failed: Mutex<Option<InputError>>,
    /// Positions of matches a store listed out of order: each range is to be sorted by URL.
    unsorted: Mutex<Vec<Range<usize>>>,
}

impl Outcome {
    /// Why the inputs ended early.
    pub fn failure(&self) -> Option<InputError> {
        self.failed.lock().ok()?.take()
    }

    /// Sorts by URL the results of matches a store listed out of order (`url` of a result).
    pub fn sort<T>(&self, results: &mut [T], url: impl Fn(&T) -> &str) {
        let Ok(ranges) = self.unsorted.lock() else {
            return;
        };
        for r in ranges.iter() {
            if let Some(part) = results.get_mut(r.clone()) {
                part.sort_by(|a, b| url(a).cmp(url(b)));
            }
        }
    }
}

/// What the lister thread sends: batches of objects, then how the listing ended.
enum Msg {
    Batch(Vec<vzplan_io::remote::Listed>),
    Done(Result<(), InputError>),
}

/// How often a scan waiting for a page looks whether it was stopped.
const WAKE: std::time::Duration = std::time::Duration::from_millis(100);

/// A pattern being listed on its own thread.
struct Listing {
    pattern: String,
    rx: Receiver<Msg>,
    batch: std::vec::IntoIter<vzplan_io::remote::Listed>,
    /// Where its matches start, and the last URL seen while they are in order.
    start: usize,
    last: Option<String>,
    sorted: bool,
}

impl Fed<'_> {
    fn fail<T>(&mut self, e: InputError) -> Option<T> {
        if let Ok(mut f) = self.outcome.failed.lock() {
            *f = Some(e);
        }
        self.part = self.feed.parts.len();
        self.listing = None;
        None
    }

    /// The next listed input of the current pattern, or `None` when its listing is done.
    fn listed(&mut self) -> Option<Result<Input, InputError>> {
        let stop = self.stop;
        let l = self.listing.as_mut()?;
        loop {
            if let Some(item) = l.batch.next() {
                if l.last
                    .as_deref()
                    .is_some_and(|last| item.url.as_str() <= last)
                {
                    l.sorted = false;
                }
                l.last = Some(item.url.clone());
                return Some(Ok(listed_input(item)));
            }
            let msg = match l.rx.recv_timeout(WAKE) {
                Ok(m) => m,
                // A stop (Ctrl-C) is seen while a slow page is awaited.
                Err(RecvTimeoutError::Timeout)
                    if stop.is_some_and(|s| s.load(Ordering::Relaxed)) =>
                {
                    return None
                }
                Err(RecvTimeoutError::Timeout) => continue,
                // The lister ended without saying so (it panicked): its listing is not whole.
                Err(RecvTimeoutError::Disconnected) => {
                    return Some(Err(InputError::ListingStopped(l.pattern.clone())))
                }
            };
            match msg {
                Msg::Batch(batch) => {
                    (self.more)(batch.len());
                    l.batch = batch.into_iter();
                }
                Msg::Done(Err(e)) => return Some(Err(e)),
                Msg::Done(Ok(())) => {
                    if !l.sorted {
                        if let Ok(mut u) = self.outcome.unsorted.lock() {
                            u.push(l.start..self.next);
                        }
                    }
                    self.listing = None;
                    return None;
                }
            }
        }
    }

    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    fn start_listing(&mut self, pattern: &str) {
        let (tx, rx) = sync_channel(AHEAD);
        let (pattern, io) = (pattern.to_string(), self.feed.io.clone());
        // Detached: it stops at its next batch once the receiver is gone.
        let named = pattern.clone();
        std::thread::spawn(move || {
            let mut send = |batch| tx.send(Msg::Batch(batch)).is_ok();
            let result = match vzplan_io::remote::list_each(&pattern, &io, &mut send) {
                Ok(0) => Err(InputError::NoMatch(pattern)),
                Ok(_) => Ok(()),
                Err(e) => Err(InputError::from(e)),
            };
            let _ = tx.send(Msg::Done(result));
        });
        self.listing = Some(Listing {
            pattern: named,
            rx,
            batch: Vec::new().into_iter(),
            start: self.next,
            last: None,
            sorted: true,
        });
    }
}

impl<'a> Iterator for Fed<'a> {
    type Item = (usize, Cow<'a, Input>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.stopped() {
                return None;
            }
            if self.listing.is_some() {
                match self.listed() {
                    Some(Ok(input)) => {
                        self.next += 1;
                        return Some((self.next - 1, Cow::Owned(input)));
                    }
                    Some(Err(e)) => return self.fail(e),
                    None => {
                        self.part += 1;
                        continue;
                    }
                }
            }
            let feed: &'a Feed = self.feed;
            match feed.parts.get(self.part)? {
                Part::Ready(v) => match v.get(self.at) {
                    Some(input) => {
                        self.at += 1;
                        self.next += 1;
                        return Some((self.next - 1, Cow::Borrowed(input)));
                    }
                    None => {
                        self.part += 1;
                        self.at = 0;
                    }
                },
                Part::Urls(v) => match v.get(self.at) {
                    Some(name) => {
                        self.at += 1;
                        match vzplan_io::canonical_url(name) {
                            Ok(url) => {
                                self.next += 1;
                                return Some((self.next - 1, Cow::Owned(url_input(name, url))));
                            }
                            Err(e) => return self.fail(e.into()),
                        }
                    }
                    None => {
                        self.part += 1;
                        self.at = 0;
                    }
                },
                Part::Listing(p) => self.start_listing(p),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn testdata(p: &str) -> String {
        format!("{}/../../testdata/{p}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn inputs_come_in_the_order_given_urls_made_canonical_as_they_are_taken() {
        let io = IoOptions::default();
        let inputs = Inputs::new([
            testdata("collections/yearly/tas_day_2001.nc"),
            "s3://bkt/a/x.nc".into(),
            "gcs://bkt/b/y.nc".into(),
            testdata("collections/yearly/tas_day_2000.nc"),
        ]);
        let feed = Feed::new(&inputs, &io).unwrap();
        assert_eq!(feed.known(), 4);
        assert_eq!(feed.ready().count(), 2, "local files are expanded at once");
        assert!(feed.remote());
        let (stop, outcome) = (AtomicBool::new(false), Outcome::default());
        let got: Vec<(usize, String)> = feed
            .iter(Some(&stop), &|_| {}, &outcome)
            .map(|(k, i)| (k, i.url.clone()))
            .collect();
        let names: Vec<&str> = got
            .iter()
            .map(|(_, u)| u.rsplit('/').next().unwrap())
            .collect();
        assert_eq!(
            names,
            ["tas_day_2001.nc", "x.nc", "y.nc", "tas_day_2000.nc"]
        );
        assert_eq!(got[2].1, "gs://bkt/b/y.nc");
        assert!(got.iter().enumerate().all(|(k, (p, _))| k == *p));
        assert!(outcome.failure().is_none());
        // A pattern that cannot be a URL is told at once (`?` makes it a pattern).
        for bad in [
            "s3://bkt/x.nc?X-Amz-Signature=1",
            "https://h/x*.nc",
            "s3://b/[x.nc",
        ] {
            assert!(Feed::new(&Inputs::new([bad]), &io).is_err(), "{bad}");
        }
        // A URL that cannot be read ends the inputs with its error; a stop ends them too.
        let bad = Inputs::new(["s3://bkt/ok.nc", "s3://bkt/x.nc#part", "s3://bkt/z.nc"]);
        let feed = Feed::new(&bad, &io).unwrap();
        assert_eq!(feed.iter(None, &|_| {}, &outcome).count(), 1);
        assert!(outcome.failure().is_some());
        stop.store(true, Ordering::Relaxed);
        assert_eq!(feed.iter(Some(&stop), &|_| {}, &outcome).count(), 0);
    }

    #[test]
    fn matches_listed_out_of_order_are_sorted_after() {
        let outcome = Outcome::default();
        outcome.unsorted.lock().unwrap().push(1..4);
        let mut v = vec!["z", "c", "a", "b", "y"];
        outcome.sort(&mut v, |s| s);
        assert_eq!(v, ["z", "a", "b", "c", "y"]);
    }
}
