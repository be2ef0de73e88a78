//! The `bindgen!` sites: host-side bindings for both versions of `hookhost:hooks` that
//! hookhost runs side by side. 0.2.0 (`wit/hookhost.wit`) is the current one; 0.1.0
//! (`wit/v0.1.0/hookhost.wit`, forgeflare's three events) is translated to it in
//! `wasm::compat`.
//!
//! Exports are async so that a guest call runs on a fiber that yields to the executor at every
//! epoch tick: a guest that spins never blocks the agent's runtime. Imports (log, config,
//! state) are plain functions: they never wait on anything.

/// `hookhost:hooks@0.2.0`.
pub(crate) mod v0_2 {
    wasmtime::component::bindgen!({
        world: "hook",
        path: "../../wit/hookhost.wit",
        exports: { default: async },
    });

    // `handle` is called through a `TypedFunc` of its own (see `wasm::hook::HandlePre`).
    pub(crate) use self::hookhost::hooks::{host, state, types};
}

/// `hookhost:hooks@0.1.0`.
pub(crate) mod v0_1 {
    wasmtime::component::bindgen!({
        world: "hook",
        path: "../../wit/v0.1.0/hookhost.wit",
        exports: { default: async },
    });

    pub(crate) use self::exports::hookhost::hooks::handler;
    pub(crate) use self::hookhost::hooks::{host, state, types};
}

/// The WIT package this host implements, without its version.
pub(crate) const PACKAGE: &str = "hookhost:hooks";
/// The interface every hook component exports.
pub(crate) const HANDLER: &str = "handler";

/// A version of the WIT package that hookhost runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interface {
    /// `handle` for every event.
    V0_2,
    /// `guard`, `observe`, `post`, `stop` for forgeflare's three events.
    V0_1,
}

impl Interface {
    /// Newest first.
    pub(crate) const ALL: [Interface; 2] = [Interface::V0_2, Interface::V0_1];

    pub(crate) fn version(self) -> &'static str {
        match self {
            Interface::V0_2 => "0.2.0",
            Interface::V0_1 => "0.1.0",
        }
    }

    /// The functions of its `handler` interface.
    pub(crate) fn functions(self) -> &'static [&'static str] {
        match self {
            Interface::V0_2 => &["handle"],
            Interface::V0_1 => &["guard", "observe", "post", "stop"],
        }
    }

    /// `hookhost:hooks@0.2.0`.
    pub(crate) fn package(self) -> String {
        format!("{PACKAGE}@{}", self.version())
    }
}
