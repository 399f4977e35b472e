//! Round trips to read a TIFF's layout on object storage: an in-memory object counts each read
//! and each batch as one round trip (as `ObjectReader` sends a batch's requests together), under a
//! block cache with small blocks and first read, so that the values the IFDs point at are not in
//! the first read. The out-of-line values of a chain's pages (offsets, byte counts, sample
//! formats, GeoTIFF tags) come in one batch after the chain is walked, not one value at a time.

use std::sync::Arc;
use vzplan_io::{CacheConfig, CachedReader, MemObject, RangeRead};

/// Round trips, and the chunks found, reading `testdata/tiff/{name}`.
fn rounds(name: &str) -> (u64, usize) {
    let path = format!("{}/../../testdata/tiff/{name}", env!("CARGO_MANIFEST_DIR"));
    let r = Arc::new(MemObject::new(name, std::fs::read(path).unwrap()));
    let cfg = CacheConfig {
        block_size: 256,
        first_read: 256,
        whole_file: 0,
        max_bytes: 64 << 20,
        direct_batches: false,
        grow_to: 0,
    };
    let l = vzplan_tiff::read_layout(&CachedReader::new(r.clone(), cfg)).unwrap();
    let chunks = l.arrays.iter().map(|a| a.chunks.entries.len()).sum();
    (r.stats().round_trips, chunks)
}

/// Three pages of 512 one-row strips (tifffile): their offsets and byte counts, 2 KB each, lie
/// apart from the IFDs. Asked for one value at a time the file took 11 round trips; with the six
/// values in one batch after the chain, 6 (the header and IFD chain's own, then that batch).
#[test]
fn the_values_of_a_chains_pages_come_in_one_batch() {
    let (n, chunks) = rounds("requests/strips_pages.tif");
    assert_eq!(
        chunks,
        2 * 3 * 512,
        "the three pages, and their `pages` stack"
    );
    println!("strips_pages.tif: {n} round trips");
    assert!(
        n <= 6,
        "strips_pages.tif: {n} round trips, expected at most 6"
    );
}
