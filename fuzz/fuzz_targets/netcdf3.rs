#![no_main]
//! The `netcdf3` target: see `vzplan_fuzzing::netcdf3`.

#[global_allocator]
static ALLOC: vzplan_fuzzing::CappedAlloc = vzplan_fuzzing::CappedAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| vzplan_fuzzing::netcdf3(data));
