//! The path of one event through the hooks it reaches: guards, a re-check after rewrites,
//! observers, and the hand-off of async hooks to the background.

use std::sync::Arc;

use serde_json::Value;

use super::call::view_of;
use super::{Inner, LoadedHook, background, rules};
use crate::config::OnFailure;
use crate::event::{Answers, Event, EventSpec, MatchOn, Phase};
use crate::outcome::merge::{merge, merge_failure};
use crate::outcome::{Block, Decision, Notice, Outcome};
use crate::runtime::EventCache;
use crate::verdict::Mode;
use crate::verdict::{Answer, HookFailure, Verdict};

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
        _ => hook.matcher.matches_on(subject, event.name()),
    };
    // Of the rules, only the one that decides the call is reached.
    let decided = rules::decider(
        hooks,
        &view_of(inner, event, spec, None, Phase::Guard, None),
    );
    let reached: Vec<&Arc<LoadedHook>> = hooks
        .iter()
        .filter(|hook| {
            hook.events.matches(event.name(), tool)
                && matches(hook)
                && rules::reaches(hook, decided)
        })
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
        apply(&mut outcome, hook, spec, &report.result, false);
        // A monitor hook's answer changes nothing: not the input later guards see, and it is
        // not asked again after a rewrite.
        if hook.mode == Mode::Monitor {
            outcome.reports.push(report);
            continue;
        }
        seen.push((hook, version));
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
        // A rule that holds for the rewritten input only: a rewrite never slips past a deny.
        let view = view_of(inner, event, spec, input.as_ref(), Phase::Guard, None);
        let asked: Vec<&Arc<LoadedHook>> = seen.iter().map(|(hook, _)| *hook).collect();
        if outcome.block().is_none()
            && let Some(rule) = rules::after_rewrite(hooks, &view, &asked)
        {
            let report = inner.call(rule, view, &cache).await;
            apply(&mut outcome, rule, spec, &report.result, true);
            outcome.reports.push(report);
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

/// Merges a guard's result: a verdict by the merge rule, a failure by the hook's fail mode;
/// a `monitor` hook's only as what it would have decided, a `warn` hook's blocks and asks as
/// warnings.
fn apply(
    outcome: &mut Outcome,
    hook: &LoadedHook,
    spec: &EventSpec,
    result: &Result<Verdict, HookFailure>,
    answer_only: bool,
) {
    match (hook.mode, result) {
        (Mode::Enforce, _) => {}
        (Mode::Monitor, result) => {
            if let Some(decision) = would_decide(hook, spec, result) {
                outcome.monitored.push(decision);
            }
            return;
        }
        (Mode::Warn, Ok(verdict)) => {
            let mut softened = verdict.clone();
            if let Answer::Block(reason) | Answer::Ask(reason) = &verdict.answer {
                softened.answer = Answer::Warn(format!("would block: {reason}"));
            }
            return apply_enforced(outcome, hook, spec, &Ok(softened), answer_only);
        }
        (Mode::Warn, Err(failure)) => {
            if fails_closed(hook, spec) {
                let warning = Verdict::warn(format!("would block: {}", failure.detailed()));
                merge(outcome, &hook.name, &warning);
            }
            return;
        }
    }
    apply_enforced(outcome, hook, spec, result, answer_only)
}

/// What a `monitor` hook would have decided alone, if anything.
fn would_decide(
    hook: &LoadedHook,
    spec: &EventSpec,
    result: &Result<Verdict, HookFailure>,
) -> Option<Decision> {
    let notice = |reason: &str| Notice {
        by: hook.name.clone(),
        reason: reason.to_string(),
    };
    match result {
        Ok(verdict) => match &verdict.answer {
            Answer::Allow => None,
            Answer::Approve => Some(Decision::Approve(notice(""))),
            Answer::Warn(reason) => Some(Decision::Warn(notice(reason))),
            Answer::Ask(reason) => Some(Decision::Ask(notice(reason))),
            Answer::Block(reason) => {
                Some(Decision::Block(Block::decided(&hook.name, reason.clone())))
            }
        },
        Err(failure) if fails_closed(hook, spec) => {
            Some(Decision::Block(Block::failed(&hook.name, failure.clone())))
        }
        Err(_) => None,
    }
}

/// [`apply`] for a hook whose answers count.
fn apply_enforced(
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
            // A hook the organisation's `managed_only` skips never blocks: it did not run.
            _ if hook.runtime.is_skipped() => false,
            // A guard the user's policy holds back blocks whatever its `on_failure` says.
            _ if hook.runtime.is_held() => true,
            Some(OnFailure::Block) => true,
            Some(OnFailure::Allow) => false,
            None => spec.fail_closed,
        }
}
