//! Every chunk-index reader against h5py's `chunk_iter` on the fixtures of
//! scripts/fixtures/hdf5_chunks.py, located without the object model.

mod chunks_common;
use chunks_common::*;
use std::sync::Arc;
use vzplan_hdf5::chunks::Geometry;
use vzplan_io::{LocalFile, RangeRead};

#[test]
fn all_fixtures_match_oracle() {
    let mut report = Vec::new();
    for f in fixtures() {
        let (so, sl, base) = superblock(&f.bytes);
        assert_eq!((so, sl, base), (8, 8, 0), "{}", f.name);
        // Uncached, so `requests` counts the index reader's own reads.
        let raw: Arc<dyn RangeRead> = Arc::new(LocalFile::open(&f.path).unwrap());
        let ctx = ctx_for(raw.as_ref(), &f.bytes);
        let (kind, addr) = locate(&f);
        let before = raw.stats();
        let got = run(&ctx, &f, &kind, addr).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let after = raw.stats();
        assert_eq!(got.len(), f.expect.len(), "{}: chunk count", f.name);
        for (g, e) in got.iter().zip(&f.expect) {
            assert_eq!(g, e, "{}", f.name);
        }
        report.push(format!(
            "{:<24} {:<8} layout v{} chunks {:>5}  reads {:>3}  bytes {:>6}",
            f.name,
            kind,
            f.geo.layout_version,
            got.len(),
            after.requests - before.requests,
            after.bytes - before.bytes
        ));
    }
    println!("{}", report.join("\n"));
}

/// The filtered-entry size width depends on the layout version: a fixture read with the other
/// version's rule must fail loudly (entry size mismatch), not decode garbage.
#[test]
fn wrong_layout_version_is_an_error() {
    for name in [
        "l_fa_gzip",
        "v110_fa_gzip",
        "l_ea_gzip",
        "v110_ea_gzip",
        "l_bt2_gzip_sparse",
    ] {
        let mut f = load(name);
        f.geo.layout_version = if f.geo.layout_version == 5 { 4 } else { 5 };
        let r = vzplan_io::open_local(&f.path).unwrap();
        let ctx = ctx_for(&r, &f.bytes);
        let (kind, addr) = locate(&f);
        assert!(run(&ctx, &f, &kind, addr).is_err(), "{name}");
    }
}

#[test]
fn unallocated_index_is_empty() {
    let f = load("v110_fa");
    let r = vzplan_io::open_local(&f.path).unwrap();
    let ctx = ctx_for(&r, &f.bytes);
    let u = ctx.undef();
    let g = &f.geo;
    use vzplan_hdf5::chunks::*;
    assert!(single(&ctx, u, None, g).unwrap().is_empty());
    assert!(implicit(&ctx, u, g).unwrap().is_empty());
    assert!(btree1_chunks(&ctx, u, g).unwrap().is_empty());
    assert!(btree2_chunks(&ctx, u, g).unwrap().is_empty());
}

#[test]
fn bad_geometry_is_an_error() {
    let f = load("v110_fa");
    let r = vzplan_io::open_local(&f.path).unwrap();
    let ctx = ctx_for(&r, &f.bytes);
    let (_, addr) = locate(&f);
    let bad = [
        Geometry {
            chunk: vec![0, 4],
            ..f.geo.clone()
        },
        Geometry {
            chunk: vec![3],
            ..f.geo.clone()
        },
        Geometry {
            shape: vec![],
            max_shape: vec![],
            chunk: vec![],
            ..f.geo.clone()
        },
        Geometry {
            elem_size: 0,
            ..f.geo.clone()
        },
        // The header's entry count disagrees with the maximum extent.
        Geometry {
            max_shape: vec![13, 12],
            ..f.geo.clone()
        },
        Geometry {
            filtered: true,
            ..f.geo.clone()
        },
        Geometry {
            elem_size: u64::MAX,
            ..f.geo.clone()
        },
    ];
    for (i, g) in bad.iter().enumerate() {
        assert!(
            vzplan_hdf5::chunks::fixed_array(&ctx, addr, g).is_err(),
            "{g:?}"
        );
        // Only malformed geometry (not the FA-specific mismatches) fails the implicit index.
        if i < 4 || i == 6 {
            assert!(vzplan_hdf5::chunks::implicit(&ctx, 0, g).is_err(), "{g:?}");
        }
    }
}
