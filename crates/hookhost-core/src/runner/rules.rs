//! `[[rules]]` in the runner: each rule a guard of its own (named `rule: TEXT`, kind `rule`),
//! ahead of every configured hook, on PreToolUse. Of them, only the rule that decides the call
//! is reached (deny before ask before allow, the first that holds: `runtime::rules`); its
//! verdict then merges with the hooks' under the one merge rule, a block stopping the guards
//! after it as any guard's does. After a guard's rewrite, the rules are asked again about the
//! input that runs, so that no rewrite slips past a deny.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::Runner;
use super::hook::{LoadedHook, Runtime};
use crate::event::Phase;
use crate::matcher::{EventPattern, ToolMatcher};
use crate::recording::Provenance;
use crate::runtime::HookEvent;
use crate::runtime::rules::{RuleHook, RuleSet};
use crate::verdict::Mode;

/// A rule as the runner is handed it: its name, whether it is enforced, where it was written.
#[derive(Debug)]
pub struct RuleInfo {
    pub name: String,
    pub mode: Mode,
    pub provenance: Provenance,
}

/// A rule the runner holds, as `hookhost check` lists it.
#[derive(Debug, Clone)]
pub struct LoadedRule {
    /// `rule: TEXT`, as reports, tests and the decision log name it.
    pub name: String,
    /// `deny`, `ask` or `allow`.
    pub action: &'static str,
    /// Whether its answers are enforced.
    pub mode: Mode,
    /// Where it was written: `FILE:LINE:COLUMN`.
    pub source: String,
    /// The layer of its file.
    pub layer: Option<crate::config::Layer>,
}

impl Runner {
    /// The `[[rules]]` that count in this session (a project's `allow` rules under a
    /// `[projects]` policy that does not run its hooks, and every layer's but the
    /// organisation's under `managed_only`, do not), in the order they are asked.
    pub fn rules(&self) -> Vec<LoadedRule> {
        self.snapshot()
            .iter()
            .filter_map(|hook| match &hook.runtime {
                Runtime::Rule(rule) => Some(LoadedRule {
                    name: hook.name.clone(),
                    action: rule.set.action(rule.position)?.as_str(),
                    mode: hook.mode,
                    source: hook.provenance.source.clone(),
                    layer: hook.provenance.layer,
                }),
                _ => None,
            })
            .collect()
    }

    /// Puts the rules of `set` (described by `infos`, one per rule, in the set's order) ahead
    /// of every hook. Called once, by the loading layer, before the runner is shared.
    pub fn add_rules(&mut self, set: RuleSet, infos: Vec<RuleInfo>) {
        if infos.is_empty() {
            return;
        }
        debug_assert_eq!(set.len(), infos.len());
        let set = Arc::new(set);
        let inner = &self.inner;
        let mut hooks = inner.hooks.write().unwrap_or_else(|e| e.into_inner());
        let first = hooks
            .iter()
            .map(|hook| hook.index + 1)
            .max()
            .unwrap_or(0)
            .max(inner.configured.len());
        let mut next: Vec<Arc<LoadedHook>> = infos
            .into_iter()
            .enumerate()
            .map(|(position, info)| {
                Arc::new(LoadedHook {
                    name: info.name,
                    index: first + position,
                    events: EventPattern::exact("PreToolUse"),
                    matcher: ToolMatcher::Any,
                    phase: Phase::Guard,
                    timeout: None,
                    on_failure: None,
                    background: false,
                    mode: info.mode,
                    provenance: Arc::new(info.provenance),
                    runtime: Runtime::Rule(RuleHook {
                        set: Arc::clone(&set),
                        position,
                    }),
                })
            })
            .collect();
        next.extend(hooks.iter().cloned());
        *hooks = next.into();
        inner.any_hooks.store(true, Ordering::Release);
    }
}

/// The index of the rule hook among `hooks` that decides the call `view` carries, if any
/// (rules answer PreToolUse only).
pub(super) fn decider(hooks: &[Arc<LoadedHook>], view: &HookEvent<'_>) -> Option<usize> {
    if view.event.name() != "PreToolUse" {
        return None;
    }
    // Every rule hook shares the one set: the first one found asks it.
    let set = hooks.iter().find_map(|hook| match &hook.runtime {
        Runtime::Rule(rule) => Some(&rule.set),
        _ => None,
    })?;
    let (position, _) = set.decide(view)?;
    hooks.iter().find_map(|hook| match &hook.runtime {
        Runtime::Rule(rule) if rule.position == position => Some(hook.index),
        _ => None,
    })
}

/// True for a hook `decided` lets through to the event: every hook but the rules that do not
/// decide it.
pub(super) fn reaches(hook: &LoadedHook, decided: Option<usize>) -> bool {
    !matches!(hook.runtime, Runtime::Rule(_)) || decided == Some(hook.index)
}

/// The rule hook that decides the input that runs after a rewrite, when it is not one of
/// `asked` (those are asked again with the guards).
pub(super) fn after_rewrite<'h>(
    hooks: &'h [Arc<LoadedHook>],
    view: &HookEvent<'_>,
    asked: &[&Arc<LoadedHook>],
) -> Option<&'h Arc<LoadedHook>> {
    let index = decider(hooks, view)?;
    hooks
        .iter()
        .find(|hook| hook.index == index && !asked.iter().any(|seen| seen.index == index))
}
