//! The command line's allocator: the system's, with every large allocation asked to be
//! backed by transparent huge pages (`madvise(MADV_HUGEPAGE)`: the kernel's setting
//! `madvise`, Debian's and Ubuntu's default, gives huge pages only to memory so marked).
//!
//! The verify reads a level's values at scattered places (a king's moves land anywhere in
//! its placement's arrangements, megabytes wide where kings are many): on 4 KiB pages such a
//! read also misses the TLB. With 2 MiB pages the verify of a 7-piece pair with six kings
//! takes about 6 % less CPU; the build, whose parts are smaller, gains nothing measurable
//! (benches/README.md). The values and the files are the same either way.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, advising huge pages for allocations that span at least one.
pub struct HugePages;

/// A huge page's size on x86-64 and most 64-bit ARM kernels.
const HUGE_PAGE: usize = 2 << 20;

/// Allocations smaller than this are left as they are (they hold at most one whole huge
/// page).
const LARGE: usize = 2 * HUGE_PAGE;

/// Asks for the whole huge pages inside `size` bytes at `ptr` to be backed by huge pages.
/// A hint only: the memory is the same either way, and an error is ignored.
#[cfg(target_os = "linux")]
fn advise(ptr: *mut u8, size: usize) {
    if ptr.is_null() || size < LARGE {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + size) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: the range lies inside an allocation this allocator just made, and
        // MADV_HUGEPAGE changes neither its contents nor its mapping.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: *mut u8, _: usize) {}

// SAFETY: every call goes to `System` with the caller's arguments; `advise` only adds a hint
// on memory the call returned.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let ptr = unsafe { System.alloc(layout) };
        advise(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        advise(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`, and `new_size` is the caller's to check.
        let ptr = unsafe { System.realloc(ptr, layout, new_size) };
        advise(ptr, new_size);
        ptr
    }
}
