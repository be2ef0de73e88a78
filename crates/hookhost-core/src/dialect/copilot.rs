//! Copilot CLI's hook dialect (docs.github.com/en/copilot/reference/hooks-reference): its
//! camelCase event names, what it reads from an answer on each, and its key spelling
//! (camelCase payloads, with a few keys in snake_case anyway).

use super::{AgentEventSpec, BlockAs, ContextAs};

/// Its command-line spelling (`--format copilot`, `protocol = "copilot"`).
pub(crate) const NAME: &str = "copilot";
/// Its product name, for messages.
pub(crate) const PRODUCT: &str = "Copilot CLI";
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
    stop: false,
    message: false,
};

/// Copilot CLI's events (camelCase, as `.github/hooks/*.json` names them) and what it reads.
pub static EVENTS: [AgentEventSpec; 14] = [
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
    // `decision: "block"` refuses the prompt (no model turn runs); `additionalContext` reaches
    // the prompt (1.0.65). Checked against 1.0.102 (copilot-sdk/types.d.ts and the e2e tests).
    AgentEventSpec {
        agent: "userPromptSubmitted",
        hookhost: "UserPromptSubmit",
        block: BlockAs::Decision,
        context: ContextAs::TopLevel,
        ..BASE
    },
    AgentEventSpec {
        agent: "userPromptTransformed",
        hookhost: "UserPromptTransformed",
        ..BASE
    },
    // `modifiedArgs` and `additionalContext` are read since 1.0.24.
    AgentEventSpec {
        agent: "preToolUse",
        hookhost: "PreToolUse",
        block: BlockAs::Permission,
        ask: true,
        approve: true,
        rewrite: true,
        context: ContextAs::TopLevel,
        ..BASE
    },
    AgentEventSpec {
        agent: "permissionRequest",
        hookhost: "PermissionRequest",
        block: BlockAs::Behavior,
        approve: true,
        stop: true,
        ..BASE
    },
    AgentEventSpec {
        agent: "postToolUse",
        hookhost: "PostToolUse",
        block: BlockAs::Context,
        context: ContextAs::TopLevel,
        ..BASE
    },
    // `additionalContext` at exit 0 (1.0.102 ignores what an exit 2 prints).
    AgentEventSpec {
        agent: "postToolUseFailure",
        hookhost: "PostToolUseFailure",
        context: ContextAs::TopLevel,
        ..BASE
    },
    AgentEventSpec {
        agent: "agentStop",
        hookhost: "Stop",
        block: BlockAs::Decision,
        ..BASE
    },
    AgentEventSpec {
        agent: "subagentStart",
        hookhost: "SubagentStart",
        context: ContextAs::TopLevel,
        ..BASE
    },
    AgentEventSpec {
        agent: "subagentStop",
        hookhost: "SubagentStop",
        block: BlockAs::Decision,
        ..BASE
    },
    AgentEventSpec {
        agent: "preCompact",
        hookhost: "PreCompact",
        ..BASE
    },
    AgentEventSpec {
        agent: "errorOccurred",
        hookhost: "ErrorOccurred",
        ..BASE
    },
    AgentEventSpec {
        agent: "notification",
        hookhost: "Notification",
        context: ContextAs::TopLevel,
        ..BASE
    },
];

/// Not one of Copilot's events (only reachable through the library: `parse` refuses them).
pub static OTHER: AgentEventSpec = AgentEventSpec {
    agent: "(other)",
    hookhost: "(other)",
    ..BASE
};

/// Keys Copilot spells in snake_case even in its camelCase payloads.
const SNAKE_EVEN_IN_CAMEL: &[&str] = &["stop_hook_active", "notification_type", "hook_event_name"];

/// The event Copilot calls `name`: camelCase (`preToolUse`), PascalCase (`PreToolUse`, `Stop`)
/// or snake_case (`pre_tool_use`).
pub fn event(name: &str) -> Option<&'static AgentEventSpec> {
    let folded = |text: &str| text.replace('_', "").to_ascii_lowercase();
    let wanted = folded(name);
    EVENTS
        .iter()
        .find(|spec| folded(spec.agent) == wanted || folded(spec.hookhost) == wanted)
}

/// `sessionId` → `session_id`.
pub fn snake_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `session_id` → `sessionId`, except the keys Copilot spells in snake_case anyway.
pub(crate) fn camel_key(key: &str) -> String {
    if SNAKE_EVEN_IN_CAMEL.contains(&key) {
        return key.to_string();
    }
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        match (c, upper) {
            ('_', _) => upper = true,
            (c, true) => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            (c, false) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_convert_both_ways() {
        for (camel, snake) in [
            ("sessionId", "session_id"),
            ("transcriptPath", "transcript_path"),
            ("cwd", "cwd"),
            ("agentDisplayName", "agent_display_name"),
        ] {
            assert_eq!(snake_key(camel), snake);
            assert_eq!(camel_key(snake), camel);
        }
        assert_eq!(camel_key("stop_hook_active"), "stop_hook_active");
    }
}
