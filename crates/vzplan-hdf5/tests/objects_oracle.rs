//! Every fixture of `scripts/fixtures/hdf5.py` read with `read_layout` and compared to the oracle
//! table the script wrote from h5py's / netCDF4-python's own view of the same file.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use vzplan_core::{ArrayLayout, Codec, DataRef, SourceLayout};

const FIXTURES: &[&str] = &[
    "h5_earliest.h5",
    "h5_v110.h5",
    "h5_latest.h5",
    "nc4.nc",
    "nc4_classic.nc",
    "h5_noscales.h5",
    "h5_misc.h5",
    "h5_scales.h5",
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hdf5")
}

fn load(name: &str) -> (SourceLayout, Value) {
    let p = dir().join(name);
    let r = vzplan_io::open_local(&p).unwrap();
    let l = vzplan_hdf5::read_layout(&r).unwrap_or_else(|e| panic!("{e}"));
    let o: Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join(format!("{name}.oracle.json"))).unwrap(),
    )
    .unwrap();
    (l, o)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn expected_codecs(filters: &Value, esize: usize) -> Vec<Codec> {
    filters
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let v = f["values"].as_array().unwrap();
            match f["id"].as_u64().unwrap() {
                1 => Codec::zlib(v[0].as_u64().unwrap() as u32),
                2 => Codec::shuffle(esize),
                3 => Codec::fletcher32(),
                32015 => Codec::zstd(v[0].as_i64().unwrap() as i32),
                id => panic!("unexpected filter {id} in a supported dataset"),
            }
        })
        .collect()
}

/// Decodes a `vlen-utf8` chunk (numcodecs VLenUTF8: u32 count, then u32 length + bytes each).
fn vlen_utf8(b: &[u8]) -> Vec<&str> {
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap()) as usize;
    let n = u32_at(0);
    let mut at = 4;
    let mut out = Vec::new();
    for _ in 0..n {
        let l = u32_at(at);
        out.push(std::str::from_utf8(&b[at + 4..at + 4 + l]).unwrap());
        at += 4 + l;
    }
    assert_eq!(at, b.len(), "trailing bytes in a vlen-utf8 chunk");
    out
}

/// netCDF's view of a dataset's shape: along an unlimited dimension every variable has the
/// dimension's length, the largest extent along it of the datasets using it (h5py reports each
/// one's own).
fn netcdf_shape(want: &Value, ds: &serde_json::Map<String, Value>) -> Vec<u64> {
    let mut shape: Vec<u64> = serde_json::from_value(want["shape"].clone()).unwrap();
    for (k, n) in shape.iter_mut().enumerate() {
        if !want["maxshape"][k].is_null() {
            continue;
        }
        let dim = &want["dims"][k];
        for v in ds.values() {
            let dims = v["dims"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            for (j, d) in dims.iter().enumerate() {
                if d == dim && v["maxshape"][j].is_null() {
                    *n = (*n).max(v["shape"][j].as_u64().unwrap());
                }
            }
        }
    }
    shape
}

/// The referenced chunks (element offset, address, size, filter mask) against h5py's chunk_iter.
fn check_chunk_refs(ctx: &str, a: &ArrayLayout, want: &Value) {
    let mut wc: Vec<(Vec<u64>, u64, u64, u32)> = want["chunk_iter"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let off: Vec<u64> = serde_json::from_value(c["offset"].clone()).unwrap();
            (
                off,
                c["addr"].as_u64().unwrap(),
                c["size"].as_u64().unwrap(),
                c["mask"].as_u64().unwrap() as u32,
            )
        })
        .collect();
    wc.sort();
    let got: Vec<(Vec<u64>, u64, u64, u32)> = a
        .chunks
        .entries
        .iter()
        .map(|e| {
            let off = e
                .index
                .iter()
                .zip(&a.chunks.block)
                .map(|(i, b)| i * b)
                .collect();
            match e.data {
                DataRef::Ref { offset, length } => (off, offset, length, e.filter_mask),
                DataRef::Inline(_) => panic!("{ctx}: inline chunk"),
            }
        })
        .collect();
    assert_eq!(got, wc, "{ctx} chunks");
}

fn check(name: &str) {
    let (l, o) = load(name);
    let ds = o["datasets"].as_object().unwrap();
    assert_eq!(
        Value::Object(l.attrs.clone()),
        o["attrs"],
        "{name}: root attributes"
    );
    let groups: BTreeMap<&str, &serde_json::Map<String, Value>> = l
        .groups
        .iter()
        .map(|g| (g.path.as_str(), &g.attrs))
        .collect();
    let og = o["groups"].as_object().unwrap();
    assert_eq!(groups.len(), og.len(), "{name}: groups {:?}", groups.keys());
    for (p, a) in og {
        assert_eq!(
            Value::Object(groups[p.as_str()].clone()),
            *a,
            "{name}: group {p} attrs"
        );
    }
    let arrays: BTreeMap<&str, _> = l.arrays.iter().map(|a| (a.path.as_str(), a)).collect();
    let problems: BTreeMap<&str, &str> = l
        .problems
        .iter()
        .map(|p| (p.path.as_str(), p.reason.as_str()))
        .collect();
    let want_ok: Vec<&str> = ds
        .iter()
        .filter(|(_, v)| v["problem"].is_null())
        .map(|(k, _)| k.as_str())
        .collect();
    let want_bad: Vec<&str> = ds
        .iter()
        .filter(|(_, v)| !v["problem"].is_null())
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        arrays.keys().copied().collect::<Vec<_>>(),
        want_ok,
        "{name}: arrays (problems: {problems:?})"
    );
    assert_eq!(
        problems.keys().copied().collect::<Vec<_>>(),
        want_bad,
        "{name}: problems"
    );
    for (p, want) in ds {
        if !want["problem"].is_null() {
            continue;
        }
        let a = arrays[p.as_str()];
        let ctx = format!("{name}:{p}");
        // A further name of one dataset (a hard or soft link) shows it whole under that name.
        if let Some(first) = want["same_as"].as_str() {
            let mut same = arrays[first].clone();
            same.path = p.clone();
            assert_eq!(*a, same, "{ctx} as {first}");
            continue;
        }
        let shape = netcdf_shape(want, ds);
        assert_eq!(a.shape, shape, "{ctx} shape");
        assert_eq!(
            a.dtype.numpy_str(),
            want["dtype"].as_str().unwrap(),
            "{ctx} dtype"
        );
        let unl: Vec<bool> = want["maxshape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.is_null())
            .collect();
        assert_eq!(
            a.dims.iter().map(|d| d.unlimited).collect::<Vec<_>>(),
            unl,
            "{ctx} unlimited"
        );
        if let Some(dims) = want["dims"].as_array() {
            let dims: Vec<&str> = dims.iter().map(|d| d.as_str().unwrap()).collect();
            assert_eq!(a.dim_names(), dims, "{ctx} dims");
        }
        assert_eq!(
            a.fill_value.as_deref().map(hex),
            want["fill_hex"].as_str().map(str::to_string),
            "{ctx} fill value"
        );
        assert_eq!(Value::Object(a.attrs.clone()), want["attrs"], "{ctx} attrs");
        let mut codecs = expected_codecs(&want["filters"], a.dtype.size);
        if want["layout"] == "inline" {
            codecs = vec![vzplan_hdf5::vlen::codec()];
        }
        assert_eq!(a.codecs, codecs, "{ctx} codecs");
        match want["layout"].as_str().unwrap() {
            "inline" => {
                // Variable-length strings: one vlen-utf8 chunk (count, then length + bytes).
                let want: Vec<&str> = want["strings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                assert_eq!(a.chunks.entries.len(), 1, "{ctx}");
                let DataRef::Inline(b) = &a.chunks.entries.get(0).unwrap().data else {
                    panic!("{ctx}: strings not inline");
                };
                assert_eq!(vlen_utf8(b), want, "{ctx} strings");
                continue;
            }
            "compact" => {
                assert_eq!(a.chunks.entries.len(), 1, "{ctx}");
                match &a.chunks.entries.get(0).unwrap().data {
                    DataRef::Inline(b) => {
                        assert_eq!(hex(b), want["compact_hex"].as_str().unwrap(), "{ctx}")
                    }
                    d => panic!("{ctx}: compact as {d:?}"),
                }
            }
            "contiguous" => {
                assert!(a.chunks.splittable, "{ctx} splittable");
                assert_eq!(a.chunks.block, shape, "{ctx} block");
            }
            "chunked" => {
                let chunks: Vec<u64> = serde_json::from_value(want["chunks"].clone()).unwrap();
                assert_eq!(a.chunks.block, chunks, "{ctx} block");
                assert_eq!(a.chunks.edges, vzplan_core::EdgeStorage::Padded, "{ctx}");
            }
            l => panic!("{ctx}: layout {l}"),
        }
        if want["layout"] != "compact" {
            check_chunk_refs(&ctx, a, want);
        }
        assert_eq!(
            a.values.as_deref().map(hex),
            want.get("values_hex")
                .and_then(|v| v.as_str())
                .map(str::to_string),
            "{ctx} coordinate values"
        );
    }
}

#[test]
fn h5_earliest() {
    check("h5_earliest.h5");
}
#[test]
fn h5_v110() {
    check("h5_v110.h5");
}
#[test]
fn h5_latest() {
    check("h5_latest.h5");
}
#[test]
fn nc4() {
    check("nc4.nc");
}
#[test]
fn nc4_classic() {
    check("nc4_classic.nc");
}
#[test]
fn h5_noscales() {
    check("h5_noscales.h5");
}

#[test]
fn h5_misc() {
    check("h5_misc.h5");
}

#[test]
fn h5_scales() {
    check("h5_scales.h5");
    // netCDF4-python cannot open this h5py file, so its oracle has no dimension names: a scale
    // names its axis after its dataset; an axis without a scale gets a phony name numbered after
    // the file's two real dimensions.
    let (l, _) = load("h5_scales.h5");
    let a = l.arrays.iter().find(|a| a.path == "on_xy").unwrap();
    assert_eq!(a.dim_names(), ["xcoord", "y", "phony_dim_2"]);
    let x = l.arrays.iter().find(|a| a.path == "xcoord").unwrap();
    assert_eq!(x.dim_names(), ["xcoord"]);
}

#[test]
fn problem_reasons_name_the_feature() {
    let (l, _) = load("h5_latest.h5");
    let reason = |p: &str| {
        l.problems
            .iter()
            .find(|x| x.path == p)
            .map(|x| x.reason.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        reason("scaleoffset"),
        "filter scaleoffset (id 6) has no Zarr codec"
    );
    // A packed compound of numbers is a Zarr struct; what is not packed stays a problem
    // (testdata/real's nc4_types.nc has one).
    assert!(l
        .arrays
        .iter()
        .any(|a| a.path == "compound" && a.dtype.numpy_str() == "|V12"));
    // Variable-length strings are read (inline), enums are their base integer type.
    assert!(l.arrays.iter().any(|a| a.path == "vlen"));
    // DONT_FILTER_PARTIAL_BOUND_CHUNKS: the partial edge chunk is reported with filters skipped.
    let pu = l
        .arrays
        .iter()
        .find(|a| a.path == "partial_unfiltered")
        .unwrap();
    let masks: Vec<u32> = pu.chunks.entries.iter().map(|e| e.filter_mask).collect();
    assert_eq!(masks, vec![0, 0, 1]);
    let (m, _) = load("h5_misc.h5");
    assert!(m.arrays.iter().any(|a| a.path == "enum"));
    let (n, _) = load("nc4.nc");
    // Pure dimensions are not arrays; `_nc4_non_coord_lev` is the variable `lev`.
    assert!(n.arrays.iter().all(|a| a.path != "nv"));
    assert!(n
        .arrays
        .iter()
        .any(|a| a.path == "lev" && a.dim_names() == ["lat"]));
    assert_eq!(n.attrs["history"], "created by fixtures_hdf5.py");
}

#[test]
fn fixtures_are_small() {
    let total: u64 = FIXTURES
        .iter()
        .map(|f| std::fs::metadata(dir().join(f)).unwrap().len())
        .sum();
    assert!(total < 500_000, "{total}");
}
