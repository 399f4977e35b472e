//! `vzplan`: virtual Zarr datasets from piles of netCDF, HDF5 and TIFF files.
//!
//! ```text
//! vzplan build  [OPTIONS] INPUTS... -o OUT.json [--keep-layouts]  # scan + plan + emit
//! vzplan append [OPTIONS] NEW... -o OUT.json      # add files to a --keep-layouts collection
//! vzplan plan   [OPTIONS] INPUTS... [--json]
//! vzplan scan   [OPTIONS] INPUTS... -o layouts.jsonl [--shard I/N]
//! vzplan verify OUT.json
//! ```
//! Argument parsing, progress and printing; the work is done by the `vzplan` library.
//! Exit codes: 0 everything built; 1 error; 2 usage; 3 built, but something was left out.

mod alloc;
mod icechunk;
mod info;
mod io_args;
mod pipe;
mod progress;
mod refs;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use vzplan::{Error, Inputs, Plan, PlanOptions, ScanOptions, Shard, Source};

/// mimalloc, reached through its plain entry points ([`alloc`]).
#[global_allocator]
static GLOBAL: alloc::MiMalloc = alloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "vzplan",
    version,
    about = "Virtual Zarr (rectilinear grid) references for netCDF, HDF5 and TIFF collections"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Scan the files, plan one array per variable, write kerchunk refs.json (+ zarr.json).
    Build {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        refs: refs::RefsArgs,
        #[command(flatten)]
        icechunk: icechunk::IcechunkArgs,
    },
    /// Add files to a collection built with --keep-layouts: only the new files are scanned, and
    /// every output is rewritten as `build` of all the files would write it (pass the same plan
    /// options as the build).
    Append {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        refs: refs::RefsArgs,
        #[command(flatten)]
        icechunk: icechunk::IcechunkArgs,
    },
    /// Show what would be built, what cannot be, and why.
    Plan {
        #[command(flatten)]
        common: Common,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Scan only: write each file's layout as one JSON line.
    Scan {
        #[command(flatten)]
        scan: ScanArgs,
        /// The layouts file to write (JSON lines; a local path or an object URL).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Scan only slice I of N (0-based) of the input list: every N-th file from the I-th.
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Take the shard index from this environment variable (an array job's index, e.g.
        /// SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX); its value is I
        /// (with --shard-count N) or I/N.
        #[arg(long, value_name = "VAR", conflicts_with = "shard")]
        shard_from_env: Option<String>,
        /// The number of shards N, with --shard-from-env.
        #[arg(long, value_name = "N", requires = "shard_from_env")]
        shard_count: Option<usize>,
    },
    /// Show each file's layout: format, variables, chunks, codecs, fill values, padded edges.
    Info {
        /// Files or object URLs.
        #[arg(required = true)]
        files: Vec<String>,
        /// Print one JSON document: a list, one object per file.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        io: io_args::IoArgs,
    },
    /// Check that the sources referenced by OUT.json are unchanged (size and mtime/ETag).
    Verify {
        /// A refs.json written by `vzplan build`.
        refs: PathBuf,
        /// Also check sources on a loopback, link-local or cloud metadata host under this prefix
        /// (repeatable); only the refs name them, so they are refused otherwise.
        #[arg(long, value_name = "PREFIX")]
        sources_under: Vec<String>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        io: io_args::IoArgs,
    },
}

#[derive(Args)]
struct ScanArgs {
    /// Files, glob patterns, or object URLs (s3://bucket/prefix/*.nc, gs://…, az://…, https://…).
    inputs: Vec<String>,
    /// Read more inputs from this file, one per line (`-`: standard input; a URL: object storage).
    #[arg(long, value_name = "FILE")]
    files_from: Vec<String>,
    /// Files scanned concurrently (default: number of CPUs; 32 when reading object storage).
    #[arg(long)]
    jobs: Option<usize>,
    /// Stop at the first file that cannot be read (default: report it and go on).
    #[arg(long)]
    fail_fast: bool,
    /// Build without the sources whose store could not be reached after every retry (exit 3);
    /// by default an outage fails the run (exit 1) and writes nothing.
    #[arg(long)]
    allow_unreachable: bool,
    #[command(flatten)]
    io: io_args::IoArgs,
    /// Target chunk size when merging netCDF-3 records or cutting fixed variables.
    #[arg(long, default_value_t = 4 << 20)]
    chunk_bytes: u64,
    /// Print requests and bytes read per file.
    #[arg(long)]
    stats: bool,
    /// Print plain progress lines on standard error (one a second, and one at the end) instead
    /// of the progress bar, which is drawn only on a terminal: for logs, CI and pipes.
    #[arg(long)]
    progress: bool,
}

#[derive(Args)]
struct Common {
    #[command(flatten)]
    scan: ScanArgs,
    /// Plan from layout files written by `vzplan scan` instead of scanning (glob allowed).
    #[arg(long, value_name = "GLOB")]
    from_layouts: Vec<String>,
    /// The dimension to concatenate along (default: the unlimited dimension, else `time`).
    #[arg(long, conflicts_with = "stack_dim")]
    concat_dim: Option<String>,
    /// Stack the files along a new leading dimension of this name.
    #[arg(long)]
    stack_dim: Option<String>,
    /// Only this variable (repeatable); its dimensions' coordinates come along.
    #[arg(long = "var")]
    vars: Vec<String>,
    /// Place the files side by side in 2-D (a mosaic) by their georeferencing (GeoTIFF
    /// transform, or regular x/y or lon/lat coordinate variables).
    #[arg(long, conflicts_with_all = ["concat_dim", "stack_dim"])]
    mosaic: bool,
    /// Place the mosaic's files explicitly: a file of lines `PATH ROW COL` (offsets in pixels;
    /// PATH relative to the layout file, absolute, or a bare file name; `#` comments), or a
    /// JSON list of {"path", "row", "col"}. Implies --mosaic.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["concat_dim", "stack_dim"])]
    mosaic_layout: Option<PathBuf>,
    /// Also write the plan as one self-contained HTML page (inline SVG): the cuts along each
    /// axis, a mosaic's tiles coloured by status, the findings and the chunk grid.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Repair what cannot be referenced as stored (a padded compressed chunk in the middle, chunks
    /// stored with filters skipped): read those chunks, cut and re-encode them, write them inline.
    #[arg(long)]
    patch: bool,
    /// Sources named only by layouts (--from-layouts, an append's kept layouts) may be read
    /// (--patch) or checked (append) when under this directory or object prefix (repeatable,
    /// e.g. s3://bucket/cmip/); the inputs scanned are always named.
    #[arg(long, value_name = "PREFIX")]
    sources_under: Vec<String>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        // --help and --version, and usage errors without --json, as clap prints them.
        Err(e) if !e.use_stderr() || !std::env::args().any(|a| a == "--json") => e.exit(),
        Err(e) => {
            let text = vzplan::redact_text(&e.render().to_string());
            pipe::err!("{text}");
            let first = text.lines().next().unwrap_or_default();
            let msg = first.strip_prefix("error: ").unwrap_or(first).to_string();
            print_json(&serde_json::json!({"error": msg, "exit_code": 2}));
            return ExitCode::from(2);
        }
    };
    let json = match &cli.cmd {
        Cmd::Build {
            refs: refs::RefsArgs { json, .. },
            ..
        }
        | Cmd::Append {
            refs: refs::RefsArgs { json, .. },
            ..
        }
        | Cmd::Plan { json, .. }
        | Cmd::Verify { json, .. }
        | Cmd::Info { json, .. } => *json,
        Cmd::Scan { .. } => false,
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.broken_pipe() => ExitCode::from(e.exit_code()),
        Err(e) => {
            // What the error carries is shown before it, as the findings or failures behind it.
            match &e {
                Error::NothingRead { failures } => {
                    for f in failures {
                        // A local file as a path, as in the findings (not `file:///…`).
                        let msg = f.error.strip_prefix("file://").unwrap_or(&f.error);
                        pipe::errln!("{}", pipe::line(msg));
                    }
                }
                Error::NothingBuilt { plan } => pipe::err!("{}", pipe::report_text(plan)),
                _ => {}
            }
            pipe::errln!("vzplan: {}", pipe::lines(&e.to_string()));
            if json {
                print_json(&e.json());
            }
            ExitCode::from(e.exit_code())
        }
    }
}

fn print_json(doc: &serde_json::Value) {
    pipe::outln!("{}", pipe::json(doc));
}

fn scan_options(a: &ScanArgs) -> ScanOptions {
    ScanOptions {
        jobs: a.jobs,
        chunk_bytes: a.chunk_bytes,
        io: a.io.options(),
        fail_fast: a.fail_fast,
        cancel: None,
    }
}

fn inputs(a: &ScanArgs, shard: Option<Shard>) -> Inputs {
    Inputs {
        paths: a.inputs.clone(),
        files_from: a.files_from.clone(),
        shard,
    }
}

/// Where the layouts come from: the inputs scanned, or `--from-layouts`.
fn source(c: &Common) -> Result<Source, Error> {
    if !c.from_layouts.is_empty() {
        if !c.scan.inputs.is_empty() {
            return Err(Error::InputsAndLayouts);
        }
        return Ok(Source::Layouts {
            patterns: c.from_layouts.clone(),
            io: c.scan.io.options(),
        });
    }
    Ok(Source::Scan {
        inputs: inputs(&c.scan, None),
        options: scan_options(&c.scan),
    })
}

fn plan_options(c: &Common) -> PlanOptions {
    PlanOptions {
        concat_dim: c.concat_dim.clone(),
        stack_dim: c.stack_dim.clone(),
        vars: c.vars.clone(),
        mosaic: c.mosaic,
        mosaic_layout: c.mosaic_layout.clone(),
        patch: c.patch,
        html: c.html.clone(),
        allow_unreachable: c.scan.allow_unreachable,
    }
}

fn exit_for(plan: &Plan) -> u8 {
    if plan.incomplete() {
        3
    } else {
        0
    }
}

fn run(cli: Cli) -> Result<u8, Error> {
    match cli.cmd {
        Cmd::Plan { common, json } => {
            let term = progress::Terminal::new(common.scan.stats, common.scan.progress);
            let plan = vzplan::plan(&source(&common)?, &plan_options(&common), &term)?;
            if json {
                pipe::outln!("{}", pipe::json(&vzplan::report::json(&plan)));
            } else {
                pipe::out!("{}", pipe::report_text(&plan));
            }
            Ok(exit_for(&plan))
        }
        Cmd::Build {
            common,
            refs,
            icechunk,
        } => match icechunk.icechunk {
            Some(_) => icechunk::build(&common, &icechunk, &refs, false),
            None => refs::run(&common, &refs, false),
        },
        Cmd::Append {
            common,
            refs,
            icechunk,
        } => match icechunk.icechunk {
            Some(_) => icechunk::build(&common, &icechunk, &refs, true),
            None => refs::run(&common, &refs, true),
        },
        Cmd::Scan {
            scan: args,
            output,
            shard,
            shard_from_env,
            shard_count,
        } => {
            let shard = Shard::from_args(shard.as_deref(), shard_from_env.as_deref(), shard_count)?;
            let opts = scan_options(&args);
            let term = progress::Terminal::new(args.stats, args.progress);
            let scanned = vzplan::scan(&inputs(&args, shard), &opts, &term)?;
            vzplan::scan::require_reachable(&scanned, args.allow_unreachable)?;
            let failed = vzplan::layouts::write(&scanned, &output.to_string_lossy(), &opts.io)?;
            for s in &scanned {
                if let Err(e) = &s.result {
                    pipe::errln!("{}", pipe::line(&e.to_string()));
                }
            }
            pipe::errln!(
                "scanned {} file(s), {} failed → {}",
                scanned.len(),
                failed,
                output.display()
            );
            Ok(if failed > 0 { 3 } else { 0 })
        }
        Cmd::Info { files, json, io } => Ok(info::run(&files, json, io.options())),
        Cmd::Verify {
            refs,
            json,
            io,
            sources_under,
        } => {
            let r = vzplan::verify(&refs, &io.options(), &sources_under)?;
            if json {
                let doc = serde_json::json!({"sources": r.sources, "changed": r.changed,
                    "refused": r.refused, "apart": r.apart, "ok": r.ok()});
                pipe::outln!("{}", vzplan::text::json_safe(doc.to_string()));
            } else {
                for d in r.changed.iter().chain(&r.refused).chain(&r.apart) {
                    pipe::outln!("{}", pipe::line(d));
                }
                let mut line = format!("{} source(s), {} changed", r.sources, r.changed.len());
                for (n, what) in [(r.refused.len(), "not checked"), (r.apart.len(), "apart")] {
                    if n > 0 {
                        line.push_str(&format!(", {n} {what}"));
                    }
                }
                pipe::outln!("{line}");
            }
            Ok(if r.ok() { 0 } else { 1 })
        }
    }
}
