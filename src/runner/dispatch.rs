//! The path of one event through the hooks it reaches: guards, a re-check after rewrites,
//! observers, and the hand-off of async hooks to the background.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Inner, LoadedHook, background};
use crate::config::OnFailure;
use crate::event::{Answers, Event, EventSpec, MatchOn, Phase, ToolCall};
use crate::outcome::{HookReport, Outcome};
use crate::protocol::HookEvent;
use crate::runtime::{EventCache, HookRequest};
use crate::verdict::Verdict;
use crate::verdict::merge::{merge, merge_failure};

/// Runs `event` through `hooks` and merges what they answered.
pub(super) async fn run(
    inner: &Arc<Inner>,
    hooks: &[Arc<LoadedHook>],
    event: &Event<'_>,
) -> Outcome {
    let spec = event.spec();
    let mut outcome = Outcome::new(event.name());
    let subject = event.matcher_subject(spec);
    let tool = event.tool_call().map(|call| call.tool);
    // An event with nothing to match fires every hook it reaches (a matcher on it is ignored,
    // as forgeflare ignores `match_tool` on Stop hooks, and Claude Code a matcher on Stop).
    let matches = |hook: &LoadedHook| match spec.match_on {
        MatchOn::Nothing => true,
        _ => hook.matcher.matches(subject),
    };
    let reached: Vec<&Arc<LoadedHook>> = hooks
        .iter()
        .filter(|hook| hook.events.matches(event.name(), tool) && matches(hook))
        .collect();
    if reached.is_empty() {
        return outcome;
    }

    // Guards, in declaration order. Each sees the input as the guards before it rewrote it.
    let mut input: Option<Value> = None;
    let mut version = 0;
    let mut seen: Vec<(&Arc<LoadedHook>, usize)> = Vec::new();
    let mut cache = EventCache::default();
    for hook in reached
        .iter()
        .copied()
        .filter(|hook| hook.phase == Phase::Guard && !hook.background)
    {
        let view = view_of(inner, event, spec, input.as_ref(), Phase::Guard, None);
        let report = inner.call(hook, view, &cache).await;
        seen.push((hook, version));
        apply(&mut outcome, hook, spec, &report.result, false);
        if let Ok(Verdict {
            updated_input: Some(rewritten),
            ..
        }) = &report.result
        {
            input = Some(rewritten.clone());
            version += 1;
            cache = EventCache::default();
        }
        outcome.reports.push(report);
        if spec.gate && outcome.block().is_some() {
            break;
        }
    }

    // Every guard has approved the input that runs: those that saw an earlier version see the
    // final one again. Only their answer counts this time (a second rewrite is ignored).
    if version > 0 && outcome.block().is_none() {
        let cache = EventCache::default();
        for (hook, _) in seen.iter().filter(|(_, saw)| *saw < version) {
            let view = view_of(inner, event, spec, input.as_ref(), Phase::Guard, None);
            let report = inner.call(hook, view, &cache).await;
            apply(&mut outcome, hook, spec, &report.result, true);
            outcome.reports.push(report);
            if spec.gate && outcome.block().is_some() {
                break;
            }
        }
    }

    // Observers: after the guards, always, with their outcome (R4); their answers are ignored
    // and they fail open.
    let observed = spec.gate.then(|| outcome.decision.clone());
    let cache = EventCache::default();
    for hook in reached
        .iter()
        .filter(|hook| hook.phase == Phase::Observe && !hook.background)
    {
        let view = view_of(
            inner,
            event,
            spec,
            input.as_ref(),
            Phase::Observe,
            observed.as_ref(),
        );
        let report = inner.call(hook, view, &cache).await;
        outcome.reports.push(report);
    }

    // Async hooks: handed to the background; nothing waits for them.
    let mut owned = None;
    for hook in reached.iter().filter(|hook| hook.background) {
        let owned = owned.get_or_insert_with(|| event.to_owned_event());
        let job = background::Job {
            hook: Arc::clone(hook),
            event: owned.clone(),
            input: input.clone(),
            observed: observed.clone(),
        };
        background::submit(inner, job).await;
    }
    outcome
}

/// The event as a hook of `phase` sees it.
pub(super) fn view_of<'a>(
    inner: &'a Inner,
    event: &'a Event<'a>,
    spec: &'static EventSpec,
    input: Option<&'a Value>,
    phase: Phase,
    observed: Option<&'a crate::outcome::Decision>,
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

/// Merges a guard's result: a verdict by the merge rule, a failure by the hook's fail mode.
fn apply(
    outcome: &mut Outcome,
    hook: &LoadedHook,
    spec: &EventSpec,
    result: &Result<Verdict, crate::verdict::HookFailure>,
    answer_only: bool,
) {
    match result {
        Ok(verdict) if answer_only => merge(
            outcome,
            &hook.name,
            &Verdict {
                answer: verdict.answer.clone(),
                ..Verdict::allow()
            },
        ),
        Ok(verdict) => merge(outcome, &hook.name, verdict),
        Err(failure) if fails_closed(hook, spec) => merge_failure(outcome, &hook.name, failure),
        Err(_) => {}
    }
}

/// Whether a guard's failure blocks: `on_failure` when set, else the event's default (R4: a
/// PreToolUse guard fails closed); never on an event that cannot block.
fn fails_closed(hook: &LoadedHook, spec: &EventSpec) -> bool {
    spec.answers.allows(Answers::BLOCK)
        && match hook.on_failure {
            // A guard the user's policy holds back blocks whatever its `on_failure` says.
            _ if hook.runtime.is_held() => true,
            Some(OnFailure::Block) => true,
            Some(OnFailure::Allow) => false,
            None => spec.fail_closed,
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
            (_, result) => result,
        };
        HookReport {
            duration: started.elapsed(),
            result,
            stderr: response.stderr,
            stderr_truncated: response.stderr_truncated,
            ..HookReport::of(hook, view.event.name(), view.phase)
        }
    }
}
