//! Plugin filters and bitfield types as h5py and hdf5plugin write them (testdata/hdf5/plugins/,
//! written by scripts/fixtures/hdf5_plugins.py, with h5py's view in `*.oracle.json`): every
//! dataset is an array with h5py's shape, dtype, chunks and filter masks and the codecs that
//! decode its chunks, or a filter problem that says why no Zarr codec does. Values are read back
//! by tests/conformance/test_hdf5_plugins.py.

use serde_json::{json, Value};
use std::path::PathBuf;
use vzplan_core::{ArrayLayout, ProblemKind, SourceLayout};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hdf5/plugins")
}

fn load(name: &str) -> (SourceLayout, Value) {
    let r = vzplan_io::open_local(dir().join(name)).unwrap();
    let l = vzplan_hdf5::read_layout(&r).unwrap_or_else(|e| panic!("{e}"));
    let oracle = std::fs::read_to_string(dir().join(format!("{name}.oracle.json"))).unwrap();
    (l, serde_json::from_str(&oracle).unwrap())
}

/// What a dataset becomes: its codecs (name and configuration, in encode order), or a filter
/// problem whose reason holds every one of the words.
enum Want {
    Codecs(Value),
    Problem(&'static [&'static str]),
}

fn codecs(a: &ArrayLayout) -> Value {
    a.codecs
        .iter()
        .map(|c| json!({"name": c.name.as_ref(), "configuration": c.configuration.as_ref()}))
        .collect()
}

/// The array against h5py's view: shape, dtype, chunk shape, one entry per chunk with its mask.
fn same_as_h5py(file: &str, a: &ArrayLayout, o: &Value) {
    let what = format!("{file}: {}", a.path);
    let shape: Vec<u64> = serde_json::from_value(o["shape"].clone()).unwrap();
    assert_eq!(a.shape, shape, "{what}");
    assert_eq!(a.dtype.numpy_str(), o["dtype"].as_str().unwrap(), "{what}");
    let info = o["chunk_info"].as_array().unwrap();
    if info.is_empty() {
        // Contiguous: one chunk, the whole array.
        assert_eq!(a.chunks.block, shape, "{what}");
        return;
    }
    let chunks: Vec<u64> = serde_json::from_value(o["chunks"].clone()).unwrap();
    assert_eq!(a.chunks.block, chunks, "{what}");
    assert_eq!(a.chunks.entries.len(), info.len(), "{what}");
    for c in info {
        let offset: Vec<u64> = serde_json::from_value(c["offset"].clone()).unwrap();
        let index: Vec<u64> = offset.iter().zip(&chunks).map(|(o, c)| o / c).collect();
        let e = a
            .chunks
            .entries
            .iter()
            .find(|e| e.index.to_vec() == index)
            .unwrap_or_else(|| panic!("{what}: chunk {index:?}"));
        assert_eq!(
            e.filter_mask as u64,
            c["filter_mask"].as_u64().unwrap(),
            "{what}: {index:?}"
        );
        match e.data {
            vzplan_core::DataRef::Ref { offset, length } => {
                assert_eq!(offset, c["byte_offset"].as_u64().unwrap(), "{what}");
                assert_eq!(length, c["size"].as_u64().unwrap(), "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}

/// Every dataset of `file` is what `want` says, and nothing else is in the file.
fn check(file: &str, want: &[(&str, Want)]) {
    let (l, oracle) = load(file);
    let names: Vec<&String> = oracle.as_object().unwrap().keys().collect();
    assert_eq!(names.len(), want.len(), "{file}: {names:?}");
    for (name, w) in want {
        let o = &oracle[*name];
        assert!(o.is_object(), "{file}: {name} not in the oracle");
        let array = l.arrays.iter().find(|a| a.path == *name);
        let problem = l.problems.iter().find(|p| p.path == *name);
        match w {
            Want::Codecs(c) => {
                let a = array.unwrap_or_else(|| panic!("{file}: {name}: {problem:?}"));
                same_as_h5py(file, a, o);
                assert_eq!(&codecs(a), c, "{file}: {name}");
            }
            Want::Problem(words) => {
                assert!(array.is_none(), "{file}: {name} is an array");
                let p = problem.unwrap_or_else(|| panic!("{file}: {name}: no problem"));
                assert_eq!(p.kind, ProblemKind::Filter, "{file}: {name}");
                for w in *words {
                    assert!(p.reason.contains(w), "{file}: {name}: {w:?} not in {p:?}");
                }
            }
        }
    }
}

#[test]
fn bitshuffle_maps_on_bytes_only() {
    let bs = |blocksize| json!({"name": "imagecodecs_bitshuffle", "configuration": {"blocksize": blocksize}});
    let lz4 = json!({"name": "imagecodecs_lz4h5", "configuration": {}});
    let wider: &[&str] = &["-byte elements", "imagecodecs_bitshuffle", "item size of 1"];
    let zstd: &[&str] = &[
        "with zstd",
        "zstd frame",
        "imagecodecs_lz4h5",
        "no Zarr codec",
    ];
    check(
        "bitshuffle.h5",
        &[
            ("bs_none_u1", Want::Codecs(json!([bs(32)]))),
            ("bs_lz4_u1", Want::Codecs(json!([bs(32), lz4]))),
            ("bs_none_i2", Want::Problem(wider)),
            ("bs_none_f4", Want::Problem(wider)),
            ("bs_none_f8", Want::Problem(wider)),
            ("bs_lz4_i2", Want::Problem(wider)),
            (
                "bs_lz4_f4",
                Want::Problem(&["on 4-byte elements", "item size of 1"]),
            ),
            (
                "bs_lz4_f8",
                Want::Problem(&["on 8-byte elements", "item size of 1"]),
            ),
            ("bs_zstd_u1", Want::Problem(zstd)),
            ("bs_zstd_i2", Want::Problem(zstd)),
            ("bs_zstd_f4", Want::Problem(zstd)),
            ("bs_zstd_f8", Want::Problem(zstd)),
            (
                "bs_lz4_odd_u1",
                Want::Problem(&["chunks of 60 elements", "last 4 elements", "unframed"]),
            ),
        ],
    );
}

#[test]
fn bzip2_is_numcodecs_bz2() {
    check(
        "bzip2.h5",
        &[(
            "bzip2",
            Want::Codecs(json!([{"name": "numcodecs.bz2", "configuration": {"level": 9}}])),
        )],
    );
}

#[test]
fn lzf_is_imagecodecs_lzf_without_its_header() {
    let lzf = json!([{"name": "imagecodecs_lzf", "configuration": {"header": false}}]);
    // lzf_random's incompressible chunk keeps its filter-mask bit (checked against h5py).
    check(
        "lzf.h5",
        &[
            ("lzf", Want::Codecs(lzf.clone())),
            ("lzf_random", Want::Codecs(lzf)),
        ],
    );
}

/// imagecodecs_lzf decodes a chunk without a size header into eight times its stored size:
/// chunks LZF shrank more than that are found from their sizes alone.
#[test]
fn lzf_chunks_shrunk_past_eightfold_are_found() {
    let fits = |a: &ArrayLayout| {
        let bytes = a.chunks.block.iter().product::<u64>() * a.dtype.size as u64;
        vzplan_hdf5::filters::check_stored_sizes(&a.codecs, bytes, &a.chunks.entries)
    };
    let (l, _) = load("lzf.h5");
    for a in &l.arrays {
        // lzf_random's chunk stored unfiltered is left to the filter-mask rule.
        assert_eq!(fits(a), Ok(()), "{}", a.path);
    }
    let words = [
        "filter lzf (id 32000)",
        "2 chunk(s) more than 8-fold",
        "chunk [0]: 9 bytes for 256",
        "imagecodecs_lzf",
    ];
    let (l, _) = load("lzf_zeros.h5");
    // An array whose check fails, or, once the reader checks, a filter problem saying so.
    let why = match l.arrays.iter().find(|a| a.path == "lzf_zeros") {
        Some(a) => fits(a).unwrap_err(),
        None => {
            let p = l.problems.iter().find(|p| p.path == "lzf_zeros").unwrap();
            assert_eq!(p.kind, ProblemKind::Filter);
            p.reason.clone()
        }
    };
    for w in words {
        assert!(why.contains(w), "{w:?} not in {why}");
    }
    // Other codecs are not checked.
    let bz = load("bzip2.h5").0;
    let a = &bz.arrays[0];
    assert_eq!(
        vzplan_hdf5::filters::check_stored_sizes(&a.codecs, u64::MAX, &a.chunks.entries),
        Ok(())
    );
}

#[test]
fn blosc2_frames_have_no_zarr_codec() {
    let frame: &[&str] = &[
        "Blosc2 frame (cframe)",
        "imagecodecs_blosc2",
        "bare Blosc2 chunk",
    ];
    check(
        "blosc2.h5",
        &[
            ("blosclz_shuffle", Want::Problem(frame)),
            ("lz4_bitshuffle", Want::Problem(frame)),
            (
                "zstd_2d",
                Want::Problem(&["2-D chunk as a b2nd frame", "`|V2`", "imagecodecs_b2nd"]),
            ),
        ],
    );
}

#[test]
fn zfp_streams_without_their_header_have_no_zarr_codec() {
    let words: &[&str] = &[
        "filter zfp (id 32013)",
        "without its header",
        "imagecodecs_zfp",
        "numcodecs.zfpy",
    ];
    check(
        "zfp.h5",
        &[
            ("reversible_f4", Want::Problem(words)),
            ("reversible_i4", Want::Problem(words)),
            ("rate_f8", Want::Problem(words)),
        ],
    );
}

#[test]
fn bitfields_are_unsigned_integers() {
    let deflate = json!([{"name": "numcodecs.zlib", "configuration": {"level": 4}}]);
    check(
        "bitfield.h5",
        &[
            ("b8", Want::Codecs(json!([]))),
            ("b16le", Want::Codecs(deflate.clone())),
            ("b32be", Want::Codecs(deflate.clone())),
            ("b64le", Want::Codecs(deflate)),
        ],
    );
    let (l, oracle) = load("bitfield.h5");
    let a = l.arrays.iter().find(|a| a.path == "b16le").unwrap();
    assert_eq!(a.attrs["flags"], oracle["b16le"]["attrs"]["flags"]);
    assert_eq!(a.attrs["flags"], json!([1, 2, 32768]));
}

/// A bitfield of fewer bits than its bytes hold is not an integer type, and says so.
#[test]
fn a_partial_bitfield_is_named() {
    // Class 4, version 1, little-endian; 2 bytes; bit offset 0, precision 12.
    let msg = [0x14, 0, 0, 0, 2, 0, 0, 0, 0, 0, 12, 0];
    let dt = vzplan_hdf5::types::datatype(&mut vzplan_hdf5::ctx::Cur::new(&msg, 8, 8)).unwrap();
    assert_eq!(
        dt.describe(),
        "bitfield datatype of 2 bytes with bit offset 0 and precision 12"
    );
    // Signed-looking flags of a bitfield are ignored: no sign.
    let msg = [0x14, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0];
    let dt = vzplan_hdf5::types::datatype(&mut vzplan_hdf5::ctx::Cur::new(&msg, 8, 8)).unwrap();
    assert_eq!(
        dt,
        vzplan_hdf5::types::Datatype::Int {
            size: 4,
            signed: false,
            be: false
        }
    );
}
