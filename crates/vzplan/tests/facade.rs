//! The library API end to end, without the binary: build a collection, plan with a progress
//! callback, scan one file, the format registry's messages for files no format reads.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use vzplan::{BuildOptions, Error, Inputs, PlanOptions, Progress, RefsOutput, ScanOptions, Source};

fn collections() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/collections")
}

fn scan_source(pattern: &str) -> Source {
    Source::Scan {
        inputs: Inputs::new([collections().join(pattern).display().to_string()]),
        options: ScanOptions::default(),
    }
}

#[test]
fn build_a_collection_into_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let refs = dir.path().join("refs.json");
    let opts = BuildOptions {
        plan: PlanOptions::default(),
        outputs: vec![Box::new(RefsOutput::new(&refs))],
        force: false,
        keep_layouts: None,
        ..Default::default()
    };
    let report = vzplan::build(&scan_source("yearly/*.nc"), &opts, &vzplan::NoProgress).unwrap();
    // Complete: the CLI's exit code 0.
    assert!(!report.plan.incomplete());
    assert_eq!(report.patched_chunks, 0);
    let mut names: Vec<&str> = report.plan.arrays.iter().map(|a| a.path.as_str()).collect();
    names.sort();
    assert_eq!(names, ["lat", "lon", "pr", "tas", "tasmax", "time"]);

    let v: Value = serde_json::from_str(&std::fs::read_to_string(&refs).unwrap()).unwrap();
    assert_eq!(v["templates"].as_object().unwrap().len(), 4);
    let meta: Value = serde_json::from_str(v["refs"]["tas/zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(meta["shape"], serde_json::json!([1461, 3, 4]));
    assert_eq!(
        meta["chunk_grid"]["configuration"]["chunk_shapes"],
        serde_json::json!([[366, [365, 3]], 3, 4])
    );
    // The consolidated zarr.json beside it holds the same array metadata.
    let z: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("refs.zarr.json")).unwrap())
            .unwrap();
    assert_eq!(
        z["consolidated_metadata"]["metadata"]["tas"]["shape"],
        meta["shape"]
    );
}

#[test]
fn left_out_arrays_make_the_plan_incomplete_and_no_array_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let refs = dir.path().join("refs.json");
    let opts = BuildOptions {
        plan: PlanOptions::default(),
        outputs: vec![Box::new(RefsOutput::new(&refs))],
        force: false,
        keep_layouts: None,
        ..Default::default()
    };
    let report = vzplan::build(&scan_source("padded/*.nc"), &opts, &vzplan::NoProgress).unwrap();
    // The CLI's exit code 3: built, with `tas` left out.
    assert!(report.plan.incomplete());
    assert_eq!(report.plan.left_out, ["tas"]);
    std::fs::remove_file(&refs).unwrap();
    std::fs::remove_file(dir.path().join("refs.zarr.json")).unwrap();

    // Brick-staggered strips: no array can be built (the CLI's exit code 1), nothing is written.
    let mosaic = collections().join("../mosaic/brick_strips/*.tif");
    let source = Source::Scan {
        inputs: Inputs::new([mosaic.display().to_string()]),
        options: ScanOptions::default(),
    };
    let opts = BuildOptions {
        plan: PlanOptions {
            mosaic: true,
            ..PlanOptions::default()
        },
        outputs: vec![Box::new(RefsOutput::new(&refs))],
        force: false,
        keep_layouts: None,
        ..Default::default()
    };
    match vzplan::build(&source, &opts, &vzplan::NoProgress) {
        Err(e @ Error::NothingBuilt { .. }) => {
            assert_eq!(e.to_string(), "nothing could be built; no output written");
        }
        other => panic!("expected NothingBuilt, got {other:?}"),
    }
    assert!(!refs.exists());
    assert!(!dir.path().join("refs.zarr.json").exists());
}

#[test]
fn plan_reports_progress_once_per_file() {
    let started = AtomicUsize::new(0);
    let files = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let progress = |p: Progress<'_>| match p {
        Progress::ScanStarted { files: n, .. } => {
            started.fetch_add(n, Ordering::SeqCst);
        }
        Progress::FileScanned(s) => {
            assert!(s.result.is_ok(), "{:?}", s.result.as_ref().err());
            files.fetch_add(1, Ordering::SeqCst);
        }
        Progress::ScanFinished(all) => {
            assert_eq!(all.len(), 12);
            finished.fetch_add(1, Ordering::SeqCst);
        }
        Progress::Patched { .. } => panic!("nothing to patch"),
        Progress::Listed { .. } => panic!("local files are not listed"),
        Progress::InFlight { files } => assert!(files >= 1),
        Progress::Waiting { .. } => panic!("nobody else writes here"),
    };
    let plan = vzplan::plan(
        &scan_source("monthly/*.nc"),
        &PlanOptions::default(),
        &progress,
    )
    .unwrap();
    assert_eq!(plan.sources.len(), 12);
    assert_eq!(started.load(Ordering::SeqCst), 12);
    assert_eq!(files.load(Ordering::SeqCst), 12);
    assert_eq!(finished.load(Ordering::SeqCst), 1);
}

#[test]
fn one_file_scanned_equals_its_layout_line() {
    let file = collections().join("yearly/tas_day_2001.nc");
    let io = vzplan::IoOptions::default();
    let r = vzplan::open(&file.display().to_string(), &io).unwrap();
    let layout = vzplan::formats::read_layout(r.as_ref(), &vzplan::ReadOptions::default()).unwrap();

    // What `vzplan scan FILE -o layouts.jsonl` writes: scan, then one line per file.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("layouts.jsonl");
    let scanned = vzplan::scan(
        &Inputs::new([file.display().to_string()]),
        &ScanOptions::default(),
        &vzplan::NoProgress,
    )
    .unwrap();
    let failed = vzplan::layouts::write(&scanned, &out.display().to_string(), &io).unwrap();
    assert_eq!(failed, 0);
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text,
        format!("{}\n", serde_json::to_string(&layout).unwrap())
    );

    // And read back, the same layout.
    let (layouts, failures) =
        vzplan::layouts::read_patterns(&[out.display().to_string()], &io).unwrap();
    assert!(failures.is_empty());
    assert_eq!(
        serde_json::to_value(&layouts).unwrap(),
        serde_json::json!([serde_json::to_value(&layout).unwrap()])
    );
}

#[test]
fn files_no_format_reads_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.nc");
    let junk = dir.path().join("junk.nc");
    std::fs::write(&empty, b"").unwrap();
    std::fs::write(&junk, b"GRIB and more").unwrap();
    let source = Source::Scan {
        inputs: Inputs::new([empty.display().to_string(), junk.display().to_string()]),
        options: ScanOptions::default(),
    };
    match vzplan::plan(&source, &PlanOptions::default(), &vzplan::NoProgress) {
        Err(Error::NothingRead { failures }) => {
            let msgs: Vec<&str> = failures.iter().map(|f| f.error.as_str()).collect();
            assert_eq!(msgs.len(), 2);
            assert!(msgs[0].ends_with("empty.nc: empty file"), "{msgs:?}");
            assert!(
                msgs[1].ends_with(
                    "junk.nc: not a netCDF, HDF5, TIFF or DMR++ file: it starts like a GRIB file"
                ),
                "{msgs:?}"
            );
        }
        other => panic!("expected NothingRead, got {other:?}"),
    }
}

/// Every format's signature is its own (so the registry's order does not matter), each layout
/// carries the tools its reader rewrites it with, and messages list the formats' words.
#[test]
fn the_registry_tells_each_format_by_its_own_signature() {
    let root = collections().join("..");
    let files = [
        ("netcdf3", root.join("netcdf3/classic_fixed.nc")),
        ("hdf5", collections().join("yearly/tas_day_2000.nc")),
        ("tiff", root.join("tiff/strips_u8.tif")),
        ("dmrpp", root.join("dmrpp/sds.h5.dmrpp")),
    ];
    for (name, path) in &files {
        let r = vzplan::open(&path.display().to_string(), &vzplan::IoOptions::default()).unwrap();
        let want = vzplan::FORMATS
            .iter()
            .map(|f| f.head_bytes())
            .max()
            .unwrap();
        let head = r.read_at(0, r.size().min(want)).unwrap();
        let takers: Vec<&str> = vzplan::FORMATS
            .iter()
            .filter(|f| f.sniff(&head))
            .map(|f| f.name())
            .collect();
        assert_eq!(takers, [*name], "{}", path.display());
        let l = vzplan::scan::scan_one(r.as_ref(), &ScanOptions::default()).unwrap();
        let reader = vzplan::formats::reader(l.format.as_str()).unwrap();
        assert_eq!(l.rewriter, reader.rewriter(&l.url));
        assert!(reader.describe_header(r.as_ref()).is_some());
    }
    assert_eq!(vzplan::formats::kinds(), "netCDF, HDF5, TIFF or DMR++");
    assert!(vzplan::FORMATS.iter().any(|f| f.signature_may_be_later()));
}

#[test]
fn no_inputs_and_fail_fast_are_errors() {
    let source = Source::Scan {
        inputs: Inputs::default(),
        options: ScanOptions::default(),
    };
    let e = vzplan::plan(&source, &PlanOptions::default(), &vzplan::NoProgress).unwrap_err();
    assert_eq!(e.to_string(), "no inputs given");

    let source = Source::Scan {
        inputs: Inputs::new([collections().join("bad/*.nc").display().to_string()]),
        options: ScanOptions {
            fail_fast: true,
            jobs: Some(1),
            ..ScanOptions::default()
        },
    };
    match vzplan::plan(&source, &PlanOptions::default(), &vzplan::NoProgress) {
        Err(Error::FailFast { first, skipped }) => {
            assert!(first.contains("not_netcdf.nc"), "{first}");
            assert_eq!(skipped, 3);
        }
        other => panic!("expected FailFast, got {other:?}"),
    }
}
