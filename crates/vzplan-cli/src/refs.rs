//! `vzplan build … -o OUT.json` and `vzplan append -o OUT.json NEW…`: kerchunk refs.json (+ the
//! consolidated zarr.json, + kept layouts) through the library's `build` and `append`.

use crate::{exit_for, pipe, plan_options, progress, source, Common};
use clap::Args;
use std::path::{Path, PathBuf};
use vzplan::{BuildOptions, Error, RefsOutput};

/// Where and how refs.json is written.
#[derive(Args)]
pub struct RefsArgs {
    /// The kerchunk reference file to write (required unless --icechunk).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Where to write the consolidated Zarr v3 zarr.json (default: OUT stem + .zarr.json).
    #[arg(long)]
    pub zarr_json: Option<PathBuf>,
    /// Do not write the consolidated zarr.json.
    #[arg(long)]
    pub no_zarr_json: bool,
    /// Write full URLs in every reference instead of kerchunk templates.
    #[arg(long)]
    pub no_templates: bool,
    /// Keep every file's layout (JSON lines) so that files can be appended later without scanning
    /// these again (default FILE: OUT stem + .layouts.jsonl; another with --keep-layouts=FILE).
    /// `append` reads and rewrites it.
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true)]
    pub keep_layouts: Option<Option<PathBuf>>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Replace existing files that are not vzplan outputs (never an input).
    #[arg(long)]
    pub force: bool,
}

impl RefsArgs {
    /// Where the layouts are kept: the path given, else `beside()`; `None` unless asked for or
    /// appending (an append always rewrites them).
    pub fn kept_layouts(
        &self,
        append: bool,
        beside: impl FnOnce() -> Result<PathBuf, Error>,
    ) -> Result<Option<PathBuf>, Error> {
        Ok(match &self.keep_layouts {
            Some(Some(p)) => Some(p.clone()),
            Some(None) => Some(beside()?),
            None if append => Some(beside()?),
            None => None,
        })
    }
}

/// Builds with `opts`, or, with `append`, extends the collection whose layouts are kept at `kept`.
pub fn build_or_append(
    common: &Common,
    opts: BuildOptions,
    kept: Option<&Path>,
    append: bool,
) -> Result<vzplan::BuildReport, Error> {
    let term = progress::Terminal::new(common.scan.stats, common.scan.progress);
    match (kept, append) {
        (Some(k), true) => vzplan::append(k, &source(common)?, opts, &term),
        _ => vzplan::build(&source(common)?, &opts, &term),
    }
}

/// Builds (or, with `append`, extends) the collection at `args.output`.
pub fn run(common: &Common, args: &RefsArgs, append: bool) -> Result<u8, Error> {
    let Some(output) = args.output.clone() else {
        clap::Error::raw(
            clap::error::ErrorKind::MissingRequiredArgument,
            "the output is required: -o OUT.json (or, for build, --icechunk REPO)\n",
        )
        .exit()
    };
    // `-o -`: refs.json on standard output, the report on standard error, and no zarr.json unless
    // --zarr-json names one.
    let stdout = output.as_os_str() == "-";
    let zpath = match &args.zarr_json {
        _ if args.no_zarr_json => None,
        Some(z) => Some(z.clone()),
        None => vzplan::outputs::default_zarr_json(&output),
    };
    let kept = args.kept_layouts(append, || Ok(vzplan::default_layouts(&output)))?;
    let opts = BuildOptions {
        plan: plan_options(common),
        outputs: vec![Box::new(RefsOutput {
            refs: output.clone(),
            zarr_json: zpath.clone(),
            templates: !args.no_templates,
        })],
        force: args.force,
        keep_layouts: kept.clone(),
        sources_under: common.sources_under.clone(),
        ..BuildOptions::default()
    };
    let report = build_or_append(common, opts, kept.as_deref(), append)?;
    let plan = &report.plan;
    if args.json {
        let mut r = vzplan::report::json(plan);
        if let Some(o) = r.as_object_mut() {
            o.insert("refs".into(), output.display().to_string().into());
            if let Some(z) = &zpath {
                o.insert("zarr_json".into(), z.display().to_string().into());
            }
            if let Some(k) = &kept {
                o.insert("layouts".into(), k.display().to_string().into());
            }
        }
        let text = pipe::json(&r);
        if stdout {
            pipe::errln!("{text}");
        } else {
            pipe::outln!("{text}");
        }
    } else if stdout {
        pipe::err!("{}", pipe::report_text(plan));
    } else {
        pipe::out!("{}", pipe::report_text(plan));
        pipe::outln!("wrote {}", output.display());
    }
    let code = exit_for(plan);
    // The process ends next: its memory goes back whole, not map by map (issue 13).
    report.leave_to_exit();
    Ok(code)
}
