//! Counts read from a file are loop bounds only up to the bytes actually present: a corrupt copy
//! of a real netCDF-4 file whose `DIMENSION_LIST` vlen lengths claim 2^32 - 1 references reads
//! in milliseconds (it took 28 s of CPU for a 34 KB file).

use std::path::PathBuf;
use std::time::{Duration, Instant};
use vzplan_io::MemObject;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/hdf5")
        .join(name);
    std::fs::read(p).unwrap()
}

fn positions(b: &[u8], pat: &[u8]) -> Vec<usize> {
    b.windows(pat.len())
        .enumerate()
        .filter(|(_, w)| *w == pat)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn dimension_list_lengths_are_bounded_by_the_heap_object() {
    let mut bytes = fixture("nc4.nc");
    // Each DIMENSION_LIST element is a vlen: length (u32), global heap collection address
    // (8 bytes here), object index (u32). Patch every length that names a collection.
    let mut patched = 0;
    for gcol in positions(&bytes, b"GCOL") {
        let mut pat = Vec::new();
        pat.extend(1u32.to_le_bytes());
        pat.extend((gcol as u64).to_le_bytes());
        for at in positions(&bytes, &pat) {
            bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            patched += 1;
        }
    }
    assert!(patched >= 2, "no DIMENSION_LIST element found to corrupt");
    let m = MemObject::new("mem://x.nc", bytes);
    let t = Instant::now();
    let r = vzplan_hdf5::read_layout(&m);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // The references present are still found: the dimension names survive.
    let l = r.unwrap();
    let named = l
        .arrays
        .iter()
        .flat_map(|a| &a.dims)
        .filter(|d| !d.name.starts_with("phony_dim_"))
        .count();
    assert!(named > 0, "{:?}", l.arrays);
}

#[test]
fn names_differing_in_invalid_utf8_stay_distinct() {
    use vzplan_hdf5::messages::name_str;
    let (a, b) = (name_str(b"t\xffa"), name_str(b"t\xfea"));
    assert_ne!(a, b);
    assert_eq!(a, "t\\xffa");
    assert_eq!(name_str("température".as_bytes()), "température");
}
