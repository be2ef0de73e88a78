//! The one `bindgen!` site: host-side bindings for `wit/hookhost.wit`.
//!
//! Exports are async so that a guest call runs on a fiber that yields to the executor at every
//! epoch tick: a guest that spins never blocks the agent's runtime. Imports (log, config,
//! state) are plain functions: they never wait on anything.

wasmtime::component::bindgen!({
    world: "hook",
    path: "wit",
    exports: { default: async },
});

/// The WIT package this host implements, without its version.
pub(crate) const PACKAGE: &str = "hookhost:hooks";
/// The version of the WIT package this host implements.
pub(crate) const VERSION: &str = "0.1.0";
/// The interface every hook component exports.
pub(crate) const HANDLER: &str = "handler";
/// The functions of the handler interface.
pub(crate) const HANDLER_FUNCTIONS: [&str; 4] = ["guard", "observe", "post", "stop"];

pub(crate) use self::exports::hookhost::hooks::handler;
pub(crate) use self::hookhost::hooks::{host, state, types};
