//! Scanning: each file's format picked by [`crate::formats`] and its layout read, many files in
//! flight at once.
//!
//! One file per worker thread: readers are synchronous and block their thread on each request, so
//! the number of files in flight is the number of busy workers (`jobs`; on object storage, where
//! latency, not CPU, is the limit, adaptive from 32 to 256: [`crate::limit`]). Inputs are taken as
//! they become known ([`crate::feed`]: a listing page by page); results come back in input order.

use crate::feed::{Feed, Outcome};
use crate::formats::{self, FormatError, ReadOptions};
use crate::inputs::{Input, Inputs};
use crate::limit::Limit;
use crate::named::Named;
use crate::progress::{Progress, ProgressSink};
use crate::scanned::unreachable;
pub use crate::scanned::{FileError, Scanned};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vzplan_core::SourceLayout;
use vzplan_io::{FileId, IoOptions, LinkError, Linker, RangeRead, Stats};
use vzplan_plan::ScanFailure;

/// How to scan.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// Files scanned concurrently (None: CPUs for local inputs; for URLs 32 at first, adapting
    /// up to 256 while the store keeps up: [`crate::limit`]).
    pub jobs: Option<usize>,
    /// Target chunk size when merging netCDF-3 records or cutting fixed variables.
    pub chunk_bytes: u64,
    pub io: IoOptions,
    /// Stop at the first file that fails (the rest are not scanned).
    pub fail_fast: bool,
    /// Set from elsewhere (a binding's Ctrl-C) to stop: files not started are not scanned and
    /// [`scan`] returns [`crate::Error::Cancelled`].
    pub cancel: Option<Arc<AtomicBool>>,
    /// Where the files a scanned file names (HDF5 external links' targets, virtual datasets'
    /// sources) may be read from, besides the inputs themselves: `--sources-under` prefixes
    /// ([`crate::named`]). A file named by nothing else is never read.
    pub sources_under: Vec<String>,
    /// Read each input's DMR++ sidecar (`INPUT.dmrpp`, [`crate::sidecar`]) in place of the
    /// input's own metadata, where it has one.
    pub dmrpp: bool,
}

impl ScanOptions {
    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            jobs: None,
            chunk_bytes: ReadOptions::default().chunk_bytes,
            io: IoOptions::default(),
            fail_fast: false,
            cancel: None,
            sources_under: Vec::new(),
            dmrpp: false,
        }
    }
}

/// Reads one file's layout, picking the reader by the file's first bytes. The files it names
/// are read when they are `r` itself or under [`ScanOptions::sources_under`].
pub fn scan_one(r: &dyn RangeRead, opts: &ScanOptions) -> Result<SourceLayout, FormatError> {
    scan_linked(r, opts, &RunLinker::new(LinkerInputs::One(r.url()), opts))
}

fn scan_linked(
    r: &dyn RangeRead,
    opts: &ScanOptions,
    linker: &RunLinker<'_>,
) -> Result<SourceLayout, FormatError> {
    let o = ReadOptions {
        chunk_bytes: opts.chunk_bytes,
        linker: Some(linker),
    };
    formats::read_layout(r, &o)
}

/// Opens the files scanned files name, when the run named them ([`Named`]): the inputs, and
/// what lies under a --sources-under prefix. The set is built the first time a file names
/// another (most runs never do).
struct RunLinker<'a> {
    inputs: LinkerInputs<'a>,
    prefixes: &'a [String],
    named: std::sync::OnceLock<Named>,
    io: &'a IoOptions,
}

/// The inputs a linked file may be: one file's own URL, or a scan's inputs.
enum LinkerInputs<'a> {
    One(&'a str),
    Feed(&'a Feed),
}

impl<'a> RunLinker<'a> {
    fn new(inputs: LinkerInputs<'a>, opts: &'a ScanOptions) -> Self {
        RunLinker {
            inputs,
            prefixes: &opts.sources_under,
            named: std::sync::OnceLock::new(),
            io: &opts.io,
        }
    }

    fn named(&self) -> &Named {
        self.named.get_or_init(|| {
            let (urls, patterns): (Vec<String>, Vec<&str>) = match &self.inputs {
                LinkerInputs::One(url) => (vec![url.to_string()], Vec::new()),
                LinkerInputs::Feed(f) => (f.urls(), f.patterns().collect()),
            };
            let inputs = || urls.iter().map(String::as_str);
            // A prefix that fails here (checked when the request was made) names nothing.
            Named::new(inputs(), self.prefixes)
                .or_else(|_| Named::new(inputs(), &[]))
                .unwrap_or_default()
                .with_patterns(patterns)
        })
    }
}

impl Linker for RunLinker<'_> {
    fn open(&self, url: &str) -> Result<Arc<dyn RangeRead>, LinkError> {
        vzplan_io::check_source_url(url)?;
        if !self.named().allows(url) {
            return Err(LinkError::NotNamed {
                url: vzplan_io::redact(url),
                reason: format!(
                    "only another file names it (pass --sources-under {} to let vzplan read it)",
                    crate::named::flag_for(url)
                ),
            });
        }
        Ok(vzplan_io::open(url, self.io)?)
    }
}

fn scan_input(input: &Input, opts: &ScanOptions, linker: &RunLinker<'_>) -> Scanned {
    if let Some(reason) = &input.rejected {
        return Scanned {
            input: input.name.clone(),
            url: input.url.clone(),
            result: Err(FileError::NotRegular {
                url: input.url.clone(),
                reason: reason.clone(),
            }),
            stats: Stats::default(),
        };
    }
    if opts.dmrpp {
        if let Some(s) = crate::sidecar::scan(input, opts) {
            return s;
        }
    }
    let (result, stats) = match vzplan_io::open_with_meta(&input.name, input.meta.clone(), &opts.io)
    {
        Ok(r) => {
            let scanned = scan_linked(r.as_ref(), opts, linker);
            let stats = r.stats();
            let result = match scanned {
                Ok(_) if stats.unreachable > 0 => Err(FileError::Unreachable {
                    url: input.url.clone(),
                    requests: stats.unreachable,
                }),
                result => result.map_err(FileError::from),
            };
            (result, stats)
        }
        Err(e) => (Err(e.into()), Stats::default()),
    };
    Scanned {
        input: input.name.clone(),
        url: input.url.clone(),
        result,
        stats,
    }
}

/// Expands `inputs` and scans every file; under `fail_fast`, the first failure is the error.
pub fn scan(
    inputs: &Inputs,
    opts: &ScanOptions,
    progress: &dyn ProgressSink,
) -> Result<Vec<Scanned>, crate::Error> {
    scan_feed(&Feed::new(inputs, &opts.io)?, opts, progress)
}

/// [`scan`] of inputs already expanded (URL patterns are listed as the scan goes).
pub(crate) fn scan_feed(
    feed: &Feed,
    opts: &ScanOptions,
    progress: &dyn ProgressSink,
) -> Result<Vec<Scanned>, crate::Error> {
    let scanned = scan_all(feed, opts, progress)?;
    if opts.cancelled() {
        return Err(crate::Error::Cancelled);
    }
    first_failure(&scanned, opts)?;
    Ok(scanned)
}

/// Scans every input concurrently, URL patterns listed as the scan takes their matches; results
/// come back in input order. Fails only when a pattern matched nothing or its listing failed.
pub fn scan_all(
    feed: &Feed,
    opts: &ScanOptions,
    progress: &dyn ProgressSink,
) -> Result<Vec<Scanned>, crate::Error> {
    progress.report(Progress::ScanStarted {
        files: feed.known(),
        listing: feed.patterns().next().is_some(),
    });
    let stop = AtomicBool::new(false);
    let linker = RunLinker::new(LinkerInputs::Feed(feed), opts);
    let limit = match opts.jobs {
        Some(n) => Limit::fixed(n.clamp(1, 1024)),
        None if feed.remote() => Limit::adaptive(),
        None => Limit::fixed(std::thread::available_parallelism().map_or(2, |n| n.get())),
    };
    let outcome = Outcome::default();
    let more = |files| progress.report(Progress::Listed { files });
    // The first input of each local file (by device and inode): a later one is the same file.
    // Local inputs are borrowed from the feed; listed ones have no identity.
    let mut first: HashMap<FileId, &str> = HashMap::new();
    let fed = feed
        .iter(opts.cancel.as_deref(), &more, &outcome)
        .map(move |(k, input)| {
            let same = match &input {
                Cow::Borrowed(i) => i.id.and_then(|id| {
                    let f = *first.entry(id).or_insert(i.url.as_str());
                    (f != i.url).then(|| f.to_string())
                }),
                Cow::Owned(_) => None,
            };
            (k, input, same)
        });
    let work = |(k, input, same): (usize, Cow<'_, Input>, Option<String>)| {
        let slot = limit.acquire();
        let scanned = scan_or_skip(&input, same, opts, &linker, &stop);
        drop(slot);
        progress.report(Progress::FileScanned(&scanned));
        (k, scanned)
    };
    let mut out = if limit.is_adaptive() {
        growing(fed, &limit, &work)
    } else {
        let jobs = limit.current();
        // Inputs all known (local files): split among the workers as rayon splits a list, with
        // no lock per input; otherwise taken one at a time as they come.
        let run = || match feed.all_ready() {
            true => fed.collect::<Vec<_>>().into_par_iter().map(work).collect(),
            false => fed.par_bridge().map(work).collect::<Vec<_>>(),
        };
        // Rayon's global pool when it has the threads asked for (the default for local files):
        // its threads outlive the scan, so the layouts they built are later freed into live
        // heaps. A pool built and dropped per scan would leave mimalloc the dead threads' memory
        // to reclaim.
        if rayon::current_thread_index().is_none() && rayon::current_num_threads() == jobs {
            run()
        } else {
            match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
                Ok(pool) => pool.install(run),
                Err(_) => run(),
            }
        }
    };
    out.sort_unstable_by_key(|(k, _)| *k);
    let mut out: Vec<Scanned> = out.into_iter().map(|(_, s)| s).collect();
    if let Some(e) = outcome.failure() {
        return Err(e.into());
    }
    outcome.sort(&mut out, |s| s.input.as_str());
    progress.report(Progress::InFlight {
        files: limit.peak(),
    });
    progress.report(Progress::ScanFinished(&out));
    Ok(out)
}

/// Runs `work` on every item with a worker thread per file in flight, adding workers as the
/// adaptive `limit` grows: threads that wait cost memory and wake-ups, so there are never more
/// than the limit has asked for.
fn growing<T: Send, R: Send>(
    items: impl Iterator<Item = T> + Send,
    limit: &Limit,
    work: &(dyn Fn(T) -> R + Sync),
) -> Vec<R> {
    let items = std::sync::Mutex::new(items);
    let out = std::sync::Mutex::new(Vec::new());
    // No more workers are wanted: the inputs are all taken, or a worker panicked (the scope then
    // passes the panic on once the others are done).
    let enough = AtomicBool::new(false);
    let worker = || {
        let _guard = SetOnDrop(&enough);
        loop {
            let next = items.lock().ok().and_then(|mut it| it.next());
            let Some(item) = next else {
                return;
            };
            let r = work(item);
            if let Ok(mut o) = out.lock() {
                o.push(r);
            }
        }
    };
    std::thread::scope(|sc| {
        let mut workers = 0;
        while !enough.load(Ordering::Relaxed) {
            if workers < limit.current() {
                // A thread that cannot be made (a process limit) caps the workers there.
                let made = std::thread::Builder::new().spawn_scoped(sc, worker).is_ok();
                if !made && workers == 0 {
                    worker();
                }
                if !made {
                    break;
                }
                workers += 1;
            } else {
                limit.wait_growth(workers, std::time::Duration::from_millis(10));
            }
        }
    });
    out.into_inner().unwrap_or_default()
}

/// Sets a flag when dropped: when a worker returns, and when it unwinds from a panic.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One input scanned, or why it is not: the same file as an earlier input (`same`: that one's
/// URL), or a scan stopped under `fail_fast` (which a failure here sets).
fn scan_or_skip(
    input: &Input,
    same: Option<String>,
    opts: &ScanOptions,
    linker: &RunLinker<'_>,
    stop: &AtomicBool,
) -> Scanned {
    let skipped = |url: String, result| Scanned {
        input: input.name.clone(),
        url,
        result: Err(result),
        stats: Stats::default(),
    };
    if let Some(first) = same {
        let e = FileError::Same {
            url: input.url.clone(),
            first: first.clone(),
        };
        return skipped(first, e);
    }
    if stop.load(Ordering::Relaxed) || opts.cancelled() {
        return skipped(input.url.clone(), FileError::NotScanned(input.url.clone()));
    }
    let s = scan_input(input, opts, linker);
    if s.result.is_err() && opts.fail_fast {
        stop.store(true, Ordering::Relaxed);
    }
    s
}

/// Under `fail_fast`, the first file that failed (in input order), as an error.
pub fn first_failure(scanned: &[Scanned], opts: &ScanOptions) -> Result<(), crate::Error> {
    if !opts.fail_fast {
        return Ok(());
    }
    match scanned.iter().find(|s| !s.skipped() && s.result.is_err()) {
        Some(Scanned { result: Err(e), .. }) => Err(crate::Error::FailFast {
            first: vzplan_core::text::shown(&e.to_string()).into_owned(),
            skipped: scanned.iter().filter(|s| s.skipped()).count(),
        }),
        _ => Ok(()),
    }
}

/// Fails when a file's store could not be reached, unless `allow`: what `vzplan scan` writes
/// must not pass an outage off as the files' layouts.
pub fn require_reachable(scanned: &[Scanned], allow: bool) -> Result<(), crate::Error> {
    let failures: Vec<ScanFailure> = scanned
        .iter()
        .filter(|s| s.unreachable())
        .map(|s| ScanFailure {
            url: s.url.clone(),
            error: String::new(),
            unreachable: true,
        })
        .collect();
    reachable(&failures, allow)
}

/// Sources that could not be reached fail the run unless allowed: an outage is not a result.
pub(crate) fn reachable(failures: &[ScanFailure], allow: bool) -> Result<(), crate::Error> {
    if allow {
        return Ok(());
    }
    let sources: Vec<String> = failures
        .iter()
        .filter(|f| f.unreachable)
        .map(|f| vzplan_io::redact(&f.url))
        .collect();
    if sources.is_empty() {
        return Ok(());
    }
    Err(crate::Error::Unreachable { sources })
}

/// Splits scan results into layouts and failures.
pub fn split(scanned: Vec<Scanned>) -> (Vec<SourceLayout>, Vec<ScanFailure>) {
    // Room for every layout at once: a layout is large, and most files are read.
    let mut ok = Vec::with_capacity(scanned.iter().filter(|s| s.result.is_ok()).count());
    let mut failed = Vec::new();
    for s in scanned {
        match s.result {
            Ok(l) => ok.push(l),
            Err(e) => failed.push(ScanFailure {
                unreachable: s.stats.unreachable > 0 || unreachable(&e),
                url: s.url,
                error: e.to_string(),
            }),
        }
    }
    (ok, failed)
}
