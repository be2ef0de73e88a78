//! The wasm runtime: a hook is a WebAssembly component implementing `wit/hookhost.wit`, run
//! by wasmtime in a WASI preview 2 sandbox that grants nothing its hooks.toml entry does not.
//!
//! ```text
//! .wasm ──header check──▶ compile cache (sha256 + engine hash) ──▶ Component
//!       ──import/export check──▶ instantiate_pre (once, at load)
//! call  ──▶ fresh Store (WASI ctx from grants, memory limiter, fuel, epoch deadline)
//!       ──▶ instance from the pool ──▶ handler export ──▶ Verdict | HookFailure
//! ```

mod bindings;
mod cache;
mod engine;
mod fs;
mod hook;
mod inspect;
mod limits;
mod output;
mod store;

pub(crate) use cache::CompileCache;
pub use cache::{CacheMode, CacheOutcome};
pub(crate) use engine::WasmEngine;
pub(crate) use hook::WasmHook;

/// The WIT package and version this hookhost implements, e.g. `hookhost:hooks@0.1.0`.
pub fn wit_package() -> String {
    format!("{}@{}", bindings::PACKAGE, bindings::VERSION)
}
