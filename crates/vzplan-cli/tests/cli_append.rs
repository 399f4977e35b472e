//! `vzplan append`: a collection built with `--keep-layouts` from its first files, then
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
    // The kept files' chunks are read only under a prefix the command names.
    let dir = common::root().join("testdata/collections/padded");
    let dir = dir.display().to_string();
    check("padded", 2, false, &["--patch", "--sources-under", &dir]);
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

/// `vzplan` with a crash point set (a debug build aborts there, as `kill -9` would end it).
fn vzplan_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run vzplan");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An append killed after each of its renames (kept layouts, refs.json, zarr.json) leaves
/// refs.json whole, `verify` says what is apart, and the next append — with no new files —
/// writes exactly what one build of all the files writes.
#[test]
fn an_append_killed_at_any_rename_is_finished_by_the_next_append() {
    let all = files("monthly");
    for renames in ["1", "2", "3"] {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        let sa = a.display().to_string();
        run("build", &all[..6], &a, &["--keep-layouts"]);
        let old = read(&a);
        let mut args = vec!["append", "-o", &sa];
        args.extend(all[6..].iter().map(String::as_str));
        let (code, _, _) = vzplan_env(&args, &[("VZPLAN_TEST_ABORT_AFTER_RENAMES", renames)]);
        assert_ne!(code, 0, "{renames}: the crash point was reached");
        let now = read(&a);
        let refs: serde_json::Value = serde_json::from_slice(&now).expect("refs.json is whole");
        assert!(refs["refs"]["zarr.json"].is_string());
        let (code, out, _) = vzplan(&["verify", &sa]);
        match renames {
            // Kept layouts ahead: the old refs.json and zarr.json, and verify says so.
            "1" => {
                assert_eq!(now, old);
                assert_eq!(code, 1, "{out}");
                assert!(out.contains("an append was interrupted"), "{out}");
            }
            // refs.json new, zarr.json of the state before.
            "2" => {
                assert_eq!(code, 1, "{out}");
                assert!(out.contains("not the state of"), "{out}");
            }
            _ => assert_eq!(code, 0, "{out}"),
        }
        run("append", &[], &a, &[]);
        run("build", &all, &b, &["--keep-layouts"]);
        assert_eq!(vzplan(&["verify", &sa]).0, 0);
        for (x, y) in [
            ("a.json", "b.json"),
            ("a.zarr.json", "b.zarr.json"),
            ("a.layouts.jsonl", "b.layouts.jsonl"),
        ] {
            let (x, y) = (dir.path().join(x), dir.path().join(y));
            assert!(read(&x) == read(&y), "{renames}: {} differs", x.display());
        }
    }
}

/// Two appends on one collection at once: the second waits for the first and continues from
/// what it wrote; no batch is lost.
#[test]
fn concurrent_appends_on_one_collection_lose_no_batch() {
    let all = files("monthly");
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let sa = a.display().to_string();
    run("build", &all[..6], &a, &["--keep-layouts"]);
    let spawn = |batch: &[String]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_vzplan"))
            .args(["append", "-o", &sa])
            .args(batch)
            .env("VZPLAN_TEST_PAUSE_BEFORE_COMMIT_MS", "400")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = spawn(&all[6..9]);
    std::thread::sleep(std::time::Duration::from_millis(100));
    let second = spawn(&all[9..]);
    for c in [first, second] {
        let out = c.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let refs: serde_json::Value = serde_json::from_slice(&read(&a)).unwrap();
    let root: serde_json::Value =
        serde_json::from_str(refs["refs"]["zarr.json"].as_str().unwrap()).unwrap();
    let sources = root["attributes"]["vzplan"]["sources"].as_array().unwrap();
    assert_eq!(sources.len(), all.len(), "a batch was lost");
    assert_eq!(vzplan(&["verify", &sa]).0, 0);
}

/// An Icechunk append killed after its kept layouts were renamed, before its commit, is
/// continued by the next append; a copy of the collection (other inodes and times) appends like
/// the original.
#[test]
fn an_icechunk_collection_survives_a_kill_and_a_copy() {
    let all = files("yearly");
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let r = repo.display().to_string();
    let (code, o, e) = vzplan(&["build", &all[0], "--icechunk", &r, "--keep-layouts"]);
    assert_eq!(code, 0, "{o}{e}");
    let env = [("VZPLAN_TEST_ABORT_AFTER_RENAMES", "1")];
    let (code, _, _) = vzplan_env(&["append", &all[1], "--icechunk", &r], &env);
    assert_ne!(code, 0);
    let (code, o, e) = vzplan(&["append", &all[2], "--icechunk", &r, "--json"]);
    assert_eq!(code, 0, "{o}{e}");
    let report: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(report["sources"].as_array().unwrap().len(), 3, "{o}");
    // A copy: every file new, the same bytes.
    let copy = tempfile::tempdir().unwrap();
    let cp = |from: &Path, to: &Path| {
        let ok = std::process::Command::new("cp")
            .args(["-r", &from.display().to_string(), &to.display().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    };
    cp(&repo, copy.path());
    cp(&dir.path().join("repo.layouts.jsonl"), copy.path());
    let r2 = copy.path().join("repo").display().to_string();
    let (code, o, e) = vzplan(&["append", &all[3], "--icechunk", &r2, "--json"]);
    assert_eq!(code, 0, "{o}{e}");
    let report: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(report["sources"].as_array().unwrap().len(), 4, "{o}");
}
