//! The path of one event through the hooks it reaches: guards, a re-check after rewrites,
//! observers, and the hand-off of async hooks to the background.

use std::sync::Arc;

use serde_json::Value;

use super::call::view_of;
use super::{Inner, LoadedHook, background};
use crate::config::OnFailure;
use crate::event::{Answers, Event, EventSpec, MatchOn, Phase};
use crate::outcome::Outcome;
use crate::outcome::merge::{merge, merge_failure};
use crate::runtime::EventCache;
use crate::verdict::{HookFailure, Verdict};

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

/// Merges a guard's result: a verdict by the merge rule, a failure by the hook's fail mode.
fn apply(
    outcome: &mut Outcome,
    hook: &LoadedHook,
    spec: &EventSpec,
    result: &Result<Verdict, HookFailure>,
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
