//! `vzplan._vzplan`: the native half of the Python package. A thin caller of the `vzplan` library
//! (the same facade the CLI calls): options come as a dict of the CLI's option names, results go
//! back as JSON text and bytes; `python/vzplan/` shapes them into the Python API.
//!
//! Every call runs the library on a thread of its own with the GIL released; the calling thread
//! wakes every few milliseconds to check for signals, so Ctrl-C cancels a scan between files.

mod options;

use options::Which;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use vzplan::{Error, Request, Shell};

create_exception!(
    _vzplan,
    VzplanError,
    PyException,
    "vzplan could not scan, plan or write (the CLI's exit code 1)."
);

/// How often the calling thread looks for signals while the library works.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on its own thread with the GIL released; a pending signal (Ctrl-C) sets `cancel`
/// and is raised once the work has stopped.
fn detached<T: Send>(
    py: Python<'_>,
    cancel: &Arc<AtomicBool>,
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
            Ok(rx) => rx.recv_timeout(SIGNAL_POLL),
            Err(_) => Err(mpsc::RecvTimeoutError::Disconnected),
        };
        let mut interrupted = None;
        loop {
            match py.allow_threads(wait) {
                Ok(out) => return interrupted.map_or(Ok(out), Err),
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
                }
            }
        }
    })
}

/// The library's error as a Python exception, worded for Python, with what it carries (the
/// files that failed, the report of a plan that built nothing). A usage error (what was asked
/// cannot mean anything) is a `ValueError`.
fn to_py(e: Error) -> PyErr {
    let mut text: String = e
        .details(Shell::Python)
        .iter()
        .map(|d| format!("{d}\n"))
        .collect();
    text.push_str(&e.message(Shell::Python));
    if e.exit_code() == 2 {
        PyValueError::new_err(text)
    } else {
        VzplanError::new_err(text)
    }
}

/// The error to raise: a cancelled scan raises the pending signal's exception (KeyboardInterrupt).
fn raise(py: Python<'_>, e: Error) -> PyErr {
    match e {
        Error::Cancelled => match py.check_signals() {
            Err(signal) => signal,
            Ok(()) => pyo3::exceptions::PyKeyboardInterrupt::new_err("cancelled"),
        },
        e => to_py(e),
    }
}

fn cancel_of(req: &Request) -> Arc<AtomicBool> {
    req.cancel.clone().unwrap_or_default()
}

/// Scans `paths` (paths, globs, object URLs) and returns one layout line per file, in input
/// order: a layout, or `{"url", "error"}` for a file that failed (the lines `vzplan scan`
/// writes). Raises under `fail_fast` when a file fails, and when a store could not be reached
/// (unless `allow_unreachable`).
#[pyfunction]
#[pyo3(signature = (paths, options=None))]
fn scan_lines(
    py: Python<'_>,
    paths: Vec<String>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<String>> {
    let mut req = options::request(py, options, Which::Scan)?;
    req.inputs = paths;
    let cancel = cancel_of(&req);
    let r = detached(py, &cancel, || -> Result<Vec<String>, Error> {
        let scan = req.scan_options()?;
        let scanned = vzplan::scan(&req.inputs(), &scan, &vzplan::NoProgress)?;
        vzplan::scan::require_reachable(&scanned, req.allow_unreachable)?;
        scanned.iter().map(vzplan::layouts::line).collect()
    })?;
    r.map_err(|e| raise(py, e))
}

/// The files `paths` name (globs expanded, object URLs listed), in the order a scan takes them.
#[pyfunction]
#[pyo3(signature = (paths, options=None))]
fn expand(
    py: Python<'_>,
    paths: Vec<String>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<String>> {
    let mut req = options::request(py, options, Which::Scan)?;
    req.inputs = paths;
    let files = py
        .allow_threads(|| req.inputs().expand(&req.io_options()?))
        .map_err(to_py)?;
    Ok(files.into_iter().map(|f| f.name).collect())
}

/// What a run hands back to Python: the report (JSON text), the exit code, and refs.json and
/// zarr.json as bytes when asked for.
type RunResult = (String, u8, Option<(Vec<u8>, Vec<u8>)>);

/// Plans (and, with `build`, writes) from `paths` scanned here or from `layouts` (lines as
/// `scan_lines` returns them, e.g. from a cluster's workers). Returns
/// `(report_json, exit_code, refs_bytes, zarr_json_bytes)`; the bytes only with `in_memory`.
/// With `append`, the files are added to the collection at `output` (built with kept layouts).
#[pyfunction]
#[pyo3(signature = (paths=None, layouts=None, options=None, build=false, output=None, in_memory=false, append=false))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    paths: Option<Vec<String>>,
    layouts: Option<Vec<String>>,
    options: Option<&Bound<'_, PyDict>>,
    build: bool,
    output: Option<String>,
    in_memory: bool,
    append: bool,
) -> PyResult<PyObject> {
    let mut req = options::request(py, options, Which::Build)?;
    req.inputs = paths.unwrap_or_default();
    req.layout_lines = layouts;
    req.output = output.map(Into::into);
    req.in_memory = in_memory;
    let cancel = cancel_of(&req);
    let r = detached(py, &cancel, move || -> Result<RunResult, Error> {
        let (plan, report, code) = if build {
            let built = vzplan::run::build(&req, append, &vzplan::NoProgress)?;
            let report = built.json(Shell::Python);
            let code = built.exit_code();
            (built.report.plan, report, code)
        } else {
            let plan = vzplan::run::plan(&req, &vzplan::NoProgress)?;
            let report = vzplan::run::worded(vzplan::report::json(&plan), Shell::Python);
            let code = vzplan::run::exit_code(&plan);
            (plan, report, code)
        };
        let bytes = match in_memory {
            true => Some((
                vzplan::memory::refs_bytes(&plan, !req.no_templates)?,
                vzplan::memory::zarr_json_bytes(&plan)?,
            )),
            false => None,
        };
        Ok((serde_json::to_string(&report)?, code, bytes))
    })?;
    let (report, code, bytes) = r.map_err(|e| raise(py, e))?;
    let (refs, zarr) = match bytes {
        Some((r, z)) => (
            Some(PyBytes::new(py, &r).unbind()),
            Some(PyBytes::new(py, &z).unbind()),
        ),
        None => (None, None),
    };
    Ok((report, code, refs, zarr)
        .into_pyobject(py)?
        .into_any()
        .unbind())
}

#[pymodule]
fn _vzplan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("VzplanError", m.py().get_type::<VzplanError>())?;
    m.add_function(wrap_pyfunction!(scan_lines, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(expand, m)?)?;
    Ok(())
}
