//! Cancelling a fire in flight, and the whole JSON round trip an embedder makes per event.
//!
//! What dropping [`HookRunner::fire`](hookhost_core::Runner::fire)'s future stops, hook by hook (each checked by a test in
//! tests/integration/embed.rs):
//! - a command hook: its whole process session is killed (SIGKILL) at once, and reaped in the
//!   background; nothing it started stays, unless it left its session on purpose (`setsid`);
//! - a wasm hook: its instance is dropped at its next epoch tick, where it was suspended (a
//!   call on the calling thread first runs at most 2 ms before moving to a fiber), and its slot
//!   in the instance pool is free again;
//! - an async Rust closure (`NativeHook::new_async`): its task is aborted;
//! - a foreign callback: its [`CancelToken`] is cancelled, and its answer, if it comes, is
//!   discarded (a callback in another language cannot be stopped from outside: it should poll
//!   the token);
//! - a sync Rust closure runs to its end first (it cannot be interrupted);
//! - async hooks (`async = true`) already handed to the background go on: they are observers
//!   that nothing waits for, and [`HookRunner::flush`](hookhost_core::Runner::flush) (or `SessionEnd`) collects them.
//!
//! [`fire_cancellable`] drops the fire for the embedder when its token is cancelled, from any
//! thread, and says so with [`Cancelled`]: never an outcome that looks like an allow.

use std::str::FromStr as _;

use super::event::{EventJson, EventJsonError};
use super::outcome::outcome_json;
use crate::cancel::CancelToken;
use crate::event::{Event, StopReason};
use crate::outcome::Outcome;
use crate::runner::HookRunner;

/// A fire was cancelled before its hooks answered: there is no decision.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {event} fire was cancelled before its hooks answered: there is no decision (do not act as if the hooks had allowed it)"
)]
pub struct Cancelled {
    /// The event that was fired.
    pub event: String,
}

/// Why [`fire_json`] gave no outcome.
#[derive(Debug, thiserror::Error)]
pub enum FireError {
    /// The event's JSON was refused.
    #[error(transparent)]
    Event(#[from] EventJsonError),
    /// The fire was cancelled.
    #[error(transparent)]
    Cancelled(#[from] Cancelled),
}

/// Fires `event` unless `cancel` is cancelled first: then the fire is dropped (see the module
/// documentation for what that stops) and the result is [`Cancelled`].
///
/// A Stop with forgeflare's `reason` (one of the seven [`StopReason`]s) also writes `final` to
/// convergence.json, once per session, as [`HookRunner::stop`](hookhost_core::Runner::stop) does.
pub async fn fire_cancellable(
    runner: &HookRunner,
    event: &Event<'_>,
    cancel: &CancelToken,
) -> Result<Outcome, Cancelled> {
    let cancelled = || Cancelled {
        event: event.name().to_string(),
    };
    if cancel.is_cancelled() {
        return Err(cancelled());
    }
    tokio::select! {
        biased;
        outcome = fire(runner, event) => Ok(outcome),
        () = cancel.cancelled() => Err(cancelled()),
    }
}

/// Fires `event`; a forgeflare Stop writes `final` as [`HookRunner::stop`](hookhost_core::Runner::stop) does.
async fn fire(runner: &HookRunner, event: &Event<'_>) -> Outcome {
    let forgeflare_stop = (event.name() == "Stop")
        .then(|| event.field("reason")?.as_str())
        .flatten()
        .and_then(|reason| StopReason::from_str(reason).ok());
    match forgeflare_stop {
        Some(reason) => {
            let count = |name: &str| event.field(name).and_then(|v| v.as_u64()).unwrap_or(0);
            let tool_iterations = usize::try_from(count("tool_iterations")).unwrap_or(usize::MAX);
            runner
                .fire_stop(
                    event,
                    reason.as_str(),
                    tool_iterations,
                    count("total_tokens"),
                )
                .await
        }
        None => runner.fire(event).await,
    }
}

/// The round trip of one event at a language boundary: the event's JSON in (checked against
/// the runner's `cwd`), fired (cancellable when `cancel` is given), the outcome's JSON out.
pub async fn fire_json(
    runner: &HookRunner,
    event_json: &[u8],
    cancel: Option<&CancelToken>,
) -> Result<Vec<u8>, FireError> {
    let parsed = EventJson::parse(event_json)?;
    parsed.check_cwd(runner.cwd())?;
    let event = parsed.event();
    let outcome = match cancel {
        Some(cancel) => fire_cancellable(runner, &event, cancel).await?,
        None => fire(runner, &event).await,
    };
    Ok(outcome_json(&outcome))
}
