//! `vzplan info` on shipped fixtures, checked against the fixtures' oracle JSON (written by h5py,
//! netCDF4-python and tifffile when the fixtures were made).

use serde_json::Value;
mod common;
use common::{root, vzplan};

fn fixture(p: &str) -> String {
    root().join("testdata").join(p).display().to_string()
}

fn oracle(p: &str) -> Value {
    let s = std::fs::read_to_string(root().join("testdata").join(p)).unwrap();
    serde_json::from_str(&s).unwrap()
}

/// `info --json` of one file: its one object.
fn info_json(p: &str) -> Value {
    let (code, out, err) = vzplan(&["info", "--json", &fixture(p)]);
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 1);
    list[0].clone()
}

fn var<'a>(info: &'a Value, path: &str) -> &'a Value {
    info["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["path"] == path)
        .unwrap_or_else(|| panic!("no variable {path}"))
}

#[test]
fn netcdf4_matches_h5py_oracle() {
    let info = info_json("hdf5/nc4.nc");
    assert_eq!(info["format"], "hdf5");
    assert!(info["version"]
        .as_str()
        .unwrap()
        .starts_with("HDF5 superblock v"));
    let o = oracle("hdf5/nc4.nc.oracle.json");
    let datasets = o["datasets"].as_object().unwrap();
    let mut checked = 0;
    for (name, d) in datasets {
        if d["dtype"] == "|O" {
            continue; // variable-length strings: their heap bytes are not chunk bytes
        }
        let v = var(&info, name);
        assert_eq!(v["dtype"], d["dtype"], "{name}");
        assert_eq!(v["dims"], d["dims"], "{name}");
        if d["chunks"].is_array() {
            assert_eq!(v["chunks"], d["chunks"], "{name}");
        }
        if d["fill_defined"] == 2 {
            assert_eq!(v["fill_hex"], d["fill_hex"], "{name}");
        }
        let iter = d["chunk_iter"].as_array().unwrap();
        let stored: u64 = iter.iter().map(|c| c["size"].as_u64().unwrap()).sum();
        assert_eq!(v["chunks_allocated"], iter.len() as u64, "{name}");
        assert_eq!(v["stored_bytes"], stored, "{name}");
        checked += 1;
    }
    assert!(checked >= 8, "{checked}");
    // tas: 2-step chunks over 5 time steps, 2 of the 3 written.
    let tas = var(&info, "tas");
    assert_eq!(tas["chunks_total"], 3);
    assert_eq!(tas["codecs"].as_array().unwrap().len(), 2);
}

#[test]
fn netcdf3_matches_netcdf4_python_oracle() {
    let info = info_json("netcdf3/classic_fixed.nc");
    let o = oracle("netcdf3/classic_fixed.json");
    assert_eq!(o["version"], 1);
    assert_eq!(info["version"], "netCDF classic CDF-1");
    assert_eq!(info["size"], o["file_size"]);
    for ov in o["variables"].as_array().unwrap() {
        let v = var(&info, ov["name"].as_str().unwrap());
        assert_eq!(v["dtype"], ov["dtype"]);
        assert_eq!(v["shape"], ov["shape"]);
        assert_eq!(v["dims"], ov["dimensions"]);
        if ov["fill_hex"].is_string() {
            assert_eq!(v["fill_hex"], ov["fill_hex"], "{}", ov["name"]);
        }
        assert_eq!(v["edges"], "exact");
        assert_eq!(v["padded_axes"], serde_json::json!([]));
    }
}

#[test]
fn cog_matches_tifffile_oracle() {
    let info = info_json("tiff/cog_chain.tif");
    let o = oracle("tiff/cog_chain.json");
    assert_eq!(o["is_bigtiff"], false);
    assert_eq!(info["version"], "TIFF");
    let page = &o["pages"][0];
    let v = &info["variables"][0];
    assert_eq!(v["dtype"], page["dtype"]);
    assert_eq!(v["shape"], page["shape"]);
    assert_eq!(v["chunks"], page["chunks"]);
    let counts = page["databytecounts"].as_array().unwrap();
    let stored: u64 = counts.iter().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(v["chunks_allocated"], counts.len() as u64);
    assert_eq!(v["stored_bytes"], stored);
    // 64×80 in 16×16 tiles: no overhang; the 32×40 overview overhangs along x.
    assert_eq!(v["padded_axes"], serde_json::json!([]));
    assert_eq!(
        var(&info, "overview_1/0")["padded_axes"],
        serde_json::json!(["x"])
    );
}

#[test]
fn padded_last_chunk_is_named_in_text_and_json() {
    let f = fixture("collections/padded/tas_part_1.nc");
    let (code, out, err) = vzplan(&["info", &f]);
    assert_eq!(code, 0, "{out}{err}");
    // tas: 100 steps in chunks of 30, the 4th chunk stored at full size.
    let block: Vec<&str> = out.lines().skip_while(|l| !l.contains(" tas(")).collect();
    assert!(block[1].contains("chunks [30, 3, 4]"), "{out}");
    assert!(block[2].contains("fill 1e20"), "{out}");
    assert!(block[3].contains("last chunk padded along time"), "{out}");
    let info = info_json("collections/padded/tas_part_1.nc");
    let tas = var(&info, "tas");
    assert_eq!(tas["padded_axes"], serde_json::json!(["time"]));
    assert_eq!(tas["chunks_allocated"], 4);
    assert_eq!(tas["chunks_total"], 4);
}

#[test]
fn unreadable_files_exit_3_if_some_shown_and_1_if_none() {
    let good = fixture("netcdf3/classic_fixed.nc");
    let bad = fixture("hdf5/nc4.nc.oracle.json");
    let (code, out, err) = vzplan(&["info", "--json", &good, &bad]);
    assert_eq!(code, 3, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert!(
        err.contains("not a netCDF, HDF5, TIFF or DMR++ file"),
        "{err}"
    );
    let (code, _, err) = vzplan(&["info", &bad, "/nonexistent/x.nc"]);
    assert_eq!(code, 1);
    assert!(err.contains("No such file"), "{err}");
}
