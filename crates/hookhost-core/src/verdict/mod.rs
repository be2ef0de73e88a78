//! What a hook answers, how a hook fails, and the messages an agent shows for both.
//!
//! Every runtime (command, wasm, in-process) and every protocol (forgeflare's JSON, Claude
//! Code's, exit codes, WIT records) produces the same [`Verdict`] or the same
//! [`HookFailure`], so the runner checks, bounds and merges answers without knowing which kind
//! of hook gave them. The merge rule lives in `outcome::merge`.

mod failure;
mod limits;

use std::fmt;

use serde::Deserialize;
use serde_json::Value;

use crate::event::{Answers, EventSpec};

pub use failure::{HookFailure, blocked_message, guard_failed_message};
pub use limits::cut;
pub use limits::{
    CONTEXT_MAX_BYTES, REASON_MAX_BYTES, SIGNAL_NAME_MAX_BYTES, UPDATED_INPUT_MAX_BYTES,
};

/// One hook's decision about an event, from "no objection" to "stop it".
///
/// Several hooks' answers merge by precedence: block beats ask beats warn beats approve beats
/// allow (`outcome::merge`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Answer {
    /// No objection.
    #[default]
    Allow,
    /// Explicit permission: an agent with permission prompts may skip its prompt (Claude Code's
    /// `permissionDecision: "allow"`).
    Approve,
    /// Go on, and surface the reason to the agent and the log.
    Warn(String),
    /// Defer to the agent's user, with the reason.
    Ask(String),
    /// Stop what the event is about (what that means is in the event catalog), with the reason.
    Block(String),
}

impl Answer {
    /// `allow`, `approve`, `warn`, `ask` or `block`.
    pub fn kind(&self) -> &'static str {
        match self {
            Answer::Allow => "allow",
            Answer::Approve => "approve",
            Answer::Warn(_) => "warn",
            Answer::Ask(_) => "ask",
            Answer::Block(_) => "block",
        }
    }

    /// The reason a warn, ask or block carries.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Answer::Warn(reason) | Answer::Ask(reason) | Answer::Block(reason) => Some(reason),
            Answer::Allow | Answer::Approve => None,
        }
    }

    fn flag(&self) -> Option<Answers> {
        match self {
            Answer::Allow => None,
            Answer::Approve => Some(Answers::APPROVE),
            Answer::Warn(_) => Some(Answers::WARN),
            Answer::Ask(_) => Some(Answers::ASK),
            Answer::Block(_) => Some(Answers::BLOCK),
        }
    }
}

/// A hook's whole answer to one event: a decision, and what else it asks of the agent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// Allow, approve, warn, ask or block.
    pub answer: Answer,
    /// The tool input rewritten: the tool runs with this instead (PreToolUse, PermissionRequest).
    pub updated_input: Option<Value>,
    /// Context for the model (SessionStart, UserPromptSubmit, PostToolUse, ...).
    pub context: Option<String>,
    /// End the agent's run, with this reason.
    pub stop: Option<String>,
    /// A named signal (PostToolUse; forgeflare's convergence signals, R7).
    pub signal: Option<Signal>,
    /// A message for the agent's user (Claude Code's `systemMessage`).
    pub message: Option<String>,
    /// What the runner logs about the answer without acting on it, for example an action a
    /// Stop hook returned that R3 says to treat as "continue".
    pub note: Option<String>,
}

impl Verdict {
    /// No objection.
    pub fn allow() -> Verdict {
        Verdict::default()
    }

    /// Explicit permission.
    pub fn approve() -> Verdict {
        Verdict::of(Answer::Approve)
    }

    /// Go on, surfacing `reason`.
    pub fn warn(reason: impl Into<String>) -> Verdict {
        Verdict::of(Answer::Warn(reason.into()))
    }

    /// Defer to the user, with `reason`.
    pub fn ask(reason: impl Into<String>) -> Verdict {
        Verdict::of(Answer::Ask(reason.into()))
    }

    /// Block, with `reason`.
    pub fn block(reason: impl Into<String>) -> Verdict {
        Verdict::of(Answer::Block(reason.into()))
    }

    /// No objection, and a signal.
    pub fn signal(name: impl Into<String>, reason: impl Into<String>) -> Verdict {
        Verdict {
            signal: Some(Signal {
                signal: name.into(),
                reason: reason.into(),
            }),
            ..Verdict::default()
        }
    }

    fn of(answer: Answer) -> Verdict {
        Verdict {
            answer,
            ..Verdict::default()
        }
    }

    /// The same verdict, adding context for the model.
    pub fn with_context(mut self, context: impl Into<String>) -> Verdict {
        self.context = Some(context.into());
        self
    }

    /// The same verdict, rewriting the tool input.
    pub fn with_updated_input(mut self, input: Value) -> Verdict {
        self.updated_input = Some(input);
        self
    }

    /// The same verdict, ending the agent's run.
    pub fn with_stop(mut self, reason: impl Into<String>) -> Verdict {
        self.stop = Some(reason.into());
        self
    }

    /// The same verdict, with a message for the user.
    pub fn with_message(mut self, message: impl Into<String>) -> Verdict {
        self.message = Some(message.into());
        self
    }

    /// True when the answer is a block.
    pub fn is_block(&self) -> bool {
        matches!(self.answer, Answer::Block(_))
    }

    /// The answers this verdict uses, as catalog flags.
    fn uses(&self) -> Answers {
        let mut used = Vec::new();
        used.extend(self.answer.flag());
        if self.updated_input.is_some() {
            used.push(Answers::REWRITE);
        }
        if self.context.is_some() {
            used.push(Answers::CONTEXT);
        }
        if self.stop.is_some() {
            used.push(Answers::STOP);
        }
        if self.signal.is_some() {
            used.push(Answers::SIGNAL);
        }
        used.into_iter().fold(Answers::NOTHING, Answers::union)
    }

    /// Checks the verdict against what `spec` allows, and bounds its strings: an answer the
    /// event cannot take (a rewrite from a PostToolUse hook) is an invalid verdict that says so,
    /// never silently dropped; strings over their limit are cut, saying so.
    pub(crate) fn checked(self, spec: &EventSpec, event: &str) -> Result<Verdict, HookFailure> {
        let used = self.uses();
        if !spec.answers.allows(used) {
            let refused: Vec<&str> = used
                .names()
                .into_iter()
                .filter(|name| !spec.answers.names().contains(name))
                .collect();
            return Err(HookFailure::InvalidVerdict {
                detail: format!(
                    "a {event} hook cannot answer {} (it may answer: {})",
                    refused.join(", "),
                    answers_list(spec.answers)
                ),
            });
        }
        if let Some(signal) = &self.signal
            && signal.signal.trim().is_empty()
        {
            return Err(HookFailure::InvalidVerdict {
                detail: "a signal with an empty name".to_string(),
            });
        }
        limits::bounded(self)
    }

    /// Bounds the verdict's strings, whatever the event allows: what an observer or an async
    /// hook answers is never merged, but its report reaches the agent and its logs.
    pub(crate) fn bounded(self) -> Result<Verdict, HookFailure> {
        limits::bounded(self)
    }
}

fn answers_list(answers: Answers) -> String {
    let names = answers.names();
    if names.is_empty() {
        "nothing but allow".to_string()
    } else {
        format!("allow, {}", names.join(", "))
    }
}

/// Whether a hook's answers are enforced (monitor mode): a team ships a new policy in
/// `monitor` mode, watches what it would have blocked, then enforces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Its answers count (the default).
    #[default]
    Enforce,
    /// It runs, and what it would have decided is reported (`Outcome::monitored`, its report),
    /// but it changes nothing: no block, ask, rewrite, context, stop or message, and a failure
    /// never fails closed.
    Monitor,
    /// Its blocks and asks, and a failure that would fail closed, become warnings the agent
    /// shows; the rest of its answer counts.
    Warn,
}

impl Mode {
    /// Every mode, with its hooks.toml spelling.
    pub const ALL: [(Mode, &'static str); 3] = [
        (Mode::Enforce, "enforce"),
        (Mode::Monitor, "monitor"),
        (Mode::Warn, "warn"),
    ];

    /// The hooks.toml spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::Monitor => "monitor",
            Mode::Warn => "warn",
        }
    }

    /// The mode spelled `name`.
    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL
            .iter()
            .find(|(_, spelled)| *spelled == name)
            .map(|(mode, _)| *mode)
    }
}

/// A PostToolUse signal: a name and the hook's reason (R3, R7).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Signal {
    /// The signal's name, for example `converged`.
    pub signal: String,
    /// Why the hook signalled.
    pub reason: String,
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.signal, self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_messages_are_verbatim() {
        assert_eq!(
            blocked_message("ralph-guard.sh", "destructive command detected"),
            "blocked by ralph-guard.sh: destructive command detected"
        );
        let cases = [
            (
                HookFailure::TimedOut { timeout_ms: 5000 },
                "hook failed: g.sh timed out after 5000ms (tool blocked by default)",
            ),
            (
                HookFailure::Exited { code: 2 },
                "hook failed: g.sh exited with code 2 (tool blocked by default)",
            ),
            (
                HookFailure::InvalidOutput { detail: "x".into() },
                "hook failed: g.sh returned invalid JSON (tool blocked by default)",
            ),
            (
                HookFailure::Exited { code: 127 },
                "hook failed: g.sh exited with code 127: command not found (check the path in hooks.toml) (tool blocked by default)",
            ),
            (
                HookFailure::Signaled { signal: 9 },
                "hook failed: g.sh killed by signal 9 (SIGKILL) (tool blocked by default)",
            ),
            (
                HookFailure::OutputTooLarge { limit: 1048576 },
                "hook failed: g.sh printed more than 1048576 bytes on stdout (tool blocked by default)",
            ),
        ];
        for (failure, expected) in cases {
            assert_eq!(guard_failed_message("g.sh", &failure), expected);
        }
    }
}
