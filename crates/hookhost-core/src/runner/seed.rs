//! forgeflare's three events with methods of their own ([`Runner::pre_tool_use`],
//! [`Runner::post_tool_use`], [`Runner::stop`]): thin calls of `fire` plus the effects
//! seed 000 gives them (a Stop writes `final` to convergence.json, once per session, R8).

use std::borrow::Cow;

use super::{Runner, blocking};
use crate::convergence::{FinalState, timestamp_now};
use crate::event::{Event, StopReason, ToolCall};
use crate::outcome::Outcome;

impl Runner {
    /// PreToolUse (R4): guards in declaration order until one blocks (fail closed), then every
    /// observer with the guards' outcome (fail open).
    #[inline]
    pub async fn pre_tool_use(&self, call: ToolCall<'_>) -> Outcome {
        if self.inner.load_error.is_none() && !self.any_hooks() {
            return Outcome::named(Cow::Borrowed("PreToolUse"));
        }
        // Boxed, so that the call with no hooks (the common case) does not carry, and copy,
        // the hook path's future.
        Box::pin(self.fire(&Event::pre_tool_use(call))).await
    }

    /// PostToolUse (R7): every hook the call reaches, in declaration order (fail open). The
    /// first signal decides; every signal is appended to convergence.json in one write. The
    /// result is capped for hooks (R3).
    pub async fn post_tool_use(&self, call: ToolCall<'_>, result: &str, is_error: bool) -> Outcome {
        if !self.any_hooks() {
            return Outcome::named(Cow::Borrowed("PostToolUse"));
        }
        Box::pin(self.fire(&Event::post_tool_use(call, result, is_error))).await
    }

    /// Stop (R5, R8): every Stop hook in declaration order (fail open), then `final` in
    /// convergence.json, once per session. A runner without hooks does nothing (R2).
    pub async fn stop(
        &self,
        reason: StopReason,
        tool_iterations: usize,
        total_tokens: u64,
    ) -> Outcome {
        self.stop_with_reason(reason.as_str(), tool_iterations, total_tokens)
            .await
    }

    /// [`Runner::stop`] with the reason as a string, for facades whose callers pass one.
    pub async fn stop_with_reason(
        &self,
        reason: &str,
        tool_iterations: usize,
        total_tokens: u64,
    ) -> Outcome {
        let event = Event::stop_with_reason(reason, tool_iterations, total_tokens);
        self.fire_stop(&event, reason, tool_iterations, total_tokens)
            .await
    }

    /// Fires `event`, a Stop that forgeflare's `reason` names, then writes `final` to
    /// convergence.json (R8), once per session, as [`Runner::stop`] does: the embedder's
    /// way to the same effect with an event of its own (a session id, more fields).
    pub async fn fire_stop(
        &self,
        event: &Event<'_>,
        reason: &str,
        tool_iterations: usize,
        total_tokens: u64,
    ) -> Outcome {
        if !self.any_hooks() {
            return Outcome::named(Cow::Borrowed("Stop"));
        }
        let mut outcome = Box::pin(self.fire(event)).await;
        let final_state = FinalState {
            reason: reason.to_string(),
            tool_iterations,
            total_tokens,
            timestamp: timestamp_now(),
        };
        let store = self.inner.convergence.clone();
        match blocking(move || store.write_final(final_state)).await {
            Ok(Some(warnings)) => {
                outcome.final_written = true;
                outcome.warnings.extend(warnings);
            }
            Ok(None) => {}
            Err(error) => outcome.warnings.push(crate::text::error_chain(&error)),
        }
        outcome
    }
}
