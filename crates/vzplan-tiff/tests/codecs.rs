//! The codec fixtures of testdata/tiff/codecs/ (scripts/fixtures/tiff_codecs.py: tifffile, GDAL
//! and libtiff's tiffcp) against tifffile's oracle: the codec chain each compression, bit depth
//! and FillOrder maps to (expected here from the oracle's tags alone), the dtype tifffile reads,
//! the blocks and their edges; the files no Zarr codec decodes are Filter problems that say why.
//! Their values are read back through zarr-python by tests/conformance/test_tiff_codecs.py.

use serde_json::{json, Value};
use std::path::PathBuf;
use vzplan_core::{CodecStage, DataRef, EdgeStorage, Endian, Kind, ProblemKind, SourceLayout};
use vzplan_io::MemObject;
use vzplan_tiff::{read_layout, read_layout_with, Options};

mod common;

fn dir() -> PathBuf {
    common::dir("codecs")
}

fn fixtures() -> Vec<(String, Value)> {
    let files = common::with_oracles(&dir(), 40, "scripts/fixtures/tiff_codecs.py");
    files
        .into_iter()
        .map(|(p, oracle)| (common::name(&p), oracle))
        .collect()
}

fn layout(name: &str) -> SourceLayout {
    read_layout(&vzplan_io::open_local(dir().join(name)).unwrap()).unwrap()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// The chain a compression, bit depth and FillOrder should map to, from tifffile's tags:
/// (name, configuration, stage) in encode order.
fn expected_chain(o: &Value) -> Vec<(String, Value, CodecStage)> {
    use CodecStage::*;
    let compression = o["compression"].as_u64().unwrap();
    let bits = o["bitspersample"].as_u64().unwrap();
    let spp = o["samplesperpixel"].as_u64().unwrap();
    let chunky = if o["planarconfig"] == 2 { 1 } else { spp };
    let width = o["chunks"].as_array().unwrap()[1].as_u64().unwrap();
    let c = |n: &str, cfg: Value, stage| (n.to_string(), cfg, stage);
    let image = |n: &str| c(&format!("imagecodecs_{n}"), json!({}), ArrayToBytes);
    let lerc_next = match o["lercparameters"][1].as_u64().unwrap_or(0) {
        1 => vec![c("numcodecs.zlib", json!({"level": 6}), BytesToBytes)],
        2 => vec![c(
            "zstd",
            json!({"level": 0, "checksum": false}),
            BytesToBytes,
        )],
        _ => vec![],
    };
    match compression {
        2 => vec![image("ccittrle")],
        3 => vec![c(
            "imagecodecs_ccittfax3",
            json!({"t4options": o["t4options"].as_u64().unwrap_or(0)}),
            ArrayToBytes,
        )],
        4 => vec![image("ccittfax4")],
        34712 => vec![image("jpeg2k")],
        50002 => vec![image("jpegxl")],
        34934 => vec![image("jpegxr")],
        34933 => vec![image("png")],
        50001 if chunky == 4 => vec![c(
            "imagecodecs_webp",
            json!({"hasalpha": true}),
            ArrayToBytes,
        )],
        50001 => vec![image("webp")],
        34887 => [vec![image("lerc")], lerc_next].concat(),
        1 | 8 => {
            let mut v = Vec::new();
            if o["fillorder"] == 2 {
                v.push(c("imagecodecs_bitorder", json!({}), ArrayToArray));
            }
            if !matches!(bits, 8 | 16 | 32 | 64) {
                let cfg = json!({"bitspersample": bits, "runlen": width * chunky});
                v.push(c("imagecodecs_packints", cfg, ArrayToBytes));
            }
            if compression == 8 {
                v.push(c("numcodecs.zlib", json!({"level": 6}), BytesToBytes));
            }
            v
        }
        c => panic!("no expectation for compression {c}"),
    }
}

#[test]
fn every_codec_fixture_maps_as_its_oracle_says() {
    let mut arrays = 0;
    for (name, o) in fixtures() {
        let l = layout(&name);
        if let Some(why) = o.get("undecodable") {
            assert!(l.arrays.is_empty(), "{name}: {why}");
            let p = &l.problems[0];
            assert_eq!(
                (p.path.as_str(), p.kind),
                ("0", ProblemKind::Filter),
                "{name}"
            );
            assert!(p.reason.contains("FillOrder 2"), "{name}: {}", p.reason);
            assert!(
                p.reason.contains("bit-reversed before"),
                "{name}: {}",
                p.reason
            );
            assert!(p.reason.contains("no Zarr codec"), "{name}: {}", p.reason);
            let fix = p.rewrite.as_ref().expect("a rewrite");
            assert_eq!(fix.args, "gdal_translate -co COMPRESS=DEFLATE", "{name}");
            continue;
        }
        assert!(l.problems.is_empty(), "{name}: {:?}", l.problems);
        assert_eq!(l.arrays.len(), 1, "{name}");
        let a = &l.arrays[0];
        assert_eq!(a.shape, u64s(&o["shape"]), "{name}: shape");
        // Dtype: tifffile's ("|b1" is 1-bit bool), in the file's byte order.
        let dt = o["dtype"].as_str().unwrap();
        let kind = match &dt[1..2] {
            "b" => Kind::Bool,
            "u" => Kind::UInt,
            "i" => Kind::Int,
            "f" => Kind::Float,
            k => panic!("{name}: dtype {k}"),
        };
        assert_eq!(
            (a.dtype.kind, a.dtype.size.to_string()),
            (kind, dt[2..].to_string()),
            "{name}"
        );
        if a.dtype.size > 1 {
            assert_eq!(
                a.dtype.endian == Endian::Big,
                o["byteorder"] == ">",
                "{name}"
            );
        }
        // Blocks: tiles padded, strips exact (the last one short: measured from the frame
        // header of an image codec, CCITT always exact).
        let planar = o["planarconfig"] == 2;
        let block = [if planar { vec![1] } else { vec![] }, u64s(&o["chunks"])].concat();
        assert_eq!(a.chunks.block, block, "{name}: block");
        let tiled = o["is_tiled"].as_bool().unwrap();
        let edges = if tiled {
            EdgeStorage::Padded
        } else {
            EdgeStorage::Exact
        };
        assert_eq!(a.chunks.edges, edges, "{name}: edges");
        assert!(!a.chunks.splittable || a.codecs.is_empty(), "{name}");
        check_entries(&name, &o, a);
        // The codec chain.
        let got: Vec<(String, Value, CodecStage)> = a
            .codecs
            .iter()
            .map(|c| (c.name.to_string(), json!(*c.configuration), c.stage))
            .collect();
        assert_eq!(got, expected_chain(&o), "{name}: codecs");
        arrays += 1;
    }
    assert!(arrays >= 38, "only {arrays} arrays checked");
}

/// Every block, in order: the oracle's offsets; compressed lengths as stored, uncompressed ones
/// at the block's packed size (the last strip short).
fn check_entries(name: &str, o: &Value, a: &vzplan_core::ArrayLayout) {
    let offs = u64s(&o["dataoffsets"]);
    let cnts = u64s(&o["databytecounts"]);
    assert_eq!(a.chunks.entries.len(), offs.len(), "{name}: blocks");
    let uncompressed = o["compression"] == 1;
    for (i, e) in a.chunks.entries.iter().enumerate() {
        let DataRef::Ref { offset, length } = e.data else {
            panic!("{name}: inline block")
        };
        assert_eq!(offset, offs[i], "{name}: block {i}");
        if uncompressed {
            assert!(length <= cnts[i] && length > 0, "{name}: block {i}");
        } else {
            assert_eq!(length, cnts[i], "{name}: block {i}");
        }
    }
}

#[test]
fn bits_per_sample_listing_more_values_than_samples_reads_the_first() {
    let o: Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join("bps_extra_values.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(o["bitspersample_tag"], json!([8, 16, 16]));
    assert_eq!(o["samplesperpixel"], 1);
    let l = layout("bps_extra_values.tif");
    let a = &l.arrays[0];
    assert_eq!((a.dtype.kind, a.dtype.size), (Kind::UInt, 1));
    assert!(a.codecs.is_empty());
    assert!(a.chunks.splittable);
}

#[test]
fn imagecodecs_off_leaves_every_imagecodecs_chain_a_problem() {
    let opts = Options { imagecodecs: false };
    for (name, o) in fixtures() {
        if o.get("undecodable").is_some() {
            continue;
        }
        let r = vzplan_io::open_local(dir().join(&name)).unwrap();
        let l = read_layout_with(&r, &opts).unwrap();
        let zlib_only = expected_chain(&o)
            .iter()
            .all(|(n, _, _)| !n.starts_with("imagecodecs_"));
        if zlib_only {
            assert_eq!(l.arrays.len(), 1, "{name}");
            continue;
        }
        let p = &l.problems[0];
        assert_eq!(p.kind, ProblemKind::Filter, "{name}");
        assert!(
            p.reason.contains("imagecodecs codecs are disabled"),
            "{name}: {}",
            p.reason
        );
    }
}

/// A copy of a fixture with the classic little-endian IFD 0 entry `from` rewritten as tag `to`
/// holding the inline SHORT `value` (the reader sorts entries, so the order may break).
fn retag(name: &str, from: u16, to: u16, value: u16) -> Vec<u8> {
    let mut b = std::fs::read(dir().join(name)).unwrap();
    assert_eq!(&b[..4], b"II*\0", "{name}");
    let ifd = u32::from_le_bytes(b[4..8].try_into().unwrap()) as usize;
    let n = u16::from_le_bytes(b[ifd..ifd + 2].try_into().unwrap()) as usize;
    let at = (0..n)
        .map(|i| ifd + 2 + 12 * i)
        .find(|&at| u16::from_le_bytes(b[at..at + 2].try_into().unwrap()) == from)
        .unwrap_or_else(|| panic!("{name} has no tag {from}"));
    b[at..at + 2].copy_from_slice(&to.to_le_bytes());
    b[at + 2..at + 4].copy_from_slice(&3u16.to_le_bytes());
    b[at + 4..at + 8].copy_from_slice(&1u32.to_le_bytes());
    b[at + 8..at + 12].copy_from_slice(&u32::from(value).to_le_bytes());
    b
}

fn problem_of(bytes: Vec<u8>) -> (ProblemKind, String) {
    let l = read_layout(&MemObject::new("mem://codec.tif", bytes)).unwrap();
    assert!(l.arrays.is_empty(), "{:?}", l.arrays);
    let p = &l.problems[0];
    (p.kind, p.reason.clone())
}

#[test]
fn what_no_codec_decodes_is_a_filter_problem_that_says_why() {
    let cases = [
        // WebP holds 3 or 4 samples per pixel; this image has 1.
        (
            retag("png_gray_strips.tif", 259, 259, 50001),
            "holds 3 or 4 samples per pixel",
        ),
        // A predictor on an image codec: tifffile ignores it.
        (
            retag("png_gray_strips.tif", 296, 317, 2),
            "Predictor 2 with compression PNG",
        ),
        // Differencing packed samples: libtiff does not.
        (
            retag("gdal_nbit12_deflate_strips.tif", 284, 317, 2),
            "on 12-bit samples",
        ),
        // CCITT decodes 1-bit samples only.
        (
            retag("png_gray_strips.tif", 259, 259, 4),
            "decodes 1-bit samples, not 8-bit",
        ),
        // JPEG decodes 8-bit samples, not 12-bit ones packed in uint16.
        (
            retag("nbit12_tiled.tif", 259, 259, 7),
            "not 12-bit unsigned integer samples",
        ),
        // An additional LERC compression no codec reads.
        (
            lerc_parameters("gdal_lerc_deflate_f32_strips.tif", 3),
            "additional compression 3",
        ),
    ];
    for (bytes, words) in cases {
        let (kind, reason) = problem_of(bytes);
        assert_eq!(kind, ProblemKind::Filter, "{reason}");
        assert!(reason.contains(words), "{reason} (wanted: {words})");
    }
}

/// A copy of a GDAL LERC fixture whose LercParameters (two LONGs, stored out of line) name
/// another additional compression.
fn lerc_parameters(name: &str, compression: u32) -> Vec<u8> {
    let mut b = std::fs::read(dir().join(name)).unwrap();
    let ifd = u32::from_le_bytes(b[4..8].try_into().unwrap()) as usize;
    let n = u16::from_le_bytes(b[ifd..ifd + 2].try_into().unwrap()) as usize;
    let at = (0..n)
        .map(|i| ifd + 2 + 12 * i)
        .find(|&at| u16::from_le_bytes(b[at..at + 2].try_into().unwrap()) == 50674)
        .expect("LercParameters");
    let values = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
    b[values + 4..values + 8].copy_from_slice(&compression.to_le_bytes());
    b
}

#[test]
fn flipped_frame_headers_never_panic() {
    // The last strip's frame header is parsed to measure it: flip its first bytes.
    for name in [
        "webp_rgba_opaque_strips.tif",
        "gdal_webp_strips.tif",
        "png_gray_strips.tif",
        "jpeg2k_rgb_u16_strips.tif",
        "jpegxl_gray_strips.tif",
        "jpegxr_gray_strips.tif",
        "gdal_lerc_deflate_f32_strips.tif",
        "lerc_f32_strips.tif",
    ] {
        let o: Value = serde_json::from_str(
            &std::fs::read_to_string(dir().join(name).with_extension("json")).unwrap(),
        )
        .unwrap();
        let orig = std::fs::read(dir().join(name)).unwrap();
        let last = *u64s(&o["dataoffsets"]).last().unwrap() as usize;
        for at in last..(last + 48).min(orig.len()) {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut b = orig.clone();
                b[at] ^= flip;
                let _ = read_layout(&MemObject::new("mem://flip.tif", b));
            }
        }
    }
}
