#![no_main]
//! The `layouts` target: see `vzplan_fuzzing::layouts`.

#[global_allocator]
static ALLOC: vzplan_fuzzing::CappedAlloc = vzplan_fuzzing::CappedAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| vzplan_fuzzing::layouts(data));
