//! The plan as a commit in an Icechunk repository ([`vzplan_icechunk`]), as one more [`Output`].

use crate::{Error, Output};
use std::sync::Mutex;
use vzplan_plan::Plan;

pub use vzplan_icechunk::{Committed, IcechunkOptions, Target};

/// Commits the plan on a branch of the repository at `target` (created when missing). The commit's
/// summary is kept for the caller ([`IcechunkOutput::committed`]).
#[derive(Debug)]
pub struct IcechunkOutput {
    pub target: Target,
    pub branch: String,
    pub io: vzplan_io::IoOptions,
    committed: Mutex<Option<Committed>>,
    /// The SHA-256 of this run's kept layouts and, for an append, the record the head must carry.
    kept: Mutex<Option<(Option<String>, String)>>,
}

impl IcechunkOutput {
    /// A repository location: a local directory, or `s3://`, `gs://`, `az://` prefix.
    pub fn new(repo: &str, branch: &str, io: vzplan_io::IoOptions) -> Result<Self, Error> {
        Ok(IcechunkOutput {
            target: Target::parse(repo)?,
            branch: branch.to_string(),
            io,
            committed: Mutex::new(None),
            kept: Mutex::new(None),
        })
    }

    /// What the last write committed.
    pub fn committed(&self) -> Option<Committed> {
        self.committed.lock().ok().and_then(|c| c.clone())
    }
}

impl Output for IcechunkOutput {
    fn kind(&self) -> &'static str {
        "Icechunk repository"
    }

    fn kept_layouts(&self, expect: Option<&str>, record: &str) {
        if let Ok(mut k) = self.kept.lock() {
            *k = Some((expect.map(str::to_string), record.to_string()));
        }
    }

    fn layouts_record(&self) -> Result<Option<Option<String>>, Error> {
        let opts = IcechunkOptions {
            branch: self.branch.clone(),
            io: self.io.clone(),
            ..IcechunkOptions::default()
        };
        Ok(Some(vzplan_icechunk::layouts_record(&self.target, &opts)?))
    }

    fn commit(&self, plan: &Plan) -> Result<(), Error> {
        let mut opts = IcechunkOptions {
            branch: self.branch.clone(),
            message: format!(
                "vzplan build: {} array(s) from {} file(s)",
                plan.arrays.len(),
                plan.inputs().len()
            ),
            io: self.io.clone(),
            ..IcechunkOptions::default()
        };
        if let Some((expect, record)) = self.kept.lock().ok().and_then(|k| k.clone()) {
            opts.expect_layouts = expect;
            opts.layouts_record = Some(record);
        }
        let c = vzplan_icechunk::write(plan, &self.target, &opts)?;
        if let Ok(mut slot) = self.committed.lock() {
            *slot = Some(c);
        }
        Ok(())
    }
}
