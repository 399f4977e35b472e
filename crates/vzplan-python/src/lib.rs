//! `vzplan._vzplan`: the native half of the Python package. A thin caller of the `vzplan` library
//! (the same facade the CLI calls): options come as a dict of the CLI's option names, results go
//! back as JSON text and bytes; `python/vzplan/` shapes them into the Python API.
//!
//! Every call runs the library on a thread of its own with the GIL released; the calling thread
//! wakes every few milliseconds to check for signals, so Ctrl-C cancels a scan between files, and
//! to report progress to a callback ([`detach`]).

mod detach;
mod options;

use detach::{detached, Ticks};

use options::Which;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use vzplan::{Error, Request, Shell};

create_exception!(
    _vzplan,
    VzplanError,
    PyException,
    "vzplan could not scan, plan or write (the CLI's exit code 1)."
);

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
    let r = detached(py, &cancel, None, || -> Result<Vec<String>, Error> {
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

/// What a run hands back to Python: the report (JSON text), the exit code, refs.json and
/// zarr.json as bytes, and the HTML page.
type RunResult = (String, u8, Option<(Vec<u8>, Vec<u8>)>, Option<String>);

/// Plans (and, with `build`, writes) from `paths` scanned here or from `layouts` (lines as
/// `scan_lines` returns them, e.g. from a cluster's workers). Returns
/// `(report_json, exit_code, refs_bytes, zarr_json_bytes, html_page)`; the bytes only with
/// `in_memory`, the page only with `page`. With `append`, the files are added to the collection
/// at `output` (built with kept layouts). `progress(done, total)` is called as files are scanned.
#[pyfunction]
#[pyo3(signature = (paths=None, layouts=None, options=None, build=false, output=None, in_memory=false, append=false, page=false, progress=None))]
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
    page: bool,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<PyObject> {
    let mut req = options::request(py, options, Which::Build)?;
    req.inputs = paths.unwrap_or_default();
    req.layout_lines = layouts;
    req.output = output.map(Into::into);
    req.in_memory = in_memory;
    req.page = page;
    let cancel = cancel_of(&req);
    let ticks = Ticks::default();
    let ticker = progress.as_ref().map(|f| (&ticks, f));
    let r = detached(py, &cancel, ticker, || -> Result<RunResult, Error> {
        let (plan, report, code, page) = if build {
            let built = vzplan::run::build(&req, append, &ticks)?;
            let report = built.json(Shell::Python);
            let code = built.exit_code();
            (built.report.plan, report, code, built.report.page)
        } else {
            let planned = vzplan::run::plan(&req, &ticks)?;
            let report = vzplan::run::worded(vzplan::report::json(&planned.plan), Shell::Python);
            let code = vzplan::run::exit_code(&planned.plan);
            (planned.plan, report, code, planned.page)
        };
        let bytes = match in_memory {
            true => Some((
                vzplan::memory::refs_bytes(&plan, !req.no_templates)?,
                vzplan::memory::zarr_json_bytes(&plan)?,
            )),
            false => None,
        };
        Ok((serde_json::to_string(&report)?, code, bytes, page))
    })?;
    let (report, code, bytes, page) = r.map_err(|e| raise(py, e))?;
    let (refs, zarr) = match bytes {
        Some((r, z)) => (
            Some(PyBytes::new(py, &r).unbind()),
            Some(PyBytes::new(py, &z).unbind()),
        ),
        None => (None, None),
    };
    Ok((report, code, refs, zarr, page)
        .into_pyobject(py)?
        .into_any()
        .unbind())
}

/// Runs the `vzplan` command line `argv` (the program's name first) in this process, as the
/// binary does, and returns its exit code. The GIL is released while it runs.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.allow_threads(|| vzplan_cli::run(argv))
}

/// The name of every Zarr codec vzplan writes (`numcodecs.zlib`, `imagecodecs_jpeg`, …).
#[pyfunction]
fn codec_names() -> Vec<&'static str> {
    vzplan::codec_names()
}

#[pymodule]
fn _vzplan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(codec_names, m)?)?;
    m.add("VzplanError", m.py().get_type::<VzplanError>())?;
    m.add_function(wrap_pyfunction!(scan_lines, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(expand, m)?)?;
    Ok(())
}
