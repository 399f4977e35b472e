//! End-to-end: reports start with a summary of the files (how many fit, how many need which
//! rewrite and how many bytes of files that is, how many cannot be read), and findings that say
//! the same about many files are one group with one shell loop. On the shipped collections; the
//! generated 40-file batch, with the loop run by nccopy, is tests/conformance/test_batch_report.py.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    // Canonical: the report shows files as the scan names them.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn files(case: &str) -> Vec<String> {
    let dir = root().join("testdata/collections").join(case);
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".nc") || p.ends_with(".tif"))
        .collect();
    v.sort();
    v
}

/// `vzplan plan FILES… [extra]`: exit code, stdout.
fn plan(files: &[String], extra: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .arg("plan")
        .args(files)
        .args(extra)
        .output()
        .expect("run vzplan");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn size(f: &str) -> u64 {
    std::fs::metadata(f).unwrap().len()
}

#[test]
fn padded_files_are_one_group_with_one_loop() {
    let fs = files("padded");
    let (code, text) = plan(&fs, &[]);
    assert_eq!(code, 3, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[1],
        "summary: 1 of 3 file(s) fit as they are; 2 need a rewrite (40.3 KiB of files)"
    );
    assert!(lines[2].starts_with("  2 file(s) (40.3 KiB), padded interior chunk in tas: nccopy -c time/100,lat/3,lon/4 \"$f\" \"${f%.nc}.rechunked.nc\""), "{text}");
    assert!(
        text.contains("  [error] 2 files: tas: last chunk along time holds 10 of 30 rows"),
        "{text}"
    );
    // tas_part_3.nc fits: the loop names the two others.
    let want = format!(
        "      all at once: for f in {} {}; do nccopy -c time/100,lat/3,lon/4 \"$f\" \"${{f%.nc}}.rechunked.nc\"; done",
        fs[0], fs[1]
    );
    assert!(lines.contains(&want.as_str()), "{want}\n{text}");
    assert!(!text.contains("  [error] /"), "one line per file: {text}");

    let (_, json) = plan(&fs, &["--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    let s = &v["summary"];
    assert_eq!(
        (&s["files"], &s["fit"], &s["rewrite"], &s["unreadable"]),
        (&3.into(), &1.into(), &2.into(), &0.into())
    );
    assert_eq!(s["rewrite_bytes"], size(&fs[0]) + size(&fs[1]));
    let g = &s["groups"][0];
    assert_eq!(g["kind"], "padded_interior_chunk");
    assert_eq!(g["files"], serde_json::json!([fs[0], fs[1]]));
    assert_eq!(
        format!("      all at once: {}", g["loop"].as_str().unwrap()),
        want
    );
    // Additive: the findings are still one per file.
    assert_eq!(v["findings"].as_array().unwrap().len(), 2);
}

#[test]
fn one_file_gets_its_command_with_its_own_names() {
    let fs = files("mismatch");
    let (code, text) = plan(&fs, &[]);
    assert_eq!(code, 3, "{text}");
    let b = &fs[1];
    let out = b.replace(".nc", ".rechunked.nc");
    let want =
        format!("  1 file(s) (20.2 KiB), mismatch in tas: nccopy -c time/10,lat/4,lon/4 {b} {out}");
    assert_eq!(text.lines().nth(2), Some(want.as_str()), "{text}");
}

#[test]
fn unreadable_files_are_counted_apart() {
    let (code, text) = plan(&files("bad"), &[]);
    assert_eq!(code, 3, "{text}");
    assert_eq!(
        text.lines().nth(1),
        Some("summary: 1 of 4 file(s) fit as they are; 1 need a rewrite (23.3 KiB of files); 2 cannot be read"),
        "{text}"
    );
}

#[test]
fn every_collection_summary_adds_up() {
    let cases = [
        "yearly",
        "daily20",
        "monthly",
        "mismatch",
        "padded",
        "padded_fletcher",
        "padded_raw",
        "rebased",
        "nc3_records",
        "bad",
        "tiff_stack",
    ];
    for case in cases {
        let fs = files(case);
        let (_, json) = plan(&fs, &["--json"]);
        let v: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{case}: {e}"));
        let s = &v["summary"];
        let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{case}: {k}: {s}"));
        assert_eq!(n("files") as usize, fs.len(), "{case}: {s}");
        assert_eq!(
            n("fit") + n("rewrite") + n("unreadable") + n("other"),
            n("files"),
            "{case}: {s}"
        );
        // Every finding is in exactly one group.
        let in_groups: usize = s["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["files"].as_array().unwrap().len().max(1))
            .sum();
        assert_eq!(
            in_groups,
            v["findings"].as_array().unwrap().len(),
            "{case}: {s}"
        );
        if ["yearly", "daily20", "monthly", "rebased"].contains(&case) {
            assert_eq!(n("fit"), n("files"), "{case}: {s}");
        }
    }
}

#[test]
fn the_html_page_draws_a_left_out_array_with_its_padded_chunks_marked() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("padded.html");
    let (code, _) = plan(&files("padded"), &["--html", page.to_str().unwrap()]);
    assert_eq!(code, 3);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("data-array=\"tas\" data-dim=\"time\" data-array-status=\"left_out\""));
    assert_eq!(
        html.matches("data-chunk-mark=\"padded_interior\"").count(),
        2
    );
    assert_eq!(
        html.matches("data-coord=").count(),
        3,
        "coordinates as table rows"
    );
    assert!(!html.contains("inside the mosaic"));
    // One finding entry for both files, with one loop.
    assert_eq!(html.matches("data-finding=").count(), 1);
    assert_eq!(html.matches("data-loop").count(), 1);
}

#[test]
fn the_text_report_shows_paths_relative_to_the_current_directory() {
    let out = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .current_dir(root().join("testdata/collections"))
        .args([
            "plan",
            "padded/tas_part_1.nc",
            "padded/tas_part_2.nc",
            "padded/tas_part_3.nc",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\n      padded/tas_part_1.nc, padded/tas_part_2.nc\n"),
        "{text}"
    );
    assert!(
        text.contains("all at once: for f in padded/tas_part_1.nc padded/tas_part_2.nc; do nccopy"),
        "{text}"
    );
    assert!(!text.contains(root().to_str().unwrap()), "{text}");
    // --json keeps absolute paths.
    let out = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .current_dir(root().join("testdata/collections"))
        .args([
            "plan",
            "--json",
            "padded/tas_part_1.nc",
            "padded/tas_part_2.nc",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["sources"][0].as_str().unwrap().starts_with('/'));
}
