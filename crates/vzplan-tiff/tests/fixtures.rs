//! Every fixture in testdata/tiff against its tifffile oracle (scripts/fixtures/tiff.py):
//! shapes, dtypes, blocks, offsets and lengths, edge storage, codecs, dims, attributes; and a few
//! pixels decoded from the referenced blocks (uncompressed / deflate, predictor 1 or 2).

use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use vzplan_core::{ArrayLayout, DataRef, EdgeStorage, Endian, Kind, SourceLayout};

mod common;

fn dir() -> PathBuf {
    common::dir("")
}

fn fixtures() -> Vec<(String, Value, SourceLayout, Vec<u8>)> {
    let files = common::with_oracles(&dir(), 30, "scripts/fixtures/tiff.py");
    files
        .into_iter()
        .map(|(p, oracle)| {
            let r = vzplan_io::open_local(&p).unwrap();
            let layout = vzplan_tiff::read_layout(&r).unwrap_or_else(|e| panic!("{e}"));
            let bytes = std::fs::read(&p).unwrap();
            (common::name(&p), oracle, layout, bytes)
        })
        .collect()
}

/// The oracle's pages under the reader's names (same rules as the reader's docs).
fn named_pages(oracle: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut pages = 0usize;
    let mut last: Option<usize> = None;
    let mut counters = std::collections::HashMap::new();
    let ov = |p: usize, n: usize| {
        if p == 0 {
            format!("overview_{n}/0")
        } else {
            format!("{p}_overview_{n}/{p}")
        }
    };
    let mut owner_of_main = None;
    for page in oracle["pages"].as_array().unwrap() {
        let st = page["subfiletype"].as_u64().unwrap();
        let is_sub = page["where"].as_str().unwrap().contains("/sub/");
        if st & 4 != 0 {
            if !is_sub {
                owner_of_main = None;
            }
            continue;
        }
        if st & 1 != 0 {
            let owner = if is_sub {
                owner_of_main.unwrap_or(0)
            } else {
                last.unwrap_or(0)
            };
            let n = counters.entry(owner).or_insert(0usize);
            *n += 1;
            out.push((ov(owner, *n), page.clone()));
            if !is_sub {
                owner_of_main = Some(owner);
            }
        } else if !is_sub {
            out.push((pages.to_string(), page.clone()));
            last = Some(pages);
            owner_of_main = Some(pages);
            pages += 1;
        }
    }
    out
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

fn find<'a>(layout: &'a SourceLayout, path: &str) -> Option<&'a ArrayLayout> {
    layout.arrays.iter().find(|a| a.path == path)
}

fn expected_codecs(compression: u64, predictor: u64, chunky_spp: u64) -> Vec<String> {
    let mut v = Vec::new();
    if predictor == 2 {
        v.push(format!(
            "imagecodecs_delta{{\"axis\":{},\"dist\":1}}",
            if chunky_spp > 1 { -2 } else { -1 }
        ));
    }
    if compression == 7 {
        v.push("imagecodecs_jpeg{}".into());
        return v;
    }
    if predictor == 3 {
        v.push("imagecodecs_floatpred{\"axis\":-1,\"dist\":1}".into());
    }
    match compression {
        1 => {}
        8 | 32946 => v.push("numcodecs.zlib{\"level\":6}".into()),
        5 => v.push("imagecodecs_lzw{}".into()),
        32773 => v.push("imagecodecs_packbits{}".into()),
        50000 => v.push("zstd{\"level\":0,\"checksum\":false}".into()),
        34925 => v.push(
            "numcodecs.lzma{\"format\":1,\"check\":-1,\"preset\":null,\"filters\":null}".into(),
        ),
        c => panic!("unexpected compression {c}"),
    }
    v
}

#[test]
fn every_fixture_matches_its_oracle() {
    let mut checked = 0;
    for (name, oracle, layout, bytes) in fixtures() {
        assert_eq!(layout.size, bytes.len() as u64, "{name}");
        assert!(layout.url.ends_with(&name), "{name}");
        let big = oracle["byteorder"] == ">";
        for (path, page) in named_pages(&oracle) {
            let compression = page["compression"].as_u64().unwrap();
            let predictor = page["predictor"].as_u64().unwrap();
            let Some(a) = find(&layout, &path) else {
                let p = layout
                    .problems
                    .iter()
                    .find(|p| p.path == path)
                    .unwrap_or_else(|| panic!("{name}:{path}: neither array nor problem"));
                panic!("{name}:{path}: unexpected problem {}", p.reason);
            };
            let ctx = format!("{name}:{path}");
            let spp = page["samplesperpixel"].as_u64().unwrap();
            let planar = page["planarconfig"].as_u64().unwrap() == 2 && spp > 1;
            let h = page["imagelength"].as_u64().unwrap();
            let w = page["imagewidth"].as_u64().unwrap();
            // Shape and dims.
            assert_eq!(a.shape, u64s(&page["shape"]), "{ctx}: shape");
            let dims = a.dim_names();
            let want_dims: Vec<&str> = if planar {
                vec!["band", "y", "x"]
            } else if spp > 1 {
                vec!["y", "x", "band"]
            } else {
                vec!["y", "x"]
            };
            assert_eq!(dims, want_dims, "{ctx}: dims");
            // Dtype (tifffile reports native order; the file's order is the oracle's byteorder).
            let dt = page["dtype"].as_str().unwrap();
            let kind = match &dt[1..2] {
                "b" => Kind::Bool,
                "u" => Kind::UInt,
                "i" => Kind::Int,
                "f" => Kind::Float,
                k => panic!("{ctx}: dtype {k}"),
            };
            assert_eq!(a.dtype.kind, kind, "{ctx}");
            assert_eq!(a.dtype.size.to_string(), dt[2..], "{ctx}");
            if a.dtype.size > 1 {
                assert_eq!(a.dtype.endian == Endian::Big, big, "{ctx}: endian");
            }
            // Blocks.
            let chunks = u64s(&page["chunks"]);
            let block: Vec<u64> = if planar {
                [vec![1], chunks.clone()].concat()
            } else {
                chunks.clone()
            };
            assert_eq!(a.chunks.block, block, "{ctx}: block");
            let tiled = page["is_tiled"].as_bool().unwrap();
            let padded_strip = name.starts_with("strips_padded_last");
            let want_edges = if tiled || padded_strip {
                EdgeStorage::Padded
            } else {
                EdgeStorage::Exact
            };
            assert_eq!(a.chunks.edges, want_edges, "{ctx}: edges");
            // Packed samples (bilevel.tif: 1 bit) are unpacked by imagecodecs_packints.
            let packed = page["bitspersample"].as_u64().unwrap() < 8;
            assert_eq!(
                a.chunks.splittable,
                compression == 1 && !tiled && !planar && !packed,
                "{ctx}: splittable"
            );
            let chunky = if planar { 1 } else { spp };
            check_blocks(
                &ctx,
                a,
                &page,
                &chunks,
                (h, w),
                (tiled, padded_strip),
                compression,
                chunky,
            );
            // Codecs.
            let got: Vec<String> = a
                .codecs
                .iter()
                .map(|c| format!("{}{}", c.name, Value::Object((*c.configuration).clone())))
                .collect();
            let want = if packed {
                let bits = page["bitspersample"].as_u64().unwrap();
                vec![format!(
                    "imagecodecs_packints{{\"bitspersample\":{bits},\"runlen\":{}}}",
                    chunks[1] * chunky
                )]
            } else {
                expected_codecs(compression, predictor, chunky)
            };
            assert_eq!(got, want, "{ctx}: codecs");
            check_geotiff(&ctx, a, &page);
            // Pixels decoded from the referenced blocks.
            if matches!(compression, 1 | 8) && predictor != 3 && !packed {
                for px in page["pixels"].as_array().unwrap() {
                    let idx = u64s(&px["index"]);
                    let want = px["value"].as_f64().unwrap();
                    let got = pixel(a, &bytes, &idx, compression, predictor, chunky);
                    assert_eq!(got, want, "{ctx}: pixel {idx:?}");
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 35, "only {checked} arrays checked");
}

/// Offsets and lengths of all allocated blocks, in order, and row-major grid indexes.
#[allow(clippy::too_many_arguments)]
fn check_blocks(
    ctx: &str,
    a: &ArrayLayout,
    page: &Value,
    chunks: &[u64],
    (h, w): (u64, u64),
    (tiled, padded_strip): (bool, bool),
    compression: u64,
    chunky: u64,
) {
    // Offsets and lengths: all allocated blocks, in order.
    let offs = u64s(&page["dataoffsets"]);
    let cnts = u64s(&page["databytecounts"]);
    let allocated: Vec<(u64, u64)> = offs
        .iter()
        .zip(&cnts)
        .filter(|(_, &c)| c > 0)
        .map(|(&o, &c)| (o, c))
        .collect();
    assert_eq!(
        a.chunks.entries.len(),
        allocated.len(),
        "{ctx}: entry count"
    );
    // Packed samples: each row starts on a byte.
    let bits = page["bitspersample"].as_u64().unwrap();
    let row_bytes = (chunks[1] * chunky * bits).div_ceil(8);
    let down = h.div_ceil(chunks[0]);
    for (k, (e, &(o, c))) in a.chunks.entries.iter().zip(&allocated).enumerate() {
        let DataRef::Ref { offset, length } = e.data else {
            panic!("{ctx}: inline")
        };
        assert_eq!(offset, o, "{ctx}: offset of block {k}");
        if compression == 1 {
            let r = (k as u64 / w.div_ceil(chunks[1])) % down;
            let rows = if !tiled && !padded_strip && r == down - 1 && h % chunks[0] != 0 {
                h % chunks[0]
            } else {
                chunks[0]
            };
            assert_eq!(length, rows * row_bytes, "{ctx}: length of block {k}");
            assert!(length <= c);
        } else {
            assert_eq!(length, c, "{ctx}: length of block {k}");
        }
    }
    // Grid indexes are row-major and inside the grid.
    let grid = a.chunks.grid_shape(&a.shape);
    for pair in a.chunks.entries.to_entries().windows(2) {
        assert!(pair[0].index < pair[1].index, "{ctx}: order");
    }
    for e in &a.chunks.entries {
        assert!(
            e.index.iter().zip(&grid).all(|(i, &g)| i < g),
            "{ctx}: index"
        );
    }
}

/// GeoTIFF tags kept verbatim (GDAL_NODATA as `_FillValue`).
fn check_geotiff(ctx: &str, a: &ArrayLayout, page: &Value) {
    // GeoTIFF tags kept verbatim.
    for (k, v) in page["geotiff"].as_object().unwrap() {
        let key = if k == "GDAL_NODATA" {
            "_FillValue"
        } else {
            k.as_str()
        };
        let got = a
            .attrs
            .get(key)
            .unwrap_or_else(|| panic!("{ctx}: attr {key}"));
        if k == "GDAL_NODATA" {
            assert_eq!(
                got.as_f64().unwrap(),
                v.as_str().unwrap().parse::<f64>().unwrap()
            );
        } else if let (Some(g), Some(w)) = (got.as_array(), v.as_array()) {
            let g: Vec<f64> = g.iter().map(|x| x.as_f64().unwrap()).collect();
            let w: Vec<f64> = w.iter().map(|x| x.as_f64().unwrap()).collect();
            assert_eq!(g, w, "{ctx}: {k}");
        } else {
            assert_eq!(
                got.as_str().map(|s| s.trim_end_matches('\0')),
                v.as_str(),
                "{ctx}: {k}"
            );
        }
    }
}

/// Decodes the element at `idx` from the block that holds it.
fn pixel(
    a: &ArrayLayout,
    file: &[u8],
    idx: &[u64],
    compression: u64,
    predictor: u64,
    spp: u64,
) -> f64 {
    let block = &a.chunks.block;
    let bidx: Vec<u64> = idx.iter().zip(block).map(|(i, b)| i / b).collect();
    let e = a
        .chunks
        .entries
        .iter()
        .find(|e| e.index.to_vec() == *bidx)
        .expect("block allocated");
    let DataRef::Ref { offset, length } = e.data else {
        panic!()
    };
    let raw = &file[offset as usize..(offset + length) as usize];
    let mut data = Vec::new();
    if compression == 8 {
        flate2::read::ZlibDecoder::new(raw)
            .read_to_end(&mut data)
            .unwrap();
    } else {
        data = raw.to_vec();
    }
    let size = a.dtype.size;
    let be = a.dtype.endian == Endian::Big;
    let get = |d: &[u8], k: usize| -> u64 {
        let mut v = 0u64;
        for j in 0..size {
            let b = d[k * size + j] as u64;
            v |= if be {
                b << (8 * (size - 1 - j))
            } else {
                b << (8 * j)
            };
        }
        v
    };
    // Block-local coordinates: (row, column, sample) within a row-major block.
    let local: Vec<u64> = idx.iter().zip(block).map(|(i, b)| i % b).collect();
    let (row, col, s, bw) = match (a.dims.len(), a.dim_names()[0]) {
        (2, _) => (local[0], local[1], 0, block[1]),
        (3, "band") => (local[1], local[2], 0, block[2]),
        _ => (local[0], local[1], local[2], block[1]),
    };
    let row_elems = (bw * spp) as usize;
    let mut value = get(&data, row as usize * row_elems + (col * spp + s) as usize);
    if predictor == 2 {
        // Undo horizontal differencing: sum the deltas of this sample along the row (wrapping).
        let mask = if size == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * size)) - 1
        };
        let mut acc = 0u64;
        for c in 0..=col {
            acc = acc.wrapping_add(get(
                &data,
                row as usize * row_elems + (c * spp + s) as usize,
            )) & mask;
        }
        value = acc;
    }
    let bits = 8 * size as u32;
    match a.dtype.kind {
        Kind::UInt => value as f64,
        Kind::Int => (((value << (64 - bits)) as i64) >> (64 - bits)) as f64,
        Kind::Float if size == 4 => f32::from_bits(value as u32) as f64,
        Kind::Float => f64::from_bits(value),
        _ => panic!(),
    }
}

#[test]
fn pages_are_also_stacked() {
    let p = dir().join("multipage_f32.tif");
    let l = vzplan_tiff::read_layout(&vzplan_io::open_local(&p).unwrap()).unwrap();
    let names: Vec<&str> = l.arrays.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(names, ["0", "1", "2", "pages"]);
    let s = find(&l, "pages").unwrap();
    assert_eq!(s.shape, [3, 30, 20]);
    assert_eq!(s.dim_names(), ["page", "y", "x"]);
    assert_eq!(s.chunks.block, [1, 8, 20]);
    assert_eq!(s.chunks.edges, EdgeStorage::Exact);
    assert_eq!(s.chunks.entries.len(), 12);
    for (p, page) in ["0", "1", "2"].iter().enumerate() {
        let a = find(&l, page).unwrap();
        for (k, e) in a.chunks.entries.iter().enumerate() {
            let se = &s.chunks.entries.get(p * 4 + k).unwrap();
            assert_eq!(
                se.index.to_vec(),
                [vec![p as u64], e.index.to_vec()].concat()
            );
            assert_eq!(se.data, e.data);
        }
    }
    // Different pages: no stack.
    let p = dir().join("multipage_mixed.tif");
    let l = vzplan_tiff::read_layout(&vzplan_io::open_local(&p).unwrap()).unwrap();
    let names: Vec<&str> = l.arrays.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(names, ["0", "1"]);
}

#[test]
fn cog_overviews_and_mask() {
    let p = dir().join("cog_chain.tif");
    let l = vzplan_tiff::read_layout(&vzplan_io::open_local(&p).unwrap()).unwrap();
    let names: Vec<&str> = l.arrays.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(names, ["0", "overview_1/0", "overview_2/0"], "mask skipped");
    assert!(l.problems.is_empty());
    let full = find(&l, "0").unwrap();
    assert_eq!(full.attrs["proj:code"], "EPSG:32633");
    let tr: Vec<f64> = serde_json::from_value(full.attrs["spatial:transform"].clone()).unwrap();
    assert_eq!(tr, [10.0, 0.0, 500000.0, 0.0, -10.0, 4600000.0]);
    assert_eq!(
        full.attrs["spatial:dimensions"],
        serde_json::json!(["y", "x"])
    );
    assert_eq!(full.attrs["spatial:registration"], "pixel");
    let ov: Vec<f64> = serde_json::from_value(
        find(&l, "overview_2/0").unwrap().attrs["spatial:transform"].clone(),
    )
    .unwrap();
    assert_eq!(ov, [40.0, 0.0, 500000.0, 0.0, -40.0, 4600000.0]);
    let p = dir().join("cog_subifds.tif");
    let l = vzplan_tiff::read_layout(&vzplan_io::open_local(&p).unwrap()).unwrap();
    let names: Vec<&str> = l.arrays.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(names, ["0", "overview_1/0", "overview_2/0"]);
    assert_eq!(find(&l, "overview_1/0").unwrap().shape, [32, 40]);
}

#[test]
fn geotiff_attributes() {
    let p = dir().join("geotiff_f32.tif");
    let l = vzplan_tiff::read_layout(&vzplan_io::open_local(&p).unwrap()).unwrap();
    let a = find(&l, "0").unwrap();
    assert_eq!(a.attrs["_FillValue"], -9999);
    assert_eq!(a.fill_value.as_deref(), Some(&(-9999f32).to_le_bytes()[..]));
    let tr: Vec<f64> = serde_json::from_value(a.attrs["spatial:transform"].clone()).unwrap();
    assert_eq!(tr, [30.0, 0.0, 440720.0, 0.0, -30.0, 3751320.0]);
    assert_eq!(a.attrs["proj:code"], "EPSG:32633");
    assert_eq!(a.attrs["spatial:shape"], serde_json::json!([30, 40]));
    assert_eq!(a.attrs["GeoKeys"]["3072"], 32633);
    let p = dir().join("geotiff_transform_u8.tif");
    let l = vzplan_tiff::read_layout(&vzplan_io::open_local(&p).unwrap()).unwrap();
    let a = find(&l, "0").unwrap();
    let tr: Vec<f64> = serde_json::from_value(a.attrs["spatial:transform"].clone()).unwrap();
    assert_eq!(tr, [10.0, 0.0, -180.0, 0.0, -10.0, 90.0]);
    assert_eq!(a.attrs["proj:code"], "EPSG:4326");
    assert_eq!(a.attrs["GeoKeys"]["2049"], "WGS 84");
    assert!(a.fill_value.is_none());
}

#[test]
fn imagecodecs_can_be_disabled() {
    let opts = vzplan_tiff::Options { imagecodecs: false };
    for (f, word) in [
        ("lzw_u16.tif", "LZW"),
        ("packbits_u8.tif", "PackBits"),
        ("pred2_u16.tif", "Predictor 2"),
    ] {
        let r = vzplan_io::open_local(dir().join(f)).unwrap();
        let l = vzplan_tiff::read_layout_with(&r, &opts).unwrap();
        assert!(l.arrays.is_empty(), "{f}");
        assert!(
            l.problems[0].reason.contains(word),
            "{f}: {}",
            l.problems[0].reason
        );
    }
    // Codecs numcodecs provides stay available.
    let r = vzplan_io::open_local(dir().join("zstd_f32.tif")).unwrap();
    assert_eq!(
        vzplan_tiff::read_layout_with(&r, &opts)
            .unwrap()
            .arrays
            .len(),
        1
    );
}

#[test]
fn sniffs_headers() {
    assert!(vzplan_tiff::sniff(b"II*\0\x08\0\0\0"));
    assert!(vzplan_tiff::sniff(b"MM\0*"));
    assert!(vzplan_tiff::sniff(b"II+\0"));
    assert!(vzplan_tiff::sniff(b"MM\0+"));
    assert!(!vzplan_tiff::sniff(b"\x89HDF\r\n\x1a\n"));
    assert!(!vzplan_tiff::sniff(b"CDF\x01"));
    assert!(!vzplan_tiff::sniff(b"II"));
    for f in [
        "bigtiff_u16.tif",
        "bigendian_i16.tif",
        "strips_u8.tif",
        "bigendian_big_pred2_u16.tif",
    ] {
        let b = std::fs::read(dir().join(f)).unwrap();
        assert!(vzplan_tiff::sniff(&b[..8]), "{f}");
    }
}
