//! End-to-end: the `vzplan` binary on the shipped collections (testdata/collections, written by
//! netCDF4-python). Values are checked by tests/conformance/test_readback.py; here: exit codes, the refs'
//! structure, reports, scan → build --from-layouts, verify.

use serde_json::Value;
use std::path::Path;
use std::process::Command;
mod common;
use common::{files, root, vzplan};

fn build(case: &str, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let fs = files(case);
    let mut args: Vec<&str> = vec!["build"];
    args.extend(fs.iter().map(|s| s.as_str()));
    args.extend(["-o", out.to_str().unwrap()]);
    args.extend(extra);
    vzplan(&args)
}

#[test]
fn yearly_files_build_one_rectilinear_array() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refs.json");
    let (code, stdout, stderr) = build("yearly", &out, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["version"], 1);
    let templates = v["templates"].as_object().unwrap();
    assert_eq!(templates.len(), 4);
    assert!(templates["u0"]
        .as_str()
        .unwrap()
        .ends_with("yearly/tas_day_2000.nc"));
    let refs = v["refs"].as_object().unwrap();
    let meta: Value = serde_json::from_str(refs["tas/zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(meta["shape"], serde_json::json!([1461, 3, 4]));
    assert_eq!(
        meta["chunk_grid"]["configuration"]["chunk_shapes"],
        serde_json::json!([[366, [365, 3]], 3, 4])
    );
    assert_eq!(meta["fill_value"], serde_json::json!(1e20));
    assert_eq!(meta["attributes"]["units"], "K");
    assert_eq!(
        meta["attributes"]["coords:coordinates"]["time"]["type"],
        "interval"
    );
    let tmax: Value = serde_json::from_str(refs["tasmax/zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(tmax["codecs"][0]["configuration"]["endian"], "big");
    // One chunk per file, each pointing into its own file.
    for i in 0..4 {
        let c = &refs[&format!("tas/c/{i}/0/0")];
        assert_eq!(c[0], format!("{{{{u{i}}}}}"));
        assert!(c[1].as_u64().unwrap() > 0 && c[2].as_u64().unwrap() > 0);
    }
    assert!(refs.contains_key("time/c/0"));
    assert!(refs["time/c/0"].as_str().unwrap().starts_with("base64:"));
    // The consolidated zarr.json beside it.
    let z: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("refs.zarr.json")).unwrap())
            .unwrap();
    assert_eq!(z["consolidated_metadata"]["metadata"]["tas"], meta);
    assert!(stdout.contains("wrote "));
}

#[test]
fn padded_chunks_are_reported_with_a_fix_and_exit_3() {
    let fs = files("padded");
    let mut args = vec!["plan"];
    args.extend(fs.iter().map(|s| s.as_str()));
    let (code, stdout, _) = vzplan(&args);
    assert_eq!(code, 3);
    // The two files say the same: one group, with one loop (cli_summary.rs).
    assert!(
        stdout.contains("  [error] 2 files: tas: last chunk along time holds 10 of 30 rows"),
        "{stdout}"
    );
    let line = stdout
        .lines()
        .find(|l| l.contains("all at once: ") && l.contains("tas_part_1.nc"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("nccopy -c time/100,lat/3,lon/4"), "{line}");
    assert!(!stdout.contains("contributes nothing"), "{stdout}");

    args.push("--json");
    let (code, stdout, _) = vzplan(&args);
    assert_eq!(code, 3);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["left_out"], serde_json::json!(["tas"]));
    assert_eq!(v["complete"], false);
    let kinds: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        vec!["padded_interior_chunk", "padded_interior_chunk"]
    );
}

#[test]
fn nothing_wrong_is_written_for_padded_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refs.json");
    let (code, _, _) = build("padded", &out, &[]);
    assert_eq!(code, 3);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let refs = v["refs"].as_object().unwrap();
    assert!(!refs.keys().any(|k| k.starts_with("tas/")));
    assert!(refs.contains_key("time/zarr.json"));
}

#[test]
fn bad_files_are_named_and_the_rest_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refs.json");
    let (code, stdout, stderr) = build("bad", &out, &["--json"]);
    assert_eq!(code, 3, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let texts: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("not_netcdf.nc: not a netCDF, HDF5, TIFF or DMR++ file")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("truncated.nc: ")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("tas_2001_scaleoffset.nc: tas: ") && t.contains("scaleoffset")),
        "{texts:?}"
    );
    assert!(v["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["path"] == "time"));
}

#[test]
fn scan_then_build_from_layouts_equals_a_direct_build() {
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.json");
    assert_eq!(build("monthly", &direct, &[]).0, 0);
    let fs = files("monthly");
    // Two shards, merged at build time.
    for i in 0..2 {
        let shard = format!("{i}/2");
        let out = dir.path().join(format!("layouts-{i}.jsonl"));
        let mut args = vec!["scan"];
        args.extend(fs.iter().map(|s| s.as_str()));
        args.extend(["-o", out.to_str().unwrap(), "--shard", &shard]);
        let (code, _, stderr) = vzplan(&args);
        assert_eq!(code, 0, "{stderr}");
    }
    let merged = dir.path().join("merged.json");
    let pattern = dir.path().join("layouts-*.jsonl");
    let (code, _, stderr) = vzplan(&[
        "build",
        "--from-layouts",
        pattern.to_str().unwrap(),
        "-o",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read(&direct).unwrap(),
        std::fs::read(&merged).unwrap()
    );
}

#[test]
fn verify_detects_a_changed_source() {
    let dir = tempfile::tempdir().unwrap();
    for f in files("yearly").iter().take(2) {
        std::fs::copy(f, dir.path().join(Path::new(f).file_name().unwrap())).unwrap();
    }
    let out = dir.path().join("refs.json");
    let a = dir.path().join("tas_day_2000.nc");
    let b = dir.path().join("tas_day_2001.nc");
    let (code, _, e) = vzplan(&[
        "build",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{e}");
    assert_eq!(vzplan(&["verify", out.to_str().unwrap()]).0, 0);
    let mut bytes = std::fs::read(&b).unwrap();
    bytes.extend_from_slice(b"appended");
    std::fs::write(&b, bytes).unwrap();
    let (code, stdout, _) = vzplan(&["verify", out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stdout.contains("tas_day_2001.nc: size is"), "{stdout}");
}

#[test]
fn usage_errors_exit_2_and_missing_inputs_exit_1() {
    assert_eq!(vzplan(&["build"]).0, 2);
    assert_eq!(vzplan(&["frobnicate"]).0, 2);
    let (code, _, stderr) = vzplan(&["plan", "/nonexistent/*.nc"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("/nonexistent/*.nc"), "{stderr}");
}

#[test]
fn geotiff_scenes_stack_with_spatial_coordinates() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refs.json");
    let src = root().join("testdata/collections/tiff_stack");
    let mut fs: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    fs.sort();
    let mut args: Vec<&str> = vec!["build"];
    args.extend(fs.iter().map(|s| s.as_str()));
    args.extend(["-o", out.to_str().unwrap(), "--stack-dim", "time"]);
    let (code, stdout, stderr) = vzplan(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let meta: Value = serde_json::from_str(v["refs"]["0/zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(
        meta["dimension_names"],
        serde_json::json!(["time", "y", "x"])
    );
    assert_eq!(
        meta["chunk_grid"]["configuration"]["chunk_shapes"],
        serde_json::json!([1, [[30, 3], 10], 24])
    );
    let attrs = &meta["attributes"];
    assert_eq!(
        attrs["coords:coordinates"]["y"],
        serde_json::json!({"type": "reference", "convention": "spatial"})
    );
    assert_eq!(attrs["proj:code"], "EPSG:32633");
    let names: Vec<&str> = attrs["zarr_conventions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["coords", "spatial:", "proj:"]);
}

#[test]
fn scan_writes_the_layout_the_library_reads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("layouts.jsonl");
    let file = &files("yearly")[1];
    let (code, _, stderr) = vzplan(&["scan", file, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let r = vzplan::open(file, &vzplan::IoOptions::default()).unwrap();
    let layout = vzplan::formats::read_layout(r.as_ref(), &vzplan::ReadOptions::default()).unwrap();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("{}\n", serde_json::to_string(&layout).unwrap())
    );
}

// ---- Batch trust (inputs, outputs, secrets, exit codes) ----

/// Runs vzplan with a time limit (a FIFO input used to hang forever): killed and reported as
/// exit -9 past `secs`.
fn vzplan_within(secs: u64, args: &[&str], dir: &Path) -> (i32, String, String) {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run vzplan");
    // Read both pipes while waiting: a child writing more than a pipe holds would block.
    let pipe = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut r) = r {
                r.read_to_string(&mut s).unwrap();
            }
            s
        })
    };
    let out = pipe(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err = pipe(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let start = std::time::Instant::now();
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code().unwrap_or(-1);
        }
        if start.elapsed().as_secs() > secs {
            child.kill().unwrap();
            child.wait().unwrap();
            break -9;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    (code, out, err)
}

/// The yearly collection copied into a fresh directory (file names only).
fn yearly_copy() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for f in files("yearly") {
        let name = Path::new(&f)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        std::fs::copy(&f, dir.path().join(&name)).unwrap();
        names.push(name);
    }
    (dir, names)
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

#[test]
fn non_regular_inputs_are_left_out_by_name_and_the_rest_built() {
    let (dir, names) = yearly_copy();
    let d = dir.path();
    std::os::unix::fs::symlink("nowhere.nc", d.join("dangling.nc")).unwrap();
    std::os::unix::fs::symlink("loop_b.nc", d.join("loop_a.nc")).unwrap();
    std::os::unix::fs::symlink("loop_a.nc", d.join("loop_b.nc")).unwrap();
    mkfifo(&d.join("y.nc"));
    std::fs::create_dir(d.join("more")).unwrap();
    // The dangling link comes first: no input is special because of its place.
    let mut args = vec!["build", "dangling.nc", "loop_a.nc", "y.nc", "more"];
    args.extend(names.iter().map(String::as_str));
    args.extend(["-o", "refs.json"]);
    let (code, stdout, stderr) = vzplan_within(60, &args, d);
    assert_eq!(code, 3, "{stdout}{stderr}");
    for why in [
        "dangling.nc: dangling symbolic link",
        "loop_a.nc: symbolic link loop",
        "y.nc: is a FIFO",
        "more: is a directory — did you mean 'more/*.nc'?",
    ] {
        assert!(stdout.contains(why), "{why}: {stdout}");
    }
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("refs.json")).unwrap()).unwrap();
    assert_eq!(v["templates"].as_object().unwrap().len(), 4);

    // verify does not hang on a source that became a FIFO.
    std::fs::remove_file(d.join(&names[1])).unwrap();
    mkfifo(&d.join(&names[1]));
    let (code, stdout, stderr) = vzplan_within(60, &["verify", "refs.json"], d);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("is a FIFO"), "{stdout}");
}

#[test]
fn no_inputs_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = vzplan_within(60, &["build", "-o", "refs.json"], dir.path());
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no inputs given"), "{stderr}");
    assert!(!dir.path().join("refs.json").exists());
}

#[test]
fn outputs_never_replace_an_input_or_a_file_vzplan_did_not_write() {
    let (dir, names) = yearly_copy();
    let d = dir.path();
    let before = std::fs::read(d.join(&names[3])).unwrap();
    // `-o` naming an input: refused, even with --force.
    for force in [false, true] {
        let mut args = vec!["build", &names[0], &names[1], &names[2], &names[3]];
        args.extend(["-o", &names[3]]);
        if force {
            args.push("--force");
        }
        let (code, _, stderr) = vzplan_within(60, &args, d);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("is one of the inputs"), "{stderr}");
    }
    // The glob slip `-o acc/*.nc`: the output is a data file that is not an input.
    std::fs::create_dir(d.join("acc")).unwrap();
    std::fs::write(d.join("acc/x.nc"), &before).unwrap();
    let (code, _, stderr) =
        vzplan_within(60, &["build", &names[0], &names[1], "-o", "acc/x.nc"], d);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not a vzplan output"), "{stderr}");
    assert_eq!(std::fs::read(d.join("acc/x.nc")).unwrap(), before);
    assert_eq!(std::fs::read(d.join(&names[3])).unwrap(), before);
    // --force replaces it; a vzplan output is replaced without --force.
    let args = ["build", &names[0], &names[1], "-o", "acc/x.nc", "--force"];
    assert_eq!(vzplan_within(60, &args, d).0, 0);
    let args = ["build", &names[0], "-o", "acc/x.nc"];
    assert_eq!(vzplan_within(60, &args, d).0, 0);
    // --zarr-json equal to -o.
    let args = [
        "build",
        &names[0],
        "-o",
        "r.json",
        "--zarr-json",
        "./r.json",
    ];
    let (code, _, stderr) = vzplan_within(60, &args, d);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("given for two outputs"), "{stderr}");
    assert!(!d.join("r.json").exists());
}

#[test]
fn outputs_follow_symlinks_go_to_stdout_and_get_the_umask_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, names) = yearly_copy();
    let d = dir.path();
    std::fs::create_dir(d.join("real")).unwrap();
    std::os::unix::fs::symlink("real/refs.json", d.join("link.json")).unwrap();
    let sh = format!(
        "umask 022; exec {} build {} -o link.json",
        env!("CARGO_BIN_EXE_vzplan"),
        names[0]
    );
    let st = Command::new("sh")
        .arg("-c")
        .arg(&sh)
        .current_dir(d)
        .status()
        .unwrap();
    assert!(st.success());
    assert!(std::fs::symlink_metadata(d.join("link.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    let refs = std::fs::read_to_string(d.join("real/refs.json")).unwrap();
    assert!(refs.starts_with("{\"version\":1"));
    for f in ["real/refs.json", "link.zarr.json"] {
        let mode = std::fs::metadata(d.join(f)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{f}");
    }
    // `-o -`: the refs on standard output, the report on standard error, no file named `-`.
    let (code, stdout, stderr) = vzplan_within(60, &["build", &names[0], "-o", "-"], d);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert!(stderr.contains("array(s) planned"), "{stderr}");
    assert!(!d.join("-").exists() && !d.join("-.zarr.json").exists());
    // /dev/stdout (a link to a pipe here) is written through, not replaced.
    let args = ["build", &names[0], "-o", "/dev/stdout", "--no-zarr-json"];
    let (code, stdout, stderr) = vzplan_within(60, &args, d);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("{\"version\":1"), "{stdout}");
    assert!(std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn refs_and_zarr_json_are_renamed_together_and_stale_temp_files_go() {
    let (dir, names) = yearly_copy();
    let d = dir.path();
    assert_eq!(
        vzplan_within(60, &["build", &names[0], "-o", "refs.json"], d).0,
        0
    );
    let old = std::fs::read(d.join("refs.json")).unwrap();
    // zarr.json cannot be written: refs.json must stay the old one, and no temp file is left.
    let args = [
        "build",
        &names[0],
        &names[1],
        "-o",
        "refs.json",
        "--zarr-json",
        "no/such/dir/z.json",
    ];
    let (code, _, stderr) = vzplan_within(60, &args, d);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(std::fs::read(d.join("refs.json")).unwrap(), old);
    let tmp = |d: &Path| -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".vzplan-tmp-"))
            .collect()
    };
    assert!(tmp(d).is_empty(), "{:?}", tmp(d));
    // A temp file of a killed run (no such PID) is removed; one of a live process is kept.
    let dead = d.join(".refs.json.vzplan-tmp-999999999-1f");
    let live = d.join(format!(".refs.json.vzplan-tmp-{}-2e", std::process::id()));
    std::fs::write(&dead, b"partial").unwrap();
    std::fs::write(&live, b"in progress").unwrap();
    assert_eq!(
        vzplan_within(60, &["build", &names[0], "-o", "refs.json"], d).0,
        0
    );
    assert!(!dead.exists());
    assert!(live.exists());
}

#[test]
fn secrets_in_layout_urls_are_refused_and_never_written_or_echoed() {
    let (dir, names) = yearly_copy();
    let d = dir.path();
    let args = ["scan", &names[0], &names[1], &names[2], "-o", "l.jsonl"];
    assert_eq!(vzplan_within(60, &args, d).0, 0);
    let text = std::fs::read_to_string(d.join("l.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let with_url = |line: &str, url: &str| {
        let mut v: Value = serde_json::from_str(line).unwrap();
        v["url"] = url.into();
        v.to_string()
    };
    let secrets = [
        "s3://AKIAEXAMPLE:SECRETKEY@bucket/x.nc",
        "https://h.example/x.nc?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=SIGVALUE",
        "az://c/x.nc?sv=2022&se=2030&sig=SASVALUE",
    ];
    let mut out = vec![lines[0].to_string()];
    out.push(with_url(lines[1], secrets[0]));
    out.push(with_url(lines[2], secrets[1]));
    out.push(with_url(lines[2], secrets[2]));
    out.push(
        serde_json::json!({"url": secrets[1], "error": format!("{}: failed", secrets[1])})
            .to_string(),
    );
    std::fs::write(d.join("bad.jsonl"), out.join("\n")).unwrap();
    let args = [
        "build",
        "--from-layouts",
        "bad.jsonl",
        "-o",
        "refs.json",
        "--html",
        "p.html",
        "--json",
    ];
    let (code, stdout, stderr) = vzplan_within(60, &args, d);
    assert_eq!(code, 3, "{stdout}{stderr}");
    let mut all = stdout + &stderr;
    for f in ["refs.json", "refs.zarr.json", "p.html"] {
        all += &std::fs::read_to_string(d.join(f)).unwrap();
    }
    for s in ["AKIAEXAMPLE", "SECRETKEY", "SIGVALUE", "SASVALUE"] {
        assert!(!all.contains(s), "{s} leaked");
    }
    // Refusals of command-line URLs do not echo the secret either.
    for url in secrets {
        let (code, stdout, stderr) = vzplan_within(60, &["plan", url, "--json"], d);
        assert_ne!(code, 0);
        assert!(
            stderr.contains("REDACTED") || stderr.contains("***@"),
            "{stderr}"
        );
        for s in ["SECRETKEY", "SIGVALUE", "SASVALUE"] {
            assert!(!stderr.contains(s) && !stdout.contains(s), "{s}: {stderr}");
        }
    }
}

#[test]
fn unknown_var_or_concat_dim_is_a_usage_error_listing_the_names() {
    let (dir, names) = yearly_copy();
    let d = dir.path();
    let (code, _, stderr) =
        vzplan_within(60, &["plan", &names[0], &names[1], "--var", "nosuch"], d);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("lat, lon, pr, tas, tasmax, time"),
        "{stderr}"
    );
    let args = [
        "build",
        &names[0],
        &names[1],
        "--concat-dim",
        "nosuch",
        "-o",
        "r.json",
    ];
    let (code, _, stderr) = vzplan_within(60, &args, d);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("no such dimension; the files have: lat, lon, time"),
        "{stderr}"
    );
    assert!(!d.join("r.json").exists());
}

#[test]
fn files_that_contribute_nothing_make_the_run_incomplete() {
    let dir = root().join("testdata/mosaic/brick_strips");
    let mut args = vec!["plan".to_string(), "--json".to_string()];
    for e in std::fs::read_dir(&dir).unwrap() {
        args.push(e.unwrap().path().display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, _) = vzplan(&args);
    assert_eq!(code, 3, "{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["complete"], false);
    assert!(stdout.contains("contributes nothing"), "{stdout}");
}

#[test]
fn json_is_printed_also_when_the_run_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.nc"), b"not a netCDF file").unwrap();
    // Exit 1: nothing could be read; the failures come with the error.
    let (code, stdout, _) = vzplan_within(60, &["plan", "a.nc", "--json"], d);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["exit_code"], 1);
    assert_eq!(v["error"], "no input could be read");
    assert!(v["failures"][0]["error"].as_str().unwrap().contains("a.nc"));
    // Exit 2: usage errors, from the library and from argument parsing.
    for args in [
        &["build", "-o", "r.json", "--json"][..],
        &["plan", "--json", "--no-such-flag"][..],
    ] {
        let (code, stdout, _) = vzplan_within(60, args, d);
        assert_eq!(code, 2, "{args:?}");
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
        assert_eq!(v["exit_code"], 2);
        let e = v["error"].as_str().unwrap();
        assert!(
            e.contains("no inputs") || e.contains("--no-such-flag"),
            "{e}"
        );
    }
}

#[test]
fn no_templates_writes_the_template_urls_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let (code, out, err) = build("yearly", &a, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = build("yearly", &b, &["--no-templates"]);
    assert_eq!(code, 0, "{out}{err}");
    let va: Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let vb: Value = serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    assert!(vb.get("templates").is_none());
    let templates = va["templates"].as_object().unwrap();
    let (ra, rb) = (
        va["refs"].as_object().unwrap(),
        vb["refs"].as_object().unwrap(),
    );
    assert_eq!(ra.len(), rb.len());
    let mut expanded = 0;
    for (k, v) in ra {
        let mut want = v.clone();
        if let Some(t) = v.get(0).and_then(Value::as_str) {
            let name = t.trim_start_matches("{{").trim_end_matches("}}");
            want[0] = templates[name].clone();
            expanded += 1;
        }
        assert_eq!(&rb[k], &want, "{k}");
    }
    assert!(expanded >= 8, "{expanded}");
    // _FillValue is written as xarray's FillValueCoder writes it for Zarr v3: base64 of the
    // little-endian float64 (1e20 as float32, widened).
    let meta: Value = serde_json::from_str(ra["tas/zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(meta["attributes"]["_FillValue"], "AAAAgB2vFUQ=");
}
