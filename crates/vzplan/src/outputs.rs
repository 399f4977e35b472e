//! Outputs: where a [`Plan`] is written. Each is one [`Output`]; a new kind of store (Icechunk)
//! is one more implementation.

use crate::Error;
use std::path::{Path, PathBuf};
use vzplan_plan::Plan;

pub use vzplan_emit::zarr_json_path;

/// Writes a plan somewhere.
pub trait Output {
    /// What is written, for messages ("refs.json", "HTML report").
    fn kind(&self) -> &'static str;
    fn write(&self, plan: &Plan) -> Result<(), Error>;
}

/// kerchunk `refs.json` (streamed) plus, unless turned off, the consolidated Zarr v3 `zarr.json`
/// beside it; each written atomically.
#[derive(Clone, Debug)]
pub struct RefsOutput {
    pub refs: PathBuf,
    /// Where the consolidated `zarr.json` goes; None: not written.
    pub zarr_json: Option<PathBuf>,
    /// kerchunk v1 templates for the source URLs (false: full URLs in every reference, for
    /// readers that ignore templates, such as VirtualiZarr's KerchunkJSONParser and GDAL).
    pub templates: bool,
}

impl RefsOutput {
    /// `refs.json` with its `zarr.json` at the default place (`refs.json` → `refs.zarr.json`).
    pub fn new(refs: impl Into<PathBuf>) -> Self {
        let refs = refs.into();
        let zarr_json = Some(vzplan_emit::zarr_json_path(&refs));
        RefsOutput {
            refs,
            zarr_json,
            templates: true,
        }
    }
}

impl Output for RefsOutput {
    fn kind(&self) -> &'static str {
        "refs.json"
    }

    fn write(&self, plan: &Plan) -> Result<(), Error> {
        let opts = vzplan_emit::RefsOptions {
            templates: self.templates,
        };
        vzplan_emit::write_atomic(&self.refs, |w| vzplan_emit::write_refs_with(plan, opts, w))?;
        if let Some(z) = &self.zarr_json {
            write_zarr_json(plan, z)?;
        }
        Ok(())
    }
}

/// The consolidated `zarr.json` document alone.
pub fn write_zarr_json(plan: &Plan, path: &Path) -> Result<(), Error> {
    let doc = vzplan_emit::zarr::consolidated_json(plan);
    vzplan_emit::write_atomic(path, |w| {
        serde_json::to_writer_pretty(&mut *w, &doc)?;
        writeln!(w)
    })?;
    Ok(())
}

/// The plan as one self-contained HTML page (a report, written even when nothing is built).
#[derive(Clone, Debug)]
pub struct HtmlReport {
    pub path: PathBuf,
}

impl Output for HtmlReport {
    fn kind(&self) -> &'static str {
        "HTML report"
    }

    fn write(&self, plan: &Plan) -> Result<(), Error> {
        let page = vzplan_emit::html::page(plan);
        vzplan_emit::write_atomic(&self.path, |w| w.write_all(page.as_bytes()))?;
        Ok(())
    }
}
