//! End-to-end: the `vzplan` binary on the shipped collections (testdata/collections, written by
//! netCDF4-python). Values are checked by scripts/readback.py; here: exit codes, the refs'
//! structure, reports, scan → build --from-layouts, verify.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(case: &str) -> Vec<String> {
    let dir = root().join("testdata/collections").join(case);
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".nc"))
        .collect();
    v.sort();
    v
}

fn vzplan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .args(args)
        .output()
        .expect("run vzplan");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

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
    let line = stdout
        .lines()
        .find(|l| l.contains("tas_part_1.nc: tas: last chunk along time holds 10 of 30 rows"))
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
            .any(|t| t.contains("not_netcdf.nc: not a netCDF, HDF5 or TIFF file")),
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
