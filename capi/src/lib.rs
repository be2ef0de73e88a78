//! hookhost's C ABI: a runner loaded from a hooks.toml (or from layers), events fired as JSON
//! and outcomes returned as JSON, C callbacks registered as hooks, fires cancelled from another
//! thread. The Go package (`go/`) is built on it; any language with a C FFI can be.
//!
//! A thin layer over [`hookhost::embed`], which holds what every language boundary shares (the
//! event's and the outcome's JSON, foreign callbacks as hooks, cancellation). This crate adds
//! only what C needs: opaque handles, status codes with messages, a process-wide async runtime,
//! and a boundary no panic crosses (`boundary`). `include/hookhost.h` is generated from these
//! files by cbindgen; every function's documentation there says who owns what, for how long,
//! and from which threads it may be called.
//!
//! | file | holds |
//! |---|---|
//! | `boundary` | status codes, error messages, strings in and out, panics caught |
//! | `options` | `hookhost_options`: the runner's settings |
//! | `runner` | `hookhost_runner`: load, fire, flush, close, free; the runtime it runs on |
//! | `callback` | C callbacks as hooks, and `hookhost_call`, one call of one |
//! | `cancel` | `hookhost_cancel`, a fire's cancellation handle |

#![allow(clippy::missing_safety_doc)] // Every function's safety contract is in its documentation.

mod boundary;
mod callback;
mod cancel;
mod options;
mod runner;

pub use boundary::{Status, hookhost_string_free};
pub use callback::{
    Call, Callback, FreeFn, hookhost_call_answer, hookhost_call_event, hookhost_call_fail,
    hookhost_call_is_cancelled, hookhost_runner_register,
};
pub use cancel::{Cancel, hookhost_cancel_free, hookhost_cancel_new, hookhost_cancel_trigger};
pub use options::{
    Options, hookhost_options_add_env, hookhost_options_free, hookhost_options_new,
    hookhost_options_set_agent, hookhost_options_set_background_limit,
    hookhost_options_set_drain_timeout_ms, hookhost_options_set_forward_stderr,
    hookhost_options_set_shell, hookhost_options_set_state_dir, hookhost_options_set_wasm_cache,
    hookhost_options_set_wasm_instances,
};
pub use runner::{
    Runner, hookhost_runner_close, hookhost_runner_discover, hookhost_runner_fire,
    hookhost_runner_flush, hookhost_runner_free, hookhost_runner_load, hookhost_runner_load_layers,
};

/// The version of this ABI. It grows by one whenever a function's signature or meaning changes
/// in a way a caller built against the previous version would notice; adding a function does
/// not change it. A caller checks `hookhost_abi_version() == HOOKHOST_ABI_VERSION` (the value
/// in the header it was compiled with) before anything else.
pub const HOOKHOST_ABI_VERSION: u32 = 1;

/// The ABI version of this library: compare it with `HOOKHOST_ABI_VERSION` from the header
/// the caller was compiled with. Thread-safe; never fails.
#[unsafe(no_mangle)]
pub extern "C" fn hookhost_abi_version() -> u32 {
    HOOKHOST_ABI_VERSION
}

/// hookhost's version, for messages: a NUL-terminated static string (`"0.1.0"`), owned by the
/// library; never free it. Thread-safe; never fails.
#[unsafe(no_mangle)]
pub extern "C" fn hookhost_version() -> *const std::ffi::c_char {
    static VERSION: &std::ffi::CStr = {
        const TEXT: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
        match std::ffi::CStr::from_bytes_with_nul(TEXT.as_bytes()) {
            Ok(version) => version,
            Err(_) => panic!("the version has no NUL inside"),
        }
    };
    VERSION.as_ptr()
}
