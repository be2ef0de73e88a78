//! What the runner returns for an event: the merged decision, what else the hooks asked of the
//! agent, and a report of every hook that ran.

pub mod merge;

use std::borrow::Cow;
use std::time::Duration;

use serde_json::Value;

use crate::event::{Phase, catalog};
use crate::verdict::Mode;
use crate::verdict::{HookFailure, Signal, Verdict, blocked_message, guard_failed_message};

/// The report of one hook call.
#[derive(Debug, Clone)]
pub struct HookReport {
    /// The hook's name.
    pub name: String,
    /// Its 0-based position among the runner's hooks (configured ones first, then registered).
    pub index: usize,
    /// The event it ran for.
    pub event: String,
    /// Guard or observer.
    pub phase: Phase,
    /// "command", "wasm" or "native"; "held" for a project hook the `[projects]` policy holds
    /// back, [`SKIPPED`] for one the organisation's `managed_only` skips (its `result` is a
    /// [`HookFailure::NotAllowed`] saying why; it never ran and never blocks).
    pub kind: &'static str,
    /// True for an async hook, which ran in the background (its report comes from
    /// [`crate::Runner::flush`]).
    pub background: bool,
    /// Whether its answers were enforced; a `monitor` hook's answer is in `result` as it gave
    /// it, and counted nowhere else.
    pub mode: Mode,
    /// Wall-clock time of the call.
    pub duration: Duration,
    /// Its answer, or how it failed.
    pub result: Result<Verdict, HookFailure>,
    /// What it wrote on stderr (also forwarded live when the runner forwards stderr).
    pub stderr: String,
    /// True when stderr was longer than the cap and was cut.
    pub stderr_truncated: bool,
}

/// The [`HookReport::kind`] of a hook that did not run because the organisation's managed
/// configuration sets `managed_only = true`.
pub const SKIPPED: &str = "skipped";

impl HookReport {
    /// True when the hook did not run because the organisation's `managed_only` skips it.
    pub fn is_skipped(&self) -> bool {
        self.kind == SKIPPED
    }

    /// `PreToolUse/guard`, `PreToolUse/observe`, `PostToolUse`, `Stop`, ...: the event, and the
    /// phase for events whose hooks have phases.
    pub fn label(&self) -> String {
        label(&self.event, self.phase)
    }
}

/// `event/phase` for events whose hooks have phases (gates), else the event.
pub(crate) fn label(event: &str, phase: Phase) -> String {
    if catalog::spec(event).gate {
        format!("{event}/{}", phase.as_str())
    } else {
        event.to_string()
    }
}

/// Who said something, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The hook's name.
    pub by: String,
    /// Its words.
    pub reason: String,
}

/// The merged decision of an event's guards: the strongest answer, by the precedence
/// block > ask > warn > approve > allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// No guard objected (or there was none).
    Allow,
    /// A guard gave explicit permission and none objected.
    Approve(Notice),
    /// Go on; a guard surfaced a reason (every warning is in [`Outcome::notices`]).
    Warn(Notice),
    /// A guard defers to the agent's user.
    Ask(Notice),
    /// A guard blocked, or failed closed.
    Block(Block),
}

impl Decision {
    /// `allow`, `approve`, `warn`, `ask` or `block`.
    pub fn kind(&self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Approve(_) => "approve",
            Decision::Warn(_) => "warn",
            Decision::Ask(_) => "ask",
            Decision::Block(_) => "block",
        }
    }

    pub(crate) fn rank(&self) -> u8 {
        match self {
            Decision::Allow => 0,
            Decision::Approve(_) => 1,
            Decision::Warn(_) => 2,
            Decision::Ask(_) => 3,
            Decision::Block(_) => 4,
        }
    }
}

/// Who blocked, and why.
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
    pub fn decided(hook: &str, reason: String) -> Block {
        Block {
            blocked_by: hook.to_string(),
            reason,
            failure: None,
        }
    }

    /// A guard (or the configuration) failed and the event is blocked by default.
    pub fn failed(hook: &str, failure: HookFailure) -> Block {
        let failure = failure.bounded();
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

/// What the hooks of one event decided and asked for.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The event.
    pub event: Cow<'static, str>,
    /// The guards' merged decision.
    pub decision: Decision,
    /// The tool input as the guards rewrote it (rewrites chain in declaration order); `None`
    /// when no hook rewrote it. Run the tool with this.
    pub updated_input: Option<Value>,
    /// Context for the model, from every hook that gave some, in declaration order.
    pub context: Vec<Notice>,
    /// The first request to end the agent's run.
    pub stop: Option<Notice>,
    /// Every warning and every message for the user, in order.
    pub notices: Vec<Notice>,
    /// Every signal raised, in declaration order (R7: the first decides `signal_break`); each
    /// was recorded in convergence.json.
    pub signals: Vec<Signal>,
    /// What hooks in `monitor` mode would have decided, each alone, in declaration order
    /// (a block, an ask, a warning, an approval; a failure that would have failed closed is a
    /// block): nothing of it was enforced.
    pub monitored: Vec<Decision>,
    /// Every hook that ran in the foreground: guards first, then observers, in declaration order.
    pub reports: Vec<HookReport>,
    /// hookhost's own problems (a convergence.json write, a full background queue); they change
    /// nothing else (R8).
    pub warnings: Vec<String>,
    /// Stop (forgeflare): true when this call wrote `final` to convergence.json; false when the
    /// session already had one (it is written once per session, R8), or the write failed.
    pub final_written: bool,
}

impl Outcome {
    /// An outcome with no hooks run.
    pub fn new(event: &str) -> Outcome {
        Outcome::named(match catalog::builtin(event) {
            Some(spec) => Cow::Borrowed(spec.name),
            None => Cow::Owned(event.to_string()),
        })
    }

    /// [`Outcome::new`] for an event whose name is known: what a call with no hooks returns,
    /// in a few nanoseconds.
    #[inline]
    pub(crate) fn named(event: Cow<'static, str>) -> Outcome {
        Outcome {
            event,
            decision: Decision::Allow,
            updated_input: None,
            context: Vec::new(),
            stop: None,
            notices: Vec::new(),
            signals: Vec::new(),
            monitored: Vec::new(),
            reports: Vec::new(),
            warnings: Vec::new(),
            final_written: false,
        }
    }

    /// True when the agent may go on without asking anyone: allow, approve or warn.
    pub fn is_allowed(&self) -> bool {
        matches!(
            self.decision,
            Decision::Allow | Decision::Approve(_) | Decision::Warn(_)
        )
    }

    /// The block, if the guards blocked.
    pub fn block(&self) -> Option<&Block> {
        match &self.decision {
            Decision::Block(block) => Some(block),
            _ => None,
        }
    }

    /// The first signal: it decides the agent's `signal_break` (R7).
    pub fn signal(&self) -> Option<&Signal> {
        self.signals.first()
    }

    /// All context for the model in one text, hooks' contributions separated by blank lines.
    pub fn context_text(&self) -> Option<String> {
        if self.context.is_empty() {
            return None;
        }
        let parts: Vec<&str> = self.context.iter().map(|c| c.reason.as_str()).collect();
        Some(parts.join("\n\n"))
    }
}
