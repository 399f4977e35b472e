//! The whole path, `read_layout` → `ArrayLayout.chunks.entries`, against the oracle of every
//! chunk-index fixture (scripts/fixtures/hdf5_chunks.py).

mod chunks_common;
use chunks_common::*;
use vzplan_core::DataRef;

#[test]
fn read_layout_matches_oracle() {
    for f in fixtures() {
        let r = vzplan_io::open_local(&f.path).unwrap();
        let layout = vzplan_hdf5::read_layout(&r).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let Some(a) = layout.arrays.iter().find(|a| a.path == "x") else {
            panic!("{}: no array x; problems {:?}", f.name, layout.problems);
        };
        assert_eq!(a.shape, f.geo.shape, "{}", f.name);
        assert_eq!(a.chunks.block, f.geo.chunk, "{}", f.name);
        assert_eq!(
            a.chunks.entries.len(),
            f.expect.len(),
            "{}: chunk count",
            f.name
        );
        for (e, x) in a.chunks.entries.iter().zip(&f.expect) {
            let index: Vec<u64> = x
                .offset
                .iter()
                .zip(&f.geo.chunk)
                .map(|(o, c)| o / c)
                .collect();
            assert_eq!(e.index.to_vec(), index, "{}", f.name);
            assert_eq!(
                e.data,
                DataRef::Ref {
                    offset: x.addr,
                    length: x.size
                },
                "{} {:?}",
                f.name,
                x.offset
            );
            assert_eq!(e.filter_mask, x.filter_mask, "{} {:?}", f.name, x.offset);
        }
    }
}
