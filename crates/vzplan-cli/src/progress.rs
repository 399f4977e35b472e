//! The terminal side of scanning: an indicatif bar (drawn only when stderr is a terminal), or with
//! `--progress` plain lines on stderr for logs and pipes, and the `--stats` table, fed by the
//! facade's progress reports. A plain line, at most one a second and one at the end:
//! ```text
//! vzplan: scanned 120/500 files, 1.2 MiB read in 360 request(s), 0 error(s) (1.0 s)
//! ```

use crate::pipe;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use vzplan::{Progress, ProgressSink, Scanned, Stats};

/// Least time between two plain progress lines.
const PLAIN_EVERY: Duration = Duration::from_secs(1);

/// Progress bar and `--stats` printing.
pub struct Terminal {
    stats: bool,
    /// `--progress`: plain lines instead of the bar.
    plain: bool,
    bar: Mutex<Option<ProgressBar>>,
    /// When the scan started and when the last plain line was printed.
    times: Mutex<Option<(Instant, Instant)>>,
    files: AtomicU64,
    done: AtomicU64,
    errors: AtomicU64,
    requests: AtomicU64,
    bytes: AtomicU64,
    /// The most files the scan had in flight at once.
    in_flight: AtomicU64,
    /// `--stats` as JSON, kept for `--json` reports once the scan is done.
    stats_json: Mutex<Option<serde_json::Value>>,
}

impl Terminal {
    pub fn new(stats: bool, plain: bool) -> Self {
        Terminal {
            stats,
            plain,
            bar: Mutex::new(None),
            times: Mutex::new(None),
            files: AtomicU64::new(0),
            done: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            stats_json: Mutex::new(None),
        }
    }

    /// `--stats` as JSON (`{"files": […], "total": {…}}`), when asked for and a scan ran.
    pub fn stats_json(&self) -> Option<serde_json::Value> {
        self.stats_json.lock().ok().and_then(|s| s.clone())
    }

    /// A plain progress line when `--progress` asked for them and one is due (or `last`).
    fn plain_line(&self, last: bool) {
        if !self.plain {
            return;
        }
        let Ok(mut times) = self.times.lock() else {
            return;
        };
        let now = Instant::now();
        let (start, printed) = times.get_or_insert((now, now));
        if !last && now.duration_since(*printed) < PLAIN_EVERY {
            return;
        }
        *printed = now;
        pipe::errln!(
            "vzplan: scanned {}/{} files, {} read in {} request(s), {} error(s) ({:.1} s)",
            self.done.load(Ordering::Relaxed),
            self.files.load(Ordering::Relaxed),
            indicatif::HumanBytes(self.bytes.load(Ordering::Relaxed)),
            self.requests.load(Ordering::Relaxed),
            self.errors.load(Ordering::Relaxed),
            now.duration_since(*start).as_secs_f64()
        );
    }

    fn bar(&self) -> Option<ProgressBar> {
        self.bar.lock().ok().and_then(|b| b.clone())
    }

    fn started(&self, files: usize, listing: bool) {
        self.files.store(files as u64, Ordering::Relaxed);
        if self.plain {
            if let Ok(mut t) = self.times.lock() {
                *t = Some((Instant::now(), Instant::now()));
            }
            let more = if listing {
                " and what a listing finds"
            } else {
                ""
            };
            pipe::errln!("vzplan: scanning {files} file(s){more}");
        }
        // No bar at all where none is drawn (a pipe, a log, `--progress`): a hidden one still took
        // two locks and a clock reading for every file.
        if !std::io::stderr().is_terminal() || self.plain {
            return;
        }
        let pb = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr());
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
        self.done.fetch_add(1, Ordering::Relaxed);
        if !s.skipped() {
            if s.result.is_err() {
                self.errors.fetch_add(1, Ordering::Relaxed);
            }
            self.requests.fetch_add(s.stats.requests, Ordering::Relaxed);
            self.bytes.fetch_add(s.stats.bytes, Ordering::Relaxed);
        }
        self.plain_line(false);
        let Some(pb) = self.bar() else { return };
        if !s.skipped() {
            pb.set_message(format!(
                "{} read in {} request(s), {} error(s)",
                indicatif::HumanBytes(self.bytes.load(Ordering::Relaxed)),
                self.requests.load(Ordering::Relaxed),
                self.errors.load(Ordering::Relaxed)
            ));
        }
        pb.inc(1);
    }
}

impl ProgressSink for Terminal {
    fn report(&self, event: Progress<'_>) {
        match event {
            Progress::ScanStarted { files, listing } => self.started(files, listing),
            Progress::InFlight { files } => {
                self.in_flight.store(files as u64, Ordering::Relaxed);
            }
            Progress::Listed { files } => {
                self.files.fetch_add(files as u64, Ordering::Relaxed);
                if let Some(pb) = self.bar() {
                    pb.inc_length(files as u64);
                }
            }
            Progress::FileScanned(s) => self.scanned(s),
            Progress::ScanFinished(all) => {
                if let Some(pb) = self.bar() {
                    pb.finish_and_clear();
                }
                self.plain_line(true);
                if self.stats {
                    let in_flight = self.in_flight.load(Ordering::Relaxed);
                    print_stats(all, in_flight);
                    if let Ok(mut j) = self.stats_json.lock() {
                        *j = Some(stats_json(all, in_flight));
                    }
                }
            }
            Progress::Patched { chunks, bytes } => {
                pipe::errln!("patched {chunks} chunk(s): {bytes} bytes written inline");
            }
            Progress::Waiting { path } => {
                pipe::errln!(
                    "vzplan: waiting for another vzplan run writing {}",
                    pipe::line(&path.display().to_string())
                );
            }
        }
    }
}

/// The sum of the files' stats.
fn totals(scanned: &[Scanned]) -> Stats {
    let mut total = Stats::default();
    for s in scanned.iter().filter(|s| !s.skipped()) {
        total.requests += s.stats.requests;
        total.round_trips += s.stats.round_trips;
        total.bytes += s.stats.bytes;
        total.retried += s.stats.retried;
    }
    total
}

/// `--stats`: requests, dependent round trips and bytes per file, then totals, written as one
/// text ([`pipe::write_err_text`]).
fn print_stats(scanned: &[Scanned], in_flight: u64) {
    use std::fmt::Write;
    let mut out = String::new();
    for s in scanned.iter().filter(|s| !s.skipped()) {
        let _ = write!(
            out,
            "{}: {} request(s)",
            vzplan::text::shown(&s.input),
            s.stats.requests
        );
        if s.stats.retried > 0 {
            let _ = write!(out, " ({} retried)", s.stats.retried);
        }
        let _ = write!(
            out,
            ", {} round trip(s), {} bytes read",
            s.stats.round_trips, s.stats.bytes
        );
        // A DMR++ layout describes its granule; the bytes read are the sidecar's.
        if let Some(l) = s
            .result
            .as_ref()
            .ok()
            .filter(|l| l.format.as_str() != "dmrpp")
        {
            let _ = write!(out, " of {} ({:.2}%)", l.size, pct(s.stats.bytes, l.size));
        }
        out.push('\n');
    }
    let total = totals(scanned);
    let n = scanned.iter().filter(|s| !s.skipped()).count().max(1) as f64;
    let _ = writeln!(
        out,
        "total: {} file(s), {} request(s) ({:.2} per file, {} retried), {} round trip(s) \
         ({:.2} per file), {} bytes read, up to {} file(s) in flight",
        scanned.len(),
        total.requests,
        total.requests as f64 / n,
        total.retried,
        total.round_trips,
        total.round_trips as f64 / n,
        total.bytes,
        in_flight
    );
    pipe::write_err_text(&out);
}

/// `--stats` for `--json`: each file's requests, round trips and bytes (with its size when it was
/// read), and the totals.
fn stats_json(scanned: &[Scanned], in_flight: u64) -> serde_json::Value {
    let one = |s: &Stats| {
        serde_json::json!({
            "requests": s.requests,
            "round_trips": s.round_trips,
            "bytes": s.bytes,
            "retried": s.retried,
        })
    };
    let files: Vec<serde_json::Value> = scanned
        .iter()
        .filter(|s| !s.skipped())
        .map(|s| {
            let mut v = one(&s.stats);
            v["input"] = serde_json::Value::from(s.input.as_str());
            if let Ok(l) = &s.result {
                v["size"] = serde_json::Value::from(l.size);
            }
            v
        })
        .collect();
    let mut total = one(&totals(scanned));
    total["files"] = serde_json::Value::from(scanned.len());
    total["in_flight"] = serde_json::Value::from(in_flight);
    serde_json::json!({ "files": files, "total": total })
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}
