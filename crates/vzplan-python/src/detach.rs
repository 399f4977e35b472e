//! Running the library off the GIL: the work on a thread of its own, the calling thread waking
//! every few milliseconds to look for signals (Ctrl-C cancels a scan between files, and is raised
//! once the work has stopped) and to call a progress callback with the files scanned so far.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use vzplan::{Progress, ProgressSink};

/// How often the calling thread looks for signals while the library works.
const POLL: Duration = Duration::from_millis(50);

/// Files to scan and scanned so far, from the library's progress reports.
#[derive(Default)]
pub struct Ticks {
    total: AtomicUsize,
    done: AtomicUsize,
}

impl ProgressSink for Ticks {
    fn report(&self, event: Progress<'_>) {
        match event {
            Progress::ScanStarted { files, .. } => self.total.store(files, Ordering::Relaxed),
            Progress::Listed { files } => {
                self.total.fetch_add(files, Ordering::Relaxed);
            }
            Progress::FileScanned(_) => {
                self.done.fetch_add(1, Ordering::Relaxed);
            }
            _ => {}
        }
    }
}

impl Ticks {
    fn now(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }
}

/// Runs `work` on its own thread with the GIL released; a pending signal (Ctrl-C) sets `cancel`
/// and is raised once the work has stopped. With `ticker`, its callback is called with
/// `(done, total)` whenever those changed, and once at the end.
pub fn detached<T: Send>(
    py: Python<'_>,
    cancel: &Arc<AtomicBool>,
    ticker: Option<(&Ticks, &Bound<'_, PyAny>)>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        s.spawn(move || {
            // The receiver is gone only if the caller has stopped waiting.
            let _ = tx.send(work());
        });
        // Behind a mutex only to be shareable with the GIL-free closure (a Receiver is not Sync).
        let rx = std::sync::Mutex::new(rx);
        let wait = || match rx.lock() {
            Ok(rx) => rx.recv_timeout(POLL),
            Err(_) => Err(mpsc::RecvTimeoutError::Disconnected),
        };
        let mut interrupted = None;
        let mut shown = (0, 0);
        let mut tick = |interrupted: &mut Option<PyErr>| {
            let Some((ticks, f)) = ticker else { return };
            let now = ticks.now();
            if now != shown && interrupted.is_none() {
                shown = now;
                if let Err(e) = f.call1(now) {
                    cancel.store(true, Ordering::Relaxed);
                    *interrupted = Some(e);
                }
            }
        };
        loop {
            match py.allow_threads(wait) {
                Ok(out) => {
                    tick(&mut interrupted);
                    return interrupted.map_or(Ok(out), Err);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "vzplan: the worker thread panicked",
                    ))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if interrupted.is_none() {
                        if let Err(e) = py.check_signals() {
                            cancel.store(true, Ordering::Relaxed);
                            interrupted = Some(e);
                        }
                    }
                    tick(&mut interrupted);
                }
            }
        }
    })
}
