//! Codex CLI's hook dialect (developers.openai.com/codex/hooks, and its source:
//! `codex-rs/hooks`, whose output types refuse unknown keys): Claude Code's event names and
//! answer shape, with fewer answers per event, and every other key a failed hook.
//!
//! Where the page and the source disagree, the source wins: the page calls a PreToolUse
//! `permissionDecision: "allow"` a way to rewrite, the source reads a bare `allow` (without
//! `updatedInput`) as an unsupported answer and fails the hook.

use super::{AgentEventSpec, BlockAs, ContextAs};

/// Its command-line spelling (`--format codex`, `protocol = "codex"`).
pub(crate) const NAME: &str = "codex";
/// Its product name, for messages.
pub(crate) const PRODUCT: &str = "Codex CLI";
/// The variables it sets to the project's directory for its command hooks.
pub(crate) const PROJECT_DIR_VARIABLES: &[&str] = &[];

const BASE: AgentEventSpec = AgentEventSpec {
    agent: "",
    hookhost: "",
    block: BlockAs::Nothing,
    ask: false,
    approve: false,
    rewrite: false,
    context: ContextAs::Nothing,
    stop: true,
    message: true,
};

/// Codex's events (its `HookEventName`, as hooks.json names them) and what it reads on each.
pub static EVENTS: [AgentEventSpec; 12] = [
    // `continue: false` and `stopReason` fail a PreToolUse hook, and with it its deny; `ask`
    // and a bare `allow` fail it too. A rewrite is `allow` with `updatedInput`.
    AgentEventSpec {
        agent: "PreToolUse",
        hookhost: "PreToolUse",
        block: BlockAs::Permission,
        rewrite: true,
        context: ContextAs::Specific,
        stop: false,
        ..BASE
    },
    // `updatedInput`, `updatedPermissions` and `interrupt` are reserved: they fail the hook.
    AgentEventSpec {
        agent: "PermissionRequest",
        hookhost: "PermissionRequest",
        block: BlockAs::Behavior,
        approve: true,
        stop: false,
        ..BASE
    },
    // A block replaces the tool's result with the reason; `continue: false` stops there.
    AgentEventSpec {
        agent: "PostToolUse",
        hookhost: "PostToolUse",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "UserPromptSubmit",
        hookhost: "UserPromptSubmit",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    // `decision: "block"` continues the turn with the reason as the next prompt.
    AgentEventSpec {
        agent: "Stop",
        hookhost: "Stop",
        block: BlockAs::Decision,
        ..BASE
    },
    AgentEventSpec {
        agent: "SubagentStop",
        hookhost: "SubagentStop",
        block: BlockAs::Decision,
        ..BASE
    },
    AgentEventSpec {
        agent: "SessionStart",
        hookhost: "SessionStart",
        context: ContextAs::Specific,
        ..BASE
    },
    // `continue: false` is parsed but does not stop the subagent.
    AgentEventSpec {
        agent: "SubagentStart",
        hookhost: "SubagentStart",
        context: ContextAs::Specific,
        stop: false,
        ..BASE
    },
    // `continue: false` on PreCompact stops before compacting: its only refusal.
    AgentEventSpec {
        agent: "PreCompact",
        hookhost: "PreCompact",
        block: BlockAs::EndSession,
        ..BASE
    },
    AgentEventSpec {
        agent: "PostCompact",
        hookhost: "PostCompact",
        ..BASE
    },
    // Observational: only `systemMessage` is read on Interrupt; SessionEnd runs during
    // teardown, where nothing is shown.
    AgentEventSpec {
        agent: "SessionEnd",
        hookhost: "SessionEnd",
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "Interrupt",
        hookhost: "Interrupt",
        stop: false,
        ..BASE
    },
];

/// An event Codex adds later: `systemMessage` is the one answer every event reads.
pub static OTHER: AgentEventSpec = AgentEventSpec {
    agent: "(other)",
    hookhost: "(other)",
    stop: false,
    ..BASE
};

/// The keys Codex reads in an answer on one event: any other fails the hook (its output
/// types refuse unknown fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputKeys {
    /// `continue`, `stopReason`, `suppressOutput` (`systemMessage` is read on every event).
    pub control: bool,
    /// `decision` and `reason`.
    pub decision: bool,
    /// The keys of `hookSpecificOutput` (empty: no `hookSpecificOutput`).
    pub specific: &'static [&'static str],
}

impl OutputKeys {
    /// True when Codex reads `key` at the top level of an answer.
    pub fn top(&self, key: &str) -> bool {
        match key {
            "systemMessage" => true,
            "continue" | "stopReason" | "suppressOutput" => self.control,
            "decision" | "reason" => self.decision,
            "hookSpecificOutput" => !self.specific.is_empty(),
            _ => false,
        }
    }
}

/// The keys Codex reads on `event` (its own name).
pub fn output_keys(event: &str) -> OutputKeys {
    const CONTEXT: &[&str] = &["hookEventName", "additionalContext"];
    let keys = |control, decision, specific| OutputKeys {
        control,
        decision,
        specific,
    };
    match event {
        "PreToolUse" => keys(
            true,
            true,
            &[
                "hookEventName",
                "permissionDecision",
                "permissionDecisionReason",
                "updatedInput",
                "additionalContext",
            ],
        ),
        "PermissionRequest" => keys(true, false, &["hookEventName", "decision"]),
        "PostToolUse" => keys(
            true,
            true,
            &[
                "hookEventName",
                "additionalContext",
                "updatedMCPToolOutput",
                "updatedToolOutput",
            ],
        ),
        "UserPromptSubmit" => keys(true, true, CONTEXT),
        "Stop" | "SubagentStop" => keys(true, true, &[]),
        "SessionStart" | "SubagentStart" => keys(true, false, CONTEXT),
        "PreCompact" | "PostCompact" => keys(true, false, &[]),
        // Interrupt, SessionEnd: `systemMessage` alone.
        _ => keys(false, false, &[]),
    }
}

/// Codex's events where exit status 2 refuses (or, on Stop and SubagentStop, continues) with
/// stderr as the reason; elsewhere it is an ordinary failure.
pub const EXIT2_DECIDES: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
];

/// Codex's events where plain text on stdout is context for the model (elsewhere it is
/// ignored, or, on Stop, SubagentStop and Interrupt, a failed hook).
pub const STDOUT_IS_CONTEXT: &[&str] = &["SessionStart", "SubagentStart", "UserPromptSubmit"];

/// Codex's events where stdout that is not JSON fails the hook.
pub const STDOUT_MUST_BE_JSON: &[&str] = &["Stop", "SubagentStop", "Interrupt", "SessionEnd"];

/// Matcher aliases: a PreToolUse, PermissionRequest or PostToolUse matcher that names `Edit`
/// or `Write` also reaches `apply_patch`, the tool hooks see.
pub const TOOL_ALIASES: &[(&str, &[&str])] = &[("apply_patch", &["Edit", "Write"])];
