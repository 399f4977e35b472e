//! `--stack-coord`: scenes stacked in date order with a CF time coordinate, files without a date
//! left out with exit 3, and patterns that cannot mean anything refused before anything is read.

use base64::Engine;
use serde_json::Value;
mod common;
use common::{root, vzplan};

/// The scenes, out of date order.
fn scenes() -> Vec<String> {
    ["20240103", "20240101", "20240102"]
        .iter()
        .map(|d| {
            let p = root().join(format!("testdata/geo/scenes/scene_{d}.tif"));
            p.display().to_string()
        })
        .collect()
}

fn build(extra: &[&str], inputs: &[String]) -> (i32, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refs.json");
    let mut args = vec!["build", "-o", out.to_str().unwrap()];
    args.extend(extra);
    args.extend(inputs.iter().map(String::as_str));
    let (code, stdout, stderr) = vzplan(&args);
    let refs = std::fs::read_to_string(&out)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null);
    (code, refs, stdout + &stderr)
}

fn meta(refs: &Value, key: &str) -> Value {
    serde_json::from_str(refs["refs"][key].as_str().unwrap()).unwrap()
}

fn int64s(refs: &Value, key: &str) -> Vec<i64> {
    let b64 = refs["refs"][key]
        .as_str()
        .unwrap()
        .strip_prefix("base64:")
        .unwrap();
    let raw = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    raw.chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn names_give_the_dates_and_the_order() {
    let (code, refs, out) = build(&["--stack-coord", "time=%Y%m%d"], &scenes());
    assert_eq!(code, 0, "{out}");
    let time = meta(&refs, "time/zarr.json");
    assert_eq!(time["dimension_names"], serde_json::json!(["time"]));
    assert_eq!(time["attributes"]["units"], "days since 1970-01-01");
    assert_eq!(time["attributes"]["calendar"], "proleptic_gregorian");
    assert_eq!(int64s(&refs, "time/c/0"), [19_723, 19_724, 19_725]);
    // Chunk i along time lies in the i-th scene by date.
    let templates = &refs["templates"];
    for (i, day) in ["20240101", "20240102", "20240103"].iter().enumerate() {
        let t = refs["refs"][format!("0/c/{i}/0/0")][0].as_str().unwrap();
        let url = templates[t.trim_matches(|c| c == '{' || c == '}')]
            .as_str()
            .unwrap();
        assert!(url.ends_with(&format!("scene_{day}.tif")), "{i}: {url}");
    }
    assert_eq!(meta(&refs, "0/zarr.json")["dimension_names"][0], "time");
}

#[test]
fn the_tiff_datetime_tag_gives_the_times_along_a_named_stack() {
    let args = ["--stack-coord", "when=datetime", "--stack-dim", "scene"];
    let (code, refs, out) = build(&args, &scenes());
    assert_eq!(code, 0, "{out}");
    let when = meta(&refs, "when/zarr.json");
    assert_eq!(when["dimension_names"], serde_json::json!(["scene"]));
    assert_eq!(when["attributes"]["units"], "seconds since 1970-01-01");
    let t0 = 19_723 * 86_400 + 10 * 3600 + 30 * 60;
    assert_eq!(
        int64s(&refs, "when/c/0"),
        [t0, t0 + 86_400, t0 + 2 * 86_400]
    );
    let root_attrs = meta(&refs, "zarr.json")["attributes"].clone();
    assert!(
        root_attrs.get("DateTime").is_none(),
        "one date for the whole stack"
    );
}

#[test]
fn files_without_a_date_or_with_the_same_one_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let s = scenes();
    let undated = dir.path().join("undated.tif");
    let twin = dir.path().join("copy_20240101.tif");
    std::fs::copy(&s[0], &undated).unwrap();
    std::fs::copy(&s[1], &twin).unwrap();
    let mut inputs = s.clone();
    inputs.push(undated.display().to_string());
    inputs.push(twin.display().to_string());
    let (code, refs, out) = build(&["--stack-coord", "time=%Y%m%d"], &inputs);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("undated.tif") && out.contains("no date in its name"),
        "{out}"
    );
    assert!(
        out.contains("copy_20240101.tif") && out.contains("scene_20240101.tif"),
        "{out}"
    );
    assert_eq!(int64s(&refs, "time/c/0"), [19_724, 19_725]);
}

#[test]
fn meaningless_specs_are_refused_before_reading() {
    for spec in ["time", "time=%Y%q", "time=%m%d", "=%Y"] {
        let (code, _, out) = vzplan(&["plan", "--stack-coord", spec, "/nonexistent/*.tif"]);
        assert_eq!(code, 2, "{spec}: {out}");
    }
    let (code, _, err) = vzplan(&["plan", "--stack-coord", "t=%Y", "--concat-dim", "t", "x.nc"]);
    assert_eq!(code, 2);
    assert!(err.contains("--stack-coord"), "{err}");
}
