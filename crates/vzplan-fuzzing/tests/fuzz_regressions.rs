//! Replays every input the fuzzers ever found (crash, hang or memory blow-up), kept in
//! `testdata/fuzz-regressions/<target>/`, through the same code as its fuzz target. Each input
//! runs in its own thread and must finish, without panicking, within the time bound.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

#[global_allocator]
static ALLOC: vzplan_fuzzing::CappedAlloc = vzplan_fuzzing::CappedAlloc;

/// Generous for a debug build; the fixed readers take milliseconds on every kept input.
const LIMIT: Duration = Duration::from_secs(10);

fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/fuzz-regressions")
}

/// Runs `f(data)` in a thread; an error names what went wrong.
fn run_bounded(f: fn(&[u8]), data: Vec<u8>) -> Result<Duration, String> {
    let (tx, rx) = mpsc::channel();
    let t0 = std::time::Instant::now();
    let handle = std::thread::spawn(move || {
        let ok = std::panic::catch_unwind(|| f(&data)).is_ok();
        let _ = tx.send(ok);
    });
    match rx.recv_timeout(LIMIT) {
        Ok(true) => {
            let _ = handle.join();
            Ok(t0.elapsed())
        }
        Ok(false) => Err("panicked".into()),
        // The thread is left running; the test fails and the process exits.
        Err(_) => Err(format!("did not finish within {LIMIT:?}")),
    }
}

#[test]
fn every_kept_input_is_handled() {
    let root = regressions_dir();
    let mut failures = Vec::new();
    let mut count = 0;
    for (target, f) in vzplan_fuzzing::TARGETS {
        let dir = root.join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        files.sort();
        for path in files.into_iter().filter(|p| p.is_file()) {
            let data = std::fs::read(&path).expect("regression input is readable");
            count += 1;
            match run_bounded(f, data) {
                Ok(took) => eprintln!("{target}: {} ok in {took:?}", path.display()),
                Err(e) => failures.push(format!("{target}: {}: {e}", path.display())),
            }
        }
    }
    assert!(count > 0, "no regression inputs under {}", root.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pipeline_inputs_split_into_at_most_three_files() {
    let sep = vzplan_fuzzing::SPLIT;
    let input = [b"a".as_slice(), sep, b"b", sep, b"c", sep, b"d"].concat();
    let parts = vzplan_fuzzing::split(&input);
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[0], b"a");
    assert_eq!(parts[1], b"b");
    assert_eq!(parts[2], [b"c".as_slice(), sep, b"d"].concat().as_slice());
    assert_eq!(vzplan_fuzzing::split(b"one"), vec![b"one".as_slice()]);
}
