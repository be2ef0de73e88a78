//! What each agent's hook JSON looks like: its event names, what it reads from an answer on
//! each event (how it hears a block, whether it can ask, rewrite, add context, stop, show a
//! message) and how it spells its keys. One module per agent, below everything that speaks to
//! that agent:
//!
//! | agent | its dialect | its scripts run as command hooks | `agent-hook` answers it | its settings imported |
//! |---|---|---|---|---|
//! | Claude Code | [`claude`] | `protocol::claude` | `hookhost::agent::claude` | `agent::import::claude` |
//! | Copilot CLI | [`copilot`] | `protocol::copilot` | `hookhost::agent::copilot` | `agent::import::copilot` |
//! | Gemini CLI | [`gemini`] | `protocol::gemini` | `hookhost::agent::gemini` | `agent::import::gemini` |
//! | Codex CLI | [`codex`] | `protocol::codex` | `hookhost::agent::codex` | `agent::import::codex` |
//! | Cursor | [`cursor`] | `protocol::cursor` | `hookhost::agent::cursor` | `agent::import::cursor` |
//!
//! Events are data here too: one table per agent says, per event, its name on both sides and
//! what the agent reads from an answer. The protocols (running an agent's own scripts) and the
//! agent adapter (answering the agent) both read these tables; neither knows the other. Which
//! agents there are is one list, [`for_each_agent!`]: every per-agent dispatch expands it.

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;

use std::fmt;

use crate::event::{Answers, EventSpec};
use crate::verdict::{Answer, Verdict};

/// The agents hookhost speaks with: one row each, `Variant module`, in the order they are
/// listed everywhere (`AgentFormat::ALL`, import's fixed order). Every place that does
/// something per agent expands this list instead of holding a `match` of its own:
/// [`AgentFormat`] here, the command-hook protocols (`protocol`), `agent-hook`'s reading and
/// answering (`agent`), the import of settings (`agent::import`), the agents' variables of a
/// command hook (`Protocol::agent`).
///
/// Adding an agent is a row here, a `Protocol` variant with its hooks.toml spelling (a
/// protocol is not always an agent's: forgeflare, exit-code), and the agent's own files, each
/// with the items the expansions call (the compiler names any that is missing):
/// `dialect::NAME` (`NAME`, `PRODUCT`, `PROJECT_DIR_VARIABLES`, `EVENTS`, `OTHER`),
/// `protocol::NAME` (`stdin`, `answer`), `agent::NAME` (`parse`, `render`),
/// `agent::import::NAME` (`settings`, `import`). Exported for hookhost's crates above this one
/// (the agents' readers and writers are the `hookhost` crate's).
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_agent {
    ($then:ident) => {
        $then! {
            /// Claude Code: snake_case JSON with `hook_event_name`; answers in
            /// `hookSpecificOutput` and top-level `decision`.
            Claude claude,
            /// GitHub Copilot CLI: camelCase JSON without an event name (the settings entry
            /// passes `--event`); flat answers (`permissionDecision`, `modifiedArgs`,
            /// `additionalContext`).
            Copilot copilot,
            /// Gemini CLI: snake_case JSON with its own event names (`BeforeTool`, ...); answers
            /// in `decision: "deny"` and `hookSpecificOutput`.
            Gemini gemini,
            /// OpenAI's Codex CLI: Claude Code's event names and JSON, with fewer answers per
            /// event and any unknown key a failed hook.
            Codex codex,
            /// Cursor: camelCase event names (`preToolUse`, `beforeShellExecution`, ...) with
            /// snake_case payloads; flat answers (`permission`, `user_message`, `agent_message`,
            /// `followup_message`, `additional_context`).
            Cursor cursor,
        }
    };
}
pub use crate::for_each_agent;

/// What the table's row and the agent's dialect module say of one agent.
struct Row {
    name: &'static str,
    product: &'static str,
    project_dir_variables: &'static [&'static str],
    events: &'static [AgentEventSpec],
    other: &'static AgentEventSpec,
}

macro_rules! agent_format {
    ($($(#[$doc:meta])* $variant:ident $module:ident,)*) => {
        /// The agent whose hook protocol `agent-hook` speaks.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum AgentFormat {
            $($(#[$doc])* $variant,)*
        }

        impl AgentFormat {
            /// Every format, with its command-line spelling.
            pub const ALL: [(AgentFormat, &'static str); [$($module::NAME),*].len()] =
                [$((AgentFormat::$variant, $module::NAME)),*];

            fn row(self) -> Row {
                match self {
                    $(AgentFormat::$variant => Row {
                        name: $module::NAME,
                        product: $module::PRODUCT,
                        project_dir_variables: $module::PROJECT_DIR_VARIABLES,
                        events: &$module::EVENTS,
                        other: &$module::OTHER,
                    },)*
                }
            }
        }
    };
}
for_each_agent!(agent_format);

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
    /// The command-line spellings, for a command line's list of possible values.
    pub const NAMES: [&'static str; AgentFormat::ALL.len()] = {
        let mut names = [""; AgentFormat::ALL.len()];
        let mut i = 0;
        while i < names.len() {
            names[i] = AgentFormat::ALL[i].1;
            i += 1;
        }
        names
    };

    /// The project-directory variables this agent sets for its command hooks (Gemini CLI sets
    /// both of [`PROJECT_DIR_VARIABLES`] to the cwd; Claude Code sets `CLAUDE_PROJECT_DIR`;
    /// Cursor `CURSOR_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`; Copilot CLI and Codex none).
    pub fn project_dir_variables(self) -> &'static [&'static str] {
        self.row().project_dir_variables
    }

    /// `claude`, `copilot`, `gemini`, `codex` or `cursor`.
    pub fn as_str(self) -> &'static str {
        self.row().name
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
        self.row().product
    }

    /// The agent's events, as its table lists them.
    pub fn events(self) -> &'static [AgentEventSpec] {
        self.row().events
    }

    /// What this agent reads on the event hookhost calls `name` (a custom event's name is the
    /// agent's own).
    pub fn spec(self, name: &str) -> &'static AgentEventSpec {
        let row = self.row();
        row.events
            .iter()
            .find(|spec| spec.hookhost == name)
            .unwrap_or(row.other)
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
