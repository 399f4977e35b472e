//! What the fixture tests share: the `.tif` files of a testdata folder with their oracles.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// `testdata/tiff/{sub}`.
pub fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/tiff")
        .join(sub)
}

/// The `.tif` files of `dir`, sorted, each with its oracle (`<name>.json`); at least `least` of
/// them, else the generator `script` was not run.
pub fn with_oracles(dir: &Path, least: usize, script: &str) -> Vec<(PathBuf, Value)> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tif"))
        .collect();
    names.sort();
    assert!(names.len() >= least, "fixtures missing: run {script}");
    names
        .into_iter()
        .map(|p| {
            let oracle = std::fs::read_to_string(p.with_extension("json")).unwrap();
            (p, serde_json::from_str(&oracle).unwrap())
        })
        .collect()
}

/// A file's name as the tests show it.
pub fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}
