//! The binary's global allocator: mimalloc v2 without transparent huge pages, in place of glibc's
//! malloc. A scan makes hundreds of small allocations a file, and glibc's free and consolidation
//! dominate that; mimalloc's thread-local free lists do not. Huge pages (mimalloc's default) make a
//! large build zero 2 MiB pages it barely uses, and v3 keeps more memory (docs/benchmarks.md).
//! The library and the Python package leave the allocator to their host.
//!
//! Over `libmimalloc-sys` rather than the `mimalloc` crate, whose allocator sends every request
//! through mimalloc's `_aligned` entry points: they look up the size class and test the free
//! block's address on each call, on every one of a scan's allocations. Every mimalloc block is
//! at least word-aligned (block sizes are whole words, pages start word-aligned), so a request for
//! at most word alignment takes the plain entry points, as Rust's own `System` allocator does
//! with glibc's `malloc`. (Not so with `libmimalloc-sys`'s `debug` feature, whose guarded pages
//! can return blocks at any offset: keep it off.)

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// Alignment every mimalloc block has.
const WORD: usize = std::mem::size_of::<usize>();

pub struct MiMalloc;

// SAFETY: mimalloc returns blocks of at least `size` bytes aligned as asked (word-aligned on the
// plain entry points, see above), or null; `mi_free` takes any block it returned.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: plain FFI calls; Rust never asks for zero bytes here.
        unsafe {
            if l.align() <= WORD {
                mi::mi_malloc(l.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(l.size(), l.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if l.align() <= WORD {
                mi::mi_zalloc(l.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(l.size(), l.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _l: Layout) {
        // SAFETY: `ptr` came from this allocator (GlobalAlloc's contract).
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with layout `l` (GlobalAlloc's contract).
        unsafe {
            if l.align() <= WORD {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, l.align()) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size class up to a few pages, at every alignment up to 4 KiB: each block is aligned
    /// as asked, keeps its bytes through realloc, and is freed.
    #[test]
    fn blocks_are_aligned_and_keep_their_bytes() {
        let a = MiMalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in (1..=300).chain([1000, 4096, 9000, 70_000, 2 << 20]) {
                let l = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = a.alloc(l);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    std::ptr::write_bytes(p, 0xa5, size);
                    let q = a.realloc(p, l, size * 3);
                    assert!(!q.is_null());
                    assert_eq!(q as usize % align, 0, "realloc: size {size} align {align}");
                    assert!((0..size).all(|i| *q.add(i) == 0xa5));
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(l);
                    assert!(!z.is_null());
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, l);
                }
            }
        }
    }
}
