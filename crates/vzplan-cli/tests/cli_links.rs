//! Files that files name (HDF5 external links, virtual datasets' sources): read only when the
//! person running vzplan named them, referenced where their blocks lie, and their identity kept
//! for drift checks like every source's.

use serde_json::Value;
use std::path::{Path, PathBuf};
mod common;
use common::{root, vzplan};

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// testdata/hdf5/links copied into a temp directory (so that the outputs sit beside it).
fn links() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("links");
    std::fs::create_dir(&d).unwrap();
    for f in ["links_latest.h5", "target.h5"] {
        std::fs::copy(root().join("testdata/hdf5/links").join(f), d.join(f)).unwrap();
    }
    (dir, d)
}

fn refs(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_linked_file_is_read_only_when_named() {
    let (dir, d) = links();
    let out = dir.path().join("refs.json");
    let file = s(&d.join("links_latest.h5"));
    // Not named: the link is left out, nothing of the other file is in the output, and the
    // finding says which flag names it.
    let (code, o, e) = vzplan(&["build", &file, "-o", &s(&out)]);
    assert_eq!(code, 3, "{o}{e}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        !text.contains("written in target.h5"),
        "the linked file was read"
    );
    assert!(!text.contains("target.h5"), "the linked file is referenced");
    assert!(
        o.contains("ext: an external link to /data in target.h5"),
        "{o}"
    );
    // The flag's value as a person types it: the linked file's directory, not a file:// URL.
    let dir_shown = format!("--sources-under {}/", d.canonicalize().unwrap().display());
    assert!(o.contains(&dir_shown), "{o}");
    assert!(!o.contains("--sources-under file://"), "{o}");
    // Named: its blocks are referenced in it, its attributes copied, its identity recorded.
    let (code, o, e) = vzplan(&["build", &file, "--sources-under", &s(&d), "-o", &s(&out)]);
    // Still 3: `ext_missing` names a file that is not there, `dangling` nothing.
    assert_eq!(code, 3, "{o}{e}");
    let r = refs(&out);
    let meta: Value = serde_json::from_str(r["refs"]["ext/zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(meta["attributes"]["note"], "written in target.h5");
    let chunk = &r["refs"]["ext/c/0/0"];
    let target_url = format!(
        "file://{}",
        d.join("target.h5").canonicalize().unwrap().display()
    );
    let url = chunk[0].as_str().unwrap();
    let resolved = match url.strip_prefix("{{").and_then(|u| u.split_once("}}")) {
        Some((t, rest)) => format!("{}{rest}", r["templates"][t].as_str().unwrap()),
        None => url.to_string(),
    };
    assert_eq!(resolved, target_url);
    assert!(
        o.contains("ext_missing: an external link to /data in missing.h5"),
        "{o}"
    );
    assert!(o.contains("missing.h5 does not exist"), "{o}");
    // `verify` checks the linked file like the file itself.
    let (code, o, e) = vzplan(&["verify", &s(&out)]);
    assert_eq!(code, 0, "{o}{e}");
    std::fs::write(d.join("target.h5"), b"changed").unwrap();
    let (code, o, e) = vzplan(&["verify", &s(&out)]);
    assert_ne!(code, 0, "a changed linked file passes verify: {o}{e}");
    assert!(o.contains("target.h5") || e.contains("target.h5"), "{o}{e}");
}

#[test]
fn a_layout_line_keeps_the_files_its_arrays_link_to() {
    let (dir, d) = links();
    let file = s(&d.join("links_latest.h5"));
    let lines = dir.path().join("l.jsonl");
    let (code, o, e) = vzplan(&["scan", &file, "--sources-under", &s(&d), "-o", &s(&lines)]);
    assert_eq!(code, 0, "{o}{e}");
    let text = std::fs::read_to_string(&lines).unwrap();
    let l: Value =
        serde_json::from_str(text.lines().find(|l| l.contains("\"url\"")).unwrap()).unwrap();
    assert_eq!(l["linked"].as_array().map(Vec::len), Some(1), "{l}");
    let ext = l["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["path"] == "ext")
        .unwrap();
    assert!(ext["chunks"]["entries"]["source"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s == 1));
    // Built from the line, the references are the scan's.
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let (code, o, e) = vzplan(&["build", &file, "--sources-under", &s(&d), "-o", &s(&a)]);
    assert_eq!(code, 3, "{o}{e}");
    let (code, o, e) = vzplan(&["build", "--from-layouts", &s(&lines), "-o", &s(&b)]);
    assert_eq!(code, 3, "{o}{e}");
    assert_eq!(refs(&a)["refs"], refs(&b)["refs"]);
    // A line whose chunk names a linked file it does not list is not planned as such.
    let bad = text.replace("\"linked\":[", "\"linked_was\":[");
    std::fs::write(&lines, bad).unwrap();
    let (code, o, e) = vzplan(&["build", "--from-layouts", &s(&lines), "-o", &s(&b)]);
    assert_ne!(code, 0, "{o}{e}");
}

#[test]
fn a_virtual_dataset_counts_the_files_its_chunks_lie_in() {
    let vds = root().join("testdata/hdf5/vds");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refs.json");
    let file = s(&vds.join("vds_aligned.h5"));
    let (code, o, e) = vzplan(&["build", &file, "--sources-under", &s(&vds), "-o", &s(&out)]);
    assert_eq!(code, 0, "{o}{e}");
    // `vds` stitches src_0..src_3.h5; `vds_self` maps a dataset of its own file.
    let line = |name: &str| {
        o.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap()
    };
    assert!(line("vds ").contains("[16 chunks from 4 file(s)]"), "{o}");
    assert!(line("vds_self ").contains("from 1 file(s)]"), "{o}");
}
