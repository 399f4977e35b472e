//! Scanning: detect each file's format and run the readers, many files in flight at once.
//!
//! One file per worker thread: readers are synchronous and block their thread on each request, so
//! the number of workers is the number of files in flight (`--jobs`; 32 by default when any input
//! is on object storage, where latency, not CPU, is the limit). Results come back in input order.

use crate::inputs::Input;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use vzplan_core::SourceLayout;
use vzplan_io::{IoOptions, RangeRead, Stats};
use vzplan_plan::ScanFailure;

/// Files in flight by default when any input is on object storage.
pub const REMOTE_JOBS: usize = 32;

/// Options the readers take.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// Files scanned concurrently (None: CPUs for local inputs, [`REMOTE_JOBS`] for URLs).
    pub jobs: Option<usize>,
    pub chunk_bytes: u64,
    pub progress: bool,
    pub io: IoOptions,
    /// Stop at the first file that fails (the rest are not scanned).
    pub fail_fast: bool,
}

/// One scanned file.
pub struct Scanned {
    /// As given or listed.
    pub input: String,
    /// Canonical URL.
    pub url: String,
    pub result: Result<SourceLayout, String>,
    pub stats: Stats,
    /// Not scanned: an earlier file failed under `--fail-fast`.
    pub skipped: bool,
}

/// Reads one file's layout, picking the reader by the file's first bytes.
pub fn scan_one(r: &dyn RangeRead, opts: &ScanOptions) -> Result<SourceLayout, String> {
    let head = r.read_at(0, r.size().min(8)).map_err(|e| e.to_string())?;
    if vzplan_netcdf3::sniff(&head) {
        let o = vzplan_netcdf3::Options {
            chunk_bytes: opts.chunk_bytes,
        };
        return vzplan_netcdf3::read_layout(r, &o).map_err(|e| e.to_string());
    }
    if vzplan_tiff::sniff(&head) {
        return vzplan_tiff::read_layout(r).map_err(|e| e.to_string());
    }
    // HDF5 last: its signature may also sit after a user block at 512, 1024, …
    match vzplan_hdf5::read_layout(r) {
        Ok(l) => Ok(l),
        Err(e) if vzplan_hdf5::sniff(&head) => Err(e.to_string()),
        Err(_) if head.is_empty() => Err(format!("{}: empty file", r.url())),
        Err(_) => Err(format!(
            "{}: not a netCDF, HDF5 or TIFF file (unknown signature {:02x?})",
            r.url(),
            &head[..head.len().min(4)]
        )),
    }
}

fn scan_input(input: &Input, opts: &ScanOptions) -> Scanned {
    let (result, stats) = match vzplan_io::open_with_meta(&input.name, input.meta.clone(), &opts.io)
    {
        Ok(r) => {
            let result = scan_one(r.as_ref(), opts);
            (result, r.stats())
        }
        Err(e) => (Err(e.to_string()), Stats::default()),
    };
    Scanned {
        input: input.name.clone(),
        url: input.url.clone(),
        result,
        stats,
        skipped: false,
    }
}

/// Scans every input concurrently; results come back in input order.
pub fn scan_all(inputs: &[Input], opts: &ScanOptions) -> Vec<Scanned> {
    let pb = ProgressBar::with_draw_target(
        Some(inputs.len() as u64),
        if opts.progress {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} scanning [{bar:30}] {pos}/{len} files, {msg} ({elapsed})",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    let errors = AtomicU64::new(0);
    let requests = AtomicU64::new(0);
    let bytes = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let run = || {
        inputs
            .par_iter()
            .map(|input| {
                if stop.load(Ordering::Relaxed) {
                    pb.inc(1);
                    return Scanned {
                        input: input.name.clone(),
                        url: input.url.clone(),
                        result: Err(format!(
                            "{}: not scanned: an earlier file failed (--fail-fast)",
                            input.url
                        )),
                        stats: Stats::default(),
                        skipped: true,
                    };
                }
                let scanned = scan_input(input, opts);
                let e = if scanned.result.is_err() {
                    if opts.fail_fast {
                        stop.store(true, Ordering::Relaxed);
                    }
                    errors.fetch_add(1, Ordering::Relaxed) + 1
                } else {
                    errors.load(Ordering::Relaxed)
                };
                let r = requests.fetch_add(scanned.stats.requests, Ordering::Relaxed)
                    + scanned.stats.requests;
                let b =
                    bytes.fetch_add(scanned.stats.bytes, Ordering::Relaxed) + scanned.stats.bytes;
                pb.set_message(format!(
                    "{} read in {r} request(s), {e} error(s)",
                    indicatif::HumanBytes(b)
                ));
                pb.inc(1);
                scanned
            })
            .collect::<Vec<_>>()
    };
    let jobs = opts.jobs.unwrap_or_else(|| {
        if inputs.iter().any(|i| vzplan_io::is_url(&i.name)) {
            REMOTE_JOBS
        } else {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        }
    });
    let out = match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.clamp(1, 1024))
        .build()
    {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    };
    pb.finish_and_clear();
    out
}

/// Under `--fail-fast`, the first file that failed (in input order), as an error.
pub fn first_failure(scanned: &[Scanned], opts: &ScanOptions) -> Result<(), String> {
    if !opts.fail_fast {
        return Ok(());
    }
    match scanned.iter().find(|s| !s.skipped && s.result.is_err()) {
        Some(Scanned { result: Err(e), .. }) => {
            let skipped = scanned.iter().filter(|s| s.skipped).count();
            Err(format!(
                "{e}\nstopped (--fail-fast); {skipped} file(s) not scanned"
            ))
        }
        _ => Ok(()),
    }
}

/// `--stats`: requests and bytes per file, then totals.
pub fn print_stats(scanned: &[Scanned]) {
    let mut total = Stats::default();
    for s in scanned.iter().filter(|s| !s.skipped) {
        let retried = if s.stats.retried > 0 {
            format!(" ({} retried)", s.stats.retried)
        } else {
            String::new()
        };
        let size = s.result.as_ref().map_or(String::new(), |l| {
            format!(" of {} ({:.2}%)", l.size, pct(s.stats.bytes, l.size))
        });
        eprintln!(
            "{}: {} request(s){retried}, {} bytes read{size}",
            s.input, s.stats.requests, s.stats.bytes
        );
        total.requests += s.stats.requests;
        total.bytes += s.stats.bytes;
        total.retried += s.stats.retried;
    }
    let n = scanned.iter().filter(|s| !s.skipped).count().max(1) as f64;
    eprintln!(
        "total: {} file(s), {} request(s) ({:.2} per file, {} retried), {} bytes read",
        scanned.len(),
        total.requests,
        total.requests as f64 / n,
        total.retried,
        total.bytes
    );
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// Splits scan results into layouts and failures.
pub fn split(scanned: Vec<Scanned>) -> (Vec<SourceLayout>, Vec<ScanFailure>) {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for s in scanned {
        match s.result {
            Ok(l) => ok.push(l),
            Err(error) => failed.push(ScanFailure { url: s.url, error }),
        }
    }
    (ok, failed)
}
