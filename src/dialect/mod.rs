//! What each agent's hook JSON looks like: its event names, what it reads from an answer on
//! each event (how it hears a block, whether it can ask, rewrite, add context, stop, show a
//! message) and how it spells its keys. One module per agent, below everything that speaks to
//! that agent:
//!
//! | agent | its dialect | its scripts run as command hooks | `agent-hook` answers it | its settings imported |
//! |---|---|---|---|---|
//! | Claude Code | [`claude`] | `protocol::claude` | [`crate::agent::claude`] | `agent::import::claude` |
//! | Copilot CLI | [`copilot`] | `protocol::copilot` | [`crate::agent::copilot`] | `agent::import::copilot` |
//! | Gemini CLI | [`gemini`] | `protocol::gemini` | [`crate::agent::gemini`] | `agent::import::gemini` |
//! | Codex CLI | [`codex`] | `protocol::codex` | [`crate::agent::codex`] | `agent::import::codex` |
//! | Cursor | [`cursor`] | `protocol::cursor` | [`crate::agent::cursor`] | `agent::import::cursor` |
//!
//! Events are data here too: one table per agent says, per event, its name on both sides and
//! what the agent reads from an answer. The protocols (running an agent's own scripts) and the
//! agent adapter (answering the agent) both read these tables; neither knows the other.

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;

use std::fmt;

use crate::event::{Answers, EventSpec};
use crate::verdict::{Answer, Verdict};

/// The agent whose hook protocol `agent-hook` speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentFormat {
    /// Claude Code: snake_case JSON with `hook_event_name`; answers in `hookSpecificOutput`
    /// and top-level `decision`.
    Claude,
    /// GitHub Copilot CLI: camelCase JSON without an event name (the settings entry passes
    /// `--event`); flat answers (`permissionDecision`, `modifiedArgs`, `additionalContext`).
    Copilot,
    /// Gemini CLI: snake_case JSON with its own event names (`BeforeTool`, ...); answers in
    /// `decision: "deny"` and `hookSpecificOutput`.
    Gemini,
    /// OpenAI's Codex CLI: Claude Code's event names and JSON, with fewer answers per event
    /// and any unknown key a failed hook.
    Codex,
    /// Cursor: camelCase event names (`preToolUse`, `beforeShellExecution`, ...) with
    /// snake_case payloads; flat answers (`permission`, `user_message`, `agent_message`,
    /// `followup_message`, `additional_context`).
    Cursor,
}

/// The variables an agent sets to the project's directory for its command hooks (`hookhost
/// agent-hook` sets them to the cwd where the agent did not): every agent's, for reading a
/// command that names a script by them (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`).
pub const PROJECT_DIR_VARIABLES: [&str; 2] = ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"];

/// Every project-directory variable of every agent: [`PROJECT_DIR_VARIABLES`] and Cursor's
/// `CURSOR_PROJECT_DIR`.
pub const ALL_PROJECT_DIR_VARIABLES: &[&str] = &[
    "CLAUDE_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
    "CURSOR_PROJECT_DIR",
];

impl AgentFormat {
    /// Every format, with its command-line spelling.
    pub const ALL: [(AgentFormat, &'static str); 5] = [
        (AgentFormat::Claude, "claude"),
        (AgentFormat::Copilot, "copilot"),
        (AgentFormat::Gemini, "gemini"),
        (AgentFormat::Codex, "codex"),
        (AgentFormat::Cursor, "cursor"),
    ];

    /// The project-directory variables this agent sets for its command hooks (Gemini CLI sets
    /// both of [`PROJECT_DIR_VARIABLES`] to the cwd; Claude Code sets `CLAUDE_PROJECT_DIR`;
    /// Cursor `CURSOR_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`; Copilot CLI and Codex none).
    pub fn project_dir_variables(self) -> &'static [&'static str] {
        match self {
            AgentFormat::Claude => &PROJECT_DIR_VARIABLES[..1],
            AgentFormat::Gemini => &PROJECT_DIR_VARIABLES,
            AgentFormat::Cursor => &["CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
            AgentFormat::Copilot | AgentFormat::Codex => &[],
        }
    }

    /// `claude`, `copilot`, `gemini`, `codex` or `cursor`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentFormat::Claude => "claude",
            AgentFormat::Copilot => "copilot",
            AgentFormat::Gemini => "gemini",
            AgentFormat::Codex => "codex",
            AgentFormat::Cursor => "cursor",
        }
    }

    /// The format spelled `name`.
    pub fn from_name(name: &str) -> Option<AgentFormat> {
        AgentFormat::ALL
            .iter()
            .find(|(_, spelled)| *spelled == name)
            .map(|(format, _)| *format)
    }

    /// The agent's product name, for messages.
    pub fn agent(self) -> &'static str {
        match self {
            AgentFormat::Claude => "Claude Code",
            AgentFormat::Copilot => "Copilot CLI",
            AgentFormat::Gemini => "Gemini CLI",
            AgentFormat::Codex => "Codex CLI",
            AgentFormat::Cursor => "Cursor",
        }
    }

    /// The agent's events, as its table lists them.
    pub(crate) fn events(self) -> &'static [AgentEventSpec] {
        match self {
            AgentFormat::Claude => &claude::EVENTS,
            AgentFormat::Copilot => &copilot::EVENTS,
            AgentFormat::Gemini => &gemini::EVENTS,
            AgentFormat::Codex => &codex::EVENTS,
            AgentFormat::Cursor => &cursor::EVENTS,
        }
    }

    /// What this agent reads on the event hookhost calls `name` (a custom event's name is the
    /// agent's own).
    pub fn spec(self, name: &str) -> &'static AgentEventSpec {
        self.events()
            .iter()
            .find(|spec| spec.hookhost == name)
            .unwrap_or(match self {
                AgentFormat::Claude => &claude::OTHER,
                AgentFormat::Copilot => &copilot::OTHER,
                AgentFormat::Gemini => &gemini::OTHER,
                AgentFormat::Codex => &codex::OTHER,
                AgentFormat::Cursor => &cursor::OTHER,
            })
    }
}

impl fmt::Display for AgentFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an agent hears "no" on one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockAs {
    /// A permission decision on a tool call: Claude's and Codex's
    /// `hookSpecificOutput.permissionDecision: "deny"`, Copilot's top-level
    /// `permissionDecision: "deny"`, Cursor's `permission: "deny"`.
    Permission,
    /// A permission request's answer: Claude's `hookSpecificOutput.decision.behavior: "deny"`,
    /// Copilot's top-level `behavior: "deny"`.
    Behavior,
    /// Top-level `decision`: Claude's, Copilot's and Codex's `"block"`, Gemini's `"deny"`;
    /// Cursor's `followup_message` on stop and subagentStop.
    Decision,
    /// Exit status 2 with the reason on stderr (Claude's events without a JSON block).
    Exit2,
    /// `continue: false`: the only way to refuse Claude Code's SessionStart, Codex's PreCompact
    /// and Cursor's beforeSubmitPrompt.
    EndSession,
    /// The tool already ran: the reason goes to the model as added context (Copilot's and
    /// Cursor's postToolUse).
    Context,
    /// The agent cannot be refused here; a block is reported on stderr.
    Nothing,
}

/// How an agent takes added context for the model on one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextAs {
    /// `hookSpecificOutput.additionalContext` (Claude, Gemini, Codex).
    Specific,
    /// Top-level: Copilot's `additionalContext`, Cursor's `additional_context`.
    TopLevel,
    /// Exit status 2 with the context on stdout: what Copilot CLI's postToolUseFailure was
    /// documented to read; no agent's table uses it since Copilot CLI 1.0.102, which reads
    /// `additionalContext` at exit 0 there (kept: the enum is public).
    Exit2Stdout,
    /// Not at all.
    Nothing,
}

/// One event of an agent: its name on both sides, and what the agent reads from an answer.
#[derive(Debug)]
pub struct AgentEventSpec {
    /// The agent's name for the event (`BeforeTool`, `preToolUse`, `PreToolUse`).
    pub agent: &'static str,
    /// hookhost's name: a built-in event of the catalog, or a custom one.
    pub hookhost: &'static str,
    /// How a block is said.
    pub block: BlockAs,
    /// The agent can ask its user (Claude and Copilot `permissionDecision: "ask"`, Gemini
    /// `decision: "ask"`).
    pub ask: bool,
    /// The agent takes an explicit permission (`allow`).
    pub approve: bool,
    /// The agent applies a rewritten tool input.
    pub rewrite: bool,
    /// How context for the model is said.
    pub context: ContextAs,
    /// The agent stops on request (`continue: false`; Copilot's permissionRequest `interrupt`).
    pub stop: bool,
    /// The agent shows a message to its user (`systemMessage`).
    pub message: bool,
}

/// Drops from `verdict` what the catalog says `event` cannot take, with a note: an agent's
/// script may answer something its agent reads on an event where hookhost's model has no such
/// answer (Copilot's notification `additionalContext`); that must not fail the hook.
pub(crate) fn fit_catalog(mut verdict: Verdict, spec: &EventSpec, event: &str) -> Verdict {
    let mut dropped = Vec::new();
    let refused = |flag: Answers| !spec.answers.allows(flag);
    let answer_flag = match &verdict.answer {
        Answer::Allow => None,
        Answer::Approve => Some(Answers::APPROVE),
        Answer::Warn(_) => Some(Answers::WARN),
        Answer::Ask(_) => Some(Answers::ASK),
        Answer::Block(_) => Some(Answers::BLOCK),
    };
    if answer_flag.is_some_and(refused) {
        dropped.push(verdict.answer.kind().to_string());
        verdict.answer = Answer::Allow;
    }
    if verdict.updated_input.is_some() && refused(Answers::REWRITE) {
        dropped.push("an updated input".to_string());
        verdict.updated_input = None;
    }
    if verdict.context.is_some() && refused(Answers::CONTEXT) {
        dropped.push("context".to_string());
        verdict.context = None;
    }
    if verdict.stop.is_some() && refused(Answers::STOP) {
        dropped.push("a stop".to_string());
        verdict.stop = None;
    }
    if !dropped.is_empty() {
        let note = format!(
            "ignored {} (a {event} hook cannot answer that in hookhost)",
            dropped.join(", ")
        );
        verdict.note = Some(match verdict.note.take() {
            Some(earlier) => format!("{earlier}; {note}"),
            None => note,
        });
    }
    verdict
}
