//! hookhost-log: what was decided, kept and exported.
//!
//! A runner hands each outcome's draft record to the recorder it was given
//! (`hookhost_core::recording`); this crate is that recorder: the decision log of `[log]`
//! (JSON Lines, one writer thread, rotated, file contents dropped and secrets redacted) and, with
//! the `telemetry` feature, the OpenTelemetry export of `[telemetry]` (spans, metrics, log
//! records over OTLP).
//!
//! ```text
//! Outcome ──▶ Draft (recording) ──▶ Recorder's writer thread ──┬─▶ [log] file      (decision)
//!                                                              └─▶ OTLP export    (telemetry)
//! ```
//!
//! Embedders reach this crate as `hookhost::decision` and `hookhost::telemetry`.

pub mod decision;
#[cfg(feature = "telemetry")]
pub mod telemetry;

// What the moved modules name by their old paths (`crate::config`, ...): the core's modules.
use hookhost_core::{config, event, outcome, recording, verdict};
