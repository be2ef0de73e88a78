//! hookhost: the hook host an AI coding agent embeds.
//!
//! An agent fires an event at every point of its lifecycle (a session starts, a prompt comes
//! in, a tool is about to run or ran, the run ends, or any custom event); hookhost runs the
//! hooks that event reaches and merges their answers by one rule.
//!
//! ```text
//! hooks.toml ──load──▶ Config ──layers──▶ HookRunner ◀── register(NativeHook)        (runner)
//!  (config, source)       │                   │
//!                         │                   └─fire(Event)─▶ hooks the event reaches: event
//!                         │                      (event)      pattern + matcher, in
//!                         │                                   declaration order    (matcher)
//!                         │                    HookRequest ──┬─ command: bash -c, a protocol
//!                         │                     (runtime)    │  at the edge (forgeflare,
//!                         │                                  │  claude, copilot, gemini,
//!                         │                                  │  codex, cursor, exit-code)
//!                         │                                  │             (command, protocol)
//!                         │                                  ├─ wasm: component, WASI sandbox,
//!                         │                                  │  deadline, fuel; WIT 0.2, 0.1
//!                         │                                  │                          (wasm)
//!                         │                                  └─ native: Rust closures (native)
//!                         └─ [trust]: pins, and signatures (minisign inside a bundle, cosign
//!                            beside it in a registry, keyless against a Sigstore trusted
//!                            root) checked against keys, identities and rules before any
//!                            compile (bundle); oci:// references through hooks.lock (oci)
//!
//!            guards (a block stops a gate event) ─▶ re-check after rewrites ─▶ observers
//!            ─▶ answers checked and merged: block > ask > warn > approve > allow
//!                                                                 (verdict, outcome::merge)
//!            ─▶ Outcome returned                                                 (outcome)
//!            ─▶ async hooks handed to the background                 (runner::background)
//!            ─▶ effects: convergence.json                                    (convergence)
//!            ─▶ a draft of the decision record ─▶ the recorder's writer thread:
//!               [log] file (decision) and OTLP export (telemetry, [telemetry])
//! ```
//!
//! Events are data: the [`event::catalog`] says, per event, what a matcher compares, which
//! answers a hook may give and how a guard's failure counts; nothing else has a case per
//! event. Every runtime answers one question the same way (the private `runtime` module): "run
//! this hook on this event within this budget, give me a [`Verdict`] or a [`HookFailure`]".
//! What each agent's hook JSON looks like is [`dialect`]; [`agent`] and [`forgeflare`] are
//! adapters at the edge. docs/architecture.md maps every module and which may use which; the
//! tags R1 to R9 in comments are the sections of forgeflare's hook specification
//! (docs/forgeflare.md, "Requirement tags").
//!
//! Leaves on top: [`serve`] (a daemon keeping runners loaded), [`policy_test`] (a test file's
//! cases run through the real hooks: `hookhost test`) and [`embed`] (what every language
//! boundary needs).
//!
//! Three ways in:
//! - the native API: [`HookRunner`] with [`RunnerOptions`]; [`HookRunner::fire`] takes any
//!   [`Event`] and returns an [`Outcome`] (the merged [`Decision`], the rewritten input, context,
//!   stop, signals, and every hook's report); [`HookRunner::register`] adds [`NativeHook`]s;
//! - [`forgeflare`], the exact surface of forgeflare's own hook module, as a thin facade;
//! - [`embed`], for other languages: events and outcomes as JSON, their callbacks as hooks, a
//!   fire cancelled from another thread (the C ABI in `capi/` and the language packages).
//!
//! An agent loop also gets R6's [`BlockCounters`] and the seven [`StopReason`]s.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use hookhost::{Decision, Event, HookRunner, RunnerOptions, ToolCall};
//! let runner = HookRunner::load(".forgeflare/hooks.toml", RunnerOptions::new("."))?;
//! let start = runner.fire(&Event::session_start("startup").with_session("s1")).await;
//! let input = serde_json::json!({ "command": "rm -rf /" });
//! let call = ToolCall { tool: "Bash", input: &input, tool_iterations: 1 };
//! let outcome = runner.fire(&Event::pre_tool_use(call)).await;
//! if let Decision::Block(block) = &outcome.decision {
//!     println!("{}", block.message()); // "blocked by ...: ..." or "hook failed: ..."
//! }
//! # let _ = start;
//! # Ok(()) }
//! ```

// The crates along the seams (docs/architecture.md, "Crates"), bottom up: hookhost-core
// (events, configuration, the runner, command and native runtimes), hookhost-trust (bundles,
// signatures, registries) and hookhost-wasm (the wasm runtime) with the `wasm` feature,
// hookhost-log (the decision log, and OpenTelemetry with `telemetry`). Their modules keep the
// paths embedders know (`hookhost::event`, `hookhost::wasm`, ...); what they keep for
// hookhost's own crates stays private here.
#[cfg(feature = "catalogue")]
pub use hookhost_core::catalogue;
use hookhost_core::{cancel, command, dirs, native, protocol, recording, runtime};
pub use hookhost_core::{
    config, convergence, dialect, durable, event, matcher, outcome, source, text, verdict,
};
pub use hookhost_log::decision;
#[cfg(feature = "telemetry")]
pub use hookhost_log::telemetry;
#[cfg(feature = "wasm")]
pub use hookhost_trust::{bundle, oci};
#[cfg(feature = "wasm")]
pub use hookhost_wasm as wasm;

// What the loading layer reads besides hooks.toml: the user's approvals of projects.
pub mod approvals;
// The runner an embedder holds: the core's runner, built by the loading layer.
mod runner;
// The loading layer: configuration files, approvals, trust and the log's settings in, a
// runner out.
mod load;

// What an agent loop keeps between events (R6), and adapters at the edge.
pub mod agent;
pub mod counters;
pub mod forgeflare;
// Policy tests (`hookhost test`): a leaf over the runner and `agent`.
pub mod policy_test;
// A daemon that keeps runners loaded: a leaf over `agent`. Its wire, and the small client
// binary agents spawn (`hookhost-client`), are the `hookhost-client` crate (std only).
pub mod serve;
// What every language boundary (the C ABI, Go, Python, Node) needs: events and outcomes as
// JSON, foreign callbacks as hooks, cancelling a fire. A leaf over the runner.
pub mod embed;

pub use config::{Config, ConfigError, HookSpec, Layer, OnFailure};
pub use counters::{BlockCounters, MAX_CONSECUTIVE_BLOCKS, MAX_TOTAL_BLOCKS};
pub use event::{Event, EventSpec, OwnedEvent, Phase, StopReason, ToolCall};
pub use load::Layers;
#[cfg(feature = "catalogue")]
pub use load::catalogue::verified_component;
pub use matcher::{EventPattern, ToolMatcher};
pub use native::{HookInput, NativeHook, NativeHookError, OwnedInput};
pub use outcome::{Block, Decision, HookReport, Notice, Outcome};
pub use protocol::Protocol;
pub use runner::{Flushed, HookRunner, LoadedRule, RunnerOptions};
pub use verdict::{Answer, HookFailure, Mode, Signal, Verdict};
#[cfg(feature = "wasm")]
pub use wasm::{WasmImports, WasmInfo};
