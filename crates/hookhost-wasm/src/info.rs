//! What loading a wasm hook established, for `hookhost check` and the agent that embeds
//! hookhost ([`crate::HookRunner::wasm_hooks`]).

use super::CacheOutcome;

/// What loading a wasm hook established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WasmInfo {
    /// Compiled, or taken from the compile cache.
    pub cache: CacheOutcome,
    /// SHA-256 of the component file, hex.
    pub sha256: String,
    /// The trusted keys whose signatures verified (empty for an unsigned bundle).
    pub signers: Vec<String>,
    /// Instances come from wasmtime's pooling allocator (false: allocated on demand, where
    /// the pool could not reserve its address space).
    pub pooling: bool,
    /// The version of `hookhost:hooks` the component was built against.
    pub interface: String,
    /// What the component imports, and which of it is denied.
    pub imports: WasmImports,
    /// Calls start on the calling thread rather than on a fiber, with nothing but hookhost's
    /// `host` and `types` (see [`super::provided_inline`]). A call that reaches for
    /// anything else (WASI, `state`) or runs 2 ms is stopped and started again on a fiber,
    /// which yields to the executor; from then on this is false and the hook's calls start
    /// there.
    pub inline: bool,
}

/// A wasm hook's imports, for `hookhost check`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WasmImports {
    /// Every interface the component imports (`wasi:io/poll@0.2.9`, `hookhost:hooks/host@0.2.0`).
    pub all: Vec<String>,
    /// Those hookhost links as denied: WASI interfaces it never grants (`wasi:sockets/tcp@0.2.9`,
    /// `wasi:http/types@0.2.10`), whose every call fails with an error naming the function.
    pub denied: Vec<String>,
}
