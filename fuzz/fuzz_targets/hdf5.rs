#![no_main]
//! The `hdf5` target: see `vzplan_fuzzing::hdf5`.

#[global_allocator]
static ALLOC: vzplan_fuzzing::CappedAlloc = vzplan_fuzzing::CappedAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| vzplan_fuzzing::hdf5(data));
