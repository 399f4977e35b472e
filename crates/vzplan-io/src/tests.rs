//! The local-file backend and the block cache, on real files and on objects in memory.

use super::*;
use crate::local::walked_url;
use std::path::Path;

fn cfg(block_size: u64, first_read: u64, max_bytes: u64) -> CacheConfig {
    CacheConfig {
        block_size,
        first_read,
        whole_file: 0,
        max_bytes,
        direct_batches: false,
        grow_to: 0,
    }
}

fn mem(n: usize) -> Arc<dyn RangeRead> {
    Arc::new(MemObject::new(
        "mem://x",
        (0..n).map(|i| (i % 251) as u8).collect(),
    ))
}

/// Opening tells the type from the open file (no `stat` before): a FIFO is refused at once
/// rather than blocking for a writer, a directory by name.
#[test]
fn opening_refuses_what_is_not_a_regular_file_without_blocking() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("p.nc");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()));
    let err = LocalFile::open(&fifo).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(|e| e.contains("FIFO")),
        "{err:?}"
    );
    let err = LocalFile::open(d.path()).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(|e| e.contains("is a directory")),
        "{err:?}"
    );
    let err = LocalFile::open(d.path().join("missing.nc")).err();
    assert!(err.is_some());
    let file = d.path().join("f.nc");
    std::fs::write(&file, b"abc").unwrap();
    let f = LocalFile::open(&file).unwrap();
    assert_eq!(f.read_at(1, 2).unwrap(), b"bc");
}

/// `read_bytes` returns what `read_at` does wherever the range lies: inside one read's buffer
/// (shared), across two reads' buffers, in a buffer over the sharing limit (copied).
#[test]
fn shared_reads_equal_copied_reads() {
    let raw = mem(3 << 20);
    let c = CachedReader::new(raw.clone(), cfg(1000, 4000, 1 << 30));
    c.prefetch(&[(10_000, 5000), (15_000, 3000)]);
    c.prefetch(&[(100_000, 1_500_000)]);
    for (o, l) in [
        (0, 10),
        (10, 3990),
        (999, 2),
        (10_500, 6000),
        (3_990, 20),
        (17_999, 1),
        (100_000, 10),
        (1_000_000, 3000),
        (2_000_000, 0),
    ] {
        let want = raw.read_at(o, l).unwrap();
        assert_eq!(c.read_bytes(o, l).unwrap(), want, "{o} {l}");
    }
    assert!(c.read_bytes(3 << 20, 1).is_err());
    // Shared: two reads inside one buffer are views of the same memory.
    let (a, b) = (c.read_bytes(0, 10).unwrap(), c.read_bytes(5, 5).unwrap());
    assert_eq!(a.as_ptr().wrapping_add(5), b.as_ptr());
    let (a, b) = (
        c.read_bytes(100_000, 10).unwrap(),
        c.read_bytes(100_005, 5).unwrap(),
    );
    assert_ne!(
        a.as_ptr().wrapping_add(5),
        b.as_ptr(),
        "over the limit: copies"
    );
}

/// A local file of up to 64 KiB costs one read whatever the parser asks for; a larger one its
/// 16 KiB first read, then blocks. A file cut short after it was opened is an error, not
/// short or uninitialised bytes.
#[test]
fn small_local_files_are_read_whole_and_a_shrunk_file_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
    let (small, large) = (d.path().join("s.nc"), d.path().join("l.nc"));
    std::fs::write(&small, &data[..40_000]).unwrap();
    std::fs::write(&large, &data).unwrap();
    let s = open_local(&small).unwrap();
    assert_eq!(s.read_at(0, 8).unwrap(), data[..8]);
    assert_eq!(s.read_at(39_990, 10).unwrap(), data[39_990..40_000]);
    assert_eq!(s.stats().requests, 1);
    let l = open_local(&large).unwrap();
    assert_eq!(l.read_at(0, 8).unwrap(), data[..8]);
    assert_eq!(l.read_at(90_000, 10).unwrap(), data[90_000..90_010]);
    assert_eq!(l.stats().requests, 2);
    let f = LocalFile::open(&large).unwrap();
    std::fs::write(&large, &data[..50_000]).unwrap();
    assert_eq!(f.read_at(49_000, 1000).unwrap(), data[49_000..50_000]);
    let err = f.read_at(49_000, 2000).unwrap_err().to_string();
    assert!(err.contains("end of file"), "{err}");
}

/// A prefetch fetches its ranges in one batch; the reads that follow are cache hits, and a
/// range past the end is ignored rather than an error.
#[test]
fn prefetched_ranges_are_read_from_the_cache() {
    let raw = mem(300_000);
    let cfg = cfg(1000, 4000, 1 << 30);
    let c = CachedReader::new(raw.clone(), cfg);
    c.read_at(0, 10).unwrap();
    let ranges = [(10_000, 50), (150_000, 1500), (290_000, 9)];
    c.prefetch(&ranges);
    c.prefetch(&[(299_999, 2)]);
    let fetched = raw.stats().requests;
    assert_eq!(fetched, 1 + 3, "the first read, then one request per range");
    for (o, l) in ranges {
        assert_eq!(c.read_at(o, l).unwrap(), raw.read_at(o, l).unwrap());
    }
    assert_eq!(
        raw.stats().requests,
        fetched + 3,
        "only the comparison reads"
    );
    // Without a cache, a prefetch reads nothing.
    raw.prefetch(&ranges);
    assert_eq!(raw.stats().requests, fetched + 3);
}

/// A file within `whole_file` is one request, whatever is read after it and however: copies,
/// shared views of that one buffer, batches and hints, with past-the-end reads refused as
/// before. A file one byte larger goes through the blocks.
#[test]
fn a_small_file_is_read_whole_once_and_sliced() {
    let raw = mem(10_000);
    let whole = CacheConfig {
        whole_file: 10_000,
        ..cfg(1000, 4000, 1 << 30)
    };
    let c = CachedReader::new(raw.clone(), whole);
    c.prefetch(&[(9000, 500)]);
    let a = c.read_bytes(100, 50).unwrap();
    let b = c.read_bytes(150, 9850).unwrap();
    assert_eq!(
        a.as_ptr().wrapping_add(50),
        b.as_ptr(),
        "views of one buffer"
    );
    assert_eq!(c.read_at(9990, 10).unwrap(), raw.read_at(9990, 10).unwrap());
    let got = c.read_many(&[(0, 10), (5000, 0), (2500, 3000)]).unwrap();
    let want = [(0, 10), (5000, 0), (2500, 3000)].map(|(o, l)| raw.read_at(o, l).unwrap());
    assert_eq!(got, want);
    let shared = c
        .read_many_bytes(&[(0, 10), (5000, 0), (2500, 3000)])
        .unwrap();
    assert_eq!(shared, want);
    assert_eq!(
        shared[2].as_ptr(),
        a.as_ptr().wrapping_add(2400),
        "views, not copies"
    );
    assert_eq!(a, raw.read_at(100, 50).unwrap());
    let requests = raw.stats().requests;
    assert!(c.read_at(9990, 11).is_err());
    assert!(c.read_bytes(u64::MAX, 2).is_err());
    assert!(c.read_many(&[(0, 10), (10_000, 1)]).is_err());
    assert!(c.read_many_bytes(&[(0, 10), (10_000, 1)]).is_err());
    assert_eq!(
        requests,
        1 + 4 + 1,
        "one read of the cache, the rest comparisons"
    );
    assert!(!c.prefetches(), "hints are for the blocks");
    let c = CachedReader::new(mem(10_001), whole);
    assert!(c.prefetches());
    c.read_at(0, 10).unwrap();
    c.read_at(9000, 10).unwrap();
    assert_eq!(c.stats().requests, 2, "a first read and a block");
}

/// Ranges from untrusted bytes may all name the same bytes: 200,000 ranges over a whole
/// 8 MB object are one read of its blocks, not a list of 400 million block numbers (which
/// the cache made before it merged ranges into spans).
#[test]
fn many_overlapping_ranges_cost_the_object_once() {
    let raw = mem(8_000_000);
    let cfg = cfg(4096, 4096, 1 << 30);
    let c = CachedReader::new(raw.clone(), cfg);
    let ranges = vec![(0, 8_000_000); 200_000];
    c.prefetch(&ranges);
    assert_eq!(raw.stats().requests, 1);
    assert_eq!(
        c.read_at(7_999_000, 1000).unwrap(),
        raw.read_at(7_999_000, 1000).unwrap()
    );
}

/// A batch that finds the cache over its budget still gets every range it asked for, the
/// cached ones included (the cache used to drop them after counting them as cached, and the
/// batch failed with "past the end" on an in-range read).
#[test]
fn a_batch_over_the_cache_budget_keeps_its_cached_blocks() {
    let raw = mem(20_000);
    let c = CachedReader::new(raw.clone(), cfg(1000, 1000, 2500));
    c.read_at(0, 10).unwrap(); // block 0: 1,000 bytes cached
    c.read_at(5000, 2000).unwrap(); // blocks 5 and 6: 3,000 bytes, over the budget
    let got = c.read_many(&[(0, 10), (9000, 10)]).unwrap();
    assert_eq!(
        got,
        [raw.read_at(0, 10).unwrap(), raw.read_at(9000, 10).unwrap()]
    );
}

#[test]
fn cached_reads_match_and_coalesce() {
    let raw = mem(300_000);
    let c = CachedReader::new(raw.clone(), cfg(1000, 4000, 1 << 30));
    let got = c.read_at(3500, 2000).unwrap();
    assert_eq!(got, raw.read_at(3500, 2000).unwrap());
    // First call: the speculative first blocks and the requested ones, coalesced into one request.
    assert_eq!(c.stats().requests, 2); // 1 by the cache + 1 by the comparison read above
    let before = c.stats().requests;
    c.read_at(100, 10).unwrap();
    assert_eq!(c.stats().requests, before, "served from cache");
    let many = c
        .read_many(&[(10_000, 5), (200_000, 7), (299_990, 10)])
        .unwrap();
    assert_eq!(many[2], raw.read_at(299_990, 10).unwrap());
    assert!(matches!(
        c.read_at(299_999, 2),
        Err(IoError::PastEnd { .. })
    ));
    assert!(matches!(
        c.read_at(u64::MAX, 2),
        Err(IoError::PastEnd { .. })
    ));
}

/// A batch asking for blocks past the first read (but below `grow_to`) reads on to twice the
/// furthest of them: metadata that runs on costs one more request, not one per level.
#[test]
fn the_first_read_grows_when_a_batch_shows_the_metadata_runs_on() {
    let grown = |grow_to: u64| {
        let raw = mem(300_000);
        let c = CachedReader::new(
            raw.clone(),
            CacheConfig {
                grow_to,
                ..cfg(1000, 4000, 1 << 30)
            },
        );
        c.read_at(0, 10).unwrap();
        // Block 6 and one far past the limit: the region from 0 grows to 2 × 7,000 bytes.
        c.read_many(&[(6500, 10), (100_000, 10)]).unwrap();
        let after_batch = raw.stats();
        c.read_at(12_000, 10).unwrap();
        (after_batch, raw.stats())
    };
    let (batch, after) = grown(40_000);
    assert_eq!(
        batch.requests, 3,
        "first read; the batch: its blocks and the growth, coalesced, and the far block"
    );
    assert_eq!(
        after.requests, batch.requests,
        "12,000 lies in the grown region"
    );
    assert_eq!(batch.bytes, 14_000 + 1000);
    let (batch, after) = grown(0);
    assert_eq!(
        batch.bytes,
        4000 + 2000,
        "no growth: only the blocks asked for"
    );
    assert_eq!(after.requests, batch.requests + 1);
}

/// Local files: a 16 KiB first read and 4 KiB blocks, not object storage's 64 KiB + 16 KiB.
#[test]
fn local_files_are_read_in_small_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.bin");
    let data: Vec<u8> = (0..2_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&p, &data).unwrap();
    let opts = IoOptions::default();
    for name in [p.display().to_string(), format!("file://{}", p.display())] {
        let r = open(&name, &opts).unwrap();
        assert_eq!(r.read_at(100, 50).unwrap(), &data[100..150]);
        assert_eq!((r.stats().requests, r.stats().bytes), (1, 16 * 1024));
        assert_eq!(
            r.read_at(1_000_000, 10).unwrap(),
            &data[1_000_000..1_000_010]
        );
        assert_eq!((r.stats().requests, r.stats().bytes), (2, 20 * 1024));
        // A batch (an index level): the cached range copied, the other read as asked, its
        // 5000 bytes only rather than the two 4 KiB blocks around them, and not cached.
        let got = r.read_many(&[(40_000, 5000), (8000, 10)]).unwrap();
        assert_eq!(got[0], &data[40_000..45_000]);
        assert_eq!(got[1], &data[8000..8010]);
        assert_eq!((r.stats().requests, r.stats().bytes), (3, 20 * 1024 + 5000));
        let again = r.read_many(&[(40_000, 5000)]).unwrap();
        assert_eq!(again[0], &data[40_000..45_000]);
        assert_eq!(
            (r.stats().requests, r.stats().bytes),
            (4, 20 * 1024 + 10_000)
        );
        assert!(matches!(
            r.read_many(&[(8000, 10), (1_999_999, 2)]),
            Err(IoError::PastEnd { .. })
        ));
        // Small ranges at most a block apart (a netCDF classic coordinate in records): one
        // read for the three, whatever their order; a far one on its own.
        let asks = [(100_400, 8), (300_000, 4), (100_000, 8), (100_200, 8)];
        let got = r.read_many(&asks).unwrap();
        for (g, &(o, l)) in got.iter().zip(&asks) {
            assert_eq!(g, &data[o as usize..(o + l) as usize]);
        }
        assert_eq!(
            (r.stats().requests, r.stats().bytes),
            (6, 20 * 1024 + 10_412)
        );
        let past = r.read_at(1_999_999, 2).unwrap_err();
        assert!(matches!(past, IoError::PastEnd { .. }));
        let says = past.to_string();
        assert!(says.contains("read of 2 bytes at offset 1999999 runs past the end"));
        assert!(says.ends_with("(2000000 bytes)"), "{says}");
        // Repeated and empty ranges in a batch: each gets its bytes, the repeats share one
        // read, and an empty range reads nothing wherever it starts (cached or not).
        let asks = [(700_000, 16), (500_001, 0), (700_000, 16), (12, 0)];
        let got = r.read_many(&asks).unwrap();
        assert_eq!(got[0], &data[700_000..700_016]);
        assert_eq!(got[2], got[0]);
        assert!(got[1].is_empty() && got[3].is_empty());
        assert_eq!(
            (r.stats().requests, r.stats().bytes),
            (7, 20 * 1024 + 10_428)
        );
        assert!(r.read_at(900_001, 0).unwrap().is_empty());
        assert_eq!(r.stats().requests, 7);
    }
    // Object storage keeps its large first read and blocks: requests cost more than bytes.
    assert_eq!(opts.cache.first_read, 64 * 1024);
    assert_eq!(opts.cache.block_size, 16 * 1024);
}

#[test]
fn file_urls_are_absolute_and_normalised() {
    assert_eq!(file_url(Path::new("/a/./b/../c.nc")), "file:///a/c.nc");
    assert!(file_url(Path::new("x.nc")).starts_with("file:///"));
    // The shortcut for plain absolute paths gives what the component walk gives.
    for p in [
        "/",
        "/a",
        "/a/b.nc",
        "/a/",
        "/a/.",
        "/a/..",
        "//a",
        "/a//b",
        "/./a",
        "/a/./b",
        "/a/../b",
        "/a/.b/..c/c..",
        "/a/b/...",
        "/d\u{e9}j\u{e0}/x y.nc",
    ] {
        assert_eq!(file_url(Path::new(p)), walked_url(Path::new(p)), "{p}");
    }
}
