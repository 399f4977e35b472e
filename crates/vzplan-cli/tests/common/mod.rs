//! Helpers shared by the end-to-end tests of `tests/` (each is its own test crate, so not every
//! one uses every helper).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The netCDF files of a shipped collection, sorted.
pub fn files(collection: &str) -> Vec<String> {
    let dir = root().join("testdata/collections").join(collection);
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".nc"))
        .collect();
    v.sort();
    v
}

/// Runs the `vzplan` binary: exit code, standard output, standard error.
pub fn vzplan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .args(args)
        .output()
        .expect("run vzplan");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
