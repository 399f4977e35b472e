//! Files of the PyTables world (testdata/hdf5/pytables/, scripts/fixtures/pytables.py): one that
//! PyTables writes, and the National Instruments file PyTables ships as test data, whose
//! version-1 fill value messages leave an undefined size (0xFFFFFFFF) where no value is defined.
//! HDF5 reads that size only when a value is defined; so does vzplan, and every dataset h5py
//! opens is an array with h5py's shape and type.

use serde_json::Value;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hdf5/pytables")
}

#[test]
fn every_dataset_h5py_opens_is_an_array() {
    for name in ["attr-u16.h5", "pytables.h5"] {
        let r = vzplan_io::open_local(dir().join(name)).unwrap();
        let l = vzplan_hdf5::read_layout(&r).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = std::fs::read_to_string(dir().join(format!("{name}.json"))).unwrap();
        let oracle: Value = serde_json::from_str(&text).unwrap();
        let mut n = 0;
        for (path, o) in oracle["objects"].as_object().unwrap() {
            if o["kind"] != "dataset" {
                continue;
            }
            let ctx = format!("{name}:{path}");
            let a = l.arrays.iter().find(|a| a.path == *path);
            let a = a.unwrap_or_else(|| panic!("{ctx}: {:?}", l.problems));
            let shape: Vec<u64> = serde_json::from_value(o["shape"].clone()).unwrap();
            assert_eq!(a.shape, shape, "{ctx}");
            let dtype = o["dtype"].as_str().unwrap();
            match dtype.strip_prefix("|V") {
                Some(size) => assert_eq!(a.dtype.size.to_string(), size, "{ctx}"),
                None => assert_eq!(a.dtype.numpy_str(), dtype, "{ctx}"),
            }
            n += 1;
        }
        assert!(n >= 2, "{name}");
    }
}
