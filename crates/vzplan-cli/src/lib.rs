//! `vzplan`: virtual Zarr datasets from piles of netCDF, HDF5 and TIFF files.
//!
//! ```text
//! vzplan build  [OPTIONS] INPUTS... -o OUT.json [--keep-layouts]  # scan + plan + emit
//! vzplan append [OPTIONS] NEW... -o OUT.json      # add files to a --keep-layouts collection
//! vzplan plan   [OPTIONS] INPUTS... [--json]
//! vzplan scan   [OPTIONS] INPUTS... -o layouts.jsonl [--shard I/N]
//! vzplan verify OUT.json
//! ```
//! Flags become a [`vzplan::Request`] ([`args`]); the library carries it out and decides the
//! exit code; this crate prints. Exit codes: 0 everything built; 1 error; 2 usage; 3 built, but
//! something was left out; 141 standard output closed early.
//!
//! A library as well as the binary: the Python package's `vzplan` command runs the same [`run`]
//! through its extension, so both are one program.

mod args;
mod pipe;
mod progress;

use args::{Cli, Cmd};
use clap::Parser;
use std::ffi::OsString;
use vzplan::{Error, Shard, Shell};

/// Runs the command line `args` (the program's name first), printing as `vzplan` does, and
/// returns the exit code. `--help`, `--version` and usage errors exit the process at once, as
/// clap does.
pub fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> u8 {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        // --help and --version, and usage errors without --json, as clap prints them.
        Err(e) if !e.use_stderr() || !args.iter().any(|a| a == "--json") => e.exit(),
        Err(e) => {
            let text = vzplan::redact_text(&e.render().to_string());
            pipe::err!("{text}");
            let first = text.lines().next().unwrap_or_default();
            let msg = first.strip_prefix("error: ").unwrap_or(first).to_string();
            print_json(&serde_json::json!({"error": msg, "exit_code": 2}));
            return 2;
        }
    };
    let json = match &cli.cmd {
        Cmd::Build { out, .. } | Cmd::Append { out, .. } => out.json,
        Cmd::Plan { json, .. } | Cmd::Verify { json, .. } | Cmd::Info { json, .. } => *json,
        Cmd::Scan { .. } => false,
    };
    match command(cli) {
        Ok(code) => code,
        Err(e) if e.broken_pipe() => e.exit_code(),
        Err(e) => {
            // What the error carries is shown before it, as the findings or failures behind it.
            match &e {
                Error::NothingBuilt { plan } => pipe::err!("{}", pipe::report_text(plan)),
                _ => {
                    for d in e.details(Shell::Cli) {
                        pipe::errln!("{}", pipe::line(&d));
                    }
                }
            }
            pipe::errln!("vzplan: {}", pipe::lines(&e.message(Shell::Cli)));
            if json {
                print_json(&e.json());
            }
            e.exit_code()
        }
    }
}

/// A JSON report with `--stats` under `stats`, when they were asked for.
fn with_stats(mut doc: serde_json::Value, term: &progress::Terminal) -> serde_json::Value {
    if let (Some(o), Some(s)) = (doc.as_object_mut(), term.stats_json()) {
        o.insert("stats".into(), s);
    }
    doc
}

fn print_json(doc: &serde_json::Value) {
    pipe::outln!("{}", pipe::json(doc));
}

fn command(cli: Cli) -> Result<u8, Error> {
    match cli.cmd {
        Cmd::Plan { common, json } => {
            let term = progress::Terminal::new(common.scan.stats, common.scan.progress);
            let plan = vzplan::run::plan(&common.request(None), &term)?.plan;
            if json {
                print_json(&with_stats(vzplan::report::json(&plan), &term));
            } else {
                pipe::out!("{}", pipe::report_text(&plan));
            }
            Ok(vzplan::run::exit_code(&plan))
        }
        Cmd::Build { common, out } => build(&common, &out, false),
        Cmd::Append { common, out } => build(&common, &out, true),
        Cmd::Scan {
            scan,
            output,
            shard,
            shard_from_env,
            shard_count,
        } => {
            let shard = Shard::from_args(shard.as_deref(), shard_from_env.as_deref(), shard_count)?;
            let term = progress::Terminal::new(scan.stats, scan.progress);
            let done = vzplan::run::scan(&scan.request(shard), &output.to_string_lossy(), &term)?;
            for e in done.errors() {
                pipe::errln!("{}", pipe::line(&e));
            }
            pipe::errln!("{}", pipe::line(&done.done_line()));
            Ok(done.exit_code())
        }
        Cmd::Info { files, json, io } => {
            let req = vzplan::Request {
                io: io.settings(),
                ..vzplan::Request::default()
            };
            let infos = vzplan::run::info(&files, &req, |shown| match shown {
                Ok(i) if !json => pipe::out!("{}", vzplan::info::text(i)),
                Ok(_) => {}
                Err(e) => pipe::errln!("vzplan: {}", pipe::line(e)),
            })?;
            if json {
                print_json(&serde_json::to_value(&infos.shown).unwrap_or_default());
            }
            Ok(infos.exit_code())
        }
        Cmd::Verify {
            refs,
            sources_under,
            json,
            io,
        } => {
            let io = io.settings().options()?;
            let r = vzplan::verify(&refs, &io, &sources_under)?;
            if json {
                pipe::outln!("{}", vzplan::text::json_safe(r.json().to_string()));
            } else {
                for l in r.lines() {
                    pipe::outln!("{}", pipe::line(&l));
                }
            }
            Ok(r.exit_code())
        }
    }
}

/// `build` and `append`: the report (on standard error when refs.json goes to standard output),
/// then what was written where.
fn build(common: &args::Common, out: &args::OutArgs, append: bool) -> Result<u8, Error> {
    let term = progress::Terminal::new(common.scan.stats, common.scan.progress);
    let built = vzplan::run::build(&common.request(Some(out)), append, &term)?;
    let to_err = built.refs_on_stdout();
    if out.json {
        let text = pipe::json(&with_stats(built.json(Shell::Cli), &term));
        if to_err {
            pipe::errln!("{text}");
        } else {
            pipe::outln!("{text}");
        }
    } else {
        let report = pipe::report_text(built.plan());
        let done = built.done_line();
        if to_err {
            pipe::err!("{report}");
        } else {
            pipe::out!("{report}");
            if let Some(d) = done {
                pipe::outln!("{}", pipe::line(&d));
            }
        }
    }
    let code = built.exit_code();
    // The process ends next: its memory goes back whole, not allocation by allocation.
    std::mem::forget(built);
    Ok(code)
}
