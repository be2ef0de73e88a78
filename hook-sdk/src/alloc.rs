//! The guest's memory allocator, fitted to a hook's life: every call runs in a fresh instance
//! whose memory is thrown away when the call ends, so nothing needs to be given back to the
//! system, and a call makes a few dozen small allocations (strings of the event, parsed JSON,
//! words of a command line).
//!
//! Allocations of at most [`MAX_SMALL`] bytes (and alignment at most 16) come from seven size
//! classes, 16 bytes to 1 KiB: a freed block goes onto its class's free list and is handed out
//! again from there; a new block is cut from the current chunk: first the rest of the page the
//! allocator's own state is on, then 4 KiB chunks taken from the system allocator. Larger or
//! more aligned allocations go to the system allocator (wasi-libc's dlmalloc) directly.
//! Allocating or freeing a small block is a few dozen instructions, where dlmalloc behind
//! Rust's default allocator path took about 400 per allocation and free: a sixth of a
//! destructive-guard call went there (67 allocations), and every page a call writes is copied
//! back when its instance is reset, so a guard whose allocations fit in the first page writes
//! one page for all of them.
//!
//! The cost: a freed small block is reused only by its own class, so a call that first fills
//! memory with blocks of one size and then, after freeing them, with blocks of another holds
//! both at once (the sum of each class's peak, never more). A hook's memory limit
//! (`max_memory_mb`) bounds it like any other allocation.
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
/// What a chunk taken from the system allocator holds: one page. A fresh instance's memory has
/// room for a few pages of heap; a larger chunk made every call grow the memory (a system call
/// to map it, and one to unmap it when the instance is reset).
const CHUNK: usize = 4 << 10;

/// See the module documentation.
pub(crate) struct HookAllocator {
    arena: UnsafeCell<Arena>,
}

/// The allocator's state and its first chunk, on one page of the guest's zeroed static data:
/// a call whose allocations fit in it (most guards') touches that one page and never wakes
/// dlmalloc. Must not move once used (it lives in a `static`).
#[repr(C, align(4096))]
struct Arena {
    /// Per size class, the most recently freed block; each free block holds the next.
    free: [*mut u8; CLASSES],
    /// The uncut rest of the current chunk: `next..end` (both null before the first block).
    next: *mut u8,
    end: *mut u8,
    first: FirstChunk,
}

/// What is left of the arena's page for blocks.
const FIRST_CHUNK: usize = 4096 - 128;

#[repr(C, align(16))]
struct FirstChunk([u8; FIRST_CHUNK]);

// SAFETY: a wasm32 guest without the `atomics` feature has one thread; `HookAllocator` is
// installed only there (see lib.rs), so its arena is never touched by two threads at once.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl Sync for HookAllocator {}

impl HookAllocator {
    pub(crate) const fn new() -> HookAllocator {
        HookAllocator {
            arena: UnsafeCell::new(Arena {
                free: [ptr::null_mut(); CLASSES],
                next: ptr::null_mut(),
                end: ptr::null_mut(),
                first: FirstChunk([0; FIRST_CHUNK]),
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
    /// A block of `class`: a freed one, else one cut from the chunk.
    ///
    /// # Safety
    /// The arena's lists and chunk are only ever changed by this allocator.
    #[inline(always)]
    unsafe fn take(&mut self, class: usize) -> *mut u8 {
        let head = self.free[class];
        if !head.is_null() {
            // SAFETY: a free block holds the next free block of its class in its first word.
            self.free[class] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let size = class_size(class);
        if (self.end as usize) - (self.next as usize) < size {
            // SAFETY: as for `take`.
            return unsafe { self.take_from_new_chunk(class) };
        }
        let block = self.next;
        // SAFETY: `size` bytes are left in the chunk (checked above).
        self.next = unsafe { block.add(size) };
        block
    }

    /// `take` when the chunk is used up: once per page of blocks, out of line so that the
    /// common path needs no stack frame.
    #[cold]
    #[inline(never)]
    unsafe fn take_from_new_chunk(&mut self, class: usize) -> *mut u8 {
        // SAFETY: as for `take`.
        if !unsafe { self.refill() } {
            return ptr::null_mut();
        }
        let block = self.next;
        // SAFETY: a new chunk holds a block of every class.
        self.next = unsafe { block.add(class_size(class)) };
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

    /// Starts a new chunk. What is left of the old one goes onto the free lists, largest
    /// class first, so that nothing of it is lost.
    unsafe fn refill(&mut self) -> bool {
        if self.end.is_null() {
            self.next = self.first.0.as_mut_ptr();
            // SAFETY: `first` is FIRST_CHUNK bytes long.
            self.end = unsafe { self.next.add(FIRST_CHUNK) };
            return true;
        }
        // Alignment 8 is plain `malloc` (16 would be `posix_memalign`, which writes headers on
        // both sides of the chunk, dirtying a page more); the start is rounded up to 16.
        // SAFETY: a valid, non-zero layout.
        let chunk = unsafe { System.alloc(Layout::from_size_align_unchecked(CHUNK, 8)) };
        if chunk.is_null() {
            return false;
        }
        let mut rest = (self.end as usize) - (self.next as usize);
        for class in (0..CLASSES).rev() {
            while rest >= class_size(class) {
                // SAFETY: `next..end` is uncut memory of the old chunk, 16-aligned.
                unsafe {
                    self.give(self.next, class);
                    self.next = self.next.add(class_size(class));
                }
                rest -= class_size(class);
            }
        }
        // SAFETY: the chunk is CHUNK bytes long; rounding up skips at most 8 of them.
        unsafe {
            self.next = chunk.add(chunk.align_offset(BLOCK_ALIGN));
            self.end = chunk.add(CHUNK);
        }
        true
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

// SAFETY: a block of a size class is at least as large as the layout asked for and 16-aligned
// (classes serve only alignments up to 16); blocks are never handed out twice without being
// freed in between; everything else is the system allocator's.
unsafe impl GlobalAlloc for HookAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match class(layout) {
            // SAFETY: single-threaded (see `Sync`), and no reference into the arena outlives
            // this call.
            Some(class) => unsafe { (*self.arena.get()).take(class) },
            // SAFETY: the caller's contract, passed on.
            None => unsafe { system_alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match class(layout) {
            Some(_) => {
                // SAFETY: the caller's contract, passed on.
                let block = unsafe { self.alloc(layout) };
                if !block.is_null() {
                    // SAFETY: the block has at least `layout.size()` bytes.
                    unsafe { block.write_bytes(0, layout.size()) };
                }
                block
            }
            // SAFETY: the caller's contract, passed on. (dlmalloc knows when fresh memory is
            // already zero.)
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        match class(layout) {
            // SAFETY: the caller gives back a block this allocator handed out for `layout`.
            Some(class) => unsafe { (*self.arena.get()).give(block, class) },
            // SAFETY: the caller's contract, passed on.
            None => unsafe { system_dealloc(block, layout) },
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller promises that `new_size`, with the old alignment, is a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (class(layout), class(new_layout)) {
            // The block already has room (a class's blocks are all the class's size).
            (Some(old), Some(new)) if old == new => block,
            // SAFETY: the caller's contract, passed on.
            (None, None) => unsafe { System.realloc(block, layout, new_size) },
            _ => {
                // SAFETY: `new_layout` is valid (above) and not zero-sized (`new_size > 0`).
                let moved = unsafe { self.alloc(new_layout) };
                if !moved.is_null() {
                    // SAFETY: both blocks hold at least the smaller size; they are distinct.
                    unsafe {
                        ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                }
                moved
            }
        }
    }
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
        let alloc = HookAllocator::new();
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
        let alloc = HookAllocator::new();
        // SAFETY: every block is used within its layout and freed once, with that layout.
        unsafe {
            let mut block = alloc.alloc(layout(10, 1));
            let mut size = 10;
            for i in 0..10 {
                block.add(i).write(i as u8);
            }
            // Within a class the block stays where it is; past it, it moves; past 1 KiB it
            // moves to the system allocator, and back.
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
            alloc.dealloc(block, layout(size, 1));
        }
    }

    #[test]
    fn many_blocks_span_chunks_without_overlapping() {
        let alloc = HookAllocator::new();
        let mut blocks = Vec::new();
        // SAFETY: every block is used within its layout and freed once, with that layout.
        unsafe {
            // More than one chunk of every class, written through, then checked.
            for round in 0..3 {
                for class in 0..CLASSES {
                    let size = class_size(class);
                    for _ in 0..(2 * CHUNK / size).max(2) {
                        let block = alloc.alloc(layout(size, 16));
                        assert!(!block.is_null());
                        block.write_bytes((blocks.len() % 251) as u8, size);
                        blocks.push((block, size));
                    }
                }
                // Free every other block, so the next round reuses them.
                if round < 2 {
                    let mut kept = Vec::new();
                    for (i, (block, size)) in blocks.drain(..).enumerate() {
                        if i % 2 == 0 {
                            alloc.dealloc(block, layout(size, 16));
                        } else {
                            kept.push((block, size));
                        }
                    }
                    blocks = kept;
                    for (i, (block, size)) in blocks.iter().enumerate() {
                        block.write_bytes((i % 251) as u8, *size);
                    }
                }
            }
            for (i, (block, size)) in blocks.iter().enumerate() {
                let expected = (i % 251) as u8;
                let bytes = std::slice::from_raw_parts(*block, *size);
                assert!(
                    bytes.iter().all(|b| *b == expected),
                    "block {i} was overwritten"
                );
            }
        }
    }
}
