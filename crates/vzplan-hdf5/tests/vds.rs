//! Virtual datasets against h5py's view of them (testdata/hdf5/vds/, written with h5py's
//! VirtualLayout and, for the numbered unlimited mapping, its low-level property list API by
//! scripts/fixtures/hdf5_vds.py): the mappings as h5py lists them, and every virtual dataset
//! vzplan references with h5py's shape, type and fill value, its chunks those of its sources;
//! the ones it cannot reference are problems naming the source. The values are compared by
//! reading the references back (tests/conformance/test_links.py).

use serde_json::Value;
use std::path::PathBuf;
use vzplan_core::{ProblemKind, SourceLayout};
mod common;
use common::Opens;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hdf5/vds")
}

fn oracle(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(format!("{name}.vds.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn read(name: &str, linked: bool) -> SourceLayout {
    let r = vzplan_io::open_local(dir().join(name)).unwrap();
    match linked {
        true => vzplan_hdf5::read_layout_linked(&r, &Opens::default()).unwrap(),
        false => vzplan_hdf5::read_layout(&r).unwrap(),
    }
}

/// The shape h5py gives a virtual dataset.
fn want_shape(name: &str, path: &str) -> Value {
    oracle(name)["datasets"][path]["shape"].clone()
}

/// A source's layout, read on its own.
fn source(name: &str) -> SourceLayout {
    read(name, false)
}

#[test]
fn mappings_are_read_as_h5py_lists_them() {
    for name in [
        "vds_aligned.h5",
        "vds_unaligned.h5",
        "vds_missing.h5",
        "vds_unlimited.h5",
    ] {
        let r = vzplan_io::open_local(dir().join(name)).unwrap();
        let listed = vzplan_hdf5::virtual_mappings(&r).unwrap();
        for (path, want) in oracle(name)["datasets"].as_object().unwrap() {
            let got = &listed.iter().find(|(p, _)| p == path).unwrap().1;
            let want = want["mappings"].as_array().unwrap();
            assert_eq!(got.len(), want.len(), "{name}:{path}");
            for (g, w) in got.iter().zip(want) {
                assert_eq!(g.file, w["file_name"].as_str().unwrap(), "{name}:{path}");
                assert_eq!(
                    g.dataset.trim_start_matches('/'),
                    w["dset_name"].as_str().unwrap().trim_start_matches('/')
                );
                // h5py's (start, stride, count, block) of the virtual selection: the same box
                // (HDF5 may store one block as a list of one).
                let vs: Vec<Vec<u64>> = serde_json::from_value(w["vspace"].clone()).unwrap();
                let shape: Vec<u64> = serde_json::from_value(want_shape(name, path)).unwrap();
                let got = g.target.span(&shape).unwrap();
                assert_eq!(got.start, vs[0], "{name}:{path}");
                let len: Vec<u64> = (0..vs[0].len())
                    .map(|d| vs[2][d].saturating_mul(vs[3][d]))
                    .collect();
                if !g.target.is_unlimited() {
                    assert_eq!(got.len, len, "{name}:{path}");
                }
            }
        }
    }
}

#[test]
fn aligned_virtual_datasets_are_their_sources_chunks() {
    let l = read("vds_aligned.h5", true);
    let o = oracle("vds_aligned.h5");
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    for (path, want) in o["datasets"].as_object().unwrap() {
        let a = l
            .arrays
            .iter()
            .find(|a| a.path == *path)
            .unwrap_or_else(|| panic!("{path}"));
        let shape: Vec<u64> = serde_json::from_value(want["shape"].clone()).unwrap();
        assert_eq!(a.shape, shape, "{path}");
        assert_eq!(
            a.dtype.numpy_str(),
            want["dtype"].as_str().unwrap(),
            "{path}"
        );
        let fill = a
            .dtype
            .decode_all_f64(a.fill_value.as_deref().unwrap_or(&vec![0; a.dtype.size]));
        // h5py's fill value; NaN is written as null.
        let want_fill = want["fillvalue"].as_f64().unwrap_or(f64::NAN);
        let got = fill.map(|f| f[0]).unwrap();
        assert!(
            got == want_fill || (got.is_nan() && want_fill.is_nan()),
            "{path}: {got}"
        );
    }
    // `vds` stacks src_0..3 (6 × 8, chunks 3 × 4) along rows: each source's four chunks, in
    // its own file, at rows 6·i.
    let vds = l.arrays.iter().find(|a| a.path == "vds").unwrap();
    assert_eq!(vds.chunks.block, [3, 4]);
    assert_eq!(vds.chunks.entries.len(), 16);
    for i in 0..4u64 {
        let src = source(&format!("src_{i}.h5"));
        let data = &src.arrays.iter().find(|a| a.path == "data").unwrap();
        assert_eq!(vds.codecs, data.codecs);
        let k = l.linked.iter().position(|s| s.url == src.url).unwrap() + 1;
        for c in &data.chunks.entries {
            let key = [c.index.at(0) + 2 * i, c.index.at(1)];
            let got = vds
                .chunks
                .entries
                .iter()
                .find(|e| e.index.to_vec() == key)
                .unwrap();
            assert_eq!((got.data, got.source), (c.data, k), "src_{i} {key:?}");
        }
    }
    // The same file's dataset: the file's own blocks (no linked source).
    let own = l.arrays.iter().find(|a| a.path == "vds_self").unwrap();
    let local = l.arrays.iter().find(|a| a.path == "local").unwrap();
    assert_eq!(own.chunks.entries, local.chunks.entries);
    assert!(!own.chunks.entries.has_sources());
    // A gap reads as the virtual dataset's fill value: no chunk there.
    let gap = l.arrays.iter().find(|a| a.path == "vds_gap").unwrap();
    assert!(gap
        .chunks
        .entries
        .iter()
        .all(|e| matches!(e.index.at(0), 0 | 1 | 4 | 5)));
    // The stack gains a leading axis of length-1 blocks over the sources' (3, 4).
    let stack = l.arrays.iter().find(|a| a.path == "vds_stack").unwrap();
    assert_eq!(stack.chunks.block, [1, 3, 4]);
}

#[test]
fn the_unlimited_mapping_runs_to_the_last_numbered_source() {
    let l = read("vds_unlimited.h5", true);
    let want = &oracle("vds_unlimited.h5")["datasets"]["vds"];
    let a = l.arrays.iter().find(|a| a.path == "vds").unwrap();
    let shape: Vec<u64> = serde_json::from_value(want["shape"].clone()).unwrap();
    assert_eq!(a.shape, shape);
    assert_eq!(a.chunks.entries.len(), 3);
    assert_eq!(l.linked.len(), 3);
}

#[test]
fn what_cannot_be_referenced_names_its_source() {
    let l = read("vds_unaligned.h5", true);
    for (path, source, what) in [
        ("vds", "src_0.h5:data", "elements 1..5 of its axis 0"),
        ("vds_offset", "block.h5:data", "onto 2..6 of axis 0"),
    ] {
        let p = l.problems.iter().find(|p| p.path == path).unwrap();
        assert_eq!(p.kind, ProblemKind::Storage);
        assert!(
            p.reason.contains(source) && p.reason.contains(what),
            "{}",
            p.reason
        );
    }
    let l = read("vds_missing.h5", true);
    let p = l.problems.iter().find(|p| p.path == "vds").unwrap();
    assert_eq!(p.kind, ProblemKind::LinkedFile);
    assert!(p.reason.contains("missing_9.h5"), "{}", p.reason);
    // Without a way to open other files, every source in another file is a file not read;
    // the one in the file itself is referenced.
    let l = read("vds_aligned.h5", false);
    assert!(l.linked.is_empty());
    assert!(l.arrays.iter().any(|a| a.path == "vds_self"));
    let p = l.problems.iter().find(|p| p.path == "vds").unwrap();
    assert_eq!(p.kind, ProblemKind::LinkedFile);
}
