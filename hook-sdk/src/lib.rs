//! Write hookhost hooks in Rust.
//!
//! A hook is a type that implements [`Hook`]: one method per forgeflare event and one for every
//! event, each with a harmless default, so a guard implements only [`Hook::guard`] and a
//! SessionStart hook only [`Hook::handle`]. [`export!`] turns the type into a WebAssembly
//! component for hookhost's `hook` world (`wit/hookhost.wit`, `hookhost:hooks@0.2.0`). Build it
//! with `cargo build --release --target wasm32-wasip2`, and point a hooks.toml entry at the
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
//!         // Any agent's shell tool: Bash, bash, run_shell_command, Shell, ...
//!         match call.shell() {
//!             Some(shell) if shell.command.contains("push --force") => {
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
//! // Gemini CLI's shell tool is held to the same policy.
//! let gemini = ToolCall::new("run_shell_command", serde_json::json!({"command": "git push --force"}));
//! assert!(matches!(NoForcePush::guard(&gemini), Guard::Block(_)));
//! ```
//!
//! What a hook can use:
//! - the event: [`ToolCall`], seen through one vocabulary of tools whatever the agent
//!   ([`ToolCall::kind`]: shell, read, write, edit, search, fetch, mcp, other;
//!   [`ToolCall::shell`], [`ToolCall::paths`], [`ToolCall::contents`], [`ToolCall::urls`],
//!   [`ToolCall::mcp`]), with the agent's own name in [`ToolCall::tool`] and typed views of
//!   Claude Code's tools ([`ToolCall::bash`], [`ToolCall::edit`], ...);
//!   [`ObserveEvent`], [`PostEvent`], [`StopEvent`]; for every other event (SessionStart,
//!   UserPromptSubmit, custom ones) an [`Event`], answered with a [`Verdict`] (allow, approve,
//!   warn, ask, block; a rewritten input, context, stop, a signal, a message);
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

mod alloc;
mod event;
pub mod fs;
pub mod glob;
mod host;
mod lifecycle;
pub mod path;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
mod time;
mod tools;

/// A hook's allocations: size classes with free lists in a static region, the rest from the
/// system allocator (see `alloc.rs`). A hook with its own `#[global_allocator]` turns off the
/// `allocator` feature.
#[cfg(all(
    feature = "allocator",
    target_arch = "wasm32",
    not(target_feature = "atomics")
))]
#[global_allocator]
static ALLOCATOR: alloc::HookAllocator = alloc::HookAllocator::new();

pub use event::{Blocked, Guard, ObserveEvent, Post, PostEvent, StopEvent, StopReason, ToolCall};
pub use hookhost_tools::{McpName, ToolKind, ToolView};
pub use host::{ConfigError, Level, config, config_json, log, state};
pub use lifecycle::{Answer, Event, Observed, Phase, Verdict, dispatch};
pub use time::{format_rfc3339, timestamp};
pub use tools::{BashInput, EditInput, GlobInput, GrepInput, ReadInput, ShellInput};

/// A hook: one method per forgeflare event, and [`Hook::handle`] for every event, each with a
/// default that does nothing harmful (allow, nothing, continue, nothing). hookhost calls
/// `handle` for every event the hook is configured for; its default sends forgeflare's three
/// events to `guard`, `observe`, `post` and `stop`.
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

    /// Every event (SessionStart, UserPromptSubmit, custom ones, and forgeflare's too). Override
    /// it for events other than forgeflare's, or for answers richer than allow/block (ask, warn,
    /// a rewritten input, context); call [`dispatch`] for the events you leave to the methods
    /// above.
    fn handle(event: &Event) -> Verdict {
        dispatch::<Self>(event)
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
                fn handle(event: $crate::__glue::RawEvent) -> $crate::__glue::RawVerdict {
                    $crate::__glue::handle::<$hook>(event)
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
        path: "wit/hookhost.wit",
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
    use crate::{Answer, Event, Hook, Observed, Phase};

    pub use handler::Guest;
    pub type RawEvent = types::Event;
    pub type RawVerdict = types::Verdict;

    pub fn handle<H: Hook>(raw: RawEvent) -> RawVerdict {
        // Without WASI there is no stderr for Rust's panic message: it goes to the host's log,
        // which lands where stderr would (the report's stderr, `[hook NAME] error: ...`).
        #[cfg(not(target_os = "wasi"))]
        std::panic::set_hook(Box::new(|info| crate::log::error(info.to_string())));
        let observed = raw.observed.map(|observed| Observed {
            decision: match observed.decision {
                types::DecisionKind::Allow => "allow",
                types::DecisionKind::Approve => "approve",
                types::DecisionKind::Warn => "warn",
                types::DecisionKind::Ask => "ask",
                types::DecisionKind::Block => "block",
            },
            by: observed.by,
            reason: observed.reason,
        });
        let event = Event::from_parts(
            raw.name,
            match raw.phase {
                types::Phase::Guard => Phase::Guard,
                types::Phase::Observe => Phase::Observe,
            },
            raw.session_id,
            raw.cwd,
            raw.tool
                .map(|tool| (tool.tool, tool.input, tool.tool_iterations)),
            raw.payload,
            observed,
        );
        let verdict = H::handle(&event);
        types::Verdict {
            answer: match verdict.answer {
                Answer::Allow => types::Answer::Allow,
                Answer::Approve => types::Answer::Approve,
                Answer::Warn(reason) => types::Answer::Warn(reason),
                Answer::Ask(reason) => types::Answer::Ask(reason),
                Answer::Block(reason) => types::Answer::Block(reason),
            },
            updated_input: verdict.updated_input.map(|input| input.to_string()),
            context: verdict.context,
            stop: verdict.stop,
            signal: verdict
                .signal
                .map(|(name, reason)| types::Signal { name, reason }),
            message: verdict.message,
        }
    }
}
