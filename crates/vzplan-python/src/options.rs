//! Keyword arguments → a [`vzplan::Request`]: the CLI's option names with `_` for `-`
//! (`concat_dim`, `chunk_bytes`, `s3_endpoint`, …). An unknown key is a `TypeError`, as a
//! misspelt flag is a usage error on the command line. Nothing is decided here: defaults,
//! conflicts and output paths are the library's.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use vzplan::{IoSettings, Keep, Request};

/// Which command's options are accepted.
#[derive(Clone, Copy, PartialEq)]
pub enum Which {
    Scan,
    Build,
}

const SCAN_KEYS: &[&str] = &[
    "jobs",
    "chunk_bytes",
    "fail_fast",
    "allow_unreachable",
    "s3_endpoint",
    "gcs_endpoint",
    "anon",
    "region",
    "retries",
    "io_timeout",
    "first_read",
    "block_size",
    "dmrpp",
];
const PLAN_KEYS: &[&str] = &[
    "concat_dim",
    "stack_dim",
    "stack_coord",
    "var",
    "mosaic",
    "mosaic_layout",
    "patch",
    "html",
    "zarr_json",
    "no_zarr_json",
    "no_templates",
    "force",
    "icechunk",
    "branch",
    "keep_layouts",
    "sources_under",
    "sources_named",
];

fn get<'py, T: FromPyObject<'py>>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<T>> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => v
            .extract()
            .map(Some)
            .map_err(|e| PyTypeError::new_err(format!("{key}: {e}"))),
        _ => Ok(None),
    }
}

fn flag(d: &Bound<'_, PyDict>, key: &str) -> PyResult<bool> {
    Ok(get(d, key)?.unwrap_or(false))
}

/// One name or a list of names.
fn names(d: &Bound<'_, PyDict>, key: &str) -> PyResult<Vec<String>> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => match v.extract::<String>() {
            Ok(one) => Ok(vec![one]),
            Err(_) => v
                .extract()
                .map_err(|e| PyTypeError::new_err(format!("{key}: {e}"))),
        },
        _ => Ok(Vec::new()),
    }
}

/// `keep_layouts`: True (beside the output) or a path.
fn keep_layouts(d: &Bound<'_, PyDict>) -> PyResult<Keep> {
    let Some(v) = d.get_item("keep_layouts")?.filter(|v| !v.is_none()) else {
        return Ok(Keep::No);
    };
    if let Ok(b) = v.extract::<bool>() {
        return Ok(if b { Keep::Beside } else { Keep::No });
    }
    v.extract::<PathBuf>()
        .map(Keep::At)
        .map_err(|e| PyTypeError::new_err(format!("keep_layouts: {e}")))
}

/// The request the keyword arguments in `d` make, with a fresh cancel flag (set on Ctrl-C).
pub fn request(py: Python<'_>, d: Option<&Bound<'_, PyDict>>, which: Which) -> PyResult<Request> {
    let empty = PyDict::new(py);
    let d = d.unwrap_or(&empty);
    for k in d.keys() {
        let k: String = k.extract()?;
        let known = SCAN_KEYS.contains(&k.as_str())
            || (which == Which::Build && PLAN_KEYS.contains(&k.as_str()));
        if !known {
            return Err(PyTypeError::new_err(format!("unknown option {k:?}")));
        }
    }
    Ok(Request {
        io: IoSettings {
            s3_endpoint: get(d, "s3_endpoint")?,
            gcs_endpoint: get(d, "gcs_endpoint")?,
            anon: flag(d, "anon")?,
            region: get(d, "region")?,
            retries: get(d, "retries")?,
            timeout_secs: get(d, "io_timeout")?,
            first_read: get(d, "first_read")?,
            block_size: get(d, "block_size")?,
        },
        jobs: get(d, "jobs")?,
        chunk_bytes: get(d, "chunk_bytes")?,
        fail_fast: flag(d, "fail_fast")?,
        allow_unreachable: flag(d, "allow_unreachable")?,
        dmrpp: flag(d, "dmrpp")?,
        cancel: Some(Arc::new(AtomicBool::new(false))),
        concat_dim: get(d, "concat_dim")?,
        stack_dim: get(d, "stack_dim")?,
        stack_coord: get(d, "stack_coord")?,
        vars: names(d, "var")?,
        mosaic: flag(d, "mosaic")?,
        mosaic_layout: get(d, "mosaic_layout")?,
        patch: flag(d, "patch")?,
        html: get(d, "html")?,
        zarr_json: get(d, "zarr_json")?,
        no_zarr_json: flag(d, "no_zarr_json")?,
        no_templates: flag(d, "no_templates")?,
        keep_layouts: keep_layouts(d)?,
        icechunk: get(d, "icechunk")?,
        branch: get(d, "branch")?,
        force: flag(d, "force")?,
        sources_under: names(d, "sources_under")?,
        sources_named: names(d, "sources_named")?,
        ..Request::default()
    })
}
