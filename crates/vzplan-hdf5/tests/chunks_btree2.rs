//! `btree2::records` on the chunk v2 B-trees (record types 10 and 11) of the fixtures.

mod chunks_common;
use chunks_common::*;
use vzplan_hdf5::btree2;

fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |a, &x| (a << 8) | x as u64)
}

#[test]
fn type10_and_type11_records() {
    for (name, want_type) in [
        ("v110_bt2", 10u8),
        ("v110_bt2_gzip_sparse", 11),
        ("l_bt2_gzip_sparse", 11),
    ] {
        let f = load(name);
        let r = vzplan_io::open_local(&f.path).unwrap();
        let ctx = ctx_for(&r, &f.bytes);
        let (_, addr) = locate(&f);
        let h = btree2::header(&ctx, addr).unwrap();
        assert_eq!(h.record_type, want_type);
        assert!(h.depth >= 1, "{name}: depth {}", h.depth);
        assert_eq!(h.total_records, f.expect.len() as u64);
        let (t, recs) = btree2::records(&ctx, addr).unwrap();
        assert_eq!(t, want_type);
        assert_eq!(recs.len(), f.expect.len());
        let rank = f.geo.shape.len();
        // Size of Chunk Size field: v4 = 1 + bytes to encode the chunk size (capped at 8),
        // v5 = Size of Offsets.
        let width = match (want_type, f.geo.layout_version) {
            (10, _) => 0,
            (_, 4) => 2 + 4,
            (_, _) => 8 + 4,
        };
        let mut prev: Option<Vec<u64>> = None;
        for rec in &recs {
            assert_eq!(rec.len(), 8 + width + 8 * rank, "{name}");
            let scaled: Vec<u64> = (0..rank)
                .map(|d| le(&rec[8 + width + 8 * d..16 + width + 8 * d]))
                .collect();
            // Key order = row-major order of the scaled offsets.
            if let Some(p) = &prev {
                assert!(p < &scaled, "{name}: {p:?} !< {scaled:?}");
            }
            let offset: Vec<u64> = scaled
                .iter()
                .zip(&f.geo.chunk)
                .map(|(s, c)| s * c)
                .collect();
            let e = f
                .expect
                .iter()
                .find(|e| e.offset[..] == offset[..])
                .unwrap();
            assert_eq!(le(&rec[..8]), e.addr);
            if want_type == 11 {
                assert_eq!(le(&rec[8..8 + width - 4]), e.size);
                assert_eq!(le(&rec[width + 4..width + 8]), e.filter_mask as u64);
            }
            prev = Some(scaled);
        }
    }
}

#[test]
fn not_a_btree2_is_an_error() {
    let f = load("v110_fa");
    let r = vzplan_io::open_local(&f.path).unwrap();
    let ctx = ctx_for(&r, &f.bytes);
    let (_, fa) = locate(&f);
    assert!(btree2::records(&ctx, fa).is_err());
    assert!(btree2::records(&ctx, 0).is_err());
    assert!(btree2::records(&ctx, f.bytes.len() as u64 - 3).is_err());
    assert!(btree2::records(&ctx, u64::MAX - 1).is_err());
}
