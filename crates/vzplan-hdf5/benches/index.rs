//! Micro-benchmark: walking each kind of HDF5 chunk index, per chunk.
//!
//!     cargo bench -p vzplan-hdf5 --bench index
//!
//! Reads the layout of `testdata/hdf5/bench/<kind>.h5` (4,096 one-element chunks each, written by
//! h5py: `scripts/fixtures/hdf5_index_bench.py`) from memory, so the index walk is timed, not the
//! disk; divan's items/s is chunks per second. Not run in CI (compiled by `--all-targets`);
//! figures go to docs/benchmarks.md.

use divan::counter::ItemsCount;
use vzplan_io::MemObject;

fn main() {
    divan::main();
}

const CHUNKS: usize = 4096;

fn file(kind: &str) -> MemObject {
    let path = format!(
        "{}/../../testdata/hdf5/bench/{kind}.h5",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mem = MemObject::new(format!("file:///{kind}.h5"), bytes);
    // The fixture is what the benchmark says it is: every chunk found.
    let l = vzplan_hdf5::read_layout(&mem).expect("readable");
    assert_eq!(l.arrays[0].chunks.entries.len(), CHUNKS, "{kind}");
    mem
}

/// v1 B-tree (libver earliest), fixed array, extensible array, v2 B-tree (libver v110).
#[divan::bench(args = ["bt1", "fa", "ea", "bt2"])]
fn walk(bencher: divan::Bencher, kind: &str) {
    let mem = file(kind);
    bencher
        .counter(ItemsCount::new(CHUNKS))
        .bench(|| vzplan_hdf5::read_layout(divan::black_box(&mem)).map(|l| l.arrays.len()));
}
