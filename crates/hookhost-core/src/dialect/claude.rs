//! Claude Code's hook dialect: its events keep their names (hookhost's built-in events are
//! Claude Code's), and what it reads from an answer on each (hooks reference, "Decision
//! control": code.claude.com/docs/en/hooks).

use super::{AgentEventSpec, BlockAs, ContextAs};

/// Its command-line spelling (`--format claude`, `protocol = "claude"`).
pub(crate) const NAME: &str = "claude";
/// Its product name, for messages.
pub(crate) const PRODUCT: &str = "Claude Code";
/// The variables it sets to the project's directory for its command hooks.
pub(crate) const PROJECT_DIR_VARIABLES: &[&str] = &["CLAUDE_PROJECT_DIR"];

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

/// Claude Code's events and what it reads on each (hooks reference: "Decision control").
pub static EVENTS: [AgentEventSpec; 28] = [
    AgentEventSpec {
        agent: "PreToolUse",
        hookhost: "PreToolUse",
        block: BlockAs::Permission,
        ask: true,
        approve: true,
        rewrite: true,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "PermissionRequest",
        hookhost: "PermissionRequest",
        block: BlockAs::Behavior,
        approve: true,
        rewrite: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "UserPromptSubmit",
        hookhost: "UserPromptSubmit",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "UserPromptExpansion",
        hookhost: "UserPromptExpansion",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "PostToolUse",
        hookhost: "PostToolUse",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "PostToolUseFailure",
        hookhost: "PostToolUseFailure",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "PostToolBatch",
        hookhost: "PostToolBatch",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "Stop",
        hookhost: "Stop",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "SubagentStop",
        hookhost: "SubagentStop",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "TaskCreated",
        hookhost: "TaskCreated",
        block: BlockAs::Decision,
        ..BASE
    },
    AgentEventSpec {
        agent: "PreModelSwitch",
        hookhost: "PreModelSwitch",
        block: BlockAs::Decision,
        ..BASE
    },
    // JSON output other than `decision` is discarded on these.
    AgentEventSpec {
        agent: "PreCompact",
        hookhost: "PreCompact",
        block: BlockAs::Decision,
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "ConfigChange",
        hookhost: "ConfigChange",
        block: BlockAs::Decision,
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "SessionStart",
        hookhost: "SessionStart",
        block: BlockAs::EndSession,
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "SubagentStart",
        hookhost: "SubagentStart",
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "PostModelSwitch",
        hookhost: "PostModelSwitch",
        context: ContextAs::Specific,
        ..BASE
    },
    // Refused only by exit status 2.
    AgentEventSpec {
        agent: "TeammateIdle",
        hookhost: "TeammateIdle",
        block: BlockAs::Exit2,
        ..BASE
    },
    AgentEventSpec {
        agent: "TaskCompleted",
        hookhost: "TaskCompleted",
        block: BlockAs::Exit2,
        ..BASE
    },
    AgentEventSpec {
        agent: "WorktreeCreate",
        hookhost: "WorktreeCreate",
        block: BlockAs::Exit2,
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "WorktreeRemove",
        hookhost: "WorktreeRemove",
        block: BlockAs::Exit2,
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "Elicitation",
        hookhost: "Elicitation",
        block: BlockAs::Exit2,
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "ElicitationResult",
        hookhost: "ElicitationResult",
        block: BlockAs::Exit2,
        stop: false,
        message: false,
        ..BASE
    },
    // Observational: Claude Code discards JSON output here.
    AgentEventSpec {
        agent: "Notification",
        hookhost: "Notification",
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "SessionEnd",
        hookhost: "SessionEnd",
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "Setup",
        hookhost: "Setup",
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "InstructionsLoaded",
        hookhost: "InstructionsLoaded",
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "StopFailure",
        hookhost: "StopFailure",
        stop: false,
        message: false,
        ..BASE
    },
    AgentEventSpec {
        agent: "PostCompact",
        hookhost: "PostCompact",
        stop: false,
        message: false,
        ..BASE
    },
];

/// Any other Claude Code event (it adds events often): exit 2 is its generic "block".
pub static OTHER: AgentEventSpec = AgentEventSpec {
    agent: "(other)",
    hookhost: "(other)",
    block: BlockAs::Exit2,
    ..BASE
};
