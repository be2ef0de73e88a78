//! What the runner returns for each event: the decision, and a report of every hook that ran.

use std::time::Duration;

use crate::config::Role;
use crate::verdict::{HookFailure, Signal, Verdict, blocked_message, guard_failed_message};

/// The report of one hook call.
#[derive(Debug, Clone)]
pub struct HookReport {
    /// The hook's name.
    pub name: String,
    /// Its 0-based position in the configuration.
    pub index: usize,
    /// Its event and phase.
    pub role: Role,
    /// "command" or "wasm".
    pub kind: &'static str,
    /// Wall-clock time of the call.
    pub duration: Duration,
    /// Its answer, or how it failed.
    pub result: Result<Verdict, HookFailure>,
    /// What it wrote on stderr (also forwarded live when the runner forwards stderr).
    pub stderr: String,
    /// True when stderr was longer than the cap and was cut.
    pub stderr_truncated: bool,
}

/// The outcome of PreToolUse: the guards' decision, then the observers' reports.
#[derive(Debug, Clone)]
pub struct PreToolOutcome {
    /// Whether the tool may run.
    pub decision: GuardDecision,
    /// Every hook that ran, guards first, in declaration order.
    pub reports: Vec<HookReport>,
}

impl PreToolOutcome {
    /// True when the tool may run.
    pub fn is_allowed(&self) -> bool {
        matches!(self.decision, GuardDecision::Allow)
    }
}

/// The guard phase's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardDecision {
    /// Every matching guard allowed (or there was none).
    Allow,
    /// A guard blocked or failed closed.
    Block(Block),
}

/// Who blocked a tool, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The name of the hook (or, for a configuration error, the file) that blocked.
    pub blocked_by: String,
    /// The reason as observe hooks see it in `block_reason`: the hook's own reason for a
    /// decision, the whole failure message for a failure.
    pub reason: String,
    /// What failed, when the block is a failure rather than a decision.
    pub failure: Option<HookFailure>,
}

impl Block {
    /// A guard's intentional block.
    pub(crate) fn decided(hook: &str, reason: String) -> Block {
        Block {
            blocked_by: hook.to_string(),
            reason,
            failure: None,
        }
    }

    /// A guard (or the configuration) failed and the tool is blocked by default.
    pub(crate) fn failed(hook: &str, failure: HookFailure) -> Block {
        Block {
            blocked_by: hook.to_string(),
            reason: guard_failed_message(hook, &failure),
            failure: Some(failure),
        }
    }

    /// The message the model sees in its tool result (R4): `blocked by {hook}: {reason}` for
    /// a decision, `hook failed: {hook} ... (tool blocked by default)` for a failure.
    pub fn message(&self) -> String {
        match self.failure {
            None => blocked_message(&self.blocked_by, &self.reason),
            Some(_) => self.reason.clone(),
        }
    }
}

/// The outcome of PostToolUse.
#[derive(Debug, Clone)]
pub struct PostToolOutcome {
    /// The first signal raised: it decides the agent's `signal_break` (R7).
    pub signal: Option<Signal>,
    /// Every signal raised, in declaration order; each was recorded in convergence.json.
    pub signals: Vec<Signal>,
    /// Every hook that ran.
    pub reports: Vec<HookReport>,
    /// Problems writing convergence.json; they change nothing else (R8).
    pub warnings: Vec<String>,
}

/// The outcome of Stop.
#[derive(Debug, Clone)]
pub struct StopOutcome {
    /// Every hook that ran.
    pub reports: Vec<HookReport>,
    /// True when this call wrote `final`; false when the session already had one (it is
    /// written once per session, R8) or the write failed.
    pub final_written: bool,
    /// Problems writing convergence.json.
    pub warnings: Vec<String>,
}
