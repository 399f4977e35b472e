//! A run as the person asked for it, whichever shell they asked through: the `vzplan` command's
//! flags and the Python package's keyword arguments both become one [`Request`], and everything a
//! run decides — defaults, where each output goes, which options conflict, how object storage is
//! reached — is decided here, once ([`crate::run`] carries it out). The shells map names and print.

use crate::build::{BuildOptions, PlanOptions, Source};
use crate::inputs::{Inputs, Shard};
use crate::scan::ScanOptions;
use crate::{Error, IcechunkOutput, Output, RefsOutput};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use vzplan_io::{IoOptions, IoSettings};

/// Where the layouts of a build are kept for later appends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// Not kept (an append keeps them all the same, where they were).
    #[default]
    No,
    /// Beside the output: `refs.json` → `refs.layouts.jsonl`, `repo` → `repo.layouts.jsonl`.
    Beside,
    At(PathBuf),
}

/// One run's options. `Default` is a run with every option at its default.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Paths, glob patterns and object URLs to scan.
    pub inputs: Vec<String>,
    /// Files listing more inputs, one a line (`-`: standard input; a URL: object storage).
    pub files_from: Vec<String>,
    pub shard: Option<Shard>,
    /// Layout files to plan from instead of scanning.
    pub from_layouts: Vec<String>,
    /// Layout lines in hand (scanned elsewhere) to plan from instead of scanning.
    pub layout_lines: Option<Vec<String>>,
    pub io: IoSettings,
    pub jobs: Option<usize>,
    pub chunk_bytes: Option<u64>,
    pub fail_fast: bool,
    pub allow_unreachable: bool,
    /// Set from elsewhere (Ctrl-C in a binding) to stop a scan between files.
    pub cancel: Option<Arc<AtomicBool>>,
    pub concat_dim: Option<String>,
    pub stack_dim: Option<String>,
    /// `NAME=PATTERN` or `NAME=datetime`: a time coordinate along the stack (its dimension is
    /// NAME unless `stack_dim` names one).
    pub stack_coord: Option<String>,
    pub vars: Vec<String>,
    pub mosaic: bool,
    pub mosaic_layout: Option<PathBuf>,
    pub patch: bool,
    pub html: Option<PathBuf>,
    /// refs.json (`-`: standard output).
    pub output: Option<PathBuf>,
    pub zarr_json: Option<PathBuf>,
    pub no_zarr_json: bool,
    pub no_templates: bool,
    pub keep_layouts: Keep,
    /// An Icechunk repository to commit to instead of refs.json.
    pub icechunk: Option<String>,
    pub branch: Option<String>,
    pub force: bool,
    pub sources_under: Vec<String>,
    pub sources_named: Vec<String>,
    /// Read each input's DMR++ sidecar (`INPUT.dmrpp`) in place of its metadata, where it has one.
    pub dmrpp: bool,
    /// The caller takes refs.json and zarr.json as bytes ([`crate::memory`]): a build needs no
    /// output file.
    pub in_memory: bool,
    /// The caller takes the HTML page in memory (a notebook shows it).
    pub page: bool,
}

/// The branch an Icechunk build commits on when none is given.
pub const DEFAULT_BRANCH: &str = "main";

/// What a command does with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Plan,
    Build,
    Append,
}

/// Where a build's outputs go, decided from a request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Destinations {
    pub refs: Option<PathBuf>,
    pub zarr_json: Option<PathBuf>,
    pub layouts: Option<PathBuf>,
    pub icechunk: Option<String>,
}

impl Request {
    /// Checks what cannot go together, and what a command needs, before anything is read.
    pub fn validate(&self, cmd: Command) -> Result<(), Error> {
        let conflict = |a: &'static str, b: &'static str| Err(Error::Conflict { a, b });
        if self.concat_dim.is_some() && self.stack_dim.is_some() {
            return conflict("--concat-dim", "--stack-dim");
        }
        let mosaic = self.mosaic || self.mosaic_layout.is_some();
        if mosaic && self.concat_dim.is_some() {
            return conflict("--mosaic", "--concat-dim");
        }
        if mosaic && self.stack_dim.is_some() {
            return conflict("--mosaic", "--stack-dim");
        }
        if let Some(c) = &self.stack_coord {
            if self.concat_dim.is_some() {
                return conflict("--concat-dim", "--stack-coord");
            }
            if mosaic {
                return conflict("--mosaic", "--stack-coord");
            }
            vzplan_plan::StackCoord::parse(c).map_err(Error::StackCoord)?;
        }
        let scans = !self.inputs.is_empty() || !self.files_from.is_empty();
        if scans && (!self.from_layouts.is_empty() || self.layout_lines.is_some()) {
            return Err(Error::InputsAndLayouts);
        }
        if self.output.is_some() && self.icechunk.is_some() {
            return conflict("--output", "--icechunk");
        }
        if self.branch.is_some() && self.icechunk.is_none() {
            return Err(Error::Needs {
                option: "--branch",
                needs: "--icechunk",
            });
        }
        let nowhere = self.output.is_none() && self.icechunk.is_none();
        let kept_bytes = cmd == Command::Build && self.in_memory;
        if cmd != Command::Plan && nowhere && !kept_bytes {
            return Err(Error::NoOutput);
        }
        if self.no_zarr_json && self.zarr_json.is_some() {
            return conflict("--zarr-json", "--no-zarr-json");
        }
        self.io_options().map(|_| ())
    }

    /// How object storage is reached.
    pub fn io_options(&self) -> Result<IoOptions, Error> {
        Ok(self.io.options()?)
    }

    /// How files are scanned.
    pub fn scan_options(&self) -> Result<ScanOptions, Error> {
        let d = ScanOptions::default();
        Ok(ScanOptions {
            jobs: self.jobs,
            chunk_bytes: self.chunk_bytes.unwrap_or(d.chunk_bytes),
            io: self.io_options()?,
            fail_fast: self.fail_fast,
            cancel: self.cancel.clone(),
            sources_under: self.sources_under.clone(),
            dmrpp: self.dmrpp,
        })
    }

    /// The inputs to scan.
    pub fn inputs(&self) -> Inputs {
        Inputs {
            paths: self.inputs.clone(),
            files_from: self.files_from.clone(),
            shard: self.shard.clone(),
        }
    }

    /// Where the layouts come from: layout lines in hand, layout files, or the inputs scanned.
    pub fn source(&self) -> Result<Source, Error> {
        if let Some(lines) = &self.layout_lines {
            let io = self.io_options()?;
            return Ok(crate::memory::source_from_lines(
                lines.iter().map(String::as_str),
                io,
            ));
        }
        if !self.from_layouts.is_empty() {
            return Ok(Source::Layouts {
                patterns: self.from_layouts.clone(),
                io: self.io_options()?,
            });
        }
        Ok(Source::Scan {
            inputs: self.inputs(),
            options: self.scan_options()?,
        })
    }

    /// How the files are combined.
    pub fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            concat_dim: self.concat_dim.clone(),
            // A stack coordinate without --stack-dim stacks along a dimension of its own name,
            // so that it is the dimension's index.
            stack_dim: self.stack_dim.clone().or_else(|| {
                let c = self.stack_coord.as_deref()?;
                vzplan_plan::StackCoord::parse(c).ok().map(|c| c.name)
            }),
            stack_coord: self.stack_coord.clone(),
            vars: self.vars.clone(),
            mosaic: self.mosaic,
            mosaic_layout: self.mosaic_layout.clone(),
            patch: self.patch,
            html: self.html.clone(),
            allow_unreachable: self.allow_unreachable,
            page: self.page,
        }
    }

    /// Where a build (or, with `append`, an append) writes: refs.json and its consolidated
    /// zarr.json (beside it unless `--zarr-json`/`--no-zarr-json`; none on standard output), or an
    /// Icechunk repository; and the kept layouts (beside the output unless a path is given; an
    /// append always keeps them).
    pub fn destinations(&self, append: bool) -> Result<Destinations, Error> {
        let refs = self.output.clone();
        let zarr_json = match (&refs, &self.zarr_json) {
            _ if self.no_zarr_json => None,
            (_, Some(z)) => Some(z.clone()),
            (Some(r), None) => crate::outputs::default_zarr_json(r),
            (None, None) => None,
        };
        let beside = || -> Result<PathBuf, Error> {
            match (&refs, &self.icechunk) {
                (Some(r), _) => Ok(crate::default_layouts(r)),
                (None, Some(repo)) => crate::default_layouts_for_repo(repo)
                    .ok_or_else(|| Error::LayoutsPathNeeded { repo: repo.clone() }),
                (None, None) => Err(Error::NoOutput),
            }
        };
        let layouts = match &self.keep_layouts {
            Keep::At(p) => Some(p.clone()),
            Keep::Beside => Some(beside()?),
            Keep::No if append => Some(beside()?),
            Keep::No => None,
        };
        Ok(Destinations {
            refs,
            zarr_json,
            layouts,
            icechunk: self.icechunk.clone(),
        })
    }

    /// The build options for these destinations; the Icechunk output, when there is one, is
    /// also returned to read its commit afterwards.
    pub(crate) fn build_options(
        &self,
        to: &Destinations,
    ) -> Result<(BuildOptions, Option<Arc<IcechunkOutput>>), Error> {
        let mut outputs: Vec<Box<dyn Output>> = Vec::new();
        if let Some(refs) = &to.refs {
            outputs.push(Box::new(RefsOutput {
                refs: refs.clone(),
                zarr_json: to.zarr_json.clone(),
                templates: !self.no_templates,
            }));
        }
        let icechunk = match &to.icechunk {
            Some(repo) => {
                let branch = self.branch.as_deref().unwrap_or(DEFAULT_BRANCH);
                let out = Arc::new(IcechunkOutput::new(repo, branch, self.io_options()?)?);
                outputs.push(Box::new(out.clone()));
                Some(out)
            }
            None => None,
        };
        let opts = BuildOptions {
            plan: self.plan_options(),
            outputs,
            force: self.force,
            keep_layouts: to.layouts.clone(),
            sources_under: self.sources_under.clone(),
            sources_named: self.sources_named.clone(),
        };
        Ok((opts, icechunk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_are_decided_once() {
        let r = Request {
            output: Some("out/refs.json".into()),
            ..Request::default()
        };
        let d = r.destinations(false).unwrap();
        assert_eq!(d.zarr_json.as_deref(), Some("out/refs.zarr.json".as_ref()));
        assert_eq!(d.layouts, None);
        let d = r.destinations(true).unwrap();
        assert_eq!(
            d.layouts.as_deref(),
            Some("out/refs.layouts.jsonl".as_ref())
        );
        let stdout = Request {
            output: Some("-".into()),
            ..Request::default()
        };
        assert_eq!(stdout.destinations(false).unwrap().zarr_json, None);
        let repo = Request {
            icechunk: Some("s3://b/repo".into()),
            keep_layouts: Keep::Beside,
            ..Request::default()
        };
        assert!(matches!(
            repo.destinations(false),
            Err(Error::LayoutsPathNeeded { .. })
        ));
    }

    #[test]
    fn conflicts_and_needs_are_usage_errors() {
        let both = Request {
            concat_dim: Some("time".into()),
            stack_dim: Some("scene".into()),
            ..Request::default()
        };
        let e = both.validate(Command::Plan).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("--concat-dim"), "{e}");
        assert!(crate::Shell::Python
            .words(&e.to_string())
            .contains("concat_dim"));
        let none = Request::default();
        assert!(matches!(
            none.validate(Command::Build),
            Err(Error::NoOutput)
        ));
        assert!(none.validate(Command::Plan).is_ok());
        let nan = Request {
            io: IoSettings {
                timeout_secs: Some(f64::NAN),
                ..IoSettings::default()
            },
            ..Request::default()
        };
        assert_eq!(nan.validate(Command::Plan).unwrap_err().exit_code(), 2);
    }
}
