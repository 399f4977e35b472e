#![no_main]
//! The `tiff` target: see `vzplan_fuzzing::tiff`.

#[global_allocator]
static ALLOC: vzplan_fuzzing::CappedAlloc = vzplan_fuzzing::CappedAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| vzplan_fuzzing::tiff(data));
