//! Every error or warning finding carries a fix a scientist can run: over every shipped
//! collection and mosaic case (plus the bad inputs among them), `plan --json` has a non-empty `fix`
//! on each, and no fix is a template (`in.nc out.nc`): rewrite commands name the real file and an
//! output beside it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
mod common;
use common::root;

/// `plan --json` of one case: its findings.
fn findings(base: &Path, case: &Value) -> Vec<Value> {
    let mut args: Vec<String> = vec!["plan".into(), "--json".into()];
    for pat in case["inputs"].as_array().unwrap() {
        let pat = base.join(pat.as_str().unwrap()).display().to_string();
        let mut found: Vec<String> = glob::glob(&pat)
            .unwrap()
            .map(|p| p.unwrap().display().to_string())
            .collect();
        found.sort();
        assert!(!found.is_empty(), "{pat} matches nothing");
        args.extend(found);
    }
    for a in case["args"].as_array().into_iter().flatten() {
        let a = a.as_str().unwrap();
        args.push(a.replace("{base}", &base.display().to_string()));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .args(&args)
        .output()
        .expect("run vzplan");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: {}",
            case["name"],
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v["findings"].as_array().cloned().unwrap_or_default()
}

fn all_cases() -> Vec<(PathBuf, Value)> {
    let mut out = Vec::new();
    for cases in [
        "testdata/collections/cases.json",
        "testdata/mosaic/cases.json",
    ] {
        let path = root().join(cases);
        let base = path.parent().unwrap().to_path_buf();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for c in v["cases"].as_array().unwrap() {
            out.push((base.clone(), c.clone()));
        }
    }
    out
}

const TEMPLATES: [&str; 6] = ["in.nc", "out.nc", "in.h5", "out.h5", "in.tif", "out.tif"];

#[test]
fn every_error_and_warning_has_a_fix_naming_real_files() {
    let mut checked = 0;
    for (base, case) in all_cases() {
        for f in findings(&base, &case) {
            let sev = f["severity"].as_str().unwrap_or("");
            if sev != "error" && sev != "warning" {
                continue;
            }
            checked += 1;
            let fix = f["fix"].as_str().unwrap_or("");
            assert!(!fix.trim().is_empty(), "{}: no fix for {f}", case["name"]);
            for t in TEMPLATES {
                let word = format!(" {t}");
                assert!(
                    !fix.contains(&word),
                    "{}: template {t} in {fix}",
                    case["name"]
                );
            }
        }
    }
    // The shipped cases do have problems to fix: the check above is not vacuous.
    assert!(checked >= 20, "only {checked} error/warning findings");
}

/// The fix of the first error of `kind` in the case named `name`.
fn fix_of(name: &str, kind: &str) -> String {
    let (base, case) = all_cases()
        .into_iter()
        .find(|(_, c)| c["name"] == name)
        .unwrap();
    let f = findings(&base, &case)
        .into_iter()
        .find(|f| f["kind"] == kind)
        .unwrap_or_else(|| panic!("{name}: no {kind} finding"));
    f["fix"].as_str().unwrap().to_string()
}

#[test]
fn a_chunk_shape_mismatch_is_fixed_by_rechunking_that_file_like_the_others() {
    let dir = root().join("testdata/collections/mismatch");
    let dir = dir.canonicalize().unwrap().display().to_string();
    assert_eq!(
        fix_of("mismatch", "mismatch"),
        format!("nccopy -c time/10,lat/4,lon/4 {dir}/tas_b.nc {dir}/tas_b.rechunked.nc")
    );
}

#[test]
fn an_unsupported_filter_is_fixed_by_rewriting_without_it() {
    let fix = fix_of("bad", "unsupported");
    assert!(fix.contains("h5repack -f tas:NONE "), "{fix}");
    assert!(fix.contains("tas_2001_scaleoffset.unfiltered.nc"), "{fix}");
}

#[test]
fn a_padded_interior_chunk_names_the_file_to_rechunk() {
    let fix = fix_of("padded", "padded_interior_chunk");
    assert!(fix.contains("nccopy -c time/100,lat/3,lon/4 "), "{fix}");
    assert!(fix.contains("tas_part_1.rechunked.nc"), "{fix}");
}

#[test]
fn complex_integer_tiffs_are_fixed_by_converting_to_complex_floats() {
    let f = root().join("testdata/tiff/gdal/cint16.tif");
    let out = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .args(["plan", "--json", &f.display().to_string()])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fix = v["findings"][0]["fix"].as_str().unwrap_or("").to_string();
    assert!(fix.contains("gdal_translate -ot CFloat32 "), "{fix}");
    assert!(fix.contains("cint16.cfloat32.tif"), "{fix}");
}
