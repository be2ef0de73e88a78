//! The guest's memory allocator, fitted to a hook's life: every call runs in a fresh instance
//! whose memory is thrown away when the call ends, so nothing needs to be given back to the
//! system, and a call makes a few dozen small allocations (strings of the event, parsed JSON,
//! words of a command line).
//!
//! Allocations of at most [`MAX_SMALL`] bytes (and alignment at most 16) come from seven size
//! classes, 16 bytes to 1 KiB, cut from a region of the guest's zeroed static data
//! ([`REGION`] bytes): a freed block goes onto its class's free list and is handed out again
//! from there. Everything else (larger or more aligned blocks, and small ones once the region
//! is used up) goes to the system allocator, wasi-libc's dlmalloc. A block belongs to whoever
//! owns its address: freeing or growing a block outside the region goes to the system
//! allocator, so blocks of either kind can be handed around freely.
//!
//! Allocating or freeing a small block is a few dozen instructions, where dlmalloc behind
//! Rust's default allocator path took about 400 per allocation and free: a sixth of a
//! destructive-guard call went there (67 allocations). And every page a call writes is copied
//! back when its instance is reset, so small blocks packed into a few pages of the region cost
//! less than blocks spread through dlmalloc's heap.
//!
//! On `wasm32-wasip2`, memory that the host lowers into the guest (`cabi_realloc`) comes from
//! the system allocator too: wasi-libc frees what its own imports return (the preopened
//! directories, the environment) with `free`, which must never see a block of the region. A
//! hook built without WASI (`wasm32-unknown-unknown`) has no wasi-libc: there wit-bindgen's
//! `cabi_realloc` serves the host from this allocator, so the event's strings are small blocks
//! too, and nothing grows the guest's memory on an ordinary call.
//!
//! The cost: a freed small block is reused only by its own class, so a call that first fills
//! the region with blocks of one size and then, after freeing them, asks for another size gets
//! those from dlmalloc.
//!
//! Installed as the global allocator of a hook built for `wasm32` by the `allocator` feature
//! (on by default). A hook that brings its own `#[global_allocator]` turns the feature off:
//! `hook-sdk = { version = "...", default-features = false }`.

// Off wasm32 only the unit tests use it.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

/// Size classes: 16 << 0 ..= 16 << 6 bytes.
const CLASSES: usize = 7;
/// The largest allocation served from a size class.
const MAX_SMALL: usize = 16 << (CLASSES - 1);
/// The alignment every block of a size class has.
const BLOCK_ALIGN: usize = 16;
/// The region small blocks are cut from: 16 pages of static data, untouched (and so free: the
/// pages are neither faulted in nor reset) until blocks are cut from them.
const REGION: usize = 64 << 10;

/// See the module documentation.
pub(crate) struct HookAllocator {
    arena: UnsafeCell<Arena>,
}

/// The allocator's state, then its region, page-aligned. Must not move once used (it lives in
/// a `static`).
#[repr(C, align(4096))]
struct Arena {
    /// Per size class, the most recently freed block; each free block holds the next.
    free: [*mut u8; CLASSES],
    /// How many bytes of the region blocks have been cut from.
    used: usize,
    region: Region,
}

#[repr(C, align(16))]
struct Region([u8; REGION]);

// SAFETY: a wasm32 guest without the `atomics` feature has one thread; `HookAllocator` is
// installed only there (see lib.rs), so its arena is never touched by two threads at once.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl Sync for HookAllocator {}

impl HookAllocator {
    pub(crate) const fn new() -> HookAllocator {
        HookAllocator {
            arena: UnsafeCell::new(Arena {
                free: [ptr::null_mut(); CLASSES],
                used: 0,
                region: Region([0; REGION]),
            }),
        }
    }
}

/// The size class of `layout`, or `None` for the system allocator.
fn class(layout: Layout) -> Option<usize> {
    if layout.size() > MAX_SMALL || layout.align() > BLOCK_ALIGN {
        return None;
    }
    let size = layout.size().max(BLOCK_ALIGN);
    // ceil(log2(size)) - 4: 16 -> 0, 17..=32 -> 1, ..., 1024 -> 6.
    Some((usize::BITS - (size - 1).leading_zeros()) as usize - 4)
}

const fn class_size(class: usize) -> usize {
    BLOCK_ALIGN << class
}

impl Arena {
    /// Whether `block` was cut from the region.
    #[inline(always)]
    fn owns(&self, block: *mut u8) -> bool {
        let start = self.region.0.as_ptr() as usize;
        (block as usize).wrapping_sub(start) < REGION
    }

    /// A block of `class`: a freed one, else one cut from the region; null when the region is
    /// used up.
    #[inline(always)]
    fn take(&mut self, class: usize) -> *mut u8 {
        let head = self.free[class];
        if !head.is_null() {
            // SAFETY: a free block is a block of the region, and holds the next free block of
            // its class in its first word.
            self.free[class] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let size = class_size(class);
        if REGION - self.used < size {
            return ptr::null_mut();
        }
        // SAFETY: `used + size` is within the region (checked above).
        let block = unsafe { self.region.0.as_mut_ptr().add(self.used) };
        self.used += size;
        block
    }

    /// Frees `block` of `class` onto its list.
    ///
    /// # Safety
    /// `block` came from `take(class)` and is not used any more.
    #[inline(always)]
    unsafe fn give(&mut self, block: *mut u8, class: usize) {
        // SAFETY: the block is at least 16 bytes, 16-aligned, and no longer the caller's.
        unsafe { block.cast::<*mut u8>().write(self.free[class]) };
        self.free[class] = block;
    }
}

/// The system allocator's paths, out of line: inlined, they gave the small-block path a stack
/// frame it does not need.
#[cold]
#[inline(never)]
unsafe fn system_alloc(layout: Layout) -> *mut u8 {
    // SAFETY: the caller's `GlobalAlloc::alloc` contract, passed on.
    unsafe { System.alloc(layout) }
}

#[cold]
#[inline(never)]
unsafe fn system_dealloc(block: *mut u8, layout: Layout) {
    // SAFETY: the caller's `GlobalAlloc::dealloc` contract, passed on.
    unsafe { System.dealloc(block, layout) }
}

// SAFETY: a block of the region is at least as large as its class's layouts and 16-aligned
// (the region is, and class sizes are multiples of 16; classes serve alignments up to 16);
// blocks are never handed out twice without being freed in between; every other block is the
// system allocator's, from allocation to free.
unsafe impl GlobalAlloc for HookAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if let Some(class) = class(layout) {
            // SAFETY: single-threaded (see `Sync`), and no reference into the arena outlives
            // this call.
            let block = unsafe { (*self.arena.get()).take(class) };
            if !block.is_null() {
                return block;
            }
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { system_alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let arena = unsafe { &mut *self.arena.get() };
        if let Some(class) = class(layout) {
            let block = arena.take(class);
            if !block.is_null() {
                // SAFETY: the block has at least `layout.size()` bytes.
                unsafe { block.write_bytes(0, layout.size()) };
                return block;
            }
        }
        // SAFETY: the caller's contract, passed on. (dlmalloc knows when fresh memory is
        // already zero.)
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: as for `alloc`.
        let arena = unsafe { &mut *self.arena.get() };
        match class(layout) {
            // SAFETY: a block of the region that the caller gives back was handed out for a
            // layout of this class.
            Some(class) if arena.owns(block) => unsafe { arena.give(block, class) },
            // SAFETY: the caller's contract, passed on: the block is the system allocator's.
            _ => unsafe { system_dealloc(block, layout) },
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let owned = unsafe { (*self.arena.get()).owns(block) };
        if !owned {
            // SAFETY: the caller's contract, passed on: the block is the system allocator's.
            return unsafe { System.realloc(block, layout, new_size) };
        }
        // SAFETY: the caller promises that `new_size`, with the old alignment, is a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if class(new_layout) == class(layout) {
            // The block already has room: a class's blocks are all the class's size.
            return block;
        }
        // SAFETY: `new_layout` is valid (above) and not zero-sized (`new_size > 0`).
        let moved = unsafe { self.alloc(new_layout) };
        if !moved.is_null() {
            // SAFETY: both blocks hold at least the smaller size; they are distinct; the old
            // block is given back once, with its layout.
            unsafe {
                ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                self.dealloc(block, layout);
            }
        }
        moved
    }
}

/// The canonical ABI's allocator on WASI, with which the host lowers arguments and results
/// into the guest: the system allocator's blocks, so that wasi-libc may `free` what its imports
/// return (see the module documentation). It replaces wit-bindgen's, which is weak and uses the
/// global allocator, as a guest without WASI (and so without wasi-libc) still does.
///
/// # Safety
/// Called by the host as the canonical ABI specifies: `old` is null with `old_len` 0, or a
/// block this function returned with that length and alignment.
#[cfg(all(
    feature = "allocator",
    target_arch = "wasm32",
    target_os = "wasi",
    not(target_feature = "atomics")
))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cabi_realloc(
    old: *mut u8,
    old_len: usize,
    align: usize,
    new_len: usize,
) -> *mut u8 {
    let block = if old_len == 0 {
        if new_len == 0 {
            return align as *mut u8;
        }
        // SAFETY: the canonical ABI passes a power-of-two alignment and a non-zero size.
        unsafe { System.alloc(Layout::from_size_align_unchecked(new_len, align)) }
    } else {
        // SAFETY: `old` is this function's block of `old_len` bytes (the caller's contract).
        unsafe {
            System.realloc(
                old,
                Layout::from_size_align_unchecked(old_len, align),
                new_len,
            )
        }
    };
    if block.is_null() {
        // The host has nowhere to put the value: the call cannot go on.
        std::process::abort();
    }
    block
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn size_classes() {
        for (size, align, expected) in [
            (1, 1, Some(0)),
            (16, 8, Some(0)),
            (17, 1, Some(1)),
            (32, 16, Some(1)),
            (33, 4, Some(2)),
            (1000, 8, Some(6)),
            (1024, 8, Some(6)),
            (1025, 8, None),
            (8, 32, None),
        ] {
            assert_eq!(
                class(layout(size, align)),
                expected,
                "size {size}, align {align}"
            );
        }
    }

    #[test]
    fn blocks_are_distinct_aligned_and_reused_by_their_class() {
        let alloc = Box::new(HookAllocator::new());
        // SAFETY: every block is used within its layout and freed once, with that layout.
        unsafe {
            let a = alloc.alloc(layout(24, 8));
            let b = alloc.alloc(layout(30, 8));
            assert_ne!(a, b);
            assert_eq!(a as usize % 16, 0);
            assert!((b as usize).abs_diff(a as usize) >= 32, "blocks overlap");
            a.write_bytes(0xaa, 24);
            b.write_bytes(0xbb, 30);
            assert_eq!(a.add(23).read(), 0xaa, "writing b did not touch a");
            alloc.dealloc(a, layout(24, 8));
            // The freed block serves the next request of its class, not of another.
            let c = alloc.alloc(layout(100, 8));
            assert_ne!(c, a);
            let d = alloc.alloc(layout(32, 16));
            assert_eq!(d, a);
            for (block, size) in [(b, 30), (c, 100), (d, 32)] {
                alloc.dealloc(block, layout(size, 8.min(size)));
            }
        }
    }

    #[test]
    fn realloc_keeps_the_contents_across_classes_and_the_system_allocator() {
        let alloc = Box::new(HookAllocator::new());
        // SAFETY: every block is used within its layout and freed once, with that layout.
        unsafe {
            let mut block = alloc.alloc(layout(10, 1));
            let mut size = 10;
            for i in 0..10 {
                block.add(i).write(i as u8);
            }
            // Within a class the block stays where it is; past it, it moves; past 1 KiB it
            // moves to the system allocator, and stays there.
            let first = block;
            block = alloc.realloc(block, layout(size, 1), 16);
            assert_eq!(block, first);
            size = 16;
            for new_size in [100, 1000, 3000, 50_000, 200, 12] {
                block = alloc.realloc(block, layout(size, 1), new_size);
                assert!(!block.is_null());
                size = new_size;
                for i in 0..10 {
                    assert_eq!(
                        block.add(i).read(),
                        i as u8,
                        "byte {i} after growing to {size}"
                    );
                }
            }
            assert!(
                !(*alloc.arena.get()).owns(block),
                "grown past 1 KiB: dlmalloc's"
            );
            alloc.dealloc(block, layout(size, 1));
        }
    }

    #[test]
    fn blocks_of_the_system_allocator_go_back_to_it() {
        let alloc = Box::new(HookAllocator::new());
        // SAFETY: every block is used within its layout and freed once, with that layout.
        unsafe {
            // A small block another allocator made (as `cabi_realloc` does for the host) is
            // freed and grown by the system allocator, never put on a free list.
            let foreign = System.alloc(layout(40, 8));
            foreign.write_bytes(7, 40);
            let grown = alloc.realloc(foreign, layout(40, 8), 48);
            assert!(!(*alloc.arena.get()).owns(grown));
            assert_eq!(grown.add(39).read(), 7);
            alloc.dealloc(grown, layout(48, 8));
            assert!((*alloc.arena.get()).free.iter().all(|head| head.is_null()));
        }
    }

    #[test]
    fn a_used_up_region_hands_small_blocks_to_the_system_allocator() {
        let alloc = Box::new(HookAllocator::new());
        let mut blocks = Vec::new();
        // SAFETY: every block is used within its layout and freed once, with that layout.
        unsafe {
            // Twice the region of every class, written through, then checked: no two blocks
            // overlap, and those past the region are dlmalloc's.
            for class in 0..CLASSES {
                let size = class_size(class);
                for _ in 0..(2 * REGION / size / CLASSES).max(2) {
                    let block = alloc.alloc(layout(size, 16));
                    assert!(!block.is_null());
                    block.write_bytes((blocks.len() % 251) as u8, size);
                    blocks.push((block, size));
                }
            }
            let arena = &*alloc.arena.get();
            assert!(blocks.iter().any(|(block, _)| arena.owns(*block)));
            assert!(blocks.iter().any(|(block, _)| !arena.owns(*block)));
            for (i, (block, size)) in blocks.iter().enumerate() {
                let expected = (i % 251) as u8;
                let bytes = std::slice::from_raw_parts(*block, *size);
                assert!(
                    bytes.iter().all(|b| *b == expected),
                    "block {i} was overwritten"
                );
            }
            // Freed, the region's blocks are reused; the others went back to dlmalloc.
            for (block, size) in blocks.drain(..) {
                alloc.dealloc(block, layout(size, 16));
            }
            let again = alloc.alloc(layout(16, 16));
            assert!((*alloc.arena.get()).owns(again));
            alloc.dealloc(again, layout(16, 16));
        }
    }
}
