//! Batch trust: one bad file never costs the good files' results, the first file is
//! not special, and every size or count in a layout is bounded before it is used.

use super::*;

/// Ten years of daily files, `tas(time, lat)` in one chunk per file.
fn years(n: usize) -> Vec<SourceLayout> {
    (0..n)
        .map(|i| {
            let name = format!("tas_{}.nc", 2000 + i);
            file(
                &name,
                365.0 * i as f64,
                365,
                365,
                zlib(),
                EdgeStorage::Padded,
            )
        })
        .collect()
}

/// What a reader makes of a file whose `time` failed its checksum: the coordinate is a problem
/// and, without its dimension scale, `tas` is on phony dimensions.
fn checksum_failed(mut l: SourceLayout) -> SourceLayout {
    l.arrays.retain(|a| a.path != "time");
    l.problems.push(vzplan_core::ArrayProblem::new(
        "time",
        vzplan_core::ProblemKind::Unreadable,
        "object header checksum mismatch",
    ));
    for (i, d) in l.arrays[0].dims.iter_mut().enumerate() {
        d.name = format!("phony_dim_{i}");
    }
    l
}

#[test]
fn a_file_with_unreadable_coordinates_is_left_out_as_a_file() {
    for bad_at in [0, 3] {
        let mut files = years(6);
        files[bad_at] = checksum_failed(files[bad_at].clone());
        // Even given first on the command line, the bad file decides nothing.
        files.swap(0, bad_at);
        let p = plan(files, &[], &Options::default());
        assert_eq!(p.concat_dim.as_deref(), Some("time"), "{:?}", p.findings);
        let bad_url = format!("file:///d/tas_{}.nc", 2000 + bad_at);
        let f: Vec<&Finding> = errors(&p);
        assert_eq!(f.len(), 1, "{:?}", p.findings);
        assert_eq!(f[0].kind, FindingKind::FileError);
        assert_eq!(f[0].file.as_deref(), Some(bad_url.as_str()));
        assert!(f[0].message.contains("checksum"), "{}", f[0].message);
        assert!(p.incomplete());
        assert_eq!(p.sources.len(), 5);
        assert!(p.sources.iter().all(|s| s.url != bad_url));
        let tas = p.arrays.iter().find(|a| a.path == "tas").unwrap();
        assert_eq!(tas.shape, vec![5 * 365, 4]);
        assert!(p.left_out.is_empty());
    }
}

#[test]
fn a_truncated_file_costs_only_itself() {
    // Its data variable cannot be read (chunk index past the end): the file is left out, not
    // the variable from every file.
    let mut files = years(4);
    files[2].arrays.retain(|a| a.path != "tas");
    files[2].problems.push(vzplan_core::ArrayProblem::new(
        "tas",
        vzplan_core::ProblemKind::Unreadable,
        "B-tree node at 5000 is past the end of the file (2048 bytes)",
    ));
    let p = plan(files, &[], &Options::default());
    assert!(p.arrays.iter().any(|a| a.path == "tas" && a.files == 3));
    assert!(p.left_out.is_empty(), "{:?}", p.findings);
    let f = errors(&p);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].file.as_deref(), Some("file:///d/tas_2002.nc"));
    assert!(p.incomplete());
    // A chunk reference reaching past the file's size is caught by validation the same way.
    let mut files = years(3);
    files[1].size = 100;
    let p = plan(files, &[], &Options::default());
    assert!(p.arrays.iter().any(|a| a.path == "tas" && a.files == 2));
    let f = errors(&p);
    assert_eq!(f.len(), 1, "{:?}", p.findings);
    assert!(
        f[0].message.contains("past the end of the file"),
        "{}",
        f[0].message
    );
}

#[test]
fn the_same_file_twice_is_used_once() {
    let files = years(3);
    let mut twice = files.clone();
    twice.push(files[1].clone());
    twice.insert(0, files[2].clone());
    let fail = ScanFailure {
        url: "file:///d/gone.nc".into(),
        error: "not found".into(),
        ..Default::default()
    };
    let p = plan(twice, &[fail.clone(), fail], &Options::default());
    assert!(
        p.left_out.is_empty() && errors(&p).len() == 1,
        "{:?}",
        p.findings
    );
    assert_eq!(p.sources.len(), 3);
    let dup: Vec<&Finding> = p
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Duplicate)
        .collect();
    assert_eq!(dup.len(), 3, "{:?}", p.findings);
    assert!(dup.iter().all(|f| f.severity == Severity::Info));
    assert!(dup[0].message.contains("given 2 times"));
    let single = plan(files, &[], &Options::default());
    assert_eq!(single.arrays, p.arrays);
}

#[test]
fn the_majority_sets_the_reference_not_the_first_file() {
    let mut files = years(4);
    files[0].arrays[0].chunks.block[1] = 4;
    let p = plan(files, &[], &Options::default());
    let f = errors(&p);
    assert_eq!(f.len(), 1, "{:?}", p.findings);
    assert_eq!(f[0].file.as_deref(), Some("file:///d/tas_2000.nc"));
    assert!(
        f[0].message.contains("in the 3 other files"),
        "{}",
        f[0].message
    );
    assert!(!f[0].message.contains("first file"));
    // Units: the odd file is the one named, whatever its position.
    let mut files = years(3);
    files[0].arrays[1].attrs.insert("units".into(), "K".into());
    let p = plan(files, &[], &Options::default());
    let f: Vec<&Finding> = errors(&p)
        .into_iter()
        .filter(|f| f.kind == FindingKind::Mismatch)
        .collect();
    assert!(
        f.iter()
            .any(|f| f.file.as_deref() == Some("file:///d/tas_2000.nc")
                && f.message.contains("the 2 other files")),
        "{:?}",
        p.findings
    );
}

/// One array of `shape` in blocks of `block`, one chunk written, as a layouts file may hold it.
fn wild(name: &str, shape: Vec<u64>, block: Vec<u64>) -> SourceLayout {
    let mut l = file(name, 0.0, 10, 10, vec![], EdgeStorage::Padded);
    l.arrays.truncate(1);
    let a = &mut l.arrays[0];
    a.dims = (0..shape.len())
        .map(|i| vzplan_core::Dim::new(format!("d{i}"), false))
        .collect();
    a.shape = shape.clone();
    a.chunks.block = block;
    edit_entries(&mut a.chunks.entries, |e| {
        e.truncate(1);
        e[0].index = vec![0; shape.len()];
    });
    l
}

/// A change to one array of a layout.
type Edit = Box<dyn Fn(&mut ArrayLayout)>;

#[test]
fn huge_extents_are_planned_as_runs_and_bad_fields_become_problems() {
    // 2^40 chunks of 1, or 2^64 - 1 elements: planned, as runs, instantly.
    for n in [1u64 << 40, u64::MAX, 1_000_000_000_000_000_000] {
        for opts in [
            Options::default(),
            Options {
                stack_dim: Some("member".into()),
                ..Default::default()
            },
        ] {
            let files = vec![
                wild("a.nc", vec![n], vec![1]),
                wild("b.nc", vec![n], vec![1]),
            ];
            let p = plan(files, &[], &opts);
            let tas = p.arrays.iter().find(|a| a.path == "tas");
            let tas = tas.unwrap_or_else(|| panic!("{n}: {:?}", p.findings));
            let last = tas.edges.last().unwrap();
            assert_eq!(last.count(), n);
            assert_eq!(last.regular_step(), Some(1));
        }
    }
    // Concatenated along its own huge axis.
    let mut files = vec![
        wild("a.nc", vec![1 << 62], vec![1]),
        wild("b.nc", vec![1 << 62], vec![1]),
    ];
    for f in &mut files {
        f.arrays[0].dims[0] = vzplan_core::Dim::new("time", true);
    }
    let p = plan(files, &[], &Options::default());
    let tas = &p.arrays[0];
    assert_eq!(tas.shape, vec![1 << 63]);
    assert_eq!(tas.edges[0].count(), 1 << 63);

    // Each impossible field: a problem naming it, never a panic or an allocation.
    let cases: Vec<(&str, Edit)> = vec![
        ("element type", Box::new(|a| a.dtype.size = 9)),
        (
            "element type",
            Box::new(|a| a.dtype = DType::new(Kind::Bool, 0, Endian::Big)),
        ),
        (
            "rank",
            Box::new(|a| {
                a.shape = vec![1; 40];
                a.chunks.block = vec![1; 40];
                a.dims = (0..40)
                    .map(|i| vzplan_core::Dim::new(format!("x{i}"), false))
                    .collect();
                a.chunks.entries = ChunkList::new();
            }),
        ),
        (
            "overflows",
            Box::new(|a| {
                edit_entries(&mut a.chunks.entries, |e| {
                    e[0].data = ChunkData::Ref {
                        offset: u64::MAX,
                        length: 2,
                    }
                })
            }),
        ),
        (
            "more blocks than 2^64",
            Box::new(|a| {
                a.shape = vec![u64::MAX, u64::MAX];
                a.chunks.block = vec![1, 1];
            }),
        ),
        (
            "overflows 2^64 bytes",
            Box::new(|a| {
                a.shape = vec![u64::MAX, u64::MAX];
                a.chunks.block = vec![1 << 40, 1 << 40];
            }),
        ),
        ("block length 0", Box::new(|a| a.chunks.block = vec![0, 2])),
        ("fill value", Box::new(|a| a.fill_value = Some(vec![0; 3]))),
        ("values", Box::new(|a| a.values = Some(vec![0; 3]))),
    ];
    for (want, edit) in cases {
        let mut a = file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded);
        edit(&mut a.arrays[0]);
        let p = plan(vec![a], &[], &Options::default());
        let f = p
            .findings
            .iter()
            .find(|f| f.array.as_deref() == Some("tas"))
            .unwrap_or_else(|| panic!("{want}: {:?}", p.findings));
        assert_eq!(f.kind, FindingKind::Unsupported);
        assert!(f.message.contains(want), "{want}: {}", f.message);
        assert!(p.left_out.contains(&"tas".to_string()));
        assert!(p.arrays.iter().any(|a| a.path == "time"));
    }
}

#[test]
fn blocks_outside_the_extent_are_dropped() {
    // An HDF5 dataset shrunk after writing keeps its old chunks in the index.
    let mut a = file("a.nc", 0.0, 10, 10, zlib(), EdgeStorage::Padded);
    edit_entries(&mut a.arrays[0].chunks.entries, |e| {
        let mut extra = e[0].clone();
        extra.index = vec![u64::MAX, 0];
        e.push(extra);
    });
    let p = plan(vec![a], &[], &Options::default());
    assert!(errors(&p).is_empty(), "{:?}", p.findings);
    let tas = p.arrays.iter().find(|a| a.path == "tas").unwrap();
    assert_eq!(tas.chunks.len(), 2);
}

#[test]
fn a_mosaic_of_huge_tiles_is_refused_not_expanded() {
    let mut files = vec![
        wild("a.nc", vec![1 << 40, 4], vec![1, 4]),
        wild("b.nc", vec![4, 4], vec![2, 2]),
    ];
    for f in &mut files {
        f.arrays[0].dims = vec![
            vzplan_core::Dim::new("y", false),
            vzplan_core::Dim::new("x", false),
        ];
    }
    let opts = Options {
        mosaic_layout: Some(vec![
            LayoutEntry {
                path: "a.nc".into(),
                row: 0,
                col: 0,
            },
            LayoutEntry {
                path: "b.nc".into(),
                row: 1 << 62,
                col: 0,
            },
        ]),
        ..Default::default()
    };
    let p = plan(files, &[], &opts);
    assert_eq!(p.unplaced.len(), 2, "{:?}", p.findings);
    assert!(p
        .findings
        .iter()
        .any(|f| f.message.contains("blocks along an axis")));
}

#[test]
fn a_stack_dimension_that_exists_already_is_a_finding() {
    let opts = Options {
        stack_dim: Some("time".into()),
        ..Default::default()
    };
    let p = plan(years(2), &[], &opts);
    assert!(p.left_out.contains(&"tas".to_string()), "{:?}", p.findings);
    assert!(p.arrays.iter().all(|a| {
        let mut d = a.dims.clone();
        d.sort();
        d.dedup();
        d.len() == a.dims.len()
    }));
    assert!(p.findings.iter().any(|f| f.array.as_deref() == Some("tas")
        && f.message.contains("has a dimension 'time' already")));
    assert!(p.incomplete());
}
