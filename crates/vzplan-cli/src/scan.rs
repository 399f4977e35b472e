//! Scanning: expand the inputs, detect each file's format, run the readers concurrently.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::path::PathBuf;
use vzplan_core::SourceLayout;
use vzplan_io::{RangeRead, Stats};
use vzplan_plan::ScanFailure;

/// Options the readers take.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    pub jobs: usize,
    pub chunk_bytes: u64,
    pub progress: bool,
}

/// One scanned file.
pub struct Scanned {
    pub input: String,
    pub result: Result<SourceLayout, String>,
    pub stats: Stats,
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{0}: no such file, and no file matches it as a pattern")]
    NoMatch(String),
    #[error("{0}: bad pattern: {1}")]
    Pattern(String, String),
    #[error("{0}: object-store URLs are not supported yet; give local paths")]
    Url(String),
}

/// Expands paths and glob patterns, in order, each pattern's matches sorted.
pub fn expand(inputs: &[String]) -> Result<Vec<String>, InputError> {
    let mut out = Vec::new();
    for i in inputs {
        if i.contains("://") && !i.starts_with("file://") {
            return Err(InputError::Url(i.clone()));
        }
        let i = i.strip_prefix("file://").unwrap_or(i);
        if std::path::Path::new(i).exists() {
            out.push(i.to_string());
            continue;
        }
        let mut matches: Vec<PathBuf> = glob::glob(i)
            .map_err(|e| InputError::Pattern(i.to_string(), e.to_string()))?
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .collect();
        if matches.is_empty() {
            return Err(InputError::NoMatch(i.to_string()));
        }
        matches.sort();
        out.extend(matches.into_iter().map(|p| p.display().to_string()));
    }
    Ok(out)
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

/// Scans every input concurrently; results come back in input order.
pub fn scan_all(inputs: &[String], opts: &ScanOptions) -> Vec<Scanned> {
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
    let errors = std::sync::atomic::AtomicU64::new(0);
    let run = || {
        inputs
            .par_iter()
            .map(|input| {
                let scanned = match vzplan_io::open_local(input) {
                    Ok(r) => {
                        let result = scan_one(&r, opts);
                        Scanned {
                            input: input.clone(),
                            result,
                            stats: r.stats(),
                        }
                    }
                    Err(e) => Scanned {
                        input: input.clone(),
                        result: Err(e.to_string()),
                        stats: Stats::default(),
                    },
                };
                if scanned.result.is_err() {
                    let n = errors.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    pb.set_message(format!("{n} error(s)"));
                }
                pb.inc(1);
                scanned
            })
            .collect::<Vec<_>>()
    };
    let out = match rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build()
    {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    };
    pb.finish_and_clear();
    out
}

/// Splits scan results into layouts and failures.
pub fn split(scanned: Vec<Scanned>) -> (Vec<SourceLayout>, Vec<ScanFailure>) {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for s in scanned {
        match s.result {
            Ok(l) => ok.push(l),
            Err(error) => failed.push(ScanFailure {
                url: vzplan_io::file_url(std::path::Path::new(&s.input)),
                error,
            }),
        }
    }
    (ok, failed)
}
