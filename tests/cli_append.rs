//! `vzplan append` (issue 10): a collection built with `--keep-layouts` from its first files, then
//! appended the rest, is byte for byte what `build` of all the files writes — refs.json, zarr.json
//! and the kept layouts — on every kind of collection that concatenates; a collection built
//! without kept layouts is refused, saying how to make it appendable.

use std::path::Path;
mod common;
use common::{files, vzplan};

fn run(cmd: &str, inputs: &[String], out: &Path, extra: &[&str]) -> i32 {
    let mut args: Vec<&str> = vec![cmd];
    args.extend(inputs.iter().map(String::as_str));
    let out = out.display().to_string();
    args.extend(["-o", &out]);
    args.extend(extra);
    let (code, o, e) = vzplan(&args);
    assert!(code == 0 || code == 3, "{cmd}: {code}\n{o}\n{e}");
    code
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Builds `first` with kept layouts, appends `rest` (in one call or one file at a time), and
/// compares every output with a build of all the files.
fn check(collection: &str, split: usize, one_by_one: bool, extra: &[&str]) {
    let all = files(collection);
    let (first, rest) = all.split_at(split);
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    let mut keep = vec!["--keep-layouts"];
    keep.extend(extra);
    run("build", first, &a, &keep);
    let code_a = if one_by_one {
        let mut c = 0;
        for f in rest {
            c = run("append", std::slice::from_ref(f), &a, extra);
        }
        c
    } else {
        run("append", rest, &a, extra)
    };
    let code_b = run("build", &all, &b, &keep);
    assert_eq!(code_a, code_b, "{collection}: exit codes differ");
    for (x, y) in [
        ("a.json", "b.json"),
        ("a.zarr.json", "b.zarr.json"),
        ("a.layouts.jsonl", "b.layouts.jsonl"),
    ] {
        let (x, y) = (dir.path().join(x), dir.path().join(y));
        assert!(
            read(&x) == read(&y),
            "{collection}: {} differs from {}",
            x.display(),
            y.display()
        );
    }
}

#[test]
fn yearly_files_appended_equal_one_build() {
    check("yearly", 2, false, &[]);
}

#[test]
fn monthly_files_appended_one_at_a_time_equal_one_build() {
    check("monthly", 5, true, &[]);
}

#[test]
fn daily_files_appended_equal_one_build() {
    check("daily20", 7, false, &[]);
}

#[test]
fn files_in_other_time_units_appended_are_rebased_as_in_one_build() {
    check("rebased", 1, false, &[]);
}

#[test]
fn padded_files_appended_equal_one_build_with_patch_and_without() {
    check("padded", 1, false, &[]);
    check("padded", 2, false, &["--patch"]);
    check("padded_raw", 1, false, &[]);
}

#[test]
fn a_collection_without_kept_layouts_is_refused_and_left_alone() {
    let all = files("yearly");
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    run("build", &all[..2], &a, &[]);
    let before = read(&a);
    let out = a.display().to_string();
    let (code, _, err) = vzplan(&["append", &all[2], "-o", &out]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--keep-layouts"), "{err}");
    assert_eq!(read(&a), before);
}

#[test]
fn a_file_appended_twice_is_used_once() {
    let all = files("yearly");
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    run("build", &all[..3], &a, &["--keep-layouts"]);
    run("append", &all[2..], &a, &[]);
    run("build", &all, &b, &[]);
    assert!(read(&a) == read(&b));
}

#[test]
fn a_kept_file_changed_since_its_scan_is_left_out_until_given_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Vec::new();
    for f in files("yearly") {
        let to = dir.path().join(Path::new(&f).file_name().unwrap());
        std::fs::copy(&f, &to).unwrap();
        copies.push(to.display().to_string());
    }
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    run("build", &copies[..2], &a, &["--keep-layouts"]);
    // Rewritten in place since it was scanned: one byte more.
    let mut bytes = read(Path::new(&copies[0]));
    bytes.push(0);
    std::fs::write(&copies[0], &bytes).unwrap();
    let out = a.display().to_string();
    let (code, text, err) = vzplan(&["append", &copies[2], &copies[3], "-o", &out]);
    assert_eq!(code, 3, "{text}{err}");
    assert!(text.contains("changed since it was scanned"), "{text}");
    // Given again, it is scanned anew: the collection is what one build of all writes.
    run("append", &copies[..1], &a, &[]);
    run("build", &copies, &b, &[]);
    assert!(read(&a) == read(&b));
}

#[test]
fn an_icechunk_repository_on_object_storage_needs_a_path_for_its_layouts() {
    let all = files("yearly");
    let (code, _, err) = vzplan(&["append", &all[0], "--icechunk", "s3://bucket/repo"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--keep-layouts=FILE"), "{err}");
}

#[test]
fn an_icechunk_append_from_stale_layouts_is_refused_not_a_lost_update() {
    let all = files("yearly");
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let kept = dir.path().join("repo.layouts.jsonl");
    let r = repo.display().to_string();
    let (code, o, e) = vzplan(&[
        "build",
        &all[0],
        &all[1],
        "--icechunk",
        &r,
        "--keep-layouts",
    ]);
    assert_eq!(code, 0, "{o}{e}");
    let old = read(&kept);
    // A first append (another process, say) commits 2002; the second still holds the layouts
    // from before it.
    let (code, o, e) = vzplan(&["append", &all[2], "--icechunk", &r]);
    assert_eq!(code, 0, "{o}{e}");
    std::fs::write(&kept, &old).unwrap();
    let (code, o, e) = vzplan(&["append", &all[3], "--icechunk", &r]);
    assert_eq!(code, 1, "{o}{e}");
    assert!(e.contains("not the state whose layouts were kept"), "{e}");
}
