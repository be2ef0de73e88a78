//! Cursor's hook dialect (cursor.com/docs/hooks, `.cursor/hooks.json` version 1): its
//! camelCase event names, what it reads from an answer on each, and its snake_case payloads
//! (`conversation_id`, `workspace_roots`, ...).
//!
//! Cursor's generic events map to hookhost's (`preToolUse` is PreToolUse, `beforeSubmitPrompt`
//! UserPromptSubmit, `stop` Stop, ...). Its specialised ones (`beforeShellExecution`,
//! `beforeMCPExecution`, `beforeReadFile`, `afterFileEdit`, ...) are custom events under their
//! own names: a Shell call also fires `preToolUse`, where hookhost's PreToolUse guards see it.
//! Cursor is closed source: this follows its documentation (and says where users report it
//! ignores an answer).

use super::{AgentEventSpec, BlockAs, ContextAs};

/// Its command-line spelling (`--format cursor`, `protocol = "cursor"`).
pub(crate) const NAME: &str = "cursor";
/// Its product name, for messages.
pub(crate) const PRODUCT: &str = "Cursor";
/// The variables it sets to the project's directory for its command hooks.
pub(crate) const PROJECT_DIR_VARIABLES: &[&str] = &["CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"];

const BASE: AgentEventSpec = AgentEventSpec {
    agent: "",
    hookhost: "",
    block: BlockAs::Nothing,
    ask: false,
    approve: false,
    rewrite: false,
    context: ContextAs::Nothing,
    stop: false,
    message: false,
};

/// Cursor's events (as `.cursor/hooks.json` names them) and what it reads on each.
pub static EVENTS: [AgentEventSpec; 21] = [
    // `permission`: `"ask"` is accepted by the schema but not enforced on preToolUse, so an
    // ask is refused there. `user_message` and `agent_message` are read with a deny.
    AgentEventSpec {
        agent: "preToolUse",
        hookhost: "PreToolUse",
        block: BlockAs::Permission,
        approve: true,
        rewrite: true,
        ..BASE
    },
    // The tool already ran: a block reaches the model as `additional_context`.
    AgentEventSpec {
        agent: "postToolUse",
        hookhost: "PostToolUse",
        block: BlockAs::Context,
        context: ContextAs::TopLevel,
        ..BASE
    },
    // No output field is read.
    AgentEventSpec {
        agent: "postToolUseFailure",
        hookhost: "PostToolUseFailure",
        ..BASE
    },
    AgentEventSpec {
        agent: "beforeSubmitPrompt",
        hookhost: "UserPromptSubmit",
        block: BlockAs::EndSession,
        ..BASE
    },
    // `followup_message` is submitted as the next user message (at most `loop_limit` times,
    // 5 by default; subagentStop reads it only when the subagent completed).
    AgentEventSpec {
        agent: "stop",
        hookhost: "Stop",
        block: BlockAs::Decision,
        ..BASE
    },
    AgentEventSpec {
        agent: "subagentStop",
        hookhost: "SubagentStop",
        block: BlockAs::Decision,
        ..BASE
    },
    // Cursor can deny a subagent (`"ask"` counts as a deny); hookhost's SubagentStart cannot
    // block, so no answer of hookhost's denies one.
    AgentEventSpec {
        agent: "subagentStart",
        hookhost: "SubagentStart",
        block: BlockAs::Permission,
        approve: true,
        ..BASE
    },
    // Fire-and-forget: `continue` is accepted but not enforced.
    AgentEventSpec {
        agent: "sessionStart",
        hookhost: "SessionStart",
        context: ContextAs::TopLevel,
        ..BASE
    },
    AgentEventSpec {
        agent: "sessionEnd",
        hookhost: "SessionEnd",
        ..BASE
    },
    // Observational: only `user_message`, shown when compaction occurs.
    AgentEventSpec {
        agent: "preCompact",
        hookhost: "PreCompact",
        message: true,
        ..BASE
    },
    // Users report `"ask"` ignored in Auto-review mode (the command runs unasked), honoured
    // in Allowlist and Run Everything (forum.cursor.com, topic 173694).
    AgentEventSpec {
        agent: "beforeShellExecution",
        hookhost: "beforeShellExecution",
        block: BlockAs::Permission,
        ask: true,
        approve: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "beforeMCPExecution",
        hookhost: "beforeMCPExecution",
        block: BlockAs::Permission,
        ask: true,
        approve: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "beforeReadFile",
        hookhost: "beforeReadFile",
        block: BlockAs::Permission,
        approve: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "beforeTabFileRead",
        hookhost: "beforeTabFileRead",
        block: BlockAs::Permission,
        approve: true,
        ..BASE
    },
    // Observers: Cursor reads no answer.
    AgentEventSpec {
        agent: "afterShellExecution",
        hookhost: "afterShellExecution",
        ..BASE
    },
    AgentEventSpec {
        agent: "afterMCPExecution",
        hookhost: "afterMCPExecution",
        ..BASE
    },
    AgentEventSpec {
        agent: "afterFileEdit",
        hookhost: "afterFileEdit",
        ..BASE
    },
    AgentEventSpec {
        agent: "afterTabFileEdit",
        hookhost: "afterTabFileEdit",
        ..BASE
    },
    AgentEventSpec {
        agent: "afterAgentResponse",
        hookhost: "afterAgentResponse",
        ..BASE
    },
    AgentEventSpec {
        agent: "afterAgentThought",
        hookhost: "afterAgentThought",
        ..BASE
    },
    // `pluginPaths` is not an answer hookhost gives.
    AgentEventSpec {
        agent: "workspaceOpen",
        hookhost: "workspaceOpen",
        ..BASE
    },
];

/// An event Cursor adds later: nothing is known to be read.
pub static OTHER: AgentEventSpec = AgentEventSpec {
    agent: "(other)",
    hookhost: "(other)",
    ..BASE
};

/// What a `matcher` is compared with on an event whose matcher does not compare the tool:
/// Cursor matches these events against a fixed word.
pub const FIXED_MATCH: &[(&str, &str)] = &[
    ("beforeSubmitPrompt", "UserPromptSubmit"),
    ("stop", "Stop"),
    ("afterAgentResponse", "AgentResponse"),
    ("afterAgentThought", "AgentThought"),
];

/// Cursor's events whose `tool_input` is a JSON string rather than an object.
pub const STRING_TOOL_INPUT: &[&str] = &["beforeMCPExecution", "afterMCPExecution"];

/// Cursor's name for the event hookhost calls `hookhost` (a custom event keeps its name).
pub fn agent_name(hookhost: &str) -> &str {
    EVENTS
        .iter()
        .find(|spec| spec.hookhost == hookhost)
        .map_or(hookhost, |spec| spec.agent)
}
