//! What each fuzz target does with its input, as plain functions: the libFuzzer targets in `fuzz/`
//! call them, and `tests/fuzz_regressions.rs` replays every input kept in
//! `testdata/fuzz-regressions/<target>/` through the same functions. Each returns normally on any
//! input (errors are fine); a panic, a hang or an allocation the bytes do not justify is a bug.

use std::sync::Arc;
use vzplan_core::SourceLayout;
use vzplan_io::{MemObject, RangeRead};
use vzplan_plan::Options;

/// A fuzz target: takes any bytes, must return.
pub type Target = fn(&[u8]);

/// The fuzz targets, by the name of their directory under `testdata/fuzz-regressions/`.
pub const TARGETS: [(&str, Target); 6] = [
    ("hdf5", hdf5),
    ("netcdf3", netcdf3),
    ("tiff", tiff),
    ("dmrpp", dmrpp),
    ("layouts", layouts),
    ("pipeline", pipeline),
];

/// Separates the files of a `pipeline` input.
pub const SPLIT: &[u8] = b"#VZSPLIT#";

/// netCDF classic record merging target: the default, and a tiny one that makes every variable cut.
const CHUNK_BYTES: [u64; 2] = [4 << 20, 64];

fn mem(name: &str, data: &[u8]) -> Arc<dyn RangeRead> {
    Arc::new(MemObject::new(format!("mem://fuzz/{name}"), data.to_vec()))
}

/// HDF5 / netCDF-4 reader on one file, read as a local file is (no prefetching) and as an object
/// on object storage is (behind a block cache, so that the walks' prefetch hints run too).
pub fn hdf5(data: &[u8]) {
    let r = mem("f.h5", data);
    let _ = vzplan_hdf5::read_layout(r.as_ref());
    let _ = vzplan_hdf5::read_layout(&remote(r));
}

/// `r` behind the block cache of object storage, with small blocks so that small inputs still
/// take several of them.
fn remote(r: Arc<dyn RangeRead>) -> vzplan_io::CachedReader {
    let cfg = vzplan_io::CacheConfig {
        block_size: 256,
        first_read: 1024,
        grow_to: 4096,
        max_bytes: 8 << 20,
        ..vzplan_io::CacheConfig::default()
    };
    vzplan_io::CachedReader::new(r, cfg)
}

/// netCDF classic reader on one file, with the default and a tiny block target.
pub fn netcdf3(data: &[u8]) {
    let r = mem("f.nc", data);
    for chunk_bytes in CHUNK_BYTES {
        let _ = vzplan_netcdf3::read_layout(r.as_ref(), &vzplan_netcdf3::Options { chunk_bytes });
    }
}

/// TIFF reader on one file, with and without the imagecodecs codec mapping, and once more as an
/// object behind the block cache (so that the values' prefetch runs).
pub fn tiff(data: &[u8]) {
    let r = mem("f.tif", data);
    for imagecodecs in [true, false] {
        let _ = vzplan_tiff::read_layout_with(r.as_ref(), &vzplan_tiff::Options { imagecodecs });
    }
    let _ = vzplan_tiff::read_layout(&remote(r));
}

/// DMR++ reader on one sidecar, with no granule named (nothing but the XML is read).
pub fn dmrpp(data: &[u8]) {
    let _ = vzplan_dmrpp::read_layout(mem("f.h5.dmrpp", data).as_ref(), None);
}

/// A layouts file (`vzplan scan` output, as `--from-layouts` reads it): each line a layout, planned
/// together along the inferred dimension and stacked, then emitted; and the lines whose URL passes
/// the source-URL check planned with `--patch`, their patches applied to sources in memory (the
/// input itself as every source's bytes), as the untrusted lines of a batch job would be.
pub fn layouts(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed: Vec<SourceLayout> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<SourceLayout>(l).ok())
        .collect();
    if !parsed.is_empty() {
        plan_and_emit(parsed.clone());
        let checked: Vec<SourceLayout> = parsed
            .into_iter()
            .filter(|l| vzplan_io::check_source_url(&l.url).is_ok())
            .collect();
        patch(checked, data);
    }
}

/// Plans with `--patch` and applies the patches, every source read from `bytes` in memory.
fn patch(layouts: Vec<SourceLayout>, bytes: &[u8]) {
    let opts = Options {
        patch: true,
        ..Options::default()
    };
    let mut plan = vzplan_plan::plan(layouts, &[], &opts);
    let urls: Vec<String> = plan.sources.iter().map(|s| s.url.clone()).collect();
    vzplan_patch::apply(&mut plan, &|url| {
        // A patch reads only the plan's own sources.
        assert!(urls.iter().any(|u| u == url), "{url} is not a source");
        Ok(mem(url, bytes))
    });
    let mut out = Vec::new();
    let _ = vzplan_emit::write_refs(&plan, &mut out);
}

/// Several files (the input split at [`SPLIT`], at most 3), each read with every reader, the
/// layouts that read planned together (concatenated and stacked) and emitted.
pub fn pipeline(data: &[u8]) {
    let mut layouts = Vec::new();
    for (i, part) in split(data).into_iter().enumerate() {
        let r = mem(&format!("f{i}"), part);
        layouts.extend(vzplan_hdf5::read_layout(r.as_ref()).ok());
        layouts.extend(vzplan_tiff::read_layout(r.as_ref()).ok());
        layouts.extend(vzplan_dmrpp::read_layout(r.as_ref(), None).ok());
        let opts = vzplan_netcdf3::Options {
            chunk_bytes: CHUNK_BYTES[i % 2],
        };
        layouts.extend(vzplan_netcdf3::read_layout(r.as_ref(), &opts).ok());
    }
    if !layouts.is_empty() {
        plan_and_emit(layouts);
    }
}

/// Splits a pipeline input into at most 3 files.
pub fn split(data: &[u8]) -> Vec<&[u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while parts.len() < 2 {
        let Some(at) = rest.windows(SPLIT.len()).position(|w| w == SPLIT) else {
            break;
        };
        parts.push(&rest[..at]);
        rest = &rest[at + SPLIT.len()..];
    }
    parts.push(rest);
    parts
}

fn plan_and_emit(layouts: Vec<SourceLayout>) {
    let concat = Options::default();
    let stack = Options {
        stack_dim: Some("scene".into()),
        ..Options::default()
    };
    for opts in [concat, stack] {
        let plan = vzplan_plan::plan(layouts.clone(), &[], &opts);
        let mut out = Vec::new();
        let _ = vzplan_emit::write_refs(&plan, &mut out);
        let _ = serde_json::to_vec_pretty(&vzplan_emit::zarr::consolidated_json(&plan));
    }
}

/// Allocations live at once beyond which an input is a memory blow-up (as libFuzzer's
/// `-rss_limit_mb=2048`): none of the readers needs that much for metadata.
pub const ALLOC_LIMIT: usize = 2 << 30;

/// A global allocator that aborts when the bytes allocated and not yet freed exceed
/// [`ALLOC_LIMIT`]. The RSS limit alone misses huge allocations that are never touched (zeroed
/// pages are mapped lazily), so the fuzz targets and the regression test install this one.
pub struct CappedAlloc;

static LIVE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl CappedAlloc {
    fn admit(size: usize) {
        use std::sync::atomic::Ordering;
        let before = LIVE.fetch_add(size, Ordering::Relaxed);
        if before.saturating_add(size) > ALLOC_LIMIT {
            use std::io::Write;
            let _ = std::io::stderr().write_all(b"vzplan-fuzzing: allocation limit exceeded\n");
            std::process::abort();
        }
    }
    fn release(size: usize) {
        LIVE.fetch_sub(size, std::sync::atomic::Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to the system allocator with the same arguments; the counter
// does not affect what is returned.
unsafe impl std::alloc::GlobalAlloc for CappedAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::admit(layout.size());
        std::alloc::System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::admit(layout.size());
        std::alloc::System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        Self::release(layout.size());
        std::alloc::System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        if new > layout.size() {
            Self::admit(new - layout.size());
        } else {
            Self::release(layout.size() - new);
        }
        std::alloc::System.realloc(ptr, layout, new)
    }
}
