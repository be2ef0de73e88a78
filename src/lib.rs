//! hookhost: the hook host an AI coding agent embeds.
//!
//! An agent calls hookhost around every tool call and when a run ends; hookhost runs the
//! hooks the project declared in `hooks.toml` and merges their answers by one contract
//! (forgeflare's "Hook Dispatch Layer", seed 000).
//!
//! ```text
//! hooks.toml ──load──▶ Config ──▶ HookRunner ──event──▶ matching hooks (declaration order)
//!  (config)              │         (runner)              ├─ command runtime: bash -c, JSON on
//!                        │            │                  │  stdin/stdout             (command)
//!                        │            │                  └─ wasm runtime: component, WASI
//!                        │            │                     sandbox, deadline, fuel  (wasm)
//!                        └─ [trust]: signatures and pins checked before any compile (bundle)
//!                                     │
//!                                     └─ verdicts merged (guard short-circuit, observe always,
//!                                        first signal wins)                          (verdict)
//!                                        ──▶ outcome returned                        (outcome)
//!                                        ──▶ effects: convergence.json               (convergence)
//! ```
//!
//! Both runtimes answer one question the same way (the private `runtime` module): "run this
//! hook on this event within this budget, give me a verdict or a failure". Failure kinds are
//! one enum, [`HookFailure`].
//!
//! Two ways in:
//! - the native API: [`HookRunner`] with [`RunnerOptions`], whose loaders return errors and
//!   whose async methods return rich outcomes ([`PreToolOutcome`], [`PostToolOutcome`],
//!   [`StopOutcome`]): the decision, the hook that made it, every hook's time and failure;
//! - [`forgeflare`], the exact surface of forgeflare's own hook module, as a thin facade.
//!
//! An agent loop also gets R6's [`BlockCounters`] and the seven [`StopReason`]s.
//!
//! ```no_run
//! # async fn demo() -> Result<(), hookhost::ConfigError> {
//! use hookhost::{HookRunner, RunnerOptions, ToolCall};
//! let runner = HookRunner::load(".forgeflare/hooks.toml", RunnerOptions::new("."))?;
//! let input = serde_json::json!({ "command": "rm -rf /" });
//! let outcome = runner
//!     .pre_tool_use(ToolCall { tool: "Bash", input: &input, tool_iterations: 1 })
//!     .await;
//! if let hookhost::GuardDecision::Block(block) = &outcome.decision {
//!     println!("{}", block.message()); // "blocked by ...: ..." or "hook failed: ..."
//! }
//! # Ok(()) }
//! ```

pub mod bundle;
pub mod config;
pub mod convergence;
pub mod counters;
pub mod event;
pub mod forgeflare;
pub mod oci;
pub mod outcome;
pub mod verdict;
pub mod wasm;

mod command;
mod runner;
mod runtime;

pub use config::{Config, ConfigError, HookSpec, OnFailure, Role};
pub use counters::{BlockCounters, MAX_CONSECUTIVE_BLOCKS, MAX_TOTAL_BLOCKS};
pub use event::{StopReason, ToolCall};
pub use outcome::{Block, GuardDecision, HookReport, PostToolOutcome, PreToolOutcome, StopOutcome};
pub use runner::{HookRunner, RunnerOptions, WasmInfo};
pub use verdict::{HookFailure, Signal, Verdict};

pub(crate) use runner::error_chain;
