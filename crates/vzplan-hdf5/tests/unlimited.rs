//! netCDF-4 variables with fewer records than their unlimited dimension
//! (`testdata/unlimited/short_records.nc`, written by `scripts/fixtures/unlimited.py`): each is
//! grown to the dimension's length, the chunks past its records left unallocated (fill), unless a
//! chunk straddling its last record holds padding that is not known to be the fill value.

use std::path::Path;

#[test]
fn short_variables_take_the_unlimited_dimension_length() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/unlimited/short_records.nc");
    let r = vzplan_io::open_local(&p).unwrap();
    let l = vzplan_hdf5::read_layout(&r).unwrap();
    let get = |name: &str| l.arrays.iter().find(|a| a.path == name);
    let time = get("time").unwrap();
    assert_eq!(time.shape, [5]);
    // (name, records written, chunk length along time)
    for (name, written, block) in [("tas", 3u64, 1u64), ("pr", 4, 2), ("straddle_fill", 3, 2)] {
        let a = get(name).unwrap_or_else(|| panic!("{name} missing: {:?}", l.problems));
        assert_eq!(a.shape, [5, 2, 3], "{name}");
        assert_eq!(a.chunks.block[0], block, "{name}");
        // Only the chunks holding written records exist.
        let rows = a
            .chunks
            .entries
            .iter()
            .map(|e| e.index.at(0))
            .max()
            .unwrap()
            + 1;
        assert_eq!(rows, written.div_ceil(block), "{name}");
    }
    // NC_NOFILL: HDF5 fill time "never", so the straddling chunk's padding is unknown.
    assert!(get("straddle").is_none());
    let pr = l.problems.iter().find(|p| p.path == "straddle").unwrap();
    assert!(pr.reason.contains("3 of the 5 records"), "{}", pr.reason);
}
