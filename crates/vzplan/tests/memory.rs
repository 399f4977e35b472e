//! In-memory layouts and outputs (the Python binding's path): the same bytes as the files, the
//! same plan from layout lines as from scanning, and a scan that stops when cancelled.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vzplan::{BuildOptions, Error, Inputs, PlanOptions, Progress, RefsOutput, ScanOptions, Source};

fn collections() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/collections")
}

fn inputs(pattern: &str) -> Inputs {
    Inputs::new([collections().join(pattern).display().to_string()])
}

#[test]
fn bytes_in_memory_equal_the_written_files() {
    let dir = tempfile::tempdir().unwrap();
    let refs = dir.path().join("refs.json");
    let opts = BuildOptions {
        plan: PlanOptions::default(),
        outputs: vec![Box::new(RefsOutput::new(&refs))],
        force: false,
        keep_layouts: None,
        ..Default::default()
    };
    let source = Source::Scan {
        inputs: inputs("padded/*.nc"),
        options: ScanOptions::default(),
    };
    let report = vzplan::build(&source, &opts, &vzplan::NoProgress).unwrap();
    assert_eq!(
        vzplan::memory::refs_bytes(&report.plan, true).unwrap(),
        std::fs::read(&refs).unwrap()
    );
    assert_eq!(
        vzplan::memory::zarr_json_bytes(&report.plan).unwrap(),
        std::fs::read(dir.path().join("refs.zarr.json")).unwrap()
    );
}

#[test]
fn layout_lines_plan_like_the_scan() {
    let opts = ScanOptions::default();
    let scanned = vzplan::scan(&inputs("yearly/*.nc"), &opts, &vzplan::NoProgress).unwrap();
    let lines: Vec<String> = scanned
        .iter()
        .map(|s| vzplan::layouts::line(s).unwrap())
        .collect();
    let given =
        vzplan::memory::source_from_lines(lines.iter().map(String::as_str), opts.io.clone());
    let scan = Source::Scan {
        inputs: inputs("yearly/*.nc"),
        options: opts,
    };
    let a = vzplan::plan(&given, &PlanOptions::default(), &vzplan::NoProgress).unwrap();
    let b = vzplan::plan(&scan, &PlanOptions::default(), &vzplan::NoProgress).unwrap();
    assert_eq!(
        vzplan::memory::refs_bytes(&a, true).unwrap(),
        vzplan::memory::refs_bytes(&b, true).unwrap()
    );
    // A line that is not a layout is a failure naming its line, as in a layouts file.
    match vzplan::memory::source_from_lines(["", "{not json"], Default::default()) {
        Source::Given {
            layouts, failures, ..
        } => {
            assert!(layouts.is_empty());
            assert_eq!(failures.len(), 1);
            assert!(
                failures[0].error.starts_with("<layouts>:2: "),
                "{}",
                failures[0].error
            );
        }
        _ => panic!("not a Given source"),
    }
}

#[test]
fn a_cancelled_scan_stops_between_files() {
    let cancel = Arc::new(AtomicBool::new(false));
    let opts = ScanOptions {
        jobs: Some(1),
        cancel: Some(cancel.clone()),
        ..ScanOptions::default()
    };
    let scanned = std::sync::atomic::AtomicUsize::new(0);
    // Cancel after the first file, as a binding does when Ctrl-C arrives.
    let sink = |p: Progress<'_>| {
        if let Progress::FileScanned(s) = p {
            if s.result.is_ok() {
                scanned.fetch_add(1, Ordering::Relaxed);
            }
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let r = vzplan::scan(&inputs("daily20/*.nc"), &opts, &sink);
    assert!(matches!(r, Err(Error::Cancelled)), "{r:?}");
    assert_eq!(scanned.load(Ordering::Relaxed), 1);
}
