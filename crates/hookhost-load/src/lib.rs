//! hookhost-load: the loading layer, and the runner an embedder holds.
//!
//! A runner of the core (`hookhost_core::Runner`) runs events through the runtimes and the
//! recorder it is handed, and reads no file. This crate reads them: the configuration layers
//! of a session (the organisation's managed file, the user's, the project's, its local
//! override), the user's approvals of projects, the signature policy of `[trust]` and the
//! `[log]` and `[telemetry]` settings, and builds a [`HookRunner`] from them.
//!
//! ```text
//! Layers::discover ──▶ load: managed ─▶ projects (approvals) ─▶ prepare (command; wasm:
//!                            [trust], hooks.lock, the engine) ─▶ recorder ([log], [telemetry])
//!                  ──▶ Runner::assemble (the core's) ──▶ HookRunner
//! ```
//!
//! - [`runner`]: [`HookRunner`], the core's runner as this layer built it (every method of the
//!   core's runner through `Deref`), and the one table of its constructors;
//! - [`load`]: the constructors that read files, and [`Layers`];
//! - [`approvals`]: what the user approved (`hookhost allow`), read by `[projects]`;
//! - [`forgeflare`]: forgeflare's own hook surface, a facade over the runner, and
//!   [`counters`], what its loop keeps between events (R6).
//!
//! Embedders reach all of it through the `hookhost` crate, at the paths they know
//! (`hookhost::HookRunner`, `hookhost::forgeflare`, `hookhost::approvals`, ...).

pub mod approvals;
pub mod counters;
pub mod forgeflare;
pub mod load;
pub mod runner;

// What the moved modules name by their old paths (`crate::config`, `crate::bundle`, ...): the
// core's modules, trust's, the wasm runtime and the decision log.
#[cfg(any(test, doc))]
use hookhost_core::Config;
#[cfg(feature = "catalogue")]
use hookhost_core::catalogue;
use hookhost_core::{
    Protocol, StopReason, ToolCall, command, config, dialect, dirs, event, outcome, recording,
    runtime, source, text, verdict,
};
use hookhost_log::decision;
#[cfg(feature = "telemetry")]
use hookhost_log::telemetry;
#[cfg(feature = "wasm")]
use hookhost_trust::{bundle, oci};
#[cfg(feature = "wasm")]
use hookhost_wasm as wasm;

pub use counters::{BlockCounters, MAX_CONSECUTIVE_BLOCKS, MAX_TOTAL_BLOCKS};
pub use load::Layers;
pub use runner::{Flushed, HookRunner, LoadedRule, RunnerOptions};
