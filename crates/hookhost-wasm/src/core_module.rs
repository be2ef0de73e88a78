//! Hooks built without WASI: a core module that carries its `hook` world, wrapped into a
//! component at load.
//!
//! A guard that reads no files, no environment and no clock needs no WASI, and a Rust guest
//! built for `wasm32-unknown-unknown` imports none: its only imports are hookhost's own
//! interfaces, described by the `component-type` custom section wit-bindgen writes into the
//! module. hookhost wraps such a module into a component here, as `wasm-tools component new`
//! does. Without WASI's imports, wasmtime wires nothing at instantiation but those interfaces,
//! which makes every call cheaper (docs/benchmarks.md), and the hook provably sees nothing of
//! the machine whatever its hooks.toml entry grants.
//!
//! The wrapping is deterministic, so the compile cache keys its result by the module's own
//! digest: a module is wrapped only when it is compiled.

/// The component of the core module `module`, or why it cannot be one, in words that say how
/// to build a hook hookhost can run.
pub(crate) fn wrap(module: &[u8]) -> Result<Vec<u8>, String> {
    let mut has_world = false;
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        let invalid = |error: wasmparser::BinaryReaderError| {
            format!("is a core WebAssembly module that does not parse: {error}")
        };
        match payload.map_err(invalid)? {
            wasmparser::Payload::ImportSection(imports) => {
                for import in imports.into_imports() {
                    let import = import.map_err(invalid)?;
                    if import.module.starts_with("wasi_snapshot_preview1")
                        || import.module == "wasi_unstable"
                    {
                        return Err(format!(
                            "is a core WebAssembly module built for WASI preview 1 (it imports \
                             `{}::{}`); hookhost runs WASI preview 2: build the hook for \
                             wasm32-wasip2 (cargo build --target wasm32-wasip2), or for \
                             wasm32-unknown-unknown when it needs no files, environment or clock",
                            crate::text::name(import.module),
                            crate::text::name(import.name)
                        ));
                    }
                }
            }
            wasmparser::Payload::CustomSection(section)
                if section.name().starts_with("component-type") =>
            {
                has_world = true;
            }
            _ => {}
        }
    }
    if !has_world {
        return Err(
            "is a core WebAssembly module without a component world (the `component-type` \
             section wit-bindgen writes), so hookhost cannot tell which interfaces it \
             implements: build the hook with hook-sdk for wasm32-wasip2, or for \
             wasm32-unknown-unknown when it needs no files, environment or clock, or wrap the \
             module with `wasm-tools component new`"
                .to_string(),
        );
    }
    let cannot = |why: String| {
        format!(
            "is a core WebAssembly module that cannot be wrapped into a component: {why}; \
             rebuild it with hook-sdk against wit/hookhost.wit"
        )
    };
    // The module is untrusted input: whatever it holds, the agent gets a load error, never a
    // panic that takes it down.
    let encoded = std::panic::catch_unwind(|| {
        wit_component::ComponentEncoder::default()
            .validate(true)
            .module(module)
            .and_then(|mut encoder| encoder.encode())
    })
    .map_err(|_| cannot("the encoder failed on it".to_string()))?;
    encoded.map_err(|error| cannot(format!("{error:#}")))
}
