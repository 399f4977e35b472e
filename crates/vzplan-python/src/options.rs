//! The CLI's options, from a dict keyed by their long names with `_` for `-` (`concat_dim`,
//! `chunk_bytes`, `s3_endpoint`, …). An unknown key is a TypeError, as a misspelt flag is a usage
//! error on the command line.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use vzplan::{CacheConfig, IoOptions, PlanOptions, ScanOptions};

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
];
const PLAN_KEYS: &[&str] = &[
    "concat_dim",
    "stack_dim",
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

/// The options, defaults as the CLI's.
pub struct Opts {
    jobs: Option<usize>,
    chunk_bytes: u64,
    fail_fast: bool,
    pub allow_unreachable: bool,
    s3_endpoint: Option<String>,
    gcs_endpoint: Option<String>,
    anon: bool,
    region: Option<String>,
    retries: u32,
    io_timeout: f64,
    first_read: u64,
    block_size: u64,
    concat_dim: Option<String>,
    stack_dim: Option<String>,
    vars: Vec<String>,
    mosaic: bool,
    mosaic_layout: Option<PathBuf>,
    patch: bool,
    html: Option<PathBuf>,
    zarr_json: Option<PathBuf>,
    no_zarr_json: bool,
    pub no_templates: bool,
    pub force: bool,
    pub icechunk: Option<String>,
    pub branch: String,
    /// `keep_layouts`: True (beside refs.json) or a path.
    keep_layouts: Option<KeepLayouts>,
    /// Prefixes whose sources a layout may name for reading (`--sources-under`).
    pub sources_under: Vec<String>,
    /// The files a distributed scan handed to its workers, named one by one.
    pub sources_named: Vec<String>,
}

/// Where `build` keeps the layouts: beside refs.json, or at a path.
#[derive(Clone)]
enum KeepLayouts {
    Beside,
    At(PathBuf),
}

fn keep_layouts(d: &Bound<'_, PyDict>) -> PyResult<Option<KeepLayouts>> {
    let Some(v) = d.get_item("keep_layouts")?.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(b) = v.extract::<bool>() {
        return Ok(b.then_some(KeepLayouts::Beside));
    }
    v.extract::<PathBuf>()
        .map(|p| Some(KeepLayouts::At(p)))
        .map_err(|e| PyTypeError::new_err(format!("keep_layouts: {e}")))
}

fn get<'py, T: FromPyObject<'py>>(d: &Bound<'py, PyDict>, key: &str, default: T) -> PyResult<T> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => v
            .extract()
            .map_err(|e| PyTypeError::new_err(format!("{key}: {e}"))),
        _ => Ok(default),
    }
}

/// `var` as one name or a list of names.
fn names<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Vec<String>> {
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

impl Opts {
    pub fn from_dict(
        py: Python<'_>,
        d: Option<&Bound<'_, PyDict>>,
        which: Which,
    ) -> PyResult<Self> {
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
        let defaults = ScanOptions::default();
        let cache = CacheConfig::default();
        let o = Opts {
            jobs: get(d, "jobs", None)?,
            chunk_bytes: get(d, "chunk_bytes", defaults.chunk_bytes)?,
            fail_fast: get(d, "fail_fast", false)?,
            allow_unreachable: get(d, "allow_unreachable", false)?,
            s3_endpoint: get(d, "s3_endpoint", None)?,
            gcs_endpoint: get(d, "gcs_endpoint", None)?,
            anon: get(d, "anon", false)?,
            region: get(d, "region", None)?,
            retries: get(d, "retries", 8)?,
            io_timeout: get(d, "io_timeout", 30.0)?,
            first_read: get(d, "first_read", cache.first_read)?,
            block_size: get(d, "block_size", cache.block_size)?,
            concat_dim: get(d, "concat_dim", None)?,
            stack_dim: get(d, "stack_dim", None)?,
            vars: names(d, "var")?,
            mosaic: get(d, "mosaic", false)?,
            mosaic_layout: get(d, "mosaic_layout", None)?,
            patch: get(d, "patch", false)?,
            html: get(d, "html", None)?,
            zarr_json: get(d, "zarr_json", None)?,
            no_zarr_json: get(d, "no_zarr_json", false)?,
            no_templates: get(d, "no_templates", false)?,
            force: get(d, "force", false)?,
            icechunk: get(d, "icechunk", None)?,
            branch: get(d, "branch", "main".to_string())?,
            keep_layouts: keep_layouts(d)?,
            sources_under: names(d, "sources_under")?,
            sources_named: names(d, "sources_named")?,
        };
        // The CLI refuses these combinations as usage errors.
        if o.concat_dim.is_some() && o.stack_dim.is_some() {
            return Err(PyValueError::new_err(
                "give either concat_dim or stack_dim, not both",
            ));
        }
        if (o.mosaic || o.mosaic_layout.is_some())
            && (o.concat_dim.is_some() || o.stack_dim.is_some())
        {
            return Err(PyValueError::new_err(
                "mosaic places files in 2-D; it takes no concat_dim or stack_dim",
            ));
        }
        if !o.io_timeout.is_finite() {
            return Err(PyValueError::new_err(
                "io_timeout must be a number of seconds",
            ));
        }
        Ok(o)
    }

    /// As the CLI's `IoArgs::options`.
    pub fn io(&self) -> IoOptions {
        IoOptions {
            s3_endpoint: self.s3_endpoint.clone(),
            gcs_endpoint: self.gcs_endpoint.clone(),
            anon: self.anon,
            region: self.region.clone(),
            retries: self.retries,
            timeout: Duration::from_secs_f64(self.io_timeout.clamp(0.05, 86_400.0)),
            cache: CacheConfig {
                block_size: self.block_size.clamp(512, 64 << 20),
                first_read: self.first_read.min(256 << 20),
                ..CacheConfig::default()
            },
            ..IoOptions::default()
        }
    }

    /// Scan options with a fresh cancel flag (set on Ctrl-C).
    pub fn scan_options(&self) -> ScanOptions {
        ScanOptions {
            jobs: self.jobs,
            chunk_bytes: self.chunk_bytes,
            io: self.io(),
            fail_fast: self.fail_fast,
            cancel: Some(Arc::new(AtomicBool::new(false))),
        }
    }

    pub fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            concat_dim: self.concat_dim.clone(),
            stack_dim: self.stack_dim.clone(),
            vars: self.vars.clone(),
            mosaic: self.mosaic,
            mosaic_layout: self.mosaic_layout.clone(),
            patch: self.patch,
            html: self.html.clone(),
            allow_unreachable: self.allow_unreachable,
        }
    }

    /// Where zarr.json goes beside `refs`, as the CLI decides it.
    /// Where the layouts are kept: beside refs.json at `refs`, or beside a local Icechunk
    /// repository, unless a path is given (always kept when appending).
    pub fn layouts_for(&self, refs: Option<&str>, append: bool) -> PyResult<Option<PathBuf>> {
        let beside = || match (refs, &self.icechunk) {
            (Some(r), _) => Ok(vzplan::default_layouts(std::path::Path::new(r))),
            (None, Some(repo)) => vzplan::default_layouts_for_repo(repo).ok_or_else(|| {
                PyValueError::new_err(
                    vzplan::Error::LayoutsPathNeeded { repo: repo.clone() }.to_string(),
                )
            }),
            (None, None) => Err(PyValueError::new_err(
                "keep_layouts needs output (or icechunk) to keep them beside",
            )),
        };
        Ok(match &self.keep_layouts {
            Some(KeepLayouts::At(p)) => Some(p.clone()),
            Some(KeepLayouts::Beside) => Some(beside()?),
            None if append => Some(beside()?),
            None => None,
        })
    }

    pub fn zarr_json_for(&self, refs: Option<&str>) -> Option<PathBuf> {
        if self.no_zarr_json {
            return None;
        }
        let refs = refs?;
        Some(
            self.zarr_json
                .clone()
                .unwrap_or_else(|| vzplan::outputs::zarr_json_path(std::path::Path::new(refs))),
        )
    }
}
