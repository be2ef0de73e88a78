//! Recording an outcome: the runner hands each outcome worth recording to the recorder it was
//! handed ([`OutcomeRecorder`]: the decision log, which the loading layer picks from `[log]`
//! and `[telemetry]`), with where every hook came from.

use std::sync::Arc;

use super::Runner;
use super::hook::LoadedHook;
use crate::event::Event;
use crate::outcome::Outcome;
use crate::recording::{OutcomeRecorder, RecordContext};

impl Runner {
    /// Hands the record of `outcome` to the recorder: it may add warnings, or block a gate
    /// event whose record must be written and could not be.
    pub(super) async fn record(
        &self,
        log: &Arc<dyn OutcomeRecorder>,
        hooks: &[Arc<LoadedHook>],
        event: &Event<'_>,
        outcome: &mut Outcome,
        started: std::time::Instant,
    ) {
        let inner = &self.inner;
        let agent = event
            .env()
            .chain(inner.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .find(|(name, _)| *name == "HOOKHOST_AGENT")
            .map(|(_, value)| value);
        let provenance = |index: usize| {
            hooks
                .iter()
                .find(|hook| hook.index == index)
                .map(|hook| hook.provenance.clone())
        };
        let context = RecordContext {
            agent,
            cwd: &inner.cwd,
            hooks: &provenance,
            us: started.elapsed().as_micros() as u64,
        };
        log.record(event, outcome, context).await;
    }
}
