//! `vzplan._vzplan`: the native half of the Python package. A thin caller of the `vzplan` library
//! (the same facade the CLI calls): options come as a dict of the CLI's option names, results go
//! back as JSON text and bytes; `python/vzplan/` shapes them into the Python API.
//!
//! Every call runs the library on a thread of its own with the GIL released; the calling thread
//! wakes every few milliseconds to check for signals, so Ctrl-C cancels a scan between files.

mod options;

use options::{Opts, Which};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use vzplan::{BuildOptions, Error, Inputs, RefsOutput, Source};

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

/// The library's error as a Python exception, with what it carries (failures, findings).
fn to_py(e: Error) -> PyErr {
    let detail = match &e {
        Error::NothingRead { failures } => failures
            .iter()
            .map(|f| format!("{}\n", f.error))
            .collect::<String>(),
        Error::NothingBuilt { plan } => vzplan::report::text(plan),
        _ => String::new(),
    };
    VzplanError::new_err(format!("{detail}{e}"))
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

/// Scans `paths` (paths, globs, object URLs) and returns one layout line per file, in input
/// order: a layout, or `{"url", "error"}` for a file that failed (the lines `vzplan scan`
/// writes). Raises under `fail_fast` when a file fails.
#[pyfunction]
#[pyo3(signature = (paths, options=None))]
fn scan_lines(
    py: Python<'_>,
    paths: Vec<String>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<String>> {
    let opts = Opts::from_dict(py, options, Which::Scan)?;
    let scan = opts.scan_options();
    let allow = opts.allow_unreachable;
    let cancel = scan.cancel.clone().unwrap_or_default();
    let r = detached(py, &cancel, || -> Result<Vec<String>, Error> {
        let scanned = vzplan::scan(&Inputs::new(paths), &scan, &vzplan::NoProgress)?;
        vzplan::scan::require_reachable(&scanned, allow)?;
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
    let io = Opts::from_dict(py, options, Which::Scan)?.scan_options().io;
    let files = py
        .allow_threads(|| Inputs::new(paths).expand(&io))
        .map_err(to_py)?;
    Ok(files.into_iter().map(|f| f.name).collect())
}

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
    let opts = Opts::from_dict(py, options, Which::Build)?;
    if append && output.is_none() && opts.icechunk.is_none() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "append needs output (the refs.json to extend) or icechunk (the repository)",
        ));
    }
    let kept = opts.layouts_for(output.as_deref(), append)?;
    let scan = opts.scan_options();
    let cancel = scan.cancel.clone().unwrap_or_default();
    let source = match (paths, layouts) {
        (Some(_), Some(_)) => {
            return Err(VzplanError::new_err(Error::InputsAndLayouts.to_string()))
        }
        (_, Some(lines)) => {
            vzplan::memory::source_from_lines(lines.iter().map(String::as_str), scan.io.clone())
        }
        (paths, None) => Source::Scan {
            inputs: Inputs::new(paths.unwrap_or_default()),
            options: scan,
        },
    };
    let plan_opts = opts.plan_options();
    let templates = !opts.no_templates;
    let refs_out = output.map(|o| RefsOutput {
        zarr_json: opts.zarr_json_for(Some(&o)),
        refs: o.into(),
        templates,
    });
    let icechunk = match &opts.icechunk {
        Some(repo) => Some(Arc::new(
            vzplan::IcechunkOutput::new(repo, &opts.branch, opts.io()).map_err(to_py)?,
        )),
        None => None,
    };
    let force = opts.force;
    let sources_under = opts.sources_under.clone();
    let sources_named = opts.sources_named.clone();
    let r = detached(py, &cancel, move || {
        let (plan, committed) = if build {
            let mut outputs: Vec<Box<dyn vzplan::Output>> = Vec::new();
            outputs.extend(refs_out.map(|r| Box::new(r) as Box<dyn vzplan::Output>));
            outputs.extend(
                icechunk
                    .clone()
                    .map(|i| Box::new(i) as Box<dyn vzplan::Output>),
            );
            let b = BuildOptions {
                plan: plan_opts,
                outputs,
                force,
                keep_layouts: kept.clone(),
                sources_under,
                sources_named,
            };
            let plan = match (&kept, append) {
                (Some(k), true) => vzplan::append(k, &source, b, &vzplan::NoProgress)?.plan,
                _ => vzplan::build(&source, &b, &vzplan::NoProgress)?.plan,
            };
            let committed = icechunk.as_ref().and_then(|i| {
                let c = i.committed()?;
                Some(serde_json::json!({
                    "repository": i.target.display(),
                    "branch": c.branch,
                    "snapshot": c.snapshot,
                    "created": c.created,
                    "virtual_refs": c.virtual_refs,
                    "native_chunks": c.native_chunks,
                    "virtual_chunk_containers": c.containers,
                }))
            });
            (plan, committed)
        } else {
            (
                vzplan::plan(&source, &plan_opts, &vzplan::NoProgress)?,
                None,
            )
        };
        let mut report = vzplan::report::json(&plan);
        if let (Some(c), Some(o)) = (committed, report.as_object_mut()) {
            o.insert("icechunk".into(), c);
        }
        let report = serde_json::to_string(&report)?;
        let code = u8::from(plan.incomplete()) * 3;
        let bytes = if in_memory {
            Some((
                vzplan::memory::refs_bytes(&plan, templates)?,
                vzplan::memory::zarr_json_bytes(&plan)?,
            ))
        } else {
            None
        };
        Ok::<_, Error>((report, code, bytes))
    })?;
    let r = r.map(|(report, code, bytes)| {
        let (refs, zarr) = match bytes {
            Some((r, z)) => (
                Some(PyBytes::new(py, &r).unbind()),
                Some(PyBytes::new(py, &z).unbind()),
            ),
            None => (None, None),
        };
        (report, code, refs, zarr)
            .into_pyobject(py)
            .map(|t| t.into_any().unbind())
    });
    r.map_err(|e| raise(py, e))?
}

#[pymodule]
fn _vzplan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("VzplanError", m.py().get_type::<VzplanError>())?;
    m.add_function(wrap_pyfunction!(scan_lines, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(expand, m)?)?;
    Ok(())
}
