//! `hookhost-client`: the command an agent's hook settings name when the `hookhost serve`
//! daemon keeps the project's hooks loaded. All of it is the `hookhost-client` crate, which
//! depends on std and libc only: nothing of hookhost's library is linked in.
//!
//! Its start is what every hook call pays, so it skips std's runtime set-up (`no_main`): no
//! stack-overflow handler (glibc reads /proc/self/maps for it), no poll of the standard
//! descriptors. What of that set-up it needs it does itself: SIGPIPE ignored, so that an agent
//! that stops reading costs a write error rather than the process; and a panic, which std's
//! `main` would turn into exit status 101 (an allow, to the agents), blocks the call instead.
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
use std::ffi::c_int;

// SAFETY: the C `main` of this executable; nothing else defines it, and the C runtime calls it
// once with valid `argc`/`argv` (which std reads on its own on Linux, for `env::args_os`).
#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: c_int, _argv: *const *const std::ffi::c_char) -> c_int {
    // SAFETY: setting a signal's disposition to SIG_IGN, before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    std::panic::set_hook(Box::new(|panic| {
        eprintln!("hookhost-client: {panic}; the call is blocked");
        // Exit 2 blocks a tool call in Claude Code and Gemini CLI; every agent denies on it.
        std::process::exit(2)
    }));
    hookhost_client::run()
}
