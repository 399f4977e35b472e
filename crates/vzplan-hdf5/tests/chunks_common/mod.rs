//! Shared helpers of the chunk-index tests: fixtures written by scripts/fixtures/hdf5_chunks.py,
//! their oracles (h5py's chunk_iter), and locating each file's index without the object model.
#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;
use vzplan_hdf5::chunks::{self, Geometry, RawChunk};
use vzplan_hdf5::ctx::Ctx;
use vzplan_hdf5::error::Result;
use vzplan_io::RangeRead;

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hdf5/chunks")
}

pub struct Fixture {
    pub name: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub oracle: Value,
    pub geo: Geometry,
    pub expect: Vec<RawChunk>,
}

/// All fixtures, sorted by name.
pub fn fixtures() -> Vec<Fixture> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("testdata/hdf5/chunks exists")
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.strip_suffix(".h5").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 20,
        "fixtures missing: run scripts/fixtures/hdf5_chunks.py"
    );
    names.into_iter().map(|n| load(&n)).collect()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap_or(u64::MAX))
        .collect()
}

pub fn load(name: &str) -> Fixture {
    let path = dir().join(format!("{name}.h5"));
    let bytes = std::fs::read(&path).unwrap();
    let oracle: Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join(format!("{name}.h5.oracle.json"))).unwrap(),
    )
    .unwrap();
    let geo = Geometry {
        shape: u64s(&oracle["shape"]),
        // null (unlimited) → u64::MAX
        max_shape: u64s(&oracle["maxshape"]),
        chunk: u64s(&oracle["chunks"]),
        elem_size: oracle["itemsize"].as_u64().unwrap(),
        filtered: !oracle["filters"].as_array().unwrap().is_empty(),
        layout_version: oracle["layout_version"].as_u64().unwrap() as u8,
    };
    let expect = oracle["chunk_list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| RawChunk {
            offset: u64s(&c[0]).into(),
            addr: c[1].as_u64().unwrap(),
            size: c[2].as_u64().unwrap(),
            filter_mask: c[3].as_u64().unwrap() as u32,
        })
        .collect();
    Fixture {
        name: name.to_string(),
        path,
        bytes,
        oracle,
        geo,
        expect,
    }
}

/// Size of Offsets, Size of Lengths and base address from the superblock (format spec II.A).
pub fn superblock(b: &[u8]) -> (u8, u8, u64) {
    assert_eq!(&b[..8], b"\x89HDF\r\n\x1a\n");
    let le = |s: &[u8]| s.iter().rev().fold(0u64, |a, &x| (a << 8) | x as u64);
    match b[8] {
        0 => (b[13], b[14], le(&b[24..32])),
        1 => (b[13], b[14], le(&b[28..36])),
        2 | 3 => (b[9], b[10], le(&b[12..20])),
        v => panic!("superblock version {v}"),
    }
}

fn find_all(b: &[u8], sig: &[u8]) -> Vec<usize> {
    b.windows(sig.len())
        .enumerate()
        .filter(|(_, w)| *w == sig)
        .map(|(i, _)| i)
        .collect()
}

/// The index kind and its address: unique signature for FA/EA/BT2, the top-level `TREE` node of
/// type 1 for v1 B-trees, the first chunk's address (from the oracle) for single/implicit.
pub fn locate(f: &Fixture) -> (String, u64) {
    let kind = f.oracle["index"].as_str().unwrap().to_string();
    let unique = |sig: &[u8]| {
        let v = find_all(&f.bytes, sig);
        assert_eq!(v.len(), 1, "{}: {} × {:?}", f.name, v.len(), sig);
        v[0] as u64
    };
    let addr = match kind.as_str() {
        "fa" => unique(b"FAHD"),
        "ea" => unique(b"EAHD"),
        "bt2" => unique(b"BTHD"),
        "v1" => {
            let nodes: Vec<(usize, u8)> = find_all(&f.bytes, b"TREE")
                .into_iter()
                .filter(|&i| f.bytes[i + 4] == 1)
                .map(|i| (i, f.bytes[i + 5]))
                .collect();
            let top = nodes.iter().map(|n| n.1).max().expect("a TREE node");
            let roots: Vec<_> = nodes.iter().filter(|n| n.1 == top).collect();
            assert_eq!(roots.len(), 1, "{}: several top-level TREE nodes", f.name);
            roots[0].0 as u64
        }
        "single" => f.expect[0].addr,
        "implicit" => {
            f.expect
                .iter()
                .find(|c| c.offset.iter().all(|&o| o == 0))
                .unwrap()
                .addr
        }
        k => panic!("unknown index kind {k}"),
    };
    (kind, addr)
}

/// Runs the index reader the fixture's oracle names.
pub fn run(ctx: &Ctx, f: &Fixture, kind: &str, addr: u64) -> Result<Vec<RawChunk>> {
    match kind {
        "fa" => chunks::fixed_array(ctx, addr, &f.geo),
        "ea" => chunks::extensible_array(ctx, addr, &f.geo),
        "bt2" => chunks::btree2_chunks(ctx, addr, &f.geo),
        "v1" => chunks::btree1_chunks(ctx, addr, &f.geo),
        "implicit" => chunks::implicit(ctx, addr, &f.geo),
        "single" => {
            let filt = f
                .geo
                .filtered
                .then(|| (f.expect[0].size, f.expect[0].filter_mask));
            chunks::single(ctx, addr, filt, &f.geo)
        }
        k => panic!("unknown index kind {k}"),
    }
}

pub fn ctx_for<'a>(r: &'a dyn RangeRead, b: &[u8]) -> Ctx<'a> {
    let (so, sl, base) = superblock(b);
    Ctx { r, so, sl, base }
}
