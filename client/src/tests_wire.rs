//! `wire::read_frame` against a peer that announces a frame and then sends less (or nothing):
//! an error that says how much came, and no allocation of the announced length (the client
//! reads a daemon's answer with it; a daemon that announces 64 MiB and closes must cost the
//! hook call nothing near 64 MiB).
//!
//! The allocation is measured by this test binary's allocator, which records the largest
//! single request made on a thread while that thread asks it to.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::ErrorKind;

use crate::wire::{ANSWER_MAX_BYTES, read_frame};

/// The system allocator, noting the largest request of a thread that is measuring.
struct Largest;

thread_local! {
    // `const`: no lazy initialisation, so no allocation from inside the allocator.
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: a thread being torn down has no locals left, and is not measuring.
    let _ = MEASURING.try_with(|measuring| {
        if measuring.get() {
            let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
        }
    });
}

// SAFETY: every call is passed to `System` unchanged; noting the size allocates nothing.
unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: the caller's contract for `realloc`, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

/// `f`'s result and the largest single allocation it made on this thread.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|largest| largest.set(0));
    MEASURING.with(|measuring| measuring.set(true));
    let result = f();
    MEASURING.with(|measuring| measuring.set(false));
    (result, LARGEST.with(Cell::get))
}

#[test]
fn an_announced_frame_that_never_comes_is_an_error_and_costs_no_allocation_of_its_length() {
    let announced = ANSWER_MAX_BYTES;
    let header = announced.to_be_bytes();
    #[rustfmt::skip]
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("EOF right after the length", header.to_vec(), "a frame of 67108864 bytes ended after 0"),
        ("EOF after a few bytes", [&header[..], b"abc"].concat(), "a frame of 67108864 bytes ended after 3"),
        ("EOF inside the length", header[..2].to_vec(), "failed to fill whole buffer"),
    ];
    for (name, bytes, expected) in cases {
        let (result, largest) = largest_allocation(|| read_frame(&mut &bytes[..], announced));
        // What a read buffer starts at (64 KiB), far below the 64 MiB announced.
        assert!(
            largest <= 64 << 10,
            "{name}: {largest} bytes allocated for a frame that sent {} bytes",
            bytes.len()
        );
        let error = result.expect_err(name);
        assert_eq!(error.kind(), ErrorKind::UnexpectedEof, "{name}");
        assert_eq!(error.to_string(), expected, "{name}");
    }
}

/// The measure sees the allocation the test guards against: one of the announced length.
#[test]
fn the_measure_sees_an_allocation_of_the_announced_length() {
    let (buffer, largest) = largest_allocation(|| Vec::<u8>::with_capacity(1 << 20));
    drop(buffer);
    assert!(largest >= 1 << 20, "{largest}");
}
