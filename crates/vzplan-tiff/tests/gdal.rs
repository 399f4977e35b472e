//! GDAL-written files (`testdata/tiff/gdal/`, see its README): JPEG with shared JPEGTables,
//! YCbCr JPEG, complex samples. Their read-back through zarr-python is checked at larger sizes by
//! `tests/conformance/test_realworld.py`; here the layouts themselves.

use base64::Engine;
use std::path::{Path, PathBuf};
use vzplan_core::{CodecStage, DataRef, EdgeStorage, Kind, SourceLayout};

fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/tiff/gdal")
        .join(name)
}

fn read(name: &str) -> SourceLayout {
    vzplan_tiff::read_layout(&vzplan_io::open_local(path(name)).unwrap()).unwrap()
}

/// The JPEGTables tag (347) as the file stores it, found by its byte pattern: an abbreviated JPEG
/// stream (SOI, tables, EOI) that precedes the strips in GDAL's files.
fn tables_in_file(name: &str, tables: &[u8]) -> bool {
    let bytes = std::fs::read(path(name)).unwrap();
    bytes.windows(tables.len()).any(|w| w == tables)
}

fn jpeg_tables(l: &SourceLayout) -> Vec<u8> {
    let a = &l.arrays[0];
    let c = a
        .codecs
        .iter()
        .find(|c| c.name == "imagecodecs_jpeg")
        .expect("imagecodecs_jpeg");
    assert_eq!(c.stage, CodecStage::ArrayToBytes);
    let b64 = c.configuration["tables"].as_str().expect("tables");
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap()
}

#[test]
fn jpeg_with_shared_tables_and_a_short_last_strip() {
    let l = read("jpeg_gray_strips.tif");
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    let a = &l.arrays[0];
    assert_eq!(a.shape, [20, 30]);
    assert_eq!(a.chunks.block, [8, 30]);
    // The last strip's JPEG frame has 4 lines: stored short, so the grid ends in a chunk of 4.
    assert_eq!(a.chunks.edges, EdgeStorage::Exact);
    let t = jpeg_tables(&l);
    assert_eq!(&t[..2], &[0xFF, 0xD8]);
    assert_eq!(&t[t.len() - 2..], &[0xFF, 0xD9]);
    assert!(tables_in_file("jpeg_gray_strips.tif", &t));
    assert!(a
        .chunks
        .entries
        .iter()
        .all(|e| matches!(e.data, DataRef::Ref { .. })));
}

#[test]
fn ycbcr_jpeg_is_three_samples_per_pixel() {
    let l = read("jpeg_ycbcr_tiled.tif");
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    let a = &l.arrays[0];
    assert_eq!(a.shape, [20, 30, 3]);
    assert_eq!(a.chunks.block, [16, 16, 3]);
    assert_eq!(a.chunks.edges, EdgeStorage::Padded);
    assert_eq!(a.chunks.entries.len(), 4);
    assert!(tables_in_file("jpeg_ycbcr_tiled.tif", &jpeg_tables(&l)));
}

#[test]
fn complex_floats_are_complex64() {
    let l = read("cfloat32_deflate.tif");
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    let a = &l.arrays[0];
    assert_eq!((a.dtype.kind, a.dtype.size), (Kind::Complex, 8));
    assert_eq!(
        a.dtype.zarr_data_type(),
        Some(serde_json::json!("complex64"))
    );
    assert_eq!(a.dtype.numpy_str(), "<c8");
    assert_eq!(a.shape, [10, 12]);
    assert_eq!(a.codecs.len(), 1);
    assert_eq!(a.codecs[0].name, "numcodecs.zlib");
}

#[test]
fn complex_integers_are_a_data_type_problem() {
    // The planner's fix names the rewrite (`gdal_translate -ot CFloat32 FILE OUT`, checked by
    // crates/vzplan-cli/tests/cli_fixes.rs); the reader says what it is.
    let l = read("cint16.tif");
    assert!(l.arrays.is_empty());
    assert_eq!(l.problems.len(), 1);
    let why = &l.problems[0].reason;
    assert!(why.contains("CInt16"), "{why}");
    assert_eq!(l.problems[0].kind, vzplan_core::ProblemKind::DataType);
    // The reader knows the rewrite; the planner names the file and the output.
    let r = l.problems[0].rewrite.as_ref().expect("a rewrite");
    assert_eq!(
        (r.args.as_str(), r.tag.as_str()),
        ("gdal_translate -ot CFloat32", "cfloat32")
    );
}

#[test]
fn unwritten_bands_padded_last_strips_are_left_to_the_fill_value() {
    let l = read("band_unwritten_deflate.tif");
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    let a = &l.arrays[0];
    assert_eq!(a.shape, [3, 20, 30]);
    assert_eq!(a.chunks.block, [1, 8, 30]);
    assert_eq!(a.chunks.edges, EdgeStorage::Exact);
    // 3 planes × 3 strips, less the padded empty last strips of bands 2 and 3.
    let idx: Vec<Vec<u64>> = a.chunks.entries.iter().map(|e| e.index.to_vec()).collect();
    assert_eq!(idx.len(), 7);
    assert!(idx.contains(&vec![0, 2, 0]));
    assert!(!idx.contains(&vec![1, 2, 0]) && !idx.contains(&vec![2, 2, 0]));
}

#[test]
fn zstd_strips_without_a_content_size_are_measured_by_decoding_the_last() {
    // GDAL's ZSTD frames do not record their decoded size: the last strip is decoded (at most a
    // full strip's bytes) to tell that it is stored short, 4 rows of 8.
    let l = read("zstd_strips_short.tif");
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    let a = &l.arrays[0];
    assert_eq!(a.shape, [20, 30]);
    assert_eq!(a.chunks.block, [8, 30]);
    assert_eq!(a.chunks.edges, EdgeStorage::Exact);
    assert!(a.codecs.iter().any(|c| c.name == "zstd"));
}
