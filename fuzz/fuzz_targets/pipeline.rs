#![no_main]
//! The `pipeline` target: see `vzplan_fuzzing::pipeline`.

#[global_allocator]
static ALLOC: vzplan_fuzzing::CappedAlloc = vzplan_fuzzing::CappedAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| vzplan_fuzzing::pipeline(data));
