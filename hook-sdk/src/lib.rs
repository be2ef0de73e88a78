//! Write hookhost hooks in Rust.
//!
//! A hook is a type that implements [`Hook`]: one method per event, each with a harmless
//! default, so a guard implements only [`Hook::guard`]. [`export!`] turns the type into a
//! WebAssembly component for hookhost's `hook` world (`wit/hookhost.wit`). Build it with
//! `cargo build --release --target wasm32-wasip2`, and point a hooks.toml entry at the
//! `.wasm`.
//!
//! ```
//! use hook_sdk::{Guard, Hook, ToolCall};
//!
//! /// Blocks force pushes.
//! pub struct NoForcePush;
//!
//! impl Hook for NoForcePush {
//!     fn guard(call: &ToolCall) -> Guard {
//!         match call.bash() {
//!             Some(bash) if bash.command.contains("push --force") => {
//!                 Guard::block("force pushes rewrite shared history")
//!             }
//!             _ => Guard::Allow,
//!         }
//!     }
//! }
//!
//! hook_sdk::export!(NoForcePush);
//!
//! // The same logic runs natively, so it is unit-testable with plain `cargo test`:
//! assert!(matches!(NoForcePush::guard(&ToolCall::bash_command("git push --force")), Guard::Block(_)));
//! assert_eq!(NoForcePush::guard(&ToolCall::bash_command("git push")), Guard::Allow);
//! ```
//!
//! What a hook can use:
//! - the event: [`ToolCall`] (with typed views: [`ToolCall::bash`], [`ToolCall::edit`], ...),
//!   [`ObserveEvent`], [`PostEvent`], [`StopEvent`];
//! - its configuration, the `[hooks.config]` table, deserialized into your own type:
//!   [`config`];
//! - logging, shown on the agent's stderr under the hook's name: [`log`];
//! - [`state`] that outlives a call (every call runs in a fresh instance);
//! - the helpers policies keep rewriting: [`path::normalize`] against the workspace root, and
//!   [`glob::Glob`] for allowlists, [`timestamp`] and [`fs::append`] for audit trails.
//!
//! Everything else a hook reads (files, environment variables) exists only if its hooks.toml
//! entry grants it (`read`, `write`, `env`).

#![deny(missing_docs)]

mod event;
pub mod fs;
pub mod glob;
mod host;
pub mod path;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
mod time;
mod tools;

pub use event::{Blocked, Guard, ObserveEvent, Post, PostEvent, StopEvent, StopReason, ToolCall};
pub use host::{ConfigError, Level, config, config_json, log, state};
pub use time::{format_rfc3339, timestamp};
pub use tools::{BashInput, EditInput, GlobInput, GrepInput, ReadInput};

/// A hook: one method per event, each with a default that does nothing harmful (allow,
/// nothing, continue, nothing). hookhost calls only the method of the event (and phase) the
/// hook is configured for.
///
/// The methods take no `self`: every call runs in a fresh instance, so there is nothing to
/// keep in one. Use [`state`] for memory across calls.
pub trait Hook {
    /// PreToolUse, guard phase: allow or block the call. A panic blocks it too (fail closed).
    fn guard(call: &ToolCall) -> Guard {
        let _ = call;
        Guard::Allow
    }

    /// PreToolUse, observe phase: runs after the guards, always; for audit trails.
    fn observe(event: &ObserveEvent) {
        let _ = event;
    }

    /// PostToolUse: look at a result; optionally signal (for example, convergence).
    fn post(event: &PostEvent) -> Post {
        let _ = event;
        Post::Continue
    }

    /// Stop: the agent's run ended.
    fn stop(event: &StopEvent) {
        let _ = event;
    }
}

/// Makes a [`Hook`] the component's implementation of hookhost's `hook` world. Use it once,
/// in the crate that builds the `.wasm` (a `cdylib`). On other targets it only checks that
/// the type implements [`Hook`].
#[macro_export]
macro_rules! export {
    ($hook:ty) => {
        const _: () = {
            fn __assert_hook<H: $crate::Hook>() {}
            let _ = __assert_hook::<$hook>;
        };
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            struct __HookSdkExport;
            impl $crate::__glue::Guest for __HookSdkExport {
                fn guard(call: $crate::__glue::RawToolCall) -> $crate::__glue::RawGuardVerdict {
                    $crate::__glue::guard::<$hook>(call)
                }
                fn observe(event: $crate::__glue::RawObserveEvent) {
                    $crate::__glue::observe::<$hook>(event)
                }
                fn post(event: $crate::__glue::RawPostEvent) -> $crate::__glue::RawPostVerdict {
                    $crate::__glue::post::<$hook>(event)
                }
                fn stop(event: $crate::__glue::RawStopEvent) {
                    $crate::__glue::stop::<$hook>(event)
                }
            }
            $crate::__bindings::__export_hook_world!(__HookSdkExport with_types_in $crate::__bindings);
        };
    };
}

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod __bindings {
    wit_bindgen::generate!({
        world: "hook",
        path: "../wit",
        pub_export_macro: true,
        export_macro_name: "__export_hook_world",
        default_bindings_module: "hook_sdk::__bindings",
    });
}

/// Conversions between the generated bindings and the SDK's types; used by [`export!`].
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod __glue {
    use crate::__bindings::exports::hookhost::hooks::handler;
    use crate::__bindings::hookhost::hooks::types;
    use crate::{
        Blocked, Guard, Hook, ObserveEvent, Post, PostEvent, StopEvent, StopReason, ToolCall,
    };

    pub use handler::Guest;
    pub type RawToolCall = types::ToolCall;
    pub type RawGuardVerdict = types::GuardVerdict;
    pub type RawObserveEvent = types::ObserveEvent;
    pub type RawPostEvent = types::PostEvent;
    pub type RawPostVerdict = types::PostVerdict;
    pub type RawStopEvent = types::StopEvent;

    fn call(raw: RawToolCall) -> ToolCall {
        ToolCall {
            input: serde_json::from_str(&raw.input).unwrap_or(serde_json::Value::String(raw.input)),
            tool: raw.tool,
            tool_iterations: raw.tool_iterations,
            cwd: raw.cwd,
        }
    }

    pub fn guard<H: Hook>(raw: RawToolCall) -> RawGuardVerdict {
        match H::guard(&call(raw)) {
            Guard::Allow => types::GuardVerdict::Allow,
            Guard::Block(reason) => types::GuardVerdict::Block(reason),
        }
    }

    pub fn observe<H: Hook>(raw: RawObserveEvent) {
        let blocked = match (raw.blocked, raw.blocked_by, raw.block_reason) {
            (true, by, reason) => Some(Blocked {
                by: by.unwrap_or_default(),
                reason: reason.unwrap_or_default(),
            }),
            (false, _, _) => None,
        };
        H::observe(&ObserveEvent {
            call: call(raw.call),
            blocked,
        });
    }

    pub fn post<H: Hook>(raw: RawPostEvent) -> RawPostVerdict {
        let event = PostEvent {
            call: call(raw.call),
            result: raw.result,
            is_error: raw.is_error,
        };
        match H::post(&event) {
            Post::Continue => types::PostVerdict::Continue,
            Post::Signal { name, reason } => {
                types::PostVerdict::Signal(types::Signal { name, reason })
            }
        }
    }

    pub fn stop<H: Hook>(raw: RawStopEvent) {
        let reason = match raw.reason {
            types::StopReason::EndTurn => StopReason::EndTurn,
            types::StopReason::IterationLimit => StopReason::IterationLimit,
            types::StopReason::ApiError => StopReason::ApiError,
            types::StopReason::ContinuationCap => StopReason::ContinuationCap,
            types::StopReason::BlockLimitConsecutive => StopReason::BlockLimitConsecutive,
            types::StopReason::BlockLimitTotal => StopReason::BlockLimitTotal,
            types::StopReason::ConvergenceSignal => StopReason::ConvergenceSignal,
        };
        H::stop(&StopEvent {
            reason,
            tool_iterations: raw.tool_iterations,
            total_tokens: raw.total_tokens,
            cwd: raw.cwd,
        });
    }
}
