//! A valid HDF5 file (scripts/fixtures/bounds.py, 1.4 KB) with a dataset of 2^40 chunks of 1,
//! nothing written: read and planned as one run of edges, without one entry per chunk (it
//! aborted with an 8 TiB allocation), stacked and concatenated too.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use vzplan_plan::{plan, Options};

fn layout(name: &str) -> vzplan_core::SourceLayout {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hdf5/bounds/huge_grid.h5");
    let f = vzplan_io::LocalFile::open(&p).unwrap();
    let mut l = vzplan_hdf5::read_layout(&f).unwrap();
    l.url = format!("file:///b/{name}");
    l
}

#[test]
fn two_to_the_forty_chunks_plan_as_one_run() {
    let t = Instant::now();
    let l = layout("a.h5");
    let x = l.arrays.iter().find(|a| a.path == "x").unwrap();
    assert_eq!(x.shape, vec![1 << 40]);
    assert_eq!(x.chunks.block, vec![1]);
    assert!(x.chunks.entries.is_empty());

    let p = plan(vec![l.clone()], &[], &Options::default());
    assert!(p.findings.is_empty(), "{:?}", p.findings);
    let a = &p.arrays[0];
    assert_eq!(a.edges[0].runs(), &[(1, 1 << 40)]);
    assert!(a.chunks.is_empty());

    let stack = Options {
        stack_dim: Some("member".into()),
        ..Default::default()
    };
    let p = plan(vec![l.clone(), layout("b.h5")], &[], &stack);
    assert!(p.findings.is_empty(), "{:?}", p.findings);
    assert_eq!(p.arrays[0].shape, vec![2, 1 << 40]);
    assert_eq!(p.arrays[0].edges[1].count(), 1 << 40);

    let concat = Options {
        concat_dim: Some(x_dim(&l)),
        ..Default::default()
    };
    let p = plan(vec![l, layout("b.h5")], &[], &concat);
    let a = p.arrays.iter().find(|a| a.path == "x").unwrap();
    assert_eq!(a.shape, vec![1 << 41]);
    assert_eq!(a.edges[0].runs(), &[(1, 1 << 41)]);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

fn x_dim(l: &vzplan_core::SourceLayout) -> String {
    l.arrays[0].dims[0].name.clone()
}
