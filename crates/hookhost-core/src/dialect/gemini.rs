//! Gemini CLI's hook dialect (geminicli.com/docs/hooks/reference): its event names
//! (`BeforeTool` is PreToolUse, `AfterTool` PostToolUse, ...) and what it reads from an answer
//! on each.

use super::{AgentEventSpec, BlockAs, ContextAs};

/// Its command-line spelling (`--format gemini`, `protocol = "gemini"`).
pub(crate) const NAME: &str = "gemini";
/// Its product name, for messages.
pub(crate) const PRODUCT: &str = "Gemini CLI";
/// The variables it sets to the project's directory for its command hooks.
pub(crate) const PROJECT_DIR_VARIABLES: &[&str] = &super::PROJECT_DIR_VARIABLES;

const BASE: AgentEventSpec = AgentEventSpec {
    agent: "",
    hookhost: "",
    block: BlockAs::Nothing,
    ask: false,
    approve: false,
    rewrite: false,
    context: ContextAs::Nothing,
    stop: false,
    message: true,
};

/// Gemini CLI's events (its `HookEventName` enum) and what it reads on each.
pub static EVENTS: [AgentEventSpec; 11] = [
    // Gemini reads `decision: "ask"` here, but its headless mode (`gemini -p`) then waits for
    // a confirmation nobody can give, and a hook cannot tell the modes apart: hookhost refuses
    // an ask instead (checked against 0.61.0).
    AgentEventSpec {
        agent: "BeforeTool",
        hookhost: "PreToolUse",
        block: BlockAs::Decision,
        ask: false,
        approve: true,
        rewrite: true,
        stop: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "AfterTool",
        hookhost: "PostToolUse",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        stop: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "BeforeAgent",
        hookhost: "UserPromptSubmit",
        block: BlockAs::Decision,
        context: ContextAs::Specific,
        stop: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "AfterAgent",
        hookhost: "Stop",
        block: BlockAs::Decision,
        stop: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "SessionStart",
        hookhost: "SessionStart",
        context: ContextAs::Specific,
        ..BASE
    },
    AgentEventSpec {
        agent: "SessionEnd",
        hookhost: "SessionEnd",
        ..BASE
    },
    AgentEventSpec {
        agent: "PreCompress",
        hookhost: "PreCompact",
        ..BASE
    },
    AgentEventSpec {
        agent: "Notification",
        hookhost: "Notification",
        ..BASE
    },
    AgentEventSpec {
        agent: "BeforeModel",
        hookhost: "BeforeModel",
        block: BlockAs::Decision,
        stop: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "AfterModel",
        hookhost: "AfterModel",
        block: BlockAs::Decision,
        stop: true,
        ..BASE
    },
    // No decision, continue or systemMessage here: only `toolConfig`.
    AgentEventSpec {
        agent: "BeforeToolSelection",
        hookhost: "BeforeToolSelection",
        message: false,
        ..BASE
    },
];

/// An event Gemini CLI adds later: `decision: "deny"` and `continue: false` are its generic
/// answers.
pub static OTHER: AgentEventSpec = AgentEventSpec {
    agent: "(other)",
    hookhost: "(other)",
    block: BlockAs::Decision,
    stop: true,
    ..BASE
};

/// Gemini's name for the event hookhost calls `hookhost` (a custom event keeps its name).
pub fn agent_name(hookhost: &str) -> &str {
    EVENTS
        .iter()
        .find(|spec| spec.hookhost == hookhost)
        .map_or(hookhost, |spec| spec.agent)
}
