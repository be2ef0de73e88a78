//! How much native stack the calling thread has left.
//!
//! A hook that runs on the calling thread (see `WasmHook`'s inline path) runs its wasm frames
//! on that thread's stack: wasmtime stops a guest at [`MAX_WASM_STACK`] below where it
//! entered, and trusts the thread to have that much room. A thread with less (an embedder's
//! small-stack thread, a call made deep in its stack) gets the fiber instead, whose stack
//! hookhost sizes itself.

use std::cell::Cell;

/// The deepest a guest's frames may go (`Config::max_wasm_stack`).
pub(crate) const MAX_WASM_STACK: usize = 512 << 10;

/// What the host needs above a guest's frames: wasmtime's entry and trap handling, and the
/// host functions a guest calls (`log`, `config`).
const HOST_MARGIN: usize = 256 << 10;

/// Whether this thread has room for a guest's stack where it stands.
pub(crate) fn has_room_for_guest() -> bool {
    remaining().is_some_and(|left| left >= MAX_WASM_STACK + HOST_MARGIN)
}

thread_local! {
    /// The usable addresses of this thread's stack, lowest and highest, looked up once per
    /// thread (for the main thread glibc reads `/proc/self/maps`). `Some(None)`: the platform
    /// does not say.
    static STACK: Cell<Option<Option<(usize, usize)>>> = const { Cell::new(None) };
}

/// Bytes between here and the end of this thread's stack, where the platform says. `None`
/// too where here is not on that stack (a coroutine running on a stack of its own).
fn remaining() -> Option<usize> {
    let (low, high) = STACK.with(|cached| match cached.get() {
        Some(bounds) => bounds,
        None => {
            let bounds = stack_bounds();
            cached.set(Some(bounds));
            bounds
        }
    })?;
    let marker = 0u8;
    room_at(
        std::hint::black_box(&marker) as *const u8 as usize,
        low,
        high,
    )
}

/// The room below `here` on a stack spanning `low..=high`, if `here` is on it.
fn room_at(here: usize, low: usize, high: usize) -> Option<usize> {
    (low..=high).contains(&here).then(|| here - low)
}

#[cfg(target_os = "linux")]
fn stack_bounds() -> Option<(usize, usize)> {
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is read, and destroyed
    // once; `pthread_attr_getstack` writes only into the two out-pointers.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let found = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        // The lowest address above the guard page (glibc reports the usable stack).
        (found && !addr.is_null()).then(|| (addr as usize, addr as usize + size))
    }
}

#[cfg(target_os = "macos")]
fn stack_bounds() -> Option<(usize, usize)> {
    // SAFETY: both calls only read the current thread's attributes.
    unsafe {
        let thread = libc::pthread_self();
        let top = libc::pthread_get_stackaddr_np(thread) as usize;
        let size = libc::pthread_get_stacksize_np(thread);
        Some((top.checked_sub(size)?, top))
    }
}

/// Elsewhere the room is unknown: every call takes the fiber.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn stack_bounds() -> Option<(usize, usize)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_knows_its_room_and_a_small_stack_has_too_little() {
        if cfg!(not(any(target_os = "linux", target_os = "macos"))) {
            assert!(!has_room_for_guest());
            return;
        }
        let room = |stack: usize| {
            std::thread::Builder::new()
                .stack_size(stack)
                .spawn(|| (remaining(), has_room_for_guest()))
                .unwrap()
                .join()
                .unwrap()
        };
        let (left, enough) = room(8 << 20);
        let left = left.expect("Linux and macOS report a thread's stack");
        assert!(
            left > 7 << 20 && left <= 8 << 20,
            "{left} bytes left of 8 MiB"
        );
        assert!(enough);
        let (left, enough) = room(256 << 10);
        assert!(left.unwrap() <= 256 << 10);
        assert!(!enough, "256 KiB cannot hold a 512 KiB guest stack");
    }

    #[test]
    fn an_address_off_the_thread_stack_has_no_room() {
        // A coroutine running on a stack of its own: its frames are not on the thread's
        // stack, whose bounds then say nothing about them.
        assert_eq!(room_at(0x9000, 0x1000, 0x10000), Some(0x8000));
        assert_eq!(room_at(0x0800, 0x1000, 0x10000), None);
        assert_eq!(room_at(0x20000, 0x1000, 0x10000), None);
    }
}
