//! The seam between the runner and whatever records what it decided: the runner is handed an
//! [`OutcomeRecorder`] by whoever builds it (the loading layer, from `[log]` and
//! `[telemetry]`) and hands it each outcome worth recording, with where every hook came from
//! ([`Provenance`]). The decision log (`decision::Recorder`) is one; the runner knows no other
//! and no file, thread or exporter behind it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::config::Layer;
use crate::event::Event;
use crate::outcome::Outcome;

/// Where a hook comes from, as a record names it.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    /// The layer its configuration came from (none for an in-process hook).
    pub layer: Option<Layer>,
    /// Its command, its component's path or `oci://` reference, or `native`.
    pub source: String,
    /// The SHA-256 of its component, hex.
    pub sha256: Option<String>,
    /// The trusted keys whose signatures verified.
    pub signers: Vec<String>,
}

/// What a record says besides the event and the outcome.
pub struct RecordContext<'a> {
    /// The agent (`HOOKHOST_AGENT`, or the embedder's name).
    pub agent: Option<&'a str>,
    /// The agent's working directory.
    pub cwd: &'a Arc<str>,
    /// Each hook's provenance, by its index.
    pub hooks: &'a dyn Fn(usize) -> Option<Arc<Provenance>>,
    /// How long the event took, in microseconds.
    pub us: u64,
}

impl std::fmt::Debug for RecordContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordContext")
            .field("agent", &self.agent)
            .field("cwd", &self.cwd)
            .field("us", &self.us)
            .finish_non_exhaustive()
    }
}

/// The record being written, awaited by the runner before it returns the outcome.
pub type Recording<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// What a runner hands each outcome to: a hook reached the event, or something blocked it.
/// The recorder takes what it needs from `event`, `outcome` and `context` before the first
/// await (the context borrows what must not live across it), may add warnings to `outcome`,
/// and may block a gate event whose record could not be written when it must be.
pub trait OutcomeRecorder: Send + Sync + std::fmt::Debug {
    /// Records `outcome` of `event`.
    fn record<'a>(
        &'a self,
        event: &'a Event<'a>,
        outcome: &'a mut Outcome,
        context: RecordContext<'_>,
    ) -> Recording<'a>;
}
