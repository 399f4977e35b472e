//! `--dmrpp`: an input's DMR++ sidecar (testdata/dmrpp/, scripts/fixtures/dmrpp.py) read in
//! place of the input's metadata; the input's own bytes are never read, and inputs without a
//! sidecar are scanned as usual.

use serde_json::Value;
use std::path::Path;
mod common;
use common::{root, vzplan};

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn refs(path: &Path) -> serde_json::Map<String, Value> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["refs"].as_object().unwrap().clone()
}

#[test]
fn a_sidecar_stands_for_its_file_which_is_not_read() {
    let src = root().join("testdata/dmrpp");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let granule = d.join("grid.nc");
    std::fs::copy(src.join("data/grid.nc"), &granule).unwrap();
    std::fs::copy(src.join("grid.nc.dmrpp"), d.join("grid.nc.dmrpp")).unwrap();
    let scanned = d.join("scanned.json");
    let (code, o, e) = vzplan(&["build", &s(&granule), "-o", &s(&scanned)]);
    assert_eq!(code, 0, "{o}{e}");

    // The granule's metadata overwritten (same size): a scan fails, the sidecar still builds it.
    let len = std::fs::metadata(&granule).unwrap().len() as usize;
    std::fs::write(&granule, vec![0u8; len]).unwrap();
    let side = d.join("side.json");
    let (code, o, e) = vzplan(&["build", &s(&granule), "--dmrpp", "-o", &s(&side)]);
    assert_eq!(code, 0, "{o}{e}");
    let (a, b) = (refs(&side), refs(&scanned));
    // The data's references are the scan's; the root records the input itself as the source.
    assert_eq!(a["tas/c/0/0/0"], b["tas/c/0/0/0"]);
    assert_eq!(a["tas/c/1/0/0"], b["tas/c/1/0/0"]);
    let root_of = |r: &serde_json::Map<String, Value>| -> Value {
        serde_json::from_str::<Value>(r["zarr.json"].as_str().unwrap()).unwrap()["attributes"]
            ["vzplan"]["sources"][0]["url"]
            .clone()
    };
    assert_eq!(root_of(&a), root_of(&b));
    let (code, o, e) = vzplan(&["build", &s(&granule), "-o", &s(&d.join("x.json"))]);
    assert_ne!(code, 0, "the zeroed file scanned: {o}{e}");
}

#[test]
fn files_without_a_sidecar_are_scanned() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("sds.h5");
    std::fs::copy(root().join("testdata/dmrpp/data/sds.h5"), &f).unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let (code, o, e) = vzplan(&["build", &s(&f), "--dmrpp", "-o", &s(&a)]);
    assert!(code == 0 || code == 3, "{o}{e}");
    let (code2, o, e) = vzplan(&["build", &s(&f), "-o", &s(&b)]);
    assert_eq!(code, code2, "{o}{e}");
    assert_eq!(refs(&a), refs(&b));
}
