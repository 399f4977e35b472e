//! Carrying out a [`Request`]: each command returns what happened, with the exit code and the
//! report — text for a person, JSON for a script — decided here for every shell.

use crate::request::{Command, Destinations, Request};
use crate::scan::Scanned;
use crate::shell::Shell;
use crate::{BuildReport, Error, Plan, ProgressSink};
use serde_json::Value;
use vzplan_icechunk::Committed;

/// Exit code of a run that built everything asked.
pub const EXIT_OK: u8 = 0;
/// Exit code of a run that built, but left something out (each named with its reason).
pub const EXIT_INCOMPLETE: u8 = 3;

/// The exit code of a plan: [`EXIT_INCOMPLETE`] when something is left out.
pub fn exit_code(plan: &Plan) -> u8 {
    if plan.incomplete() {
        EXIT_INCOMPLETE
    } else {
        EXIT_OK
    }
}

/// `vzplan plan`: the plan (and the HTML page in memory when asked), nothing written but the
/// HTML page asked for.
pub fn plan(req: &Request, progress: &dyn ProgressSink) -> Result<crate::build::Planned, Error> {
    req.validate(Command::Plan)?;
    crate::build::plan_page(&req.source()?, &req.plan_options(), progress)
}

/// What a build or an append did.
#[derive(Debug)]
pub struct Built {
    pub report: BuildReport,
    /// Where the outputs went.
    pub to: Destinations,
    /// The Icechunk commit, when the output is a repository: its location as given, and the
    /// commit.
    pub committed: Option<(String, Committed)>,
}

impl Built {
    pub fn plan(&self) -> &Plan {
        &self.report.plan
    }

    pub fn exit_code(&self) -> u8 {
        exit_code(&self.report.plan)
    }

    /// Whether refs.json went to standard output (the report then goes to standard error).
    pub fn refs_on_stdout(&self) -> bool {
        self.to
            .refs
            .as_deref()
            .is_some_and(|r| r.as_os_str() == "-")
    }

    /// The report as JSON: the plan's report, where each output went (`refs`, `zarr_json`,
    /// `layouts`), and the Icechunk commit.
    pub fn json(&self, shell: Shell) -> Value {
        let mut r = crate::report::json(&self.report.plan);
        if let Some(o) = r.as_object_mut() {
            let path = |p: &std::path::Path| Value::from(p.display().to_string());
            if let Some(p) = &self.to.refs {
                o.insert("refs".into(), path(p));
            }
            if let Some(p) = &self.to.zarr_json {
                o.insert("zarr_json".into(), path(p));
            }
            if let Some(p) = &self.to.layouts {
                o.insert("layouts".into(), path(p));
            }
            if let Some((repo, c)) = &self.committed {
                o.insert("icechunk".into(), commit_json(repo, c));
            }
        }
        worded(r, shell)
    }

    /// The line that ends a build's text report: what was written where.
    pub fn done_line(&self) -> Option<String> {
        if let Some((repo, c)) = &self.committed {
            return Some(format!(
                "committed {} on {} of {} ({} virtual refs, {} native chunks; containers: {})",
                c.snapshot,
                c.branch,
                repo,
                c.virtual_refs,
                c.native_chunks,
                c.containers.join(", ")
            ));
        }
        let refs = self.to.refs.as_deref().filter(|_| !self.refs_on_stdout())?;
        Some(format!("wrote {}", refs.display()))
    }
}

fn commit_json(repo: &str, c: &Committed) -> Value {
    serde_json::json!({
        "repository": repo,
        "branch": c.branch,
        "snapshot": c.snapshot,
        "created": c.created,
        "virtual_refs": c.virtual_refs,
        "native_chunks": c.native_chunks,
        "virtual_chunk_containers": c.containers,
    })
}

/// A JSON report with its messages worded for `shell` ([`Shell::words`]).
pub fn worded(v: Value, shell: Shell) -> Value {
    match (shell, v) {
        (Shell::Cli, v) => v,
        (_, Value::String(s)) => Value::String(shell.words(&s)),
        (_, Value::Array(a)) => Value::Array(a.into_iter().map(|x| worded(x, shell)).collect()),
        (_, Value::Object(o)) => {
            Value::Object(o.into_iter().map(|(k, x)| (k, worded(x, shell))).collect())
        }
        (_, v) => v,
    }
}

/// `vzplan build` (or, with `append`, `vzplan append`): scan or read the layouts, plan, and
/// write every output the request names.
pub fn build(req: &Request, append: bool, progress: &dyn ProgressSink) -> Result<Built, Error> {
    let cmd = if append {
        Command::Append
    } else {
        Command::Build
    };
    req.validate(cmd)?;
    let to = req.destinations(append)?;
    let (opts, icechunk) = req.build_options(&to)?;
    let source = req.source()?;
    let report = match (&to.layouts, append) {
        (Some(kept), true) => crate::append(kept, &source, opts, progress)?,
        _ => crate::build(&source, &opts, progress)?,
    };
    let committed = icechunk.and_then(|i| Some((i.target.display(), i.committed()?)));
    Ok(Built {
        report,
        to,
        committed,
    })
}

/// What `vzplan scan` did.
#[derive(Debug)]
pub struct ScanDone {
    pub scanned: Vec<Scanned>,
    pub failed: usize,
    pub output: String,
}

impl ScanDone {
    pub fn exit_code(&self) -> u8 {
        if self.failed > 0 {
            EXIT_INCOMPLETE
        } else {
            EXIT_OK
        }
    }

    /// Each file that failed, one message each.
    pub fn errors(&self) -> impl Iterator<Item = String> + '_ {
        self.scanned
            .iter()
            .filter_map(|s| s.result.as_ref().err().map(|e| e.to_string()))
    }

    /// The line that ends the scan.
    pub fn done_line(&self) -> String {
        format!(
            "scanned {} file(s), {} failed → {}",
            self.scanned.len(),
            self.failed,
            self.output
        )
    }
}

/// `vzplan scan -o OUTPUT`: each file's layout line written to `output` (a local path or an
/// object URL). An outage fails the run unless the request allows it.
pub fn scan(req: &Request, output: &str, progress: &dyn ProgressSink) -> Result<ScanDone, Error> {
    req.validate(Command::Plan)?;
    let opts = req.scan_options()?;
    let scanned = crate::scan(&req.inputs(), &opts, progress)?;
    crate::scan::require_reachable(&scanned, req.allow_unreachable)?;
    let failed = crate::layouts::write(&scanned, output, &opts.io)?;
    Ok(ScanDone {
        scanned,
        failed,
        output: output.to_string(),
    })
}

/// What `vzplan info` showed.
#[derive(Debug, Default)]
pub struct Infos {
    pub shown: Vec<crate::FileInfo>,
    /// One message per file that could not be shown.
    pub errors: Vec<String>,
}

impl Infos {
    /// 0: every file shown; 3: some; 1: none.
    pub fn exit_code(&self) -> u8 {
        match (self.shown.is_empty(), self.errors.len()) {
            (true, _) => 1,
            (false, 0) => EXIT_OK,
            (false, _) => EXIT_INCOMPLETE,
        }
    }
}

/// `vzplan info FILE…`: each file's layout, in order; `each` is called as each is read (the
/// command prints as it goes).
pub fn info(
    files: &[String],
    req: &Request,
    mut each: impl FnMut(Result<&crate::FileInfo, &str>),
) -> Result<Infos, Error> {
    let opts = req.scan_options()?;
    let mut out = Infos::default();
    for f in files {
        match crate::info(f, &opts) {
            Ok(i) => {
                each(Ok(&i));
                out.shown.push(i);
            }
            Err(e) => {
                let msg = e.to_string();
                each(Err(&msg));
                out.errors.push(msg);
            }
        }
    }
    Ok(out)
}

impl crate::VerifyReport {
    /// 0 when every source is unchanged and the collection's files belong together, else 1.
    pub fn exit_code(&self) -> u8 {
        u8::from(!self.ok())
    }

    /// The report as JSON.
    pub fn json(&self) -> Value {
        serde_json::json!({"sources": self.sources, "changed": self.changed,
            "refused": self.refused, "apart": self.apart, "ok": self.ok()})
    }

    /// Every message, then a summary line.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .changed
            .iter()
            .chain(&self.refused)
            .chain(&self.apart)
            .cloned()
            .collect();
        let mut last = format!("{} source(s), {} changed", self.sources, self.changed.len());
        for (n, what) in [
            (self.refused.len(), "not checked"),
            (self.apart.len(), "apart"),
        ] {
            if n > 0 {
                last.push_str(&format!(", {n} {what}"));
            }
        }
        out.push(last);
        out
    }
}

impl Error {
    /// What the error carries, shown before its message: each file that failed (local files as
    /// paths), or the report of a plan that built nothing.
    pub fn details(&self, shell: Shell) -> Vec<String> {
        match self {
            Error::NothingRead { failures } => failures
                .iter()
                .map(|f| {
                    f.error
                        .strip_prefix("file://")
                        .unwrap_or(&f.error)
                        .to_string()
                })
                .collect(),
            Error::NothingBuilt { plan } => vec![shell.words(&crate::report::text(plan))],
            _ => Vec::new(),
        }
    }

    /// The message as `shell` words it.
    pub fn message(&self, shell: Shell) -> String {
        shell.words(&self.to_string())
    }
}
