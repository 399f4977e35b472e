//! Batch trust through the library: inputs that are not regular files, layout files with bad or
//! over-long lines and secrets in their URLs, outputs that would destroy something, exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;
use vzplan::outputs::OutputError;
use vzplan::{layouts, BuildOptions, Error, Inputs, IoOptions, RefsOutput, ScanOptions, Source};

fn yearly() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/collections/yearly");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nc"))
        .collect();
    v.sort();
    v
}

#[test]
fn inputs_that_are_not_regular_files_are_rejected_before_opening() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("y.nc");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink("gone.nc", d.join("dangling.nc")).unwrap();
    let good = yearly()[0].display().to_string();
    let names = [
        d.join("dangling.nc").display().to_string(),
        fifo.display().to_string(),
        d.display().to_string(),
        good.clone(),
    ];
    let inputs = Inputs::new(names.clone());
    let expanded = inputs.expand(&IoOptions::default()).unwrap();
    let rejected: Vec<Option<&str>> = expanded.iter().map(|i| i.rejected.as_deref()).collect();
    assert!(rejected[0].unwrap().contains("dangling symbolic link"));
    assert!(rejected[1].unwrap().contains("FIFO"));
    let want = format!("did you mean '{}'?", d.join("*.nc").display());
    assert!(rejected[2].unwrap().ends_with(&want), "{rejected:?}");
    assert_eq!(rejected[3], None);
    // Scanning does not open them (the FIFO would block) and reads the rest.
    let scanned = vzplan::scan(&inputs, &ScanOptions::default(), &vzplan::NoProgress).unwrap();
    assert!(scanned[3].result.is_ok());
    assert!(scanned[..3]
        .iter()
        .all(|s| matches!(s.result, Err(vzplan::FileError::NotRegular { .. }))));
}

/// A layouts file: the yearly files' lines, with `extra` lines put after the first.
fn layouts_file(dir: &Path, extra: &[Vec<u8>]) -> PathBuf {
    let l = dir.join("l.jsonl");
    let files: Vec<String> = yearly().iter().map(|p| p.display().to_string()).collect();
    let scanned = vzplan::scan(
        &Inputs::new(files),
        &ScanOptions::default(),
        &vzplan::NoProgress,
    )
    .unwrap();
    let mut text = Vec::new();
    for (i, s) in scanned.iter().enumerate() {
        text.extend(layouts::line(s).unwrap().into_bytes());
        text.push(b'\n');
        if i == 0 {
            for e in extra {
                text.extend(e);
                text.push(b'\n');
            }
        }
    }
    std::fs::write(&l, text).unwrap();
    l
}

#[test]
fn an_over_long_or_bad_layout_line_is_left_out_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut long = b"{\"url\":\"file:///x.nc\",\"attrs\":\"".to_vec();
    long.resize(layouts::MAX_LINE + 10, b'a');
    long.extend(b"\"}");
    let l = layouts_file(dir.path(), &[long, b"not json".to_vec()]);
    let name = l.display().to_string();
    let files = vzplan::inputs::expand(std::slice::from_ref(&name), &IoOptions::default()).unwrap();
    let (ok, failed) = layouts::read(&files, &IoOptions::default()).unwrap();
    assert_eq!(ok.len(), 4, "the other lines are read");
    let urls: Vec<&str> = failed.iter().map(|f| f.url.as_str()).collect();
    assert_eq!(urls, [format!("{name}:2"), format!("{name}:3")]);
    assert!(
        failed[0].error.contains("line longer than 32 MiB"),
        "{}",
        failed[0].error
    );
}

#[test]
fn layout_urls_with_credentials_or_signatures_are_left_out_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let l = layouts_file(dir.path(), &[]);
    let text = std::fs::read_to_string(&l).unwrap();
    let first = text.lines().next().unwrap();
    let mut v: serde_json::Value = serde_json::from_str(first).unwrap();
    v["url"] = "s3://AKIAEXAMPLE:SECRETKEY@bucket/x.nc".into();
    let mut w = v.clone();
    w["url"] = "https://h.example/x.nc?X-Goog-Signature=SIGVALUE".into();
    std::fs::write(&l, format!("{text}{v}\n{w}\n")).unwrap();
    let files = vzplan::inputs::expand(&[l.display().to_string()], &IoOptions::default()).unwrap();
    let (ok, failed) = layouts::read(&files, &IoOptions::default()).unwrap();
    assert_eq!(ok.len(), 4);
    assert_eq!(failed.len(), 2);
    // Left out as the lines they are, the URL shown redacted.
    let name = l.display().to_string();
    assert_eq!(failed[0].url, format!("{name}:5"));
    assert_eq!(failed[1].url, format!("{name}:6"));
    assert!(failed[0].error.contains("s3://***@bucket/x.nc"));
    assert!(failed[1]
        .error
        .contains("https://h.example/x.nc?X-Goog-Signature=REDACTED"));
    for f in &failed {
        assert!(
            !f.error.contains("SECRETKEY") && !f.error.contains("SIGVALUE"),
            "{}",
            f.error
        );
    }
}

#[test]
fn an_output_onto_an_input_is_a_usage_error_even_forced() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("a.nc");
    std::fs::copy(&yearly()[0], &src).unwrap();
    let before = std::fs::read(&src).unwrap();
    // Given as a pattern: only the expanded inputs reveal it.
    let source = Source::Scan {
        inputs: Inputs::new([dir.path().join("*.nc").display().to_string()]),
        options: ScanOptions::default(),
    };
    let opts = BuildOptions {
        outputs: vec![Box::new(RefsOutput::new(&src))],
        force: true,
        keep_layouts: None,
        ..BuildOptions::default()
    };
    let e = vzplan::build(&source, &opts, &vzplan::NoProgress).unwrap_err();
    assert!(
        matches!(e, Error::Output(OutputError::IsInput { .. })),
        "{e}"
    );
    assert_eq!(e.exit_code(), 2);
    assert_eq!(e.json()["exit_code"], 2);
    assert!(e.json()["error"]
        .as_str()
        .unwrap()
        .contains("is one of the inputs"));
    assert_eq!(std::fs::read(&src).unwrap(), before);
    // `-` is standard output: no zarr.json file beside it.
    assert_eq!(RefsOutput::new("-").zarr_json, None);
}

#[test]
fn an_output_linked_to_an_input_is_refused_by_the_identity_its_classification_learned() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("a.nc");
    std::fs::copy(&yearly()[0], &src).unwrap();
    let before = std::fs::read(&src).unwrap();
    std::fs::hard_link(&src, d.join("hard.json")).unwrap();
    std::os::unix::fs::symlink("a.nc", d.join("soft.json")).unwrap();
    // Given by path: the guard tells it by the (device, inode) learned when it was classified.
    let names = [src.display().to_string(), yearly()[1].display().to_string()];
    let inputs = Inputs::new(names);
    let m = std::fs::metadata(&src).unwrap();
    let expanded = inputs.expand(&IoOptions::default()).unwrap();
    assert_eq!(expanded[0].id, Some((m.dev(), m.ino())));
    for out in ["hard.json", "soft.json"] {
        let source = Source::Scan {
            inputs: inputs.clone(),
            options: ScanOptions::default(),
        };
        let opts = BuildOptions {
            outputs: vec![Box::new(RefsOutput::new(d.join(out)))],
            force: true,
            ..BuildOptions::default()
        };
        let e = vzplan::build(&source, &opts, &vzplan::NoProgress).unwrap_err();
        assert!(
            matches!(&e, Error::Output(OutputError::IsInput { path }) if path.ends_with(out)),
            "{e}"
        );
    }
    // Given but left to another shard: not classified here, so `stat`ed by the guard.
    let source = Source::Scan {
        inputs: Inputs {
            shard: Some(vzplan::Shard::Slice(1, 2)),
            ..inputs
        },
        options: ScanOptions::default(),
    };
    let opts = BuildOptions {
        outputs: vec![Box::new(RefsOutput::new(d.join("hard.json")))],
        force: true,
        ..BuildOptions::default()
    };
    let e = vzplan::build(&source, &opts, &vzplan::NoProgress).unwrap_err();
    assert!(
        matches!(e, Error::Output(OutputError::IsInput { .. })),
        "{e}"
    );
    assert_eq!(std::fs::read(&src).unwrap(), before);
}
