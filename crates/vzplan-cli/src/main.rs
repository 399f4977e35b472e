//! `vzplan`: virtual Zarr datasets from piles of netCDF, HDF5 and TIFF files.
//!
//! ```text
//! vzplan build  [OPTIONS] INPUTS... -o OUT.json   # scan + plan + emit
//! vzplan plan   [OPTIONS] INPUTS... [--json]
//! vzplan scan   [OPTIONS] INPUTS... -o layouts.jsonl [--shard I/N]
//! vzplan verify OUT.json
//! ```
//! Exit codes: 0 everything built; 1 error; 2 usage; 3 built, but something was left out.

mod icechunk;
mod inputs;
mod scan;

use clap::{Args, Parser, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use vzplan_core::SourceLayout;
use vzplan_plan::{Options, Plan, ScanFailure};

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
        /// The kerchunk reference file to write.
        #[arg(short = 'o', long = "output", required_unless_present = "icechunk")]
        output: Option<PathBuf>,
        #[command(flatten)]
        icechunk: icechunk::IcechunkArgs,
        /// Where to write the consolidated Zarr v3 zarr.json (default: OUT stem + .zarr.json).
        #[arg(long)]
        zarr_json: Option<PathBuf>,
        /// Do not write the consolidated zarr.json.
        #[arg(long)]
        no_zarr_json: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
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
    /// Check that the sources referenced by OUT.json are unchanged (size and mtime/ETag).
    Verify {
        /// A refs.json written by `vzplan build`.
        refs: PathBuf,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        io: inputs::IoArgs,
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
    #[command(flatten)]
    io: inputs::IoArgs,
    /// Target chunk size when merging netCDF-3 records or cutting fixed variables.
    #[arg(long, default_value_t = 4 << 20)]
    chunk_bytes: u64,
    /// Print requests and bytes read per file.
    #[arg(long)]
    stats: bool,
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("vzplan: {e}");
            ExitCode::from(1)
        }
    }
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn scan_options(a: &ScanArgs) -> scan::ScanOptions {
    scan::ScanOptions {
        jobs: a.jobs,
        chunk_bytes: a.chunk_bytes,
        progress: std::io::stderr().is_terminal(),
        io: a.io.options(),
        fail_fast: a.fail_fast,
    }
}

/// The inputs of the command line and of `--files-from`, expanded (globs, prefix listings).
fn expand_inputs(a: &ScanArgs) -> Res<Vec<inputs::Input>> {
    let io = a.io.options();
    let mut all = a.inputs.clone();
    for f in &a.files_from {
        all.extend(inputs::files_from(f, &io)?);
    }
    if all.is_empty() {
        return Err("no inputs given".into());
    }
    Ok(inputs::expand(&all, &io)?)
}

/// Layouts and failures, from scanning or from layout files.
fn gather(c: &Common) -> Res<(Vec<SourceLayout>, Vec<ScanFailure>)> {
    if !c.from_layouts.is_empty() {
        if !c.scan.inputs.is_empty() {
            return Err("give either INPUTS or --from-layouts, not both".into());
        }
        let io = c.scan.io.options();
        let files = inputs::expand(&c.from_layouts, &io)?;
        return read_layouts(&files, &io);
    }
    let inputs = expand_inputs(&c.scan)?;
    let opts = scan_options(&c.scan);
    let scanned = scan::scan_all(&inputs, &opts);
    if c.scan.stats {
        scan::print_stats(&scanned);
    }
    scan::first_failure(&scanned, &opts)?;
    Ok(scan::split(scanned))
}

/// One JSON line per file: a layout, or `{"url": …, "error": …}` for a file that failed.
fn read_layouts(
    files: &[inputs::Input],
    io: &vzplan_io::IoOptions,
) -> Res<(Vec<SourceLayout>, Vec<ScanFailure>)> {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for f in files {
        let name = &f.name;
        let mut take = |n: usize, line: &str| -> Res<()> {
            if line.trim().is_empty() {
                return Ok(());
            }
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("{name}:{}: {e}", n + 1))?;
            if let (Some(url), Some(err)) = (v.get("url"), v.get("error")) {
                failed.push(ScanFailure {
                    url: url.as_str().unwrap_or_default().to_string(),
                    error: err.as_str().unwrap_or_default().to_string(),
                });
                return Ok(());
            }
            ok.push(serde_json::from_value(v).map_err(|e| format!("{name}:{}: {e}", n + 1))?);
            Ok(())
        };
        if name != "-" && !vzplan_io::is_url(name) {
            // Local layout files are read a line at a time: they can be larger than the layouts.
            use std::io::BufRead;
            let file = std::fs::File::open(name).map_err(|e| format!("{name}: {e}"))?;
            for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
                take(n, &line.map_err(|e| format!("{name}: {e}"))?)?;
            }
        } else {
            let text = inputs::read_text(name, io)?;
            for (n, line) in text.lines().enumerate() {
                take(n, line)?;
            }
        }
    }
    Ok((ok, failed))
}

fn make_plan(c: &Common) -> Res<Plan> {
    let (layouts, failures) = gather(c)?;
    let opts = Options {
        concat_dim: c.concat_dim.clone(),
        stack_dim: c.stack_dim.clone(),
        vars: c.vars.clone(),
        mosaic: c.mosaic,
        mosaic_layout: c
            .mosaic_layout
            .as_deref()
            .map(read_mosaic_layout)
            .transpose()?,
        patch: c.patch,
    };
    if layouts.is_empty() {
        for f in &failures {
            eprintln!("{}", f.error);
        }
        return Err("no input could be read".into());
    }
    let plan = vzplan_plan::plan(layouts, &failures, &opts);
    if let Some(h) = &c.html {
        let page = vzplan_emit::html::page(&plan);
        vzplan_emit::write_atomic(h, |w| std::io::Write::write_all(w, page.as_bytes()))?;
    }
    Ok(plan)
}

/// Reads a `--mosaic-layout` file; relative paths are resolved against its directory.
fn read_mosaic_layout(path: &std::path::Path) -> Res<Vec<vzplan_plan::LayoutEntry>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut entries =
        vzplan_plan::mosaic::parse_layout(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    for e in &mut entries {
        let p = std::path::Path::new(&e.path);
        let candidate = if p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        };
        if candidate.is_file() {
            e.path = vzplan_io::file_url(&candidate);
        }
    }
    Ok(entries)
}

fn exit_for(plan: &Plan) -> u8 {
    if plan.incomplete() {
        3
    } else {
        0
    }
}

fn run(cli: Cli) -> Res<u8> {
    match cli.cmd {
        Cmd::Plan { common, json } => {
            let plan = make_plan(&common)?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&vzplan_emit::report::json(&plan))?
                );
            } else {
                print!("{}", vzplan_emit::report::text(&plan));
            }
            Ok(exit_for(&plan))
        }
        Cmd::Build {
            common,
            output,
            icechunk,
            zarr_json,
            no_zarr_json,
            json,
        } => {
            let mut plan = make_plan(&common)?;
            if common.patch {
                // The one read of source data outside scanning: only the chunks being patched.
                let io = common.scan.io.options();
                let (n, bytes) = vzplan_patch::apply(&mut plan, &|url| vzplan_io::open(url, &io));
                if n > 0 {
                    eprintln!("patched {n} chunk(s): {bytes} bytes written inline");
                }
            }
            if plan.arrays.is_empty() {
                eprint!("{}", vzplan_emit::report::text(&plan));
                return Err("nothing could be built; no output written".into());
            }
            let Some(output) = output else {
                return icechunk::build(&plan, &icechunk, &common.scan.io.options(), json);
            };
            vzplan_emit::write_atomic(&output, |w| vzplan_emit::write_refs(&plan, w))?;
            let zpath = (!no_zarr_json)
                .then(|| zarr_json.unwrap_or_else(|| vzplan_emit::zarr_json_path(&output)));
            if let Some(z) = &zpath {
                let doc = vzplan_emit::zarr::consolidated_json(&plan);
                vzplan_emit::write_atomic(z, |w| {
                    serde_json::to_writer_pretty(&mut *w, &doc)?;
                    writeln!(w)
                })?;
            }
            if json {
                let mut r = vzplan_emit::report::json(&plan);
                if let Some(o) = r.as_object_mut() {
                    o.insert("refs".into(), output.display().to_string().into());
                    if let Some(z) = &zpath {
                        o.insert("zarr_json".into(), z.display().to_string().into());
                    }
                }
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                print!("{}", vzplan_emit::report::text(&plan));
                println!("wrote {}", output.display());
            }
            Ok(exit_for(&plan))
        }
        Cmd::Scan {
            scan: args,
            output,
            shard,
            shard_from_env,
            shard_count,
        } => {
            let mut inputs = expand_inputs(&args)?;
            if let Some(s) =
                inputs::shard(shard.as_deref(), shard_from_env.as_deref(), shard_count)?
            {
                inputs = inputs::take_shard(inputs, s);
            }
            let opts = scan_options(&args);
            let scanned = scan::scan_all(&inputs, &opts);
            if args.stats {
                scan::print_stats(&scanned);
            }
            scan::first_failure(&scanned, &opts)?;
            let mut failed = 0;
            use std::io::Write as _;
            let mut buf: Vec<u8> = Vec::new();
            for s in &scanned {
                let line = match &s.result {
                    Ok(l) => serde_json::to_string(l)?,
                    Err(e) => {
                        failed += 1;
                        serde_json::json!({"url": s.url, "error": e}).to_string()
                    }
                };
                writeln!(buf, "{line}")?;
            }
            inputs::write_bytes(&output.to_string_lossy(), buf, &opts.io)?;
            for s in &scanned {
                if let Err(e) = &s.result {
                    eprintln!("{e}");
                }
            }
            eprintln!(
                "scanned {} file(s), {} failed → {}",
                scanned.len(),
                failed,
                output.display()
            );
            Ok(if failed > 0 { 3 } else { 0 })
        }
        Cmd::Verify { refs, json, io } => verify(&refs, json, &io.options()),
    }
}

/// Compares each recorded source with the file as it is now.
fn verify(refs: &std::path::Path, json: bool, io: &vzplan_io::IoOptions) -> Res<u8> {
    let text = std::fs::read_to_string(refs).map_err(|e| format!("{}: {e}", refs.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", refs.display()))?;
    let root = v["refs"]["zarr.json"].as_str().ok_or_else(|| {
        format!(
            "{}: no inline zarr.json: not written by vzplan build",
            refs.display()
        )
    })?;
    let root: serde_json::Value = serde_json::from_str(root)?;
    let sources: Vec<vzplan_plan::SourceRef> =
        serde_json::from_value(root["attributes"]["vzplan"]["sources"].clone())
            .map_err(|e| format!("{}: no vzplan provenance: {e}", refs.display()))?;
    let mut drift = Vec::new();
    for s in &sources {
        let path = s.url.strip_prefix("file://").unwrap_or(&s.url);
        let now = if vzplan_io::is_url(&s.url) {
            vzplan_io::remote::head(&s.url, io)
        } else {
            use vzplan_io::RangeRead;
            vzplan_io::LocalFile::open(path).map(|f| f.meta().clone())
        };
        let problem = match now {
            Err(e) => Some(e.to_string()),
            Ok(m) => {
                let m = &m;
                if m.size != s.size {
                    Some(format!(
                        "{}: size is {} bytes, was {}",
                        s.url, m.size, s.size
                    ))
                } else if s.etag.is_some() && m.etag != s.etag {
                    Some(format!(
                        "{}: ETag is {}, was {}",
                        s.url,
                        m.etag.as_deref().unwrap_or("?"),
                        s.etag.as_deref().unwrap_or("?")
                    ))
                } else if s.mtime.is_some() && m.mtime != s.mtime {
                    Some(format!(
                        "{}: modified at {}, was {}",
                        s.url,
                        m.mtime.as_deref().unwrap_or("?"),
                        s.mtime.as_deref().unwrap_or("?")
                    ))
                } else {
                    None
                }
            }
        };
        if let Some(p) = problem {
            drift.push(p);
        }
    }
    if json {
        println!(
            "{}",
            serde_json::json!({"sources": sources.len(), "changed": drift, "ok": drift.is_empty()})
        );
    } else {
        for d in &drift {
            println!("{d}");
        }
        println!("{} source(s), {} changed", sources.len(), drift.len());
    }
    Ok(if drift.is_empty() { 0 } else { 1 })
}
