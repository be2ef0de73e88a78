//! What a call's first attempt on the calling thread may reach (see `WasmHook::run_inline`).
//!
//! On the calling thread a guest cannot yield: a WASI call that blocks (a sleep, a read) would
//! hold the agent's executor. So the attempt gets hookhost's `host` and `types` and nothing
//! else: every other import (WASI, `state`) is linked as a function that stops the attempt
//! before it does anything, and the call starts again on a fiber with the real ones. The
//! abandoned attempt can have computed and logged, never written a file or a state key, so
//! starting again repeats nothing. Most Rust guards import WASI only for their panic path and
//! never call it: their calls finish on the calling thread.

use wasmtime::Engine;
use wasmtime::component::{Component, HasSelf, Linker};

use super::bindings::v0_2;
use super::call_state::CallState;
use super::{denied, inspect};

/// The guest called an import the calling thread does not provide: the attempt stops, and the
/// call starts again on a fiber.
#[derive(Debug, thiserror::Error)]
#[error("called `{function}`, which runs on a fiber only")]
pub(crate) struct NeedsFiber {
    function: String,
}

/// Whether `import` is one the calling thread provides: hookhost's `host` or `types`, which
/// never block and keep nothing (only 0.2.0 components run there).
pub(crate) fn provides(import: &str) -> bool {
    matches!(inspect::own_interface(import), Some(("host" | "types", _)))
}

/// The type of every resource an import defines on the calling thread: none ever exists, the
/// functions that would create one stop the attempt.
struct FiberOnlyResource;

/// The linker for `component`'s attempts on the calling thread: hookhost's `host` and `types`,
/// and every other import as a function that raises [`NeedsFiber`].
pub(crate) fn linker(
    engine: &Engine,
    component: &Component,
) -> wasmtime::Result<Linker<CallState>> {
    let mut linker = Linker::<CallState>::new(engine);
    v0_2::host::add_to_linker::<CallState, HasSelf<CallState>>(&mut linker, |t| t)?;
    v0_2::types::add_to_linker::<CallState, HasSelf<CallState>>(&mut linker, |t| t)?;
    denied::define_stubs::<FiberOnlyResource>(
        &mut linker,
        engine,
        component,
        |import| !provides(import),
        |function, _| {
            Box::new(move |_, _, _, _| {
                Err(NeedsFiber {
                    function: function.clone(),
                }
                .into())
            })
        },
    )?;
    Ok(linker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calling_thread_provides_hookhost_host_and_types_only() {
        assert!(provides("hookhost:hooks/types@0.2.0"));
        assert!(provides("hookhost:hooks/host@0.2.0"));
        // A state write would be made twice by an abandoned attempt; a WASI call may block.
        assert!(!provides("hookhost:hooks/state@0.2.0"));
        assert!(!provides("wasi:io/poll@0.2.9"));
        assert!(!provides("hookhost:hooks/hostile@0.2.0"));
        assert!(!provides("other:hooks/host@0.2.0"));
    }
}
