//! Round trips to read a layout on object storage, where each one costs a request's latency:
//! an in-memory object counts every `read_at` / `read_many` call (one batch = one round trip, as
//! `ObjectReader` sends a batch's requests concurrently) under the block cache, with small blocks
//! and first read so that the chunk index is not in the first read. Fixtures: the 4,096-chunk files
//! of the index benchmark (`scripts/fixtures/hdf5_index_bench.py`), one per index kind, and a
//! netCDF-4 file of 10 variables written one after the other (`scripts/fixtures/hdf5_requests.py`).

use std::sync::Arc;
use vzplan_io::{CacheConfig, CachedReader, MemObject, RangeRead};

/// Round trips and chunks found reading the layout of `testdata/hdf5/{name}`.
fn rounds(name: &str) -> (u64, usize) {
    let path = format!("{}/../../testdata/hdf5/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    let r = Arc::new(MemObject::new(format!("mem:///{name}"), bytes));
    let cfg = CacheConfig {
        block_size: 512,
        first_read: 2048,
        whole_file: 0,
        max_bytes: 64 << 20,
        direct_batches: false,
        grow_to: 0,
    };
    let cached = CachedReader::new(r.clone(), cfg);
    let l = vzplan_hdf5::read_layout(&cached).unwrap();
    let chunks = l.arrays.iter().map(|a| a.chunks.entries.len()).sum();
    (r.stats().round_trips, chunks)
}

/// Each index costs a round trip per level, not per node: the superblock and object headers,
/// then one batch per level of the index. Reading node by node, the extensible array took 29
/// round trips and the v2 B-tree 52.
#[test]
fn index_levels_are_read_in_batches() {
    let mut report = Vec::new();
    for (kind, most) in [("bt1", 5), ("fa", 3), ("ea", 4), ("bt2", 4)] {
        let (n, chunks) = rounds(&format!("bench/{kind}.h5"));
        assert_eq!(chunks, 4096, "{kind}");
        report.push(format!("{kind}: {n} round trips"));
        assert!(
            n <= most,
            "{kind}: {n} round trips, expected at most {most}"
        );
    }
    println!("{}", report.join("\n"));
}

/// A group's children are read a window at a time: their object headers in one batch, the
/// continuation blocks those name in the next, then the starts of their chunk indexes. Ten
/// variables written one after the other (attributes and B-tree of each next to its data) took
/// 30 round trips read child by child.
#[test]
fn a_groups_children_are_read_together() {
    let (n, chunks) = rounds("requests/vars.nc");
    assert_eq!(chunks, 1 + 10 * 4); // time in one chunk, 4 per variable
    println!("vars.nc: {n} round trips");
    assert!(n <= 9, "vars.nc: {n} round trips, expected at most 9");
}

/// The inner levels of a window of datasets' chunk B-trees are asked for together, a level of all
/// of them per batch: six variables of 200 chunks (a root and 4 leaves each, the leaves spread
/// through the file) cost one round trip for all the leaves instead of one per variable (13 round
/// trips before, an index at a time).
#[test]
fn the_levels_of_many_chunk_indexes_are_read_together() {
    let (n, chunks) = rounds("requests/deep.nc");
    assert_eq!(chunks, 1 + 6 * 200); // time in one chunk
    println!("deep.nc: {n} round trips");
    assert!(n <= 8, "deep.nc: {n} round trips, expected at most 8");
}
