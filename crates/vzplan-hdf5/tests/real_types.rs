//! The fixtures of `scripts/fixtures/real.py` (testdata/real/): datatypes, plugin filters and
//! huge fractal-heap attributes as real writers (h5py, netCDF4-python, hdf5plugin) store them.
//! Values are checked end to end by `tests/conformance/test_readback.py` (the cases of testdata/real/cases.json).

use serde_json::{json, Value};
use std::path::PathBuf;
use vzplan_core::{DataRef, Kind, SourceLayout};

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/real")
        .join(name)
}

fn load(name: &str) -> SourceLayout {
    let r = vzplan_io::open_local(path(name)).unwrap();
    vzplan_hdf5::read_layout(&r).unwrap_or_else(|e| panic!("{e}"))
}

fn codec_names(l: &SourceLayout, a: &str) -> Vec<String> {
    let a = l.arrays.iter().find(|x| x.path == a).unwrap();
    a.codecs.iter().map(|c| c.name.to_string()).collect()
}

#[test]
fn huge_heap_attributes_are_read() {
    let l = load("huge_attr.h5");
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    assert_eq!(l.attrs["history"], Value::from("x".repeat(8192)));
    assert_eq!(l.attrs["after"], "small");
    assert_eq!(l.attrs["attr_11"], 11);
    let w = l.arrays.iter().find(|a| a.path == "w").unwrap();
    let big: Vec<f64> = serde_json::from_value(w.attrs["big_list"].clone()).unwrap();
    assert_eq!(big, (0..1000).map(f64::from).collect::<Vec<_>>());
    assert_eq!(w.attrs["a9"], 9.0);
}

/// With the huge objects' B-trees broken, those attributes are left out as problems of their own
/// and the file keeps its variables and other attributes.
#[test]
fn unreadable_attribute_costs_only_itself() {
    let mut b = std::fs::read(path("huge_attr.h5")).unwrap();
    let mut broken = 0;
    for i in 0..b.len().saturating_sub(6) {
        // A v2 B-tree header of record type 1: the huge objects of a fractal heap.
        if &b[i..i + 4] == b"BTHD" && b[i + 4] == 0 && b[i + 5] == 1 {
            b[i..i + 4].copy_from_slice(b"XXXX");
            broken += 1;
        }
    }
    assert_eq!(
        broken, 2,
        "one huge-object B-tree per attribute heap (root, w)"
    );
    let dir = std::env::temp_dir().join(format!("vzplan-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("broken.h5");
    std::fs::write(&p, &b).unwrap();
    let r = vzplan_io::open_local(&p).unwrap();
    let l = vzplan_hdf5::read_layout(&r).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_dir_all(&dir).ok();
    let mut arrays: Vec<&str> = l.arrays.iter().map(|a| a.path.as_str()).collect();
    arrays.sort();
    assert_eq!(arrays, ["v", "w"]);
    let probs: Vec<&str> = l.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(probs, ["/:attribute", "w:attribute"], "{:?}", l.problems);
    for p in &l.problems {
        assert!(p.reason.contains("cannot be read, left out"), "{p:?}");
    }
    assert!(!l.attrs.contains_key("history"));
    let w = l.arrays.iter().find(|a| a.path == "w").unwrap();
    assert!(!w.attrs.contains_key("big_list"));
    assert_eq!(w.attrs["a9"], 9.0);
    assert_eq!(l.attrs["after"], "small");
    assert_eq!(l.attrs["attr_03"], 3);
}

#[test]
fn datatypes() {
    let l = load("types.h5");
    let get = |p: &str| l.arrays.iter().find(|a| a.path == p).unwrap();
    let e = get("enum");
    assert_eq!(e.dtype.numpy_str(), "|i1");
    assert_eq!(
        e.attrs["enum_dict"],
        json!({"clear": 0, "cloudy": 1, "rain": 2})
    );
    assert_eq!(get("c8").dtype.numpy_str(), "<c8");
    assert_eq!(get("c16_be").dtype.numpy_str(), ">c16");
    assert_eq!(codec_names(&l, "c8"), ["numcodecs.zlib"]);
    let n = get("names2d");
    assert_eq!(n.dtype.kind, Kind::Text);
    assert_eq!(n.chunks.block, [3, 2]);
    assert!(matches!(
        n.chunks.entries.get(0).unwrap().data,
        DataRef::Inline(_)
    ));
    assert_eq!(codec_names(&l, "names"), ["vlen-utf8"]);
    // h5py's packed compound {id <i4, temp <f8, flag u1}: a Zarr v3 struct of 13 bytes.
    let rec = get("records");
    assert_eq!(rec.dtype.kind, Kind::Struct);
    assert_eq!(rec.dtype.size, 13);
    let fields: Vec<(&str, String)> = rec
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.dtype.numpy_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("id", "<i4".into()),
            ("temp", "<f8".into()),
            ("flag", "|u1".into())
        ]
    );
    assert_eq!(
        vzplan_core::struct_data_type(&rec.fields),
        Some(json!({"name": "struct", "configuration": {"fields": [
            {"name": "id", "data_type": "int32"},
            {"name": "temp", "data_type": "float64"},
            {"name": "flag", "data_type": "uint8"}]}}))
    );
    // netCDF-4 pads wind_t {speed <f4, dir <i2} to 8 bytes: no packed struct, a finding.

    let n = load("nc4_types.nc");
    let cloud = n.arrays.iter().find(|a| a.path == "cloud").unwrap();
    assert_eq!(cloud.dtype.numpy_str(), "|u1");
    assert_eq!(cloud.fill_value, Some(vec![255]));
    assert_eq!(cloud.attrs["_FillValue"], 255);
    assert_eq!(
        cloud.attrs["enum_dict"],
        json!({"clear": 0, "stratus": 1, "missing": 255})
    );
    let wind = n.problems.iter().find(|p| p.path == "wind").unwrap();
    assert!(wind.reason.contains("members take 6"), "{}", wind.reason);
    assert_eq!(wind.kind, vzplan_core::ProblemKind::DataType);
    let st = n.arrays.iter().find(|a| a.path == "station").unwrap();
    assert_eq!(st.attrs["long_name"], "station name");
    assert_eq!(n.attrs["sources"], json!(["a", "bc"]));
}

#[test]
fn plugin_filters() {
    let l = load("filters.h5");
    assert_eq!(codec_names(&l, "blosc_lz4"), ["blosc"]);
    let b = l.arrays.iter().find(|a| a.path == "blosc_lz4").unwrap();
    assert_eq!(
        serde_json::Value::Object((*b.codecs[0].configuration).clone()),
        json!({"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0})
    );
    assert_eq!(codec_names(&l, "lz4"), ["imagecodecs_lz4h5"]);
    assert_eq!(
        codec_names(&l, "bitshuffle_u1"),
        ["imagecodecs_bitshuffle", "imagecodecs_lz4h5"]
    );
    assert_eq!(codec_names(&l, "szip"), ["imagecodecs_szip"]);
    assert!(codec_names(&l, "nbit_full").is_empty());
    let reason = |p: &str| {
        l.problems
            .iter()
            .find(|x| x.path == p)
            .map(|x| x.reason.clone())
            .unwrap_or_default()
    };
    // A 12-bit type is refused for its datatype before its nbit filter is looked at.
    assert!(reason("nbit_packed").contains("precision 12"));
    assert!(reason("bitshuffle").contains("imagecodecs_bitshuffle"));
    assert!(reason("scaleoffset").contains("scaleoffset"));
}
