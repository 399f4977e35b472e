//! Deliberately corrupted copies of the chunk-index fixtures: truncations, byte flips, cycles.
//! Every reader must return an error (never panic, hang or allocate from a bogus count).

mod chunks_common;
use chunks_common::*;
use vzplan_hdf5::chunks::checksum::lookup3;
use vzplan_hdf5::chunks::RawChunk;
use vzplan_hdf5::error::Result;
use vzplan_io::MemObject;

fn run_bytes(f: &Fixture, bytes: Vec<u8>) -> Result<Vec<RawChunk>> {
    let mem = MemObject::new("mem://corrupt", bytes);
    let ctx = ctx_for(&mem, &f.bytes);
    let (kind, addr) = locate(f);
    run(&ctx, f, &kind, addr)
}

fn flipped(b: &[u8], at: usize, mask: u8) -> Vec<u8> {
    let mut v = b.to_vec();
    v[at] ^= mask;
    v
}

fn positions(b: &[u8], sig: &[u8]) -> Vec<usize> {
    b.windows(4)
        .enumerate()
        .filter(|(_, w)| *w == sig)
        .map(|(i, _)| i)
        .collect()
}

/// Truncated anywhere before the end of the last chunk → error.
#[test]
fn truncations_error() {
    for f in fixtures() {
        let (_, addr) = locate(&f);
        let end = f.expect.iter().map(|c| c.addr + c.size).max().unwrap_or(0) as usize;
        let mut cuts: Vec<usize> = (0..40).map(|i| end * i / 40).collect();
        cuts.extend((0..96).map(|k| addr as usize + k));
        cuts.extend(f.expect.iter().map(|c| (c.addr + c.size) as usize - 1));
        for cut in cuts {
            if cut >= end || cut >= f.bytes.len() {
                continue;
            }
            let r = run_bytes(&f, f.bytes[..cut].to_vec());
            assert!(
                r.is_err(),
                "{} truncated to {cut}: {:?}",
                f.name,
                r.map(|v| v.len())
            );
        }
    }
}

/// A flipped byte in any checksummed index structure's prefix → error.
#[test]
fn flips_in_checksummed_structures_error() {
    let mut tested = 0;
    for f in fixtures() {
        for sig in [
            b"FAHD", b"FADB", b"EAHD", b"EAIB", b"EASB", b"EADB", b"BTHD", b"BTIN", b"BTLF",
        ] {
            for p in positions(&f.bytes, sig) {
                for k in 0..10 {
                    for mask in [0x01, 0x80] {
                        let r = run_bytes(&f, flipped(&f.bytes, p + k, mask));
                        assert!(r.is_err(), "{}: {:?}@{p}+{k}^{mask:#x}", f.name, sig);
                        tested += 1;
                    }
                }
            }
        }
    }
    assert!(tested > 500);
}

/// v1 B-trees have no checksums: flips may yield other (wrong) answers, but the signature, node
/// type and level are checked, and nothing panics.
#[test]
fn v1_btree_flips() {
    for f in fixtures().into_iter().filter(|f| f.name.starts_with("e_")) {
        // Chunk-tree nodes only (the root group's symbol table is a node-type-0 tree).
        for p in positions(&f.bytes, b"TREE")
            .into_iter()
            .filter(|&p| f.bytes[p + 4] == 1)
        {
            for k in 0..6 {
                assert!(
                    run_bytes(&f, flipped(&f.bytes, p + k, 0x10)).is_err(),
                    "{}",
                    f.name
                );
            }
            for k in 6..400 {
                if p + k < f.bytes.len() {
                    let _ = run_bytes(&f, flipped(&f.bytes, p + k, 0xff));
                }
            }
        }
    }
}

/// Random multi-byte damage anywhere in the metadata region: no panic, no hang.
#[test]
fn fuzz_no_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for f in fixtures() {
        for _ in 0..150 {
            let mut b = f.bytes.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % b.len() as u64) as usize;
                b[at] = next() as u8;
            }
            if next() % 4 == 0 {
                b.truncate((next() % b.len() as u64) as usize);
            }
            let _ = run_bytes(&f, b);
        }
    }
}

/// A v1 B-tree whose root lists the same leaf twice is a cycle, not a doubled chunk list.
#[test]
fn v1_btree_shared_child_is_an_error() {
    let f = load("e_bt1_1d");
    let (_, root) = locate(&f);
    let root = root as usize;
    assert!(f.bytes[root + 5] >= 1, "root is an internal node");
    let key = 8 + 8 * 2; // size, mask, one offset + the datatype offset
    let child0 = root + 24 + key;
    let child1 = child0 + 8 + key;
    let mut b = f.bytes.clone();
    b.copy_within(child0..child0 + 8, child1);
    let e = run_bytes(&f, b).unwrap_err().to_string();
    assert!(e.contains("twice"), "{e}");
}

/// Same for a v2 B-tree (with its checksum recomputed so the walk gets that far).
#[test]
fn btree2_shared_child_is_an_error() {
    let f = load("v110_bt2");
    let bt = positions(&f.bytes, b"BTIN");
    assert_eq!(bt.len(), 1);
    let p = bt[0];
    let mem = MemObject::new("mem://x", f.bytes.clone());
    let ctx = ctx_for(&mem, &f.bytes);
    let (_, h) = locate(&f);
    let hdr = vzplan_hdf5::btree2::header(&ctx, h).unwrap();
    let nrec = hdr.root_records as usize;
    let recs = 6 + nrec * hdr.record_size as usize;
    let ptr = 8 + 1; // address + 1-byte record count (depth 1: no totals)
    let mut b = f.bytes.clone();
    b.copy_within(p + recs..p + recs + ptr, p + recs + ptr);
    let body = recs + (nrec + 1) * ptr;
    let sum = lookup3(&b[p..p + body], 0);
    b[p + body..p + body + 4].copy_from_slice(&sum.to_le_bytes());
    let e = run_bytes(&f, b).unwrap_err().to_string();
    assert!(e.contains("twice"), "{e}");
}

/// A fixed array header claiming an absurd number of entries (checksum fixed) must fail before
/// allocating.
#[test]
fn fixed_array_huge_count_is_an_error() {
    let f = load("v110_fa_paged");
    let (_, a) = locate(&f);
    let a = a as usize;
    let mut b = f.bytes.clone();
    b[a + 8..a + 16].copy_from_slice(&(u64::MAX / 3).to_le_bytes());
    let sum = lookup3(&b[a..a + 24], 0);
    b[a + 24..a + 28].copy_from_slice(&sum.to_le_bytes());
    assert!(run_bytes(&f, b.clone()).is_err());
    // Even when the geometry agrees with the count.
    let mut g = f.geo.clone();
    g.max_shape = vec![u64::MAX / 3, 1];
    g.shape = vec![u64::MAX / 3, 1];
    g.chunk = vec![1, 1];
    let mem = MemObject::new("mem://x", b);
    let ctx = ctx_for(&mem, &f.bytes);
    assert!(vzplan_hdf5::chunks::fixed_array(&ctx, a as u64, &g).is_err());
}
