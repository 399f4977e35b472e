//! End-to-end: what `vzplan` says about inputs it cannot read (deliberately corrupt copies of
//! shipped fixtures, made here: truncated, a PNG header, a web page, a directory), and text
//! output into a pipe closed early.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
mod common;
use common::{root, vzplan};

/// A copy of a shipped fixture cut to its first `len` bytes.
fn truncated_copy(fixture: &str, dir: &Path, len: usize) -> String {
    let bytes = std::fs::read(root().join(fixture)).unwrap();
    assert!(bytes.len() > len);
    let out = dir.join(Path::new(fixture).file_name().unwrap());
    std::fs::write(&out, &bytes[..len]).unwrap();
    out.display().to_string()
}

/// `1143` → `1,143`, as the messages write sizes.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The finding about `file` among `texts`.
fn finding_for(texts: &[String], file: &str) -> String {
    texts
        .iter()
        .find(|t| t.starts_with(file))
        .unwrap_or_else(|| panic!("no finding for {file}: {texts:?}"))
        .clone()
}

/// The findings' texts of `vzplan plan --json` over `inputs`.
fn finding_texts(inputs: &[&str]) -> (i32, Vec<String>) {
    let mut args = vec!["plan", "--json"];
    args.extend(inputs);
    let (code, stdout, stderr) = vzplan(&args);
    let v: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    let texts = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap().to_string())
        .collect();
    (code, texts)
}

#[test]
fn bad_files_are_told_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let good = root().join("testdata/collections/yearly/tas_day_2000.nc");
    let nc4 = truncated_copy(
        "testdata/collections/yearly/tas_day_2001.nc",
        dir.path(),
        1000,
    );
    let classic = truncated_copy("testdata/collections/nc3_records/obs_1.nc", dir.path(), 100);
    // Cut inside the data (after the header): the data's end is told.
    let fixed_len = std::fs::metadata(root().join("testdata/netcdf3/classic_fixed.nc"))
        .unwrap()
        .len() as usize;
    let data = truncated_copy(
        "testdata/netcdf3/classic_fixed.nc",
        dir.path(),
        fixed_len - 11,
    );
    let png = dir.path().join("image.nc");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let html = dir.path().join("login.nc");
    std::fs::write(
        &html,
        b"<!DOCTYPE html>\n<html><body>Sign in</body></html>\n",
    )
    .unwrap();
    let sub = dir.path().join("more");
    std::fs::create_dir(&sub).unwrap();
    let (png, html, sub) = (png.display(), html.display(), sub.display());
    let (png, html, sub) = (png.to_string(), html.to_string(), sub.to_string());
    let (code, texts) = finding_texts(&[
        good.to_str().unwrap(),
        &nc4,
        &classic,
        &data,
        &png,
        &html,
        &sub,
    ]);
    assert_eq!(code, 3, "{texts:?}");
    let find = |s: &str| finding_for(&texts, s);
    let t = find(&nc4);
    assert!(
        t.contains(": truncated: its metadata needs ")
            && t.contains(" bytes but the file has 1,000 (was the download interrupted?)"),
        "{t}"
    );
    let t = find(&classic);
    assert!(
        t.contains(": truncated: the header needs ") && t.contains("but the file has 100 "),
        "{t}"
    );
    let t = find(&data);
    assert!(
        t.contains(": truncated: its data needs ")
            && t.contains(&format!(
                " bytes but the file has {} (",
                thousands((fixed_len - 11) as u64)
            )),
        "{t}"
    );
    let t = find(&png);
    assert!(
        t.contains(": not a netCDF, HDF5, TIFF or DMR++ file: it starts like a PNG image"),
        "{t}"
    );
    assert!(find(&html).contains("it starts like an HTML page"));
    let t = find(&sub);
    assert!(
        t.contains(&format!(": is a directory — did you mean '{sub}/*.nc'?")),
        "{t}"
    );
    // Never a temp file of vzplan's own, nor a raw signature, in what is said.
    assert!(
        texts
            .iter()
            .all(|t| !t.contains("vzplan-tmp") && !t.contains("signature")),
        "{texts:?}"
    );
}

#[test]
fn a_lone_directory_is_named_as_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let (code, _, stderr) = vzplan(&["plan", &d]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("{d}: is a directory — did you mean '{d}/*.nc'?")),
        "{stderr}"
    );
    assert!(!stderr.contains("file://"), "{stderr}");
}

/// Runs vzplan with its standard output a pipe whose reader is already gone.
fn into_closed_pipe(args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("run vzplan");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn text_output_into_a_closed_pipe_ends_quietly() {
    let nc4 = root().join("testdata/hdf5/nc4.nc").display().to_string();
    let yearly = root().join("testdata/collections/yearly/tas_day_2000.nc");
    let yearly = yearly.display().to_string();
    for args in [
        vec!["info", nc4.as_str()],
        vec!["info", nc4.as_str(), "--json"],
        vec!["plan", yearly.as_str()],
        vec!["plan", yearly.as_str(), "--json"],
    ] {
        let (code, stderr) = into_closed_pipe(&args);
        assert_eq!(code, 141, "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
    // Standard error closed: messages are dropped, the run ends with its own exit code.
    let bad = root().join("testdata/collections/bad/not_netcdf.nc");
    let out = tempfile::tempdir().unwrap();
    let refs = out.path().join("refs.json");
    for (args, want) in [
        (vec!["plan", bad.to_str().unwrap()], 1),
        (
            vec![
                "build",
                yearly.as_str(),
                "--progress",
                "-o",
                refs.to_str().unwrap(),
            ],
            0,
        ),
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let status = Command::new(env!("CARGO_BIN_EXE_vzplan"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::from(writer))
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(want), "{args:?}");
    }
    assert!(refs.exists());
}

#[test]
fn progress_prints_plain_lines_when_not_a_terminal() {
    let dir = root().join("testdata/collections/daily20");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    files.sort();
    let mut args = vec!["plan", "--progress"];
    args.extend(files.iter().map(String::as_str));
    let (code, _, stderr) = vzplan(&args);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.first(),
        Some(&"vzplan: scanning 20 file(s)"),
        "{stderr}"
    );
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("vzplan: scanned 20/20 files, ") && last.contains(" 0 error(s) ("),
        "{stderr}"
    );
    // Without --progress, stderr that is not a terminal stays quiet.
    let (_, _, quiet) = vzplan(
        &args
            .iter()
            .copied()
            .filter(|a| *a != "--progress")
            .collect::<Vec<_>>(),
    );
    assert!(quiet.is_empty(), "{quiet}");
}

#[test]
fn an_html_page_vzplan_wrote_is_replaced_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let page = page.to_str().unwrap();
    let f = root().join("testdata/collections/yearly/tas_day_2000.nc");
    let f = f.to_str().unwrap();
    for _ in 0..2 {
        let (code, _, stderr) = vzplan(&["plan", f, "--html", page]);
        assert_eq!(code, 0, "{stderr}");
    }
}

#[test]
fn hdf5_and_tiff_files_cut_short_are_told_as_truncated() {
    let dir = tempfile::tempdir().unwrap();
    // An HDF5 file cut inside its superblock, and a TIFF cut inside its strips (the directory,
    // written first by tifffile here, is whole).
    let h5 = truncated_copy(
        "testdata/collections/yearly/tas_day_2001.nc",
        dir.path(),
        10,
    );
    let tif_len = std::fs::metadata(root().join("testdata/tiff/geotiff_f32.tif"))
        .unwrap()
        .len() as usize;
    let tif = truncated_copy("testdata/tiff/geotiff_f32.tif", dir.path(), tif_len - 100);
    let good = root().join("testdata/collections/yearly/tas_day_2000.nc");
    let (_, texts) = finding_texts(&[good.to_str().unwrap(), &h5, &tif]);
    let find = |s: &str| finding_for(&texts, s);
    let t = find(&h5);
    assert!(
        t.contains(": truncated: its metadata needs ") && t.contains("but the file has 10 ("),
        "{t}"
    );
    let t = find(&tif);
    assert!(
        t.contains(": truncated: its ") && t.contains(" (was the download interrupted?)"),
        "{t}"
    );
}
