//! The terminal side of scanning: an indicatif bar (drawn only when stderr is a terminal) and the
//! `--stats` table, fed by the facade's progress reports.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use vzplan::{Progress, ProgressSink, Scanned, Stats};

/// Progress bar and `--stats` printing.
pub struct Terminal {
    stats: bool,
    bar: Mutex<Option<ProgressBar>>,
    errors: AtomicU64,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl Terminal {
    pub fn new(stats: bool) -> Self {
        Terminal {
            stats,
            bar: Mutex::new(None),
            errors: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    fn bar(&self) -> Option<ProgressBar> {
        self.bar.lock().ok().and_then(|b| b.clone())
    }

    fn started(&self, files: usize) {
        let pb = ProgressBar::with_draw_target(
            Some(files as u64),
            if std::io::stderr().is_terminal() {
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
        if let Ok(mut b) = self.bar.lock() {
            *b = Some(pb);
        }
    }

    fn scanned(&self, s: &Scanned) {
        let Some(pb) = self.bar() else { return };
        if !s.skipped() {
            let e = if s.result.is_err() {
                self.errors.fetch_add(1, Ordering::Relaxed) + 1
            } else {
                self.errors.load(Ordering::Relaxed)
            };
            let r = self.requests.fetch_add(s.stats.requests, Ordering::Relaxed) + s.stats.requests;
            let b = self.bytes.fetch_add(s.stats.bytes, Ordering::Relaxed) + s.stats.bytes;
            pb.set_message(format!(
                "{} read in {r} request(s), {e} error(s)",
                indicatif::HumanBytes(b)
            ));
        }
        pb.inc(1);
    }
}

impl ProgressSink for Terminal {
    fn report(&self, event: Progress<'_>) {
        match event {
            Progress::ScanStarted { files } => self.started(files),
            Progress::FileScanned(s) => self.scanned(s),
            Progress::ScanFinished(all) => {
                if let Some(pb) = self.bar() {
                    pb.finish_and_clear();
                }
                if self.stats {
                    print_stats(all);
                }
            }
            Progress::Patched { chunks, bytes } => {
                eprintln!("patched {chunks} chunk(s): {bytes} bytes written inline");
            }
        }
    }
}

/// `--stats`: requests and bytes per file, then totals.
fn print_stats(scanned: &[Scanned]) {
    let mut total = Stats::default();
    for s in scanned.iter().filter(|s| !s.skipped()) {
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
    let n = scanned.iter().filter(|s| !s.skipped()).count().max(1) as f64;
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
