//! The decision log as the recorder a runner is handed ([`crate::recording::OutcomeRecorder`]):
//! a draft of each outcome taken on the calling path, the recorder's notices added to it, the
//! draft appended; a log that cannot be written is a warning, or, with `[log] required = true`,
//! a block of the gate event.

use std::sync::Arc;

use super::{Draft, Recorder};
use crate::event::Event;
use crate::outcome::{Block, Decision, Outcome};
use crate::recording::{OutcomeRecorder, RecordContext, Recording};

/// The recorder as a runner is handed it: shared, so that a required write can go to a
/// blocking thread with its own handle.
#[derive(Debug, Clone)]
pub struct SharedRecorder(Arc<Recorder>);

impl SharedRecorder {
    /// `recorder`, shared.
    pub fn new(recorder: Recorder) -> SharedRecorder {
        SharedRecorder(Arc::new(recorder))
    }
}

impl std::ops::Deref for SharedRecorder {
    type Target = Recorder;

    fn deref(&self) -> &Recorder {
        &self.0
    }
}

impl OutcomeRecorder for SharedRecorder {
    fn record<'a>(
        &'a self,
        event: &'a Event<'a>,
        outcome: &'a mut Outcome,
        context: RecordContext<'_>,
    ) -> Recording<'a> {
        // Before the future: the context borrows what must not live across its awaits.
        let draft = Draft::new(event, outcome, &context, &self.masks);
        Box::pin(async move {
            if let Some(notice) = self.take_notice() {
                outcome.warnings.push(notice);
            }
            if let Some((count, why)) = self.take_failures() {
                outcome.warnings.push(format!(
                    "{count} decision record(s) could not be written to {}: {why}",
                    self.describe()
                ));
            }
            let written = if self.required() {
                // A required write waits for the disk: off the async worker threads.
                let writer = Arc::clone(&self.0);
                match tokio::task::spawn_blocking(move || writer.append(draft)).await {
                    Ok(written) => written,
                    Err(join_error) => std::panic::resume_unwind(join_error.into_panic()),
                }
            } else {
                self.append(draft)
            };
            if let Err(error) = written {
                let problem = format!(
                    "the decision log {} could not be written: {error}",
                    self.describe()
                );
                if self.required() && event.spec().gate && outcome.block().is_none() {
                    outcome.decision = Decision::Block(Block::decided(
                        "hookhost's decision log",
                        format!("{problem}; [log] required = true blocks until it can be"),
                    ));
                }
                outcome.warnings.push(problem);
            }
        })
    }
}
