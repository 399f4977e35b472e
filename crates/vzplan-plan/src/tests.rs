//! Planner rules on model-level layouts (the readers' own tests cover real files; the end-to-end
//! tests and the read-back check cover the whole pipeline).

use super::*;
use serde_json::Map;
use vzplan_core::{
    ArrayLayout, ChunkData, ChunkEntry, ChunkList, ChunkTable, Codec, DType, DataRef, Dim,
    EdgeStorage, Endian, Format, Kind, Rewriter, SourceLayout,
};

const F4: DType = DType::new(Kind::Float, 4, Endian::Little);
const F8: DType = DType::new(Kind::Float, 8, Endian::Little);

/// A file with `tas(time, lat)` of `n` steps in blocks of `b` × 2, and a `time` coordinate.
fn file(
    name: &str,
    t0: f64,
    n: u64,
    b: u64,
    codecs: Vec<Codec>,
    storage: EdgeStorage,
) -> SourceLayout {
    let blocks = n.div_ceil(b);
    let block_bytes = b * 2 * 4;
    let entries = (0..blocks)
        .flat_map(|i| {
            (0..2u64).map(move |j| ChunkEntry {
                index: vec![i, j],
                data: ChunkData::Ref {
                    offset: 1000 + (i * 2 + j) * block_bytes,
                    length: block_bytes,
                },
                filter_mask: 0,
            })
        })
        .collect::<Vec<_>>()
        .into();
    let tas = ArrayLayout {
        path: "tas".into(),
        dims: vec![Dim::new("time", true), Dim::new("lat", false)],
        shape: vec![n, 4],
        dtype: F4,
        fill_value: None,
        attrs: Map::new(),
        codecs,
        chunks: ChunkTable {
            block: vec![b, 2],
            edges: storage,
            splittable: false,
            entries,
        },
        values: None,
        fields: Vec::new(),
    };
    let values: Vec<u8> = (0..n).flat_map(|i| (t0 + i as f64).to_le_bytes()).collect();
    let mut tattrs = Map::new();
    tattrs.insert("units".into(), "days since 2000-01-01".into());
    let time = ArrayLayout {
        path: "time".into(),
        dims: vec![Dim::new("time", true)],
        shape: vec![n],
        dtype: F8,
        fill_value: None,
        attrs: tattrs,
        codecs: vec![],
        chunks: ChunkTable {
            block: vec![512],
            edges: EdgeStorage::Padded,
            splittable: false,
            entries: ChunkList::new(),
        },
        values: Some(values),
        fields: Vec::new(),
    };
    SourceLayout {
        linked: Vec::new(),
        url: format!("file:///d/{name}"),
        size: 1 << 20,
        etag: None,
        mtime: None,
        format: Format::HDF5,
        rewriter: Rewriter::Nccopy,
        attrs: Map::new(),
        groups: vec![],
        arrays: vec![tas, time],
        problems: vec![],
    }
}

fn zlib() -> Vec<Codec> {
    vec![Codec::shuffle(4), Codec::zlib(4)]
}

fn errors(p: &Plan) -> Vec<&Finding> {
    p.findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect()
}

#[test]
fn leap_years_concatenate_with_one_chunk_per_year() {
    // Out of command-line order on purpose: the planner orders by the time coordinate.
    let files = vec![
        file("2001.nc", 366.0, 365, 365, zlib(), EdgeStorage::Padded),
        file("2000.nc", 0.0, 366, 366, zlib(), EdgeStorage::Padded),
        file("2002.nc", 731.0, 365, 365, zlib(), EdgeStorage::Padded),
    ];
    let p = plan(files, &[], &Options::default());
    assert!(errors(&p).is_empty(), "{:?}", p.findings);
    assert_eq!(p.concat_dim.as_deref(), Some("time"));
    assert!(p.sources[0].url.ends_with("2000.nc"));
    let tas = p.arrays.iter().find(|a| a.path == "tas").unwrap();
    assert_eq!(tas.shape, vec![1096, 4]);
    assert_eq!(tas.edges[0].to_vec(), vec![366, 365, 365]);
    assert_eq!(tas.edges[1].to_vec(), vec![2, 2]);
    assert_eq!(tas.chunks.len(), 6);
    let last = tas
        .chunks
        .iter()
        .find(|c| c.index.to_vec() == [2, 1])
        .unwrap();
    assert_eq!(last.source, 2);
    let time = p.arrays.iter().find(|a| a.path == "time").unwrap();
    assert_eq!(time.shape, vec![1096]);
    let v = DType::decode_all_f64(&F8, time.values.as_ref().unwrap()).unwrap();
    assert_eq!(v.len(), 1096);
    assert!(v.windows(2).all(|w| w[1] - w[0] == 1.0));
    assert!(!p.incomplete());
}

#[test]
fn the_layouts_remains_stay_with_the_plan() {
    let files = || {
        vec![
            file("2001.nc", 366.0, 365, 365, zlib(), EdgeStorage::Padded),
            file("2000.nc", 0.0, 366, 366, zlib(), EdgeStorage::Padded),
        ]
    };
    let p = plan(files(), &[], &Options::default());
    assert_eq!(p.arrays.len(), 2);
    // Both files stay with the plan in plan order, their attributes kept, their tables taken.
    let spent = &p.remains.0;
    let names: Vec<&str> = spent.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(names, ["file:///d/2000.nc", "file:///d/2001.nc"]);
    let time = spent[0].arrays.iter().find(|a| a.path == "time").unwrap();
    assert_eq!(time.attrs["units"], "days since 2000-01-01");
    assert!(spent
        .iter()
        .flat_map(|l| &l.arrays)
        .all(|a| a.chunks.entries.is_empty()));
}

#[test]
fn padded_compressed_chunk_in_the_middle_is_refused() {
    let files = vec![
        file("a.nc", 0.0, 100, 30, zlib(), EdgeStorage::Padded),
        file("b.nc", 100.0, 100, 30, zlib(), EdgeStorage::Padded),
    ];
    let p = plan(files, &[], &Options::default());
    assert!(p.left_out.contains(&"tas".to_string()));
    assert!(p.arrays.iter().all(|a| a.path != "tas"));
    let f = errors(&p)
        .into_iter()
        .find(|f| f.kind == FindingKind::PaddedInteriorChunk)
        .unwrap();
    assert_eq!(f.file.as_deref(), Some("file:///d/a.nc"));
    let line = f.to_string();
    assert!(
        line.starts_with("/d/a.nc: tas: last chunk along time holds 10 of 30 rows"),
        "{line}"
    );
    assert!(line.contains("nccopy -c time/100,lat/2"), "{line}");
    assert!(p.incomplete());
    // The last file's padded chunk alone is fine: only a.nc is named.
    assert_eq!(
        p.findings
            .iter()
            .filter(|f| f.kind == FindingKind::PaddedInteriorChunk)
            .count(),
        1
    );
}

#[test]
fn padded_unfiltered_chunk_is_rescued_as_a_byte_prefix() {
    let files = vec![
        file("a.nc", 0.0, 100, 30, vec![], EdgeStorage::Padded),
        file("b.nc", 100.0, 100, 30, vec![], EdgeStorage::Padded),
    ];
    let p = plan(files, &[], &Options::default());
    assert!(errors(&p).is_empty(), "{:?}", p.findings);
    let tas = p.arrays.iter().find(|a| a.path == "tas").unwrap();
    assert_eq!(tas.edges[0].to_vec(), vec![30, 30, 30, 10, 30, 30, 30, 30]);
    let cut = tas
        .chunks
        .iter()
        .find(|c| c.index.to_vec() == [3, 0])
        .unwrap();
    assert_eq!(
        cut.data.to_owned(),
        ChunkData::Ref {
            offset: 1000 + 6 * 240,
            length: 10 * 2 * 4
        }
    );
    // The very last chunk keeps its full stored length (it overhangs the end).
    let end = tas
        .chunks
        .iter()
        .find(|c| c.index.to_vec() == [7, 1])
        .unwrap();
    assert!(matches!(end.data, DataRef::Ref { length: 240, .. }));
    assert!(p
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::RescuedPrefix));
}

#[test]
fn exact_short_blocks_concatenate_anywhere() {
    let files = vec![
        file("a.nc", 0.0, 100, 30, zlib(), EdgeStorage::Exact),
        file("b.nc", 100.0, 50, 30, zlib(), EdgeStorage::Exact),
    ];
    let p = plan(files, &[], &Options::default());
    assert!(errors(&p).is_empty(), "{:?}", p.findings);
    let tas = p.arrays.iter().find(|a| a.path == "tas").unwrap();
    assert_eq!(tas.edges[0].to_vec(), vec![30, 30, 30, 10, 30, 20]);
}

#[test]
fn other_axes_must_match() {
    let mut b = file("b.nc", 100.0, 100, 50, zlib(), EdgeStorage::Padded);
    b.arrays[0].chunks.block[1] = 4;
    let files = vec![file("a.nc", 0.0, 100, 50, zlib(), EdgeStorage::Padded), b];
    let p = plan(files, &[], &Options::default());
    let f = errors(&p)
        .into_iter()
        .find(|f| f.kind == FindingKind::Mismatch)
        .unwrap();
    assert_eq!(f.file.as_deref(), Some("file:///d/b.nc"));
    assert!(f.message.contains("along 'lat'"), "{}", f.message);
    assert!(p.left_out.contains(&"tas".to_string()));
    // The coordinate is still built.
    assert!(p.arrays.iter().any(|a| a.path == "time"));
}

#[test]
fn overlapping_and_gapped_coordinates_are_findings() {
    let files = vec![
        file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded),
        file("b.nc", 5.0, 10, 10, zlib(), EdgeStorage::Padded),
    ];
    let p = plan(files, &[], &Options::default());
    assert!(p
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::Overlap && f.file.as_deref() == Some("file:///d/b.nc")));
    assert!(p.left_out.contains(&"tas".to_string()));

    let files = vec![
        file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded),
        file("b.nc", 20.0, 10, 10, zlib(), EdgeStorage::Padded),
    ];
    let p = plan(files, &[], &Options::default());
    assert!(p
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::Gap && f.severity == Severity::Warning));
    assert!(errors(&p).is_empty());
}

#[test]
fn unsupported_and_unreadable_files_are_named_and_the_rest_planned() {
    let mut b = file("b.nc", 10.0, 10, 10, zlib(), EdgeStorage::Padded);
    b.arrays.remove(0);
    b.problems.push(vzplan_core::ArrayProblem::new(
        "tas",
        vzplan_core::ProblemKind::Filter,
        "filter scaleoffset (id 6) has no Zarr codec",
    ));
    let files = vec![file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded), b];
    let fail = ScanFailure {
        url: "file:///d/c.nc".into(),
        error: "file:///d/c.nc: not an HDF5 file".into(),
        ..Default::default()
    };
    let p = plan(files, &[fail], &Options::default());
    let lines: Vec<String> = p.findings.iter().map(|f| f.to_string()).collect();
    assert!(lines.iter().any(|l| l == "/d/c.nc: not an HDF5 file — check the file; the other files were planned without it"), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("/d/b.nc: tas: filter scaleoffset")),
        "{lines:?}"
    );
    // The fix names the real file and an output beside it.
    let f = p
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Unsupported)
        .unwrap();
    let fix = f.fix.as_deref().unwrap_or("");
    assert!(
        fix.contains("h5repack -f tas:NONE /d/b.nc /d/b.unfiltered.nc"),
        "{fix}"
    );
    assert!(p.arrays.iter().any(|a| a.path == "time"));
    assert!(p.incomplete());
}

#[test]
fn filter_masks_are_refused() {
    let mut a = file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded);
    edit_entries(&mut a.arrays[0].chunks.entries, |e| e[1].filter_mask = 1);
    let p = plan(vec![a], &[], &Options::default());
    assert!(p.findings.iter().any(|f| f.kind == FindingKind::FilterMask));
    assert!(p.left_out.contains(&"tas".to_string()));
}

#[test]
fn stacking_adds_a_leading_axis() {
    let files = vec![
        file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded),
        file("b.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded),
    ];
    let opts = Options {
        stack_dim: Some("member".into()),
        vars: vec!["tas".into()],
        ..Default::default()
    };
    let p = plan(files, &[], &opts);
    assert!(errors(&p).is_empty(), "{:?}", p.findings);
    let tas = p.arrays.iter().find(|a| a.path == "tas").unwrap();
    assert_eq!(tas.dims, vec!["member", "time", "lat"]);
    assert_eq!(tas.shape, vec![2, 10, 4]);
    assert_eq!(tas.edges[0].to_vec(), vec![1, 1]);
    assert!(tas
        .chunks
        .iter()
        .any(|c| c.index.to_vec() == [1, 0, 1] && c.source == 1));
    // The same time coordinate in both files is taken once, not stacked.
    let time = p.arrays.iter().find(|a| a.path == "time").unwrap();
    assert_eq!(time.dims, vec!["time"]);
    assert!(time.values.is_some());
}

#[test]
fn time_units_from_different_reference_dates_are_rebased() {
    let mut b = file("b.nc", 0.0, 365, 365, zlib(), EdgeStorage::Padded);
    b.arrays[1]
        .attrs
        .insert("units".into(), "days since 2001-01-01".into());
    let files = vec![b, file("a.nc", 0.0, 366, 366, zlib(), EdgeStorage::Padded)];
    let p = plan(files, &[], &Options::default());
    assert!(errors(&p).is_empty(), "{:?}", p.findings);
    assert!(
        p.sources[0].url.ends_with("a.nc"),
        "ordered by the converted values"
    );
    let time = p.arrays.iter().find(|a| a.path == "time").unwrap();
    let v = DType::decode_all_f64(&F8, time.values.as_ref().unwrap()).unwrap();
    assert_eq!(v.len(), 731);
    // In the units of the first file given (b.nc): a.nc's year 2000 counts back from 2001.
    assert!(
        v.iter().enumerate().all(|(i, &x)| x == i as f64 - 366.0),
        "{:?}",
        &v[360..372]
    );
    assert_eq!(time.attrs["units"], "days since 2001-01-01");
    assert!(p
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::Rebased && f.file.as_deref() == Some("file:///d/a.nc")));

    // Units that cannot be converted stay an error.
    let mut b = file("b.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded);
    b.arrays[1].attrs.insert("units".into(), "K".into());
    let p = plan(
        vec![file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded), b],
        &[],
        &Options::default(),
    );
    assert!(p
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::Mismatch && f.array.as_deref() == Some("time")));
}

#[test]
fn patch_turns_refusals_into_inline_repairs() {
    let files = || {
        vec![
            file("a.nc", 0.0, 100, 30, zlib(), EdgeStorage::Padded),
            file("b.nc", 100.0, 100, 30, zlib(), EdgeStorage::Padded),
        ]
    };
    let opts = Options {
        patch: true,
        ..Default::default()
    };
    let p = plan(files(), &[], &opts);
    assert!(errors(&p).is_empty(), "{:?}", p.findings);
    let tas = p.arrays.iter().find(|a| a.path == "tas").unwrap();
    assert_eq!(tas.edges[0].to_vec(), vec![30, 30, 30, 10, 30, 30, 30, 30]);
    // Both lat blocks of a.nc's last time block: keep 10 of 30 rows.
    assert_eq!(tas.patches.len(), 2);
    for pt in &tas.patches {
        assert_eq!(pt.stored, vec![30, 2]);
        assert_eq!(pt.keep, vec![10, 2]);
        assert_eq!(tas.chunks.key(pt.chunk).at(0), 3);
    }
    assert!(p.findings.iter().any(|f| f.kind == FindingKind::Patched));

    let mut a = file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded);
    edit_entries(&mut a.arrays[0].chunks.entries, |e| e[1].filter_mask = 2);
    let p = plan(vec![a], &[], &opts);
    let tas = p.arrays.iter().find(|a| a.path == "tas").unwrap();
    assert_eq!(tas.patches.len(), 1);
    assert_eq!(tas.patches[0].skipped, 2);
    assert_eq!(tas.patches[0].keep, tas.patches[0].stored);
}

#[test]
fn inconsistent_layouts_become_problems_not_panics() {
    // As a corrupt or hand-edited layouts file could hold them.
    let mut a = file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded);
    a.arrays[0].chunks.block = vec![10];
    let mut b = file("b.nc", 10.0, 10, 10, zlib(), EdgeStorage::Padded);
    // Every block index of rank 1 in a 2-D array (a list holds one rank; mixed ranks are refused
    // when a layout line is read).
    edit_entries(&mut b.arrays[0].chunks.entries, |e| {
        e.truncate(1);
        e[0].index = vec![0];
    });
    let p = plan(vec![a, b], &[], &Options::default());
    let bad: Vec<&Finding> = p
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Unsupported && f.array.as_deref() == Some("tas"))
        .collect();
    assert_eq!(bad.len(), 2, "{:?}", p.findings);
    assert!(bad[0].message.contains("inconsistent layout"));
    assert!(p.left_out.contains(&"tas".to_string()));
    assert!(p.arrays.iter().any(|a| a.path == "time"));
}

mod batch;

/// Edits a chunk table as a list of owned entries.
pub(crate) fn edit_entries(l: &mut ChunkList, f: impl FnOnce(&mut Vec<ChunkEntry>)) {
    let mut v = l.to_entries();
    f(&mut v);
    *l = v.into();
}
