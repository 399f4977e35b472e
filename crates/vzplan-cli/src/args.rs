//! The command line's flags, and each mapped to its field of a [`vzplan::Request`]: nothing is
//! decided here (defaults, conflicts and output paths are the library's).

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use vzplan::{IoSettings, Keep, Request, Shard};

#[derive(Parser)]
#[command(
    name = "vzplan",
    version,
    about = "Virtual Zarr (rectilinear grid) references for netCDF, HDF5 and TIFF collections"
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Scan the files, plan one array per variable, write kerchunk refs.json (+ zarr.json).
    Build {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Add files to a collection built with --keep-layouts: only the new files are scanned, and
    /// every output is rewritten as `build` of all the files would write it (pass the same plan
    /// options as the build). With no files, rewrites the collection from its kept layouts.
    Append {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        out: OutArgs,
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
        #[arg(long, value_name = "VAR")]
        shard_from_env: Option<String>,
        /// The number of shards N, with --shard-from-env.
        #[arg(long, value_name = "N")]
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
        io: IoArgs,
    },
    /// Check that the sources referenced by OUT.json are unchanged (size and mtime/ETag), and
    /// that the collection's files beside it belong to one state.
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
        io: IoArgs,
    },
}

/// How object storage is reached: flags flattened into every command that reads sources.
#[derive(Args, Clone, Debug)]
pub struct IoArgs {
    /// S3 endpoint URL (MinIO, Ceph, a test server), e.g. http://127.0.0.1:9000 (path-style).
    #[arg(long, value_name = "URL")]
    s3_endpoint: Option<String>,
    /// GCS endpoint URL (an emulator, a private endpoint), e.g. http://127.0.0.1:4443.
    #[arg(long, value_name = "URL")]
    gcs_endpoint: Option<String>,
    /// Unsigned requests, for public buckets (S3, GCS, Azure).
    #[arg(long, alias = "no-sign-request")]
    anon: bool,
    /// S3 region (default: AWS_REGION / AWS_DEFAULT_REGION, else us-east-1).
    #[arg(long)]
    region: Option<String>,
    /// Retries of a failed request (5xx, timeout, cut transfer), with exponential backoff.
    #[arg(long, default_value_t = vzplan::DEFAULT_RETRIES)]
    retries: u32,
    /// Time limit of one request, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = vzplan::DEFAULT_TIMEOUT_SECS)]
    io_timeout: f64,
    /// Size of the speculative first read of each object (object storage; local files read 16 KiB).
    #[arg(long, value_name = "BYTES", default_value_t = vzplan::DEFAULT_FIRST_READ)]
    first_read: u64,
    /// Block size of the read cache for object storage, in bytes (local files: 4 KiB).
    #[arg(long, value_name = "BYTES", default_value_t = vzplan::DEFAULT_BLOCK_SIZE)]
    block_size: u64,
}

impl IoArgs {
    pub fn settings(&self) -> IoSettings {
        IoSettings {
            s3_endpoint: self.s3_endpoint.clone(),
            gcs_endpoint: self.gcs_endpoint.clone(),
            anon: self.anon,
            region: self.region.clone(),
            retries: Some(self.retries),
            timeout_secs: Some(self.io_timeout),
            first_read: Some(self.first_read),
            block_size: Some(self.block_size),
        }
    }
}

#[derive(Args)]
pub struct ScanArgs {
    /// Files, glob patterns, or object URLs (s3://bucket/prefix/*.nc, gs://…, az://…, https://…).
    inputs: Vec<String>,
    /// Read more inputs from this file, one per line (`-`: standard input; a URL: object storage).
    #[arg(long, value_name = "FILE")]
    files_from: Vec<String>,
    /// Files scanned concurrently (default: number of CPUs; on object storage 32, growing to 256 while the store keeps up and halving when it asks to slow down).
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
    pub io: IoArgs,
    /// Target chunk size when merging netCDF-3 records or cutting fixed variables.
    #[arg(long, value_name = "BYTES", default_value_t = vzplan::ReadOptions::default().chunk_bytes)]
    chunk_bytes: u64,
    /// Print requests, dependent round trips and bytes read per file (with --json, also under
    /// `stats`).
    #[arg(long)]
    pub stats: bool,
    /// Print plain progress lines on standard error (one a second, and one at the end) instead
    /// of the progress bar, which is drawn only on a terminal: for logs, CI and pipes.
    #[arg(long)]
    pub progress: bool,
    /// Files that only other files or layouts name may be read under this directory or object
    /// prefix (repeatable, e.g. s3://bucket/cmip/): HDF5 external links' targets and virtual
    /// datasets' sources, chunks --patch re-encodes, an append's kept files. The inputs are
    /// always named; nothing else is read.
    #[arg(long, value_name = "PREFIX")]
    sources_under: Vec<String>,
    /// Where an input has a DMR++ sidecar beside it (INPUT.dmrpp, as NASA Earthdata publishes
    /// them), read that in place of the input's metadata: the references point at the input,
    /// whose bytes are not read. Inputs without one are scanned as usual.
    #[arg(long)]
    dmrpp: bool,
}

impl ScanArgs {
    fn fill(&self, r: &mut Request) {
        r.inputs = self.inputs.clone();
        r.files_from = self.files_from.clone();
        r.jobs = self.jobs;
        r.fail_fast = self.fail_fast;
        r.allow_unreachable = self.allow_unreachable;
        r.io = self.io.settings();
        r.chunk_bytes = Some(self.chunk_bytes);
        r.sources_under = self.sources_under.clone();
        r.dmrpp = self.dmrpp;
    }

    /// `vzplan scan`'s request.
    pub fn request(&self, shard: Option<Shard>) -> Request {
        let mut r = Request {
            shard,
            ..Request::default()
        };
        self.fill(&mut r);
        r
    }
}

#[derive(Args)]
pub struct Common {
    #[command(flatten)]
    pub scan: ScanArgs,
    /// Plan from layout files written by `vzplan scan` instead of scanning (glob allowed).
    #[arg(long, value_name = "GLOB")]
    from_layouts: Vec<String>,
    /// The dimension to concatenate along (default: the unlimited dimension, else `time`).
    #[arg(long)]
    concat_dim: Option<String>,
    /// Stack the files along a new leading dimension of this name.
    #[arg(long)]
    stack_dim: Option<String>,
    /// A time coordinate along the stack, the files in its order: NAME=PATTERN reads each file's
    /// date from its name (%Y %m %d %j %H %M %S, matched anywhere: time=%Y%m%d), NAME=datetime
    /// from the TIFF DateTime tag. Stacks along NAME unless --stack-dim names the dimension.
    #[arg(long, value_name = "NAME=PATTERN")]
    stack_coord: Option<String>,
    /// Only this variable (repeatable); its dimensions' coordinates come along.
    #[arg(long = "var")]
    vars: Vec<String>,
    /// Place the files side by side in 2-D (a mosaic) by their georeferencing (GeoTIFF
    /// transform, or regular x/y or lon/lat coordinate variables).
    #[arg(long)]
    mosaic: bool,
    /// Place the mosaic's files explicitly: a file of lines `PATH ROW COL` (offsets in pixels;
    /// PATH relative to the layout file, absolute, or a bare file name; `#` comments), or a
    /// JSON list of {"path", "row", "col"}. Implies --mosaic.
    #[arg(long, value_name = "FILE")]
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

impl Common {
    /// The request of `plan`, `build` and `append` (with `out`).
    pub fn request(&self, out: Option<&OutArgs>) -> Request {
        let mut r = Request {
            from_layouts: self.from_layouts.clone(),
            concat_dim: self.concat_dim.clone(),
            stack_dim: self.stack_dim.clone(),
            stack_coord: self.stack_coord.clone(),
            vars: self.vars.clone(),
            mosaic: self.mosaic,
            mosaic_layout: self.mosaic_layout.clone(),
            patch: self.patch,
            html: self.html.clone(),
            ..Request::default()
        };
        self.scan.fill(&mut r);
        if let Some(o) = out {
            o.fill(&mut r);
        }
        r
    }
}

/// Where and how a build writes.
#[derive(Args)]
pub struct OutArgs {
    /// The kerchunk reference file to write (`-`: standard output); or --icechunk.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Where to write the consolidated Zarr v3 zarr.json (default: OUT stem + .zarr.json).
    #[arg(long)]
    zarr_json: Option<PathBuf>,
    /// Do not write the consolidated zarr.json.
    #[arg(long)]
    no_zarr_json: bool,
    /// Write full URLs in every reference instead of kerchunk templates.
    #[arg(long)]
    no_templates: bool,
    /// Keep every file's layout (JSON lines) so that files can be appended later without scanning
    /// these again (default FILE: OUT stem + .layouts.jsonl; another with --keep-layouts=FILE).
    /// `append` reads and rewrites it.
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true)]
    keep_layouts: Option<Option<PathBuf>>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Replace existing files that are not vzplan outputs (never an input).
    #[arg(long)]
    force: bool,
    /// Write an Icechunk repository instead of refs.json (a new commit when it exists): a local
    /// directory or s3://bucket/prefix, gs://…, az://… (same endpoint/credential options as inputs).
    #[arg(long, value_name = "REPO")]
    icechunk: Option<String>,
    /// The branch to commit on (default: main; created from main when missing).
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
}

impl OutArgs {
    fn fill(&self, r: &mut Request) {
        r.output = self.output.clone();
        r.zarr_json = self.zarr_json.clone();
        r.no_zarr_json = self.no_zarr_json;
        r.no_templates = self.no_templates;
        r.keep_layouts = match &self.keep_layouts {
            None => Keep::No,
            Some(None) => Keep::Beside,
            Some(Some(p)) => Keep::At(p.clone()),
        };
        r.force = self.force;
        r.icechunk = self.icechunk.clone();
        r.branch = self.branch.clone();
    }
}
