//! Mosaic rules on model-level layouts (the read-back check covers real GeoTIFF/netCDF tiles).

use super::*;
use serde_json::{json, Map};
use vzplan_core::{
    ArrayLayout, AxisEdges, ChunkData, ChunkEntry, ChunkTable, DType, Dim, EdgeStorage, Endian,
    Format, Kind, Rewriter,
};

const U2: DType = DType::new(Kind::UInt, 2, Endian::Little);

/// A GeoTIFF-like tile of `h` × `w` at (row, col), blocks `bh` × `bw`.
#[allow(clippy::too_many_arguments)]
fn tile(
    name: &str,
    h: u64,
    w: u64,
    row: u64,
    col: u64,
    bh: u64,
    bw: u64,
    storage: EdgeStorage,
) -> SourceLayout {
    let (gy, gx) = (h.div_ceil(bh), w.div_ceil(bw));
    let mut entries = Vec::new();
    for i in 0..gy {
        for j in 0..gx {
            let rows = if storage == EdgeStorage::Exact {
                bh.min(h - i * bh)
            } else {
                bh
            };
            entries.push(ChunkEntry {
                index: vec![i, j],
                data: ChunkData::Ref {
                    offset: 100 + (i * gx + j) * 10_000,
                    length: rows * bw * 2,
                },
                filter_mask: 0,
            });
        }
    }
    let mut attrs = Map::new();
    attrs.insert(
        "spatial:transform".into(),
        json!([
            30.0,
            0.0,
            500000.0 + 30.0 * col as f64,
            0.0,
            -30.0,
            4600000.0 - 30.0 * row as f64
        ]),
    );
    attrs.insert("proj:code".into(), json!("EPSG:32633"));
    let a = ArrayLayout {
        path: "0".into(),
        dims: vec![Dim::new("y", false), Dim::new("x", false)],
        shape: vec![h, w],
        dtype: U2,
        fill_value: None,
        attrs,
        codecs: vec![vzplan_core::Codec::zlib(6)],
        chunks: ChunkTable {
            block: vec![bh, bw],
            edges: storage,
            splittable: false,
            entries: entries.into(),
        },
        values: None,
        fields: Vec::new(),
    };
    SourceLayout {
        linked: Vec::new(),
        url: format!("file:///m/{name}"),
        size: 1 << 24,
        etag: None,
        mtime: None,
        format: Format::TIFF,
        rewriter: Rewriter::Gdal,
        attrs: Map::new(),
        groups: vec![],
        arrays: vec![a],
        problems: vec![],
    }
}

fn mosaic() -> Options {
    Options {
        mosaic: true,
        ..Default::default()
    }
}

fn kinds(p: &Plan) -> Vec<(FindingKind, String)> {
    p.findings
        .iter()
        .filter(|f| f.severity != Severity::Warning)
        .map(|f| {
            (
                f.kind,
                f.file.clone().unwrap_or_default().replace("file:///m/", ""),
            )
        })
        .collect()
}

#[test]
fn aligned_uneven_2x2_is_one_chunk_per_strip() {
    let s = EdgeStorage::Exact;
    let files = vec![
        tile("a", 30, 40, 0, 0, 10, 40, s),
        tile("b", 30, 24, 0, 40, 10, 24, s),
        tile("c", 20, 40, 30, 0, 10, 40, s),
        tile("d", 20, 24, 30, 40, 10, 24, s),
    ];
    let p = super::super::plan(files, &[], &mosaic());
    assert!(kinds(&p).is_empty(), "{:?}", p.findings);
    let a = &p.arrays[0];
    assert_eq!(a.shape, vec![50, 64]);
    assert_eq!(
        a.edges,
        vec![AxisEdges::from(vec![10; 5]), AxisEdges::from(vec![40, 24])]
    );
    assert_eq!(a.chunks.len(), 10);
    // Chunk (3, 1) is the first strip of d.
    let c = a
        .chunks
        .iter()
        .find(|c| c.index.to_vec() == [3, 1])
        .unwrap();
    assert_eq!(c.source, 3);
    assert_eq!(
        c.data.to_owned(),
        ChunkData::Ref {
            offset: 100,
            length: 10 * 24 * 2
        }
    );
    assert_eq!(
        a.attrs["spatial:transform"],
        json!([30, 0, 500000, 0, -30, 4600000])
    );
    assert_eq!(a.attrs["spatial:shape"], json!([50, 64]));
    assert!(p.mosaics[0]
        .tiles
        .iter()
        .all(|t| t.status == TileStatus::Fits));
}

#[test]
fn input_order_does_not_matter_for_placement() {
    let s = EdgeStorage::Exact;
    let files = vec![
        tile("d", 20, 24, 30, 40, 10, 24, s),
        tile("a", 30, 40, 0, 0, 10, 40, s),
    ];
    let p = super::super::plan(files, &[], &mosaic());
    let v = &p.mosaics[0];
    assert_eq!(v.tiles[0].offset, Some([30, 40]));
    assert_eq!(v.tiles[1].offset, Some([0, 0]));
    assert_eq!(v.gaps.len(), 2);
    assert_eq!(p.arrays[0].shape, vec![50, 64]);
}

#[test]
fn padded_tiles_only_last_on_their_axis() {
    let s = EdgeStorage::Padded;
    // 24 columns in 16-wide tiles, then another tile to the right: padded inside the mosaic.
    let p = super::super::plan(
        vec![
            tile("a", 32, 24, 0, 0, 16, 16, s),
            tile("b", 32, 32, 0, 24, 16, 16, s),
        ],
        &[],
        &mosaic(),
    );
    assert!(
        kinds(&p).contains(&(FindingKind::PaddedInteriorChunk, "a".into())),
        "{:?}",
        p.findings
    );
    assert!(p.arrays.is_empty());
    assert!(p
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::RewriteSuggestion));
    // The same tile last along x: fits, the last edge is the full (padded) block.
    let p = super::super::plan(
        vec![
            tile("b", 32, 32, 0, 0, 16, 16, s),
            tile("a", 32, 24, 0, 32, 16, 16, s),
        ],
        &[],
        &mosaic(),
    );
    assert!(kinds(&p).is_empty(), "{:?}", p.findings);
    assert_eq!(p.arrays[0].edges[1], AxisEdges::from(vec![16, 16, 16, 16]));
    assert_eq!(p.mosaics[0].tiles[1].status, TileStatus::Padded);
}

#[test]
fn brick_staggered_strips_are_explained_cut_by_cut() {
    let s = EdgeStorage::Exact;
    let files = vec![
        tile("b0", 32, 32, 0, 0, 16, 32, s),
        tile("b1", 32, 32, 0, 32, 16, 32, s),
        tile("b2", 32, 32, 32, 16, 16, 32, s),
        tile("b3", 32, 32, 32, 48, 16, 32, s),
    ];
    let p = super::super::plan(files, &[], &mosaic());
    let st: Vec<&Finding> = p
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::StaggeredCut)
        .collect();
    assert_eq!(st.len(), 4, "{:?}", p.findings);
    assert!(st[0].message.contains("x 16"), "{}", st[0]);
    assert!(st[0]
        .location
        .as_deref()
        .unwrap()
        .contains("block 0 along x"));
    assert!(p.arrays.is_empty() && p.left_out == vec!["0".to_string()]);
    let rw = p
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::RewriteSuggestion)
        .unwrap();
    assert!(rw.fix.as_deref().unwrap().contains("BLOCKXSIZE=16"), "{rw}");
    assert_eq!(p.mosaics[0].staggered.len(), 4);
}

#[test]
fn brick_staggered_tiles_fit_when_blocks_line_up() {
    let s = EdgeStorage::Padded;
    let files = vec![
        tile("b0", 32, 32, 0, 0, 16, 16, s),
        tile("b1", 32, 32, 0, 32, 16, 16, s),
        tile("b2", 32, 32, 32, 16, 16, 16, s),
        tile("b3", 32, 32, 32, 48, 16, 16, s),
    ];
    let p = super::super::plan(files, &[], &mosaic());
    assert!(kinds(&p).is_empty(), "{:?}", p.findings);
    assert_eq!(p.arrays[0].chunks.len(), 16);
    assert_eq!(
        p.findings
            .iter()
            .filter(|f| f.kind == FindingKind::Gap)
            .count(),
        2
    );
}

#[test]
fn overlap_by_whole_blocks_is_resolved_last_wins() {
    let s = EdgeStorage::Padded;
    let p = super::super::plan(
        vec![
            tile("a", 48, 48, 0, 0, 16, 16, s),
            tile("b", 48, 48, 16, 32, 16, 16, s),
        ],
        &[],
        &mosaic(),
    );
    assert_eq!(
        kinds(&p),
        vec![(FindingKind::OverlapResolved, "a".into())],
        "{:?}",
        p.findings
    );
    let a = &p.arrays[0];
    // Cell (1, 2) belongs to b (its block (0, 0)), not a.
    let c = a
        .chunks
        .iter()
        .find(|c| c.index.to_vec() == [1, 2])
        .unwrap();
    assert_eq!(
        (c.source, &c.data.to_owned()),
        (
            1,
            &ChunkData::Ref {
                offset: 100,
                length: 512
            }
        )
    );
    assert_eq!(p.mosaics[0].tiles[0].dropped, vec![[1, 2], [2, 2]]);
}

#[test]
fn overlap_by_part_of_a_block_is_a_finding() {
    let s = EdgeStorage::Padded;
    let p = super::super::plan(
        vec![
            tile("a", 32, 32, 0, 0, 16, 16, s),
            tile("b", 32, 32, 0, 24, 16, 16, s),
        ],
        &[],
        &mosaic(),
    );
    assert!(
        kinds(&p).contains(&(FindingKind::Overlap, "a".into())),
        "{:?}",
        p.findings
    );
    assert!(p.arrays.is_empty());
}

#[test]
fn misaligned_and_other_crs_are_not_placed() {
    let s = EdgeStorage::Exact;
    let mut c = tile("c", 20, 20, 0, 20, 10, 20, s);
    c.arrays[0]
        .attrs
        .insert("proj:code".into(), json!("EPSG:32634"));
    let mut d = tile("d", 20, 20, 0, 40, 10, 20, s);
    d.arrays[0].attrs.insert(
        "spatial:transform".into(),
        json!([30.0, 0.0, 500000.0 + 30.0 * 40.5, 0.0, -30.0, 4600000.0]),
    );
    let p = super::super::plan(
        vec![tile("a", 20, 20, 0, 0, 10, 20, s), c, d],
        &[],
        &mosaic(),
    );
    assert_eq!(
        kinds(&p),
        vec![
            (FindingKind::Mismatch, "c".into()),
            (FindingKind::Mismatch, "d".into())
        ]
    );
    assert!(p.incomplete());
    assert_eq!(p.unplaced, vec![1, 2]);
    // One image, and the coordinates and grid mapping of its georeferencing.
    let paths: Vec<&str> = p.arrays.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(paths[1..], ["spatial_ref", "y", "x"]);
}

#[test]
fn explicit_layout_places_plain_tiles() {
    let s = EdgeStorage::Exact;
    let mut a = tile("a", 30, 40, 0, 0, 10, 40, s);
    let mut b = tile("b", 30, 24, 0, 0, 10, 24, s);
    for l in [&mut a, &mut b] {
        l.arrays[0].attrs.clear();
    }
    let layout = parse_layout("# comment\na 0 0\nfile:///m/b 0 40\n").unwrap();
    let opts = Options {
        mosaic_layout: Some(layout),
        ..Default::default()
    };
    let p = super::super::plan(vec![a, b], &[], &opts);
    assert!(kinds(&p).is_empty(), "{:?}", p.findings);
    assert_eq!(p.arrays[0].edges[1], AxisEdges::from(vec![40, 24]));
    assert!(parse_layout("a 0").is_err());
    assert_eq!(
        parse_layout(r#"[{"path": "x.tif", "row": 3, "col": 4}]"#).unwrap()[0].col,
        4
    );
}

#[test]
fn splittable_strips_are_cut_between_rows() {
    let s = EdgeStorage::Exact;
    let mut a = tile("a", 20, 16, 0, 0, 20, 16, s);
    a.arrays[0].codecs.clear();
    a.arrays[0].chunks.splittable = true;
    crate::tests::edit_entries(&mut a.arrays[0].chunks.entries, |e| {
        e[0].data = ChunkData::Ref {
            offset: 1000,
            length: 20 * 16 * 2,
        }
    });
    let mut b = tile("b", 20, 16, 0, 16, 10, 16, s);
    b.arrays[0].codecs.clear();
    let p = super::super::plan(vec![a, b], &[], &mosaic());
    assert!(kinds(&p).is_empty(), "{:?}", p.findings);
    let c = p.arrays[0]
        .chunks
        .iter()
        .find(|c| c.index.to_vec() == [1, 0])
        .unwrap();
    assert_eq!(
        c.data.to_owned(),
        ChunkData::Ref {
            offset: 1000 + 10 * 32,
            length: 10 * 32
        }
    );
}
