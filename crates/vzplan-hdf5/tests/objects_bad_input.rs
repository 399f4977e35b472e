//! Corrupt and foreign input: errors or problems, never a panic, never a long time.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use vzplan_io::MemObject;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/hdf5")
        .join(name);
    std::fs::read(p).unwrap()
}

fn read(bytes: Vec<u8>) -> Result<vzplan_core::SourceLayout, vzplan_hdf5::ReadError> {
    let m = MemObject::new("mem://x.h5", bytes);
    vzplan_hdf5::read_layout(&m)
}

#[test]
fn not_hdf5() {
    let e = read(b"CDF\x01 not an hdf5 file at all, just some bytes".to_vec()).unwrap_err();
    assert!(e.is_not_hdf5());
    assert!(
        e.to_string().starts_with("mem://x.h5: not an HDF5 file"),
        "{e}"
    );
    assert!(read(Vec::new()).unwrap_err().is_not_hdf5());
    assert!(!vzplan_hdf5::sniff(b"CDF\x01"));
    assert!(vzplan_hdf5::sniff(&fixture("nc4.nc")[..8]));
}

#[test]
fn truncated_copies_are_errors() {
    for name in ["h5_earliest.h5", "h5_latest.h5", "nc4.nc"] {
        let full = fixture(name);
        for cut in [8usize, 40, 100, 500, 1000, 2000, 4000, full.len() / 2] {
            let r = read(full[..cut.min(full.len())].to_vec());
            match r {
                Err(e) => assert!(e.to_string().starts_with("mem://x.h5: "), "{e}"),
                // A cut past all metadata may still read: then some arrays point past the end
                // and must have been reported as problems, or nothing was lost.
                Ok(l) => assert!(!l.problems.is_empty(), "{name} cut at {cut} read cleanly"),
            }
        }
    }
}

/// A small deterministic xorshift so the mutations are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn byte_flips_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let start = Instant::now();
    for name in ["h5_earliest.h5", "h5_v110.h5", "h5_latest.h5", "nc4.nc"] {
        let orig = fixture(name);
        // Metadata sits mostly in the first few KiB; bias the flips there.
        let meta_len = orig.len().min(6000);
        for i in 0..150 {
            let mut b = orig.clone();
            let nflips = 1 + (rng.next() % 4) as usize;
            for _ in 0..nflips {
                let pos = if i % 3 == 0 {
                    (rng.next() as usize) % orig.len()
                } else {
                    (rng.next() as usize) % meta_len
                };
                b[pos] ^= 1 << (rng.next() % 8);
            }
            let t = Instant::now();
            let _ = read(b);
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "{name} mutation {i} took {:?}",
                t.elapsed()
            );
        }
    }
    assert!(start.elapsed() < Duration::from_secs(120));
}

#[test]
fn random_field_values_never_panic() {
    // Overwrite aligned 8-byte words with extreme values (lengths, addresses, counts).
    let mut rng = Rng(42);
    for name in ["h5_earliest.h5", "h5_latest.h5", "nc4_classic.nc"] {
        let orig = fixture(name);
        let meta_len = orig.len().min(6000);
        for _ in 0..100 {
            let mut b = orig.clone();
            let pos = (rng.next() as usize % (meta_len / 2)) * 2;
            let val: u64 = match rng.next() % 4 {
                0 => u64::MAX,
                1 => 0,
                2 => rng.next(),
                _ => 0x7fff_ffff,
            };
            let n = (1 + rng.next() % 8) as usize;
            for k in 0..n {
                if let Some(x) = b.get_mut(pos + k) {
                    *x = (val >> (8 * k)) as u8;
                }
            }
            let _ = read(b);
        }
    }
}
