//! Recording an outcome: its draft taken on the calling path and handed to the recorder
//! (`[log]`, `[telemetry]`); a log that cannot be written is a warning, or, when it is
//! required, a block.

use std::sync::Arc;

use super::hook::LoadedHook;
use super::{HookRunner, blocking};
use crate::event::Event;
use crate::outcome::{Block, Decision, Outcome};

impl HookRunner {
    /// Appends the record of `outcome` to the decision log. A log that cannot be written is a
    /// warning; with `required = true`, it also blocks a gate event (fail closed).
    pub(super) async fn record(
        &self,
        log: &Arc<crate::decision::Recorder>,
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
        // In a block: the context borrows what must not live across the await below.
        let draft = {
            let provenance = |index: usize| {
                hooks
                    .iter()
                    .find(|hook| hook.index == index)
                    .map(|hook| hook.provenance.clone())
            };
            let context = crate::decision::Context {
                agent,
                cwd: &inner.cwd,
                hooks: &provenance,
                us: started.elapsed().as_micros() as u64,
            };
            crate::decision::Draft::new(event, outcome, &context, &log.masks)
        };
        if let Some(notice) = log.take_notice() {
            outcome.warnings.push(notice);
        }
        if let Some((count, why)) = log.take_failures() {
            outcome.warnings.push(format!(
                "{count} decision record(s) could not be written to {}: {why}",
                log.describe()
            ));
        }
        let written = if log.required() {
            let writer = log.clone();
            blocking(move || writer.append(draft)).await
        } else {
            log.append(draft)
        };
        if let Err(error) = written {
            let problem = format!(
                "the decision log {} could not be written: {error}",
                log.describe()
            );
            if log.required() && event.spec().gate && outcome.block().is_none() {
                outcome.decision = Decision::Block(Block::decided(
                    "hookhost's decision log",
                    format!("{problem}; [log] required = true blocks until it can be"),
                ));
            }
            outcome.warnings.push(problem);
        }
    }
}

/// The OpenTelemetry export as the recorder's [`crate::decision::Export`]: records from the
/// writer thread, and a flush bounded by `exit_timeout_ms` when the recorder goes away.
#[cfg(feature = "telemetry")]
impl crate::decision::Export for crate::telemetry::Telemetry {
    fn export(&self, records: &[serde_json::Value]) {
        crate::telemetry::Telemetry::export(self, records);
    }

    fn count_dropped(&self, records: u64) {
        crate::telemetry::Telemetry::count_dropped(self, records);
    }

    fn finish(&self) -> Option<String> {
        self.shutdown(self.exit_timeout()).warning()
    }
}
