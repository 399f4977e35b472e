#![no_main]
//! The `dmrpp` target: see `vzplan_fuzzing::dmrpp`.

#[global_allocator]
static ALLOC: vzplan_fuzzing::CappedAlloc = vzplan_fuzzing::CappedAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| vzplan_fuzzing::dmrpp(data));
