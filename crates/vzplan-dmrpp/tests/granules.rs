//! A DMR++ gives the layout `vzplan-hdf5` gives its granule, wherever the DMR++ carries the
//! information: the oracle is vzplan's own scan of the paired file (testdata/dmrpp/data/, written
//! with h5py and netCDF4-python by scripts/fixtures/dmrpp.py, which wrote the sidecars from the
//! HDF5 library's view). What a DMR++ does not carry is listed in `explained`.

mod common;

use common::{compare, dmrpp, granule_layout, OpenAll, Unnamed};

#[test]
fn sds_matches_its_granule() {
    let (d, g) = (
        dmrpp("sds.h5.dmrpp", Some(&OpenAll)),
        granule_layout("data/sds.h5"),
    );
    assert_eq!(d.url, g.url);
    assert_eq!((d.size, &d.etag, &d.mtime), (g.size, &g.etag, &g.mtime));
    let left = compare(&d, &g);
    // Variable-length strings live in the granule's global heap, which the DMR++ does not list.
    assert_eq!(left, ["vlen"], "arrays only the granule's scan has");
    let p = d.problems.iter().find(|p| p.path == "vlen").unwrap();
    assert_eq!(p.kind, vzplan_core::ProblemKind::DataType);
    assert!(p.reason.contains("variable-length"), "{}", p.reason);
}

#[test]
fn netcdf4_groups_dims_and_fill_match_their_granule() {
    let (d, g) = (
        dmrpp("grid.nc.dmrpp", Some(&OpenAll)),
        granule_layout("data/grid.nc"),
    );
    assert_eq!(d.url, g.url);
    assert!(compare(&d, &g).is_empty());
    let dims = |l: &vzplan_core::SourceLayout, p: &str| {
        let a = l.arrays.iter().find(|a| a.path == p).unwrap();
        a.dims.iter().map(|d| d.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(dims(&d, "g/v"), ["lat", "depth"]);
    assert_eq!(dims(&d, "tas"), ["time", "lat", "lon"]);
    assert!(d.problems.is_empty(), "{:?}", d.problems);
}

#[test]
fn an_unnamed_granule_is_referenced_not_opened() {
    let d = dmrpp("sds.h5.dmrpp", Some(&Unnamed));
    let g = granule_layout("data/sds.h5");
    assert_eq!(d.url, g.url);
    // Its size is where its last chunk ends; nothing identifies its version.
    assert!(d.size <= g.size && d.size > 0);
    assert_eq!((d.etag.as_deref(), d.mtime.as_deref()), (None, None));
    let none = dmrpp("sds.h5.dmrpp", None);
    assert_eq!(none.size, d.size);
}
