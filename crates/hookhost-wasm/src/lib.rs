//! The wasm runtime: a hook is a WebAssembly component implementing `wit/hookhost.wit`, run
//! by wasmtime in a WASI preview 2 sandbox that grants nothing its hooks.toml entry does not.
//!
//! ```text
//! .wasm ──header check──▶ compile cache (sha256 + engine hash) ──▶ Component
//!       (a core module without WASI is wrapped into a component first: `core_module`)
//!       ──import/export check──▶ instantiate_pre (once, at load)
//! call  ──▶ fresh Store (WASI ctx from grants, memory limiter, fuel, epoch deadline)
//!       ──▶ instance from the pool ──▶ handler export ──▶ Verdict | HookFailure
//! ```
//!
//! A call starts on the calling thread with nothing but hookhost's `host` and `types`
//! (`inline`), and goes on on a fiber that yields to the executor at every epoch tick when the
//! guest calls anything else (WASI, `state`) or runs past `INLINE_BUDGET` (`hook`).
//!
//! Components built against `hookhost:hooks@0.2.0` get every event through `handle`; those
//! built against 0.1.0 (forgeflare's three events) run side by side, translated in `compat`.
//!
//! This crate is hookhost-wasm: above hookhost-core (the runtime seam it plugs into) and
//! hookhost-trust (a bundle's signature is checked before any compile). Embedders reach it as
//! `hookhost::wasm`.

mod bindings;
mod cache;
mod call_state;
mod compat;

mod core_module;
mod denied;
mod engine;
mod fs;
mod handle;
mod hook;
mod info;
mod inline;
mod inspect;
mod limits;
mod load;
mod output;
mod stack;
mod trap;

// What the modules name by their old paths (`crate::event`, `crate::bundle`, ...): the core's
// modules and trust's bundles.
use hookhost_core::{dirs, durable, event, matcher, outcome, runtime, source, text, verdict};
use hookhost_trust::bundle;

pub use cache::{CACHE_KEY_ENV, CacheKeyError, CacheMode, CacheOutcome};
pub use hookhost_core::compiling::{CompileEvent, CompileObserver};
pub use info::{WasmImports, WasmInfo};
// For hookhost's loading layer, which builds wasm hooks: not a stable interface.
#[doc(hidden)]
pub use {cache::CompileCache, engine::WasmEngine, hook::WasmHook, load::HookSite};

/// The wasmtime this runtime is built on, for hookhost's own tests and benchmarks (a component
/// checked in plain wasmtime, the bare-wasmtime floor), so that they need no dependency of
/// their own on it. Not a stable interface.
#[doc(hidden)]
pub mod deps {
    pub use {wasmtime, wasmtime_wasi, wit_component};
}

/// The WIT package and version hook authors build against, e.g. `hookhost:hooks@0.2.0`.
pub fn wit_package() -> String {
    bindings::Interface::V0_2.package()
}

/// Whether a call on the calling thread provides the import `import` (an interface name such as
/// `hookhost:hooks/host@0.2.0`): hookhost's `host` and `types` only. A hook that imports nothing
/// else runs on the calling thread; one that does goes on on a fiber at its first call of it.
pub fn provided_inline(import: &str) -> bool {
    inline::provides(import)
}

/// Every version of the WIT package this hookhost runs, newest first.
pub fn wit_packages() -> Vec<String> {
    bindings::Interface::ALL
        .iter()
        .map(|interface| interface.package())
        .collect()
}
