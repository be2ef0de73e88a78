//! The rules runtime: `[[rules]]` evaluated as built-in hooks (kind `rule`). Every rule of
//! every layer is one [`RuleSet`], asked once per tool call (deny, then ask, then allow; the
//! first rule that holds decides: Claude Code's precedence). Each rule is a hook of its own
//! ([`RuleHook`], named `rule: TEXT`), so that the one that decides is reported, merged and
//! recorded like any guard; a rule that does not decide does not run.
//!
//! The tools are seen through `hookhost-tools` (inside `hookhost-rules`): a `Bash(...)` rule
//! holds for every agent's shell.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookhost_rules::{Action, Call, Rules};

use super::{HookEvent, HookRequest, HookResponse};
use crate::verdict::Verdict;

/// Every rule of a runner, in layer and declaration order.
#[derive(Debug)]
pub struct RuleSet {
    rules: Rules,
    home: Option<PathBuf>,
}

impl RuleSet {
    /// `rules`, matched with `home` for `~/` patterns.
    pub fn new(rules: Rules, home: Option<PathBuf>) -> RuleSet {
        RuleSet { rules, home }
    }

    /// How many rules.
    pub(crate) fn len(&self) -> usize {
        self.rules.len()
    }

    /// What the rule at `position` does when it holds.
    pub(crate) fn action(&self, position: usize) -> Option<Action> {
        self.rules.iter().nth(position).map(|(action, _, _)| action)
    }

    /// The rule that decides the tool call `view` carries, by its position in the set, with
    /// its verdict; `None` without a call or when no rule holds.
    pub(crate) fn decide(&self, view: &HookEvent<'_>) -> Option<(usize, Verdict)> {
        let call = view.call?;
        let cwd = absolute(Path::new(view.cwd));
        let verdict = self.rules.evaluate(&Call {
            tool: call.tool,
            input: call.input,
            kind: None,
            cwd: &cwd,
            home: self.home.as_deref(),
        })?;
        let position = self
            .rules
            .iter()
            .position(|(_, rule, _)| std::ptr::eq(rule, verdict.rule))?;
        let answer = match verdict.action {
            Action::Deny => Verdict::block(verdict.reason),
            Action::Ask => Verdict::ask(verdict.reason),
            Action::Allow => Verdict::approve(),
        };
        Some((position, answer))
    }
}

/// One rule as a hook: it answers when it is the rule that decides, and allows otherwise (a
/// rule asked again after a guard's rewrite that no longer decides has no objection).
#[derive(Debug, Clone)]
pub struct RuleHook {
    pub(crate) set: Arc<RuleSet>,
    pub(crate) position: usize,
}

impl RuleHook {
    /// Answers `request`.
    pub(crate) fn call(&self, request: &HookRequest<'_>) -> HookResponse {
        let verdict = match self.set.decide(&request.view) {
            Some((position, verdict)) if position == self.position => verdict,
            _ => Verdict::allow(),
        };
        HookResponse {
            result: Ok(verdict),
            stderr: String::new(),
            stderr_truncated: false,
        }
    }
}

/// `path` made absolute against the process's directory (a runner's cwd may be relative).
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
