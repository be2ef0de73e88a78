//! A failed call, named the way a user reads it ("timed out after 50ms", "ran out of fuel"),
//! never as a raw backtrace.

use wasmtime::Trap;

use crate::verdict::HookFailure;

/// Names a failed call the way a user reads it, never as a raw backtrace.
pub(super) fn classify(
    error: &wasmtime::Error,
    memory_denied: bool,
    timeout_ms: u64,
    max_memory_bytes: usize,
) -> HookFailure {
    if let Some(failure) = super::limits::failure(error) {
        return failure;
    }
    let limit_mb = (max_memory_bytes >> 20) as u64;
    match error.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => HookFailure::TimedOut { timeout_ms },
        Some(Trap::OutOfFuel) => HookFailure::OutOfFuel,
        // A refused memory.grow surfaces as whatever the guest does next (Rust aborts).
        Some(_) | None if memory_denied => HookFailure::MemoryLimit { limit_mb },
        Some(trap) => {
            let message = trap.to_string();
            let message = message
                .strip_prefix("wasm trap: ")
                .unwrap_or(&message)
                .to_string();
            HookFailure::Trapped { message }
        }
        None => match error.downcast_ref::<wasmtime_wasi::I32Exit>() {
            Some(exit) if exit.0 != 0 => HookFailure::Exited { code: exit.0 },
            Some(_) => HookFailure::InvalidVerdict {
                detail: "the hook called exit(0) instead of returning a verdict".to_string(),
            },
            None => HookFailure::Trapped {
                message: root_cause(error),
            },
        },
    }
}

/// The innermost message of a wasmtime error (its `Display` is often only a backtrace).
pub(super) fn root_cause(error: &wasmtime::Error) -> String {
    error.root_cause().to_string()
}
