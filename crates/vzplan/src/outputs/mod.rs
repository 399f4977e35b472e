//! Outputs: where a [`Plan`] is written. Each is one [`Output`]; a new kind of store (Icechunk)
//! is one more implementation. Files are written by [`write`]: checked first, staged beside their
//! target, and renamed into place only when every output of the run is written.

mod commit;
pub mod lock;
pub mod write;

use crate::Error;
use std::path::{Path, PathBuf};
use vzplan_plan::Plan;

pub use vzplan_emit::zarr_json_path;
pub use write::{OutputError, Staged};

/// Writes a plan somewhere. A build stages every output's files, renames them into place in
/// order (see [`write::commit`]), then runs the outputs' own commits ([`Output::commit`]); a
/// failed commit puts the files back.
pub trait Output {
    /// What is written, for messages ("refs.json", "HTML report").
    fn kind(&self) -> &'static str;
    /// Writes the plan on its own (staged and committed at once).
    fn write(&self, plan: &Plan) -> Result<(), Error> {
        write::commit_now(self.stage(plan)?)?;
        self.commit(plan)
    }
    /// The local files this output writes, each with what it is: checked before the run writes
    /// anything (not over an input, not over a file that is not a vzplan output).
    fn targets(&self) -> Vec<(&'static str, PathBuf)> {
        Vec::new()
    }
    /// Writes the output's files beside their targets, for [`write::commit`] to rename.
    fn stage(&self, _plan: &Plan) -> Result<Vec<Staged>, Error> {
        Ok(Vec::new())
    }
    /// A store's own commit (Icechunk), once the files are in place.
    fn commit(&self, _plan: &Plan) -> Result<(), Error> {
        Ok(())
    }
    /// The head's record of kept layouts, for an output with its own history: `Some(None)` when
    /// the head records none, `None` for an output that keeps no record (files).
    fn layouts_record(&self) -> Result<Option<Option<String>>, Error> {
        Ok(None)
    }
    /// The run keeps layouts whose SHA-256 is `record`; for an append, the head must still
    /// carry `expect` when the commit lands. An output with its own commit records both.
    fn kept_layouts(&self, _expect: Option<&str>, _record: &str) {}
}

/// An output shared with the caller (to read what it did afterwards, as with
/// [`crate::IcechunkOutput::committed`]) is an output; every method is delegated.
impl<T: Output + ?Sized> Output for std::sync::Arc<T> {
    fn kind(&self) -> &'static str {
        (**self).kind()
    }
    fn write(&self, plan: &Plan) -> Result<(), Error> {
        (**self).write(plan)
    }
    fn targets(&self) -> Vec<(&'static str, PathBuf)> {
        (**self).targets()
    }
    fn stage(&self, plan: &Plan) -> Result<Vec<Staged>, Error> {
        (**self).stage(plan)
    }
    fn commit(&self, plan: &Plan) -> Result<(), Error> {
        (**self).commit(plan)
    }
    fn layouts_record(&self) -> Result<Option<Option<String>>, Error> {
        (**self).layouts_record()
    }
    fn kept_layouts(&self, expect: Option<&str>, record: &str) {
        (**self).kept_layouts(expect, record)
    }
}

/// kerchunk `refs.json` (streamed) plus, unless turned off, the consolidated Zarr v3 `zarr.json`
/// beside it; both renamed into place together.
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
    /// `refs.json` with its `zarr.json` at the default place ([`default_zarr_json`]).
    pub fn new(refs: impl Into<PathBuf>) -> Self {
        let refs = refs.into();
        let zarr_json = default_zarr_json(&refs);
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

    fn targets(&self) -> Vec<(&'static str, PathBuf)> {
        let mut t = vec![("refs.json", self.refs.clone())];
        if let Some(z) = &self.zarr_json {
            t.push(("zarr.json", z.clone()));
        }
        t
    }

    fn stage(&self, plan: &Plan) -> Result<Vec<Staged>, Error> {
        let opts = vzplan_emit::RefsOptions {
            templates: self.templates,
        };
        let mut staged = vec![write::stage(&self.refs, |w| {
            vzplan_emit::write_refs_with(plan, opts, w)
        })?];
        if let Some(z) = &self.zarr_json {
            staged.push(stage_zarr_json(plan, z)?);
        }
        Ok(staged)
    }
}

/// Where `zarr.json` goes by default: beside refs.json (`refs.json` → `refs.zarr.json`); none
/// when refs.json goes to standard output (`-`).
pub fn default_zarr_json(refs: &Path) -> Option<PathBuf> {
    (refs.as_os_str() != "-").then(|| vzplan_emit::zarr_json_path(refs))
}

fn stage_zarr_json(plan: &Plan, path: &Path) -> Result<Staged, Error> {
    // Formatted into memory first: the formatter's many small writes then cost a `Vec` append
    // each, not a call through `dyn Write` (it lists every source).
    write::stage(path, |w| {
        let mut doc = serde_json::to_vec_pretty(&vzplan_emit::zarr::consolidated_json(plan))?;
        doc.push(b'\n');
        w.write_all(&doc)
    })
}

/// The consolidated `zarr.json` document alone.
pub fn write_zarr_json(plan: &Plan, path: &Path) -> Result<(), Error> {
    write::commit_now(vec![stage_zarr_json(plan, path)?])
}

/// The plan as one self-contained HTML page (a report, written even when nothing is built).
#[derive(Clone, Debug)]
pub struct HtmlReport {
    pub path: PathBuf,
    /// What the page needs of the layouts (taken before planning) to draw left-out arrays.
    pub axes: vzplan_emit::html::FileAxes,
}

impl HtmlReport {
    pub fn new(path: PathBuf) -> Self {
        HtmlReport {
            path,
            axes: Default::default(),
        }
    }
}

impl Output for HtmlReport {
    fn kind(&self) -> &'static str {
        "HTML report"
    }

    fn targets(&self) -> Vec<(&'static str, PathBuf)> {
        vec![("HTML report", self.path.clone())]
    }

    fn stage(&self, plan: &Plan) -> Result<Vec<Staged>, Error> {
        let page = vzplan_emit::html::page_with(plan, &self.axes);
        Ok(vec![write::stage(&self.path, |w| {
            w.write_all(page.as_bytes())
        })?])
    }
}
