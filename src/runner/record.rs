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

/// The OpenTelemetry export as the recorder's [`crate::decision::Export`], started on a thread
/// of its own while the runner loads and the first hooks run (its threads and exporters are
/// most of what telemetry costs a short-lived `agent-hook`); the recorder's writer waits for it
/// on its first record. A flush bounded by `exit_timeout_ms` when the recorder goes away.
#[cfg(feature = "telemetry")]
#[derive(Debug)]
pub(super) struct Starting {
    thread: std::sync::Mutex<Option<std::thread::JoinHandle<Started>>>,
    started: std::sync::OnceLock<Started>,
}

#[cfg(feature = "telemetry")]
type Started = Result<crate::telemetry::Telemetry, String>;

#[cfg(feature = "telemetry")]
impl Starting {
    pub(super) fn start(configured: crate::telemetry::Configured) -> Starting {
        let start = |configured: crate::telemetry::Configured| {
            configured
                .start()
                .map_err(|error| crate::text::error_chain(&error))
        };
        let (thread, started) = match std::thread::Builder::new()
            .name("hookhost-otlp-start".into())
            .spawn(move || start(configured))
        {
            Ok(thread) => (Some(thread), std::sync::OnceLock::new()),
            Err(error) => (
                None,
                std::sync::OnceLock::from(Err(format!("cannot start a thread: {error}"))),
            ),
        };
        Starting {
            thread: std::sync::Mutex::new(thread),
            started,
        }
    }

    fn telemetry(&self) -> &Started {
        self.started.get_or_init(|| {
            let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
            match thread.map(std::thread::JoinHandle::join) {
                Some(Ok(started)) => started,
                Some(Err(_)) => Err("its start panicked".to_string()),
                None => Err("it was never started".to_string()),
            }
        })
    }
}

#[cfg(feature = "telemetry")]
impl crate::decision::Export for Starting {
    fn export(&self, records: &[serde_json::Value]) {
        if let Ok(telemetry) = self.telemetry() {
            telemetry.export(records);
        }
    }

    fn count_dropped(&self, records: u64) {
        if let Ok(telemetry) = self.telemetry() {
            telemetry.count_dropped(records);
        }
    }

    fn finish(&self) -> Option<String> {
        match self.telemetry() {
            Ok(telemetry) => telemetry.shutdown(telemetry.exit_timeout()).warning(),
            Err(why) => Some(format!("telemetry is off: {why}")),
        }
    }
}
