//! One hook call, as every path of the runner makes it (a guard, an observer, an async hook in
//! the background): the event as the hook's phase sees it, the request its runtime gets, and
//! the report of what happened.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Inner, LoadedHook};
use crate::event::{Event, EventSpec, Phase, ToolCall};
use crate::outcome::{Decision, HookReport};
use crate::runtime::HookEvent;
use crate::runtime::{EventCache, HookRequest};
use crate::verdict::HookFailure;

/// The event as a hook of `phase` sees it.
pub(super) fn view_of<'a>(
    inner: &'a Inner,
    event: &'a Event<'a>,
    spec: &'static EventSpec,
    input: Option<&'a Value>,
    phase: Phase,
    observed: Option<&'a Decision>,
) -> HookEvent<'a> {
    HookEvent {
        event,
        spec,
        call: event.tool_call().map(|call| ToolCall {
            input: input.unwrap_or(call.input),
            ..call
        }),
        phase,
        observed,
        cwd: &inner.cwd,
    }
}

impl Inner {
    /// Calls one hook and reports what happened; a guard's verdict is checked against what the
    /// event allows and bounded.
    pub(super) async fn call(
        &self,
        hook: &LoadedHook,
        view: HookEvent<'_>,
        cache: &EventCache,
    ) -> HookReport {
        let timeout = hook
            .timeout
            .unwrap_or(Duration::from_millis(view.spec.default_timeout_ms));
        let request = HookRequest {
            name: &hook.name,
            view,
            timeout,
            forward_stderr: self.forward_stderr,
            env: &self.env,
            cache,
        };
        let started = Instant::now();
        let response = hook.runtime.call(&request).await;
        let result = match (view.phase, response.result) {
            (Phase::Guard, Ok(verdict)) => verdict.checked(view.spec, view.event.name()),
            // An observer's answer is never merged, but its report reaches the agent.
            (Phase::Observe, Ok(verdict)) => verdict.bounded(),
            (_, Err(failure)) => Err(failure),
        }
        .map_err(HookFailure::bounded);
        HookReport {
            duration: started.elapsed(),
            result,
            stderr: response.stderr,
            stderr_truncated: response.stderr_truncated,
            ..HookReport::of(hook, view.event.name(), view.phase)
        }
    }
}
