//! hookhost-core: what runs an event, and nothing that fetches, verifies or exports.
//!
//! An agent fires an event; a [`Runner`] runs the hooks the event reaches and merges their
//! answers by one rule. This crate is everything that takes, with the seam the runtimes plug
//! into; the crates above it plug in the wasm runtime (`hookhost-wasm`), check where a component
//! comes from (`hookhost-trust`: bundles, signatures, registries), record decisions
//! (`hookhost-log`: the decision log and OpenTelemetry), and turn configuration files into a
//! runner (`hookhost`, the loading layer, which every embedder adds).
//!
//! ```text
//! hooks.toml ──parse──▶ Config                                                (config, source)
//!   Runner::assemble(hooks, runtimes, recorder) ──▶ Runner                            (runner)
//!   fire(Event) ─▶ hooks the event reaches: event pattern + matcher         (event, matcher)
//!                ─▶ HookRequest (runtime) ─┬─ command: bash -c, a protocol per agent
//!                                          │                      (command, protocol, dialect)
//!                                          ├─ native: Rust closures                  (native)
//!                                          └─ plugged: a runtime from above (wasm)
//!                ─▶ answers checked and merged: block > ask > warn > approve > allow
//!                                                                 (verdict, outcome::merge)
//!                ─▶ effects: convergence.json                                  (convergence)
//!                ─▶ a draft of the decision record ─▶ the recorder it was handed (recording)
//! ```
//!
//! Embedders use the `hookhost` crate, which re-exports what is public here under the paths
//! it always had (`hookhost::event`, `hookhost::config`, ...). Modules marked `#[doc(hidden)]`
//! are public for hookhost's own crates only; they are not a stable interface.

// Below everything: events, untrusted text, the user's directories, files written whole, a
// hook's answer, who is reached, a cancellation flag.
#[doc(hidden)]
pub mod cancel;
#[doc(hidden)]
pub mod dirs;
pub mod durable;
pub mod event;
pub mod matcher;
pub mod text;
pub mod verdict;

// Answers merged; each agent's hook JSON; command hooks' protocols; what runs.
pub mod dialect;
pub mod outcome;
#[doc(hidden)]
pub mod protocol;
pub mod source;

// hooks.toml, and the catalogue of policies it may name.
#[cfg(feature = "catalogue")]
pub mod catalogue;
pub mod config;

// The runtimes, behind one seam (`runtime`): command and native are here, wasm plugs in.
#[doc(hidden)]
pub mod command;
#[doc(hidden)]
pub mod native;
#[doc(hidden)]
pub mod runtime;
// Where compiled wasm hooks are cached and who hears of a compile: options of a runner.
#[cfg(feature = "wasm")]
pub mod cache;
#[cfg(feature = "wasm")]
pub mod compiling;

// The runner, and what it records into.
pub mod convergence;
#[doc(hidden)]
pub mod recording;
#[doc(hidden)]
pub mod runner;

pub use config::{Config, ConfigError, HookSpec, Layer, OnFailure};
pub use event::{Event, EventSpec, OwnedEvent, Phase, StopReason, ToolCall};
pub use matcher::{EventPattern, ToolMatcher};
pub use native::{HookInput, NativeHook, NativeHookError, OwnedInput};
pub use outcome::{Block, Decision, HookReport, Notice, Outcome};
pub use protocol::Protocol;
pub use runner::{Flushed, LoadedRule, Runner, RunnerOptions};
pub use verdict::{Answer, HookFailure, Mode, Signal, Verdict};
