//! Links as h5py follows them (testdata/hdf5/links/, written by scripts/fixtures/hdf5_links.py
//! with h5py, symbol-table groups and link messages): every name h5py opens a dataset at is an
//! array with the dataset's shape and dtype, referencing the same chunks as the object it leads
//! to; a link h5py cannot follow is a problem that says what it is.

use serde_json::Value;
use std::path::PathBuf;
use vzplan_core::{ProblemKind, SourceLayout};
mod common;
use common::Opens;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hdf5/links")
}

fn load(name: &str) -> (SourceLayout, Value) {
    let r = vzplan_io::open_local(dir().join(name)).unwrap();
    let l = vzplan_hdf5::read_layout(&r).unwrap_or_else(|e| panic!("{e}"));
    let oracle = std::fs::read_to_string(dir().join(format!("{name}.links.json"))).unwrap();
    (l, serde_json::from_str(&oracle).unwrap())
}

#[test]
fn every_name_h5py_opens_is_an_array_with_the_objects_chunks() {
    for name in ["links_latest.h5", "links_earliest.h5"] {
        let (l, oracle) = load(name);
        let array = |p: &str| l.arrays.iter().find(|a| a.path == p);
        for (path, o) in oracle["objects"].as_object().unwrap() {
            if o["kind"] != "dataset" || path == "ext" {
                continue;
            }
            let a = array(path).unwrap_or_else(|| panic!("{name}: {path} missing"));
            let shape: Vec<u64> = serde_json::from_value(o["shape"].clone()).unwrap();
            assert_eq!(a.shape, shape, "{name}: {path}");
            assert_eq!(
                a.dtype.numpy_str(),
                o["dtype"].as_str().unwrap(),
                "{name}: {path}"
            );
        }
        // A name and the object it leads to: the same chunks (the same bytes of the same file).
        for (alias, of) in [
            ("hard2", "arr"),
            ("soft_arr", "arr"),
            ("grp/rel", "grp/v"),
            ("soft_grp/v", "grp/v"),
            ("soft_grp/rel", "grp/v"),
        ] {
            let (a, b) = (array(alias).unwrap(), array(of).unwrap());
            assert_eq!(a.chunks.entries, b.chunks.entries, "{name}: {alias}");
        }
        // The group reached by a second name has its attributes there too.
        assert!(l.groups.iter().any(|g| g.path == "soft_grp"), "{name}");
        let problem = |p: &str| l.problems.iter().find(|x| x.path == p);
        let d = problem("dangling").unwrap();
        assert_eq!(d.kind, ProblemKind::Link);
        assert!(
            d.reason.contains("dangling") && d.reason.contains("/nowhere"),
            "{}",
            d.reason
        );
        // Read alone, nothing else is opened: both external links are files not read.
        for ext in ["ext", "ext_missing"] {
            let e = problem(ext).unwrap_or_else(|| panic!("{name}: {ext}"));
            assert_eq!(e.kind, ProblemKind::LinkedFile, "{name}: {ext}");
            assert!(e.reason.contains("external link"), "{}", e.reason);
        }
        assert!(l.linked.is_empty());
        assert!(
            !l.problems
                .iter()
                .any(|p| p.reason.contains("undefined address")),
            "{name}: {:?}",
            l.problems
        );
    }
}

#[test]
fn an_external_link_references_the_blocks_of_the_file_it_names() {
    let target = {
        let r = vzplan_io::open_local(dir().join("target.h5")).unwrap();
        vzplan_hdf5::read_layout(&r).unwrap()
    };
    let data = target.arrays.iter().find(|a| a.path == "data").unwrap();
    for name in ["links_latest.h5", "links_earliest.h5"] {
        let opens = Opens::default();
        let r = vzplan_io::open_local(dir().join(name)).unwrap();
        let l = vzplan_hdf5::read_layout_linked(&r, &opens).unwrap();
        let (_, oracle) = load(name);
        // The link's array: the target's, with every block in the linked file (source 1).
        let ext = l.arrays.iter().find(|a| a.path == "ext").expect("ext");
        let want = &oracle["objects"]["ext"];
        let shape: Vec<u64> = serde_json::from_value(want["shape"].clone()).unwrap();
        assert_eq!(ext.shape, shape);
        assert_eq!(ext.dtype.numpy_str(), want["dtype"].as_str().unwrap());
        assert_eq!(ext.codecs, data.codecs);
        assert_eq!(ext.chunks.entries.len(), data.chunks.entries.len());
        for (e, d) in ext.chunks.entries.iter().zip(data.chunks.entries.iter()) {
            assert_eq!((e.index, e.data, e.source), (d.index, d.data, 1), "{name}");
        }
        assert_eq!(l.linked.len(), 1);
        assert_eq!(l.linked[0].url, target.url);
        assert_eq!(l.linked[0].size, target.size);
        // Its own arrays' blocks stay in the file itself.
        let arr = l.arrays.iter().find(|a| a.path == "arr").unwrap();
        assert!(!arr.chunks.entries.has_sources());
        // The missing file was looked for where HDF5 looks, and is a problem saying so.
        let missing = l.problems.iter().find(|p| p.path == "ext_missing").unwrap();
        assert_eq!(missing.kind, ProblemKind::LinkedFile);
        assert!(
            missing.reason.contains("missing.h5 does not exist"),
            "{}",
            missing.reason
        );
        let asked = opens.0.lock().unwrap().clone();
        assert_eq!(asked.len(), 2, "{asked:?}");
        assert!(
            asked.iter().all(|u| u.starts_with(&format!(
                "file://{}",
                dir().canonicalize().unwrap().display()
            ))),
            "{asked:?}"
        );
    }
}
