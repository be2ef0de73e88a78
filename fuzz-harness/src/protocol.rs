//! The command-hook protocols (forgeflare, claude, copilot, gemini, codex, cursor, exit-code):
//! what a hook process prints, and how it exits, read back into a verdict; and the stdin each
//! writes for a hook, read back by the agent's own parser.
//!
//! Input: `[0, protocol, event, exit code, stdout...]` (the seeds: answers as hook scripts
//! print them; stderr is a fixed reason), or `[1, arbitrary...]`: an event (name, tool call,
//! fields), a phase, an exit status or signal, stdout as bytes or as a JSON tree with the
//! protocols' answer keys, and stderr.
//!
//! Properties: no panic; the same output reads the same twice; a failure has a message; the
//! stdin is one JSON object; and an agent's parser reads the stdin its protocol wrote for the
//! same event (name, session, tool call and input).

use arbitrary::{Result, Unstructured};
use hookhost::agent::{AgentEvent, AgentFormat};
use hookhost::{Event, Phase, Protocol, ToolCall};
use serde_json::{Map, Value};

use crate::json::{self, Words};

/// The keys the protocols read from an answer, and those of the events they write.
const KEYS: &[&str] = &[
    "action",
    "reason",
    "decision",
    "continue",
    "stopReason",
    "systemMessage",
    "suppressOutput",
    "hookSpecificOutput",
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
    "behavior",
    "message",
    "interrupt",
    "permission",
    "user_message",
    "agent_message",
    "updated_input",
    "followup_message",
    "additional_context",
    "modifiedArgs",
    "signal",
    "context",
    "input",
    "stop",
    "tool_input",
    "llm_request",
    "llm_response",
    "toolConfig",
    "clearContext",
    "updatedPermissions",
    "updatedToolOutput",
    "updatedMCPToolOutput",
    "updated_mcp_tool_output",
    "command",
    "prompt",
    "result",
    "error",
];

const STRINGS: &[&str] = &[
    "allow",
    "approve",
    "deny",
    "ask",
    "block",
    "warn",
    "continue",
    "stop",
    "abort",
    "rewrite",
    "converged",
    "PreToolUse",
    "PostToolUse",
    "BeforeTool",
    "preToolUse",
    "Bash",
    "ls",
    "",
];

fn words() -> Words {
    Words {
        keys: KEYS,
        strings: STRINGS,
    }
}

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => raw(rest),
        _ => structured(rest),
    };
}

/// hookhost's names for events, built-in and custom: what the agents' tables map to.
pub fn event_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = crate::agent::FORMATS
        .iter()
        .flat_map(|format| crate::agent::events(*format))
        .map(|spec| spec.hookhost)
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

fn raw(rest: &[u8]) -> Result<()> {
    let [protocol, event, code, stdout @ ..] = rest else {
        return Ok(());
    };
    let protocol = crate::pick(&Protocol::ALL, *protocol).0;
    let name = crate::pick(&event_names(), *event);
    let input = serde_json::json!({"command": "rm -rf /"});
    let mut event = Event::new(name).with_session("s1");
    if matches!(
        name,
        "PreToolUse" | "PostToolUse" | "PermissionRequest" | "PostToolUseFailure"
    ) {
        event = event.with_tool(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 1,
        });
    }
    let code = i32::from(*code as i8);
    run(
        protocol,
        &event,
        Phase::Guard,
        (Some(code), None),
        stdout,
        "the reason, on stderr",
    );
    Ok(())
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    let protocol = crate::pick(&Protocol::ALL, u.arbitrary()?).0;
    let name: String = if u.ratio(7, 8)? {
        u.choose(&event_names())?.to_string()
    } else {
        u.arbitrary()?
    };
    let tool: Option<(String, Value)> = if u.arbitrary()? {
        let tool = crate::json::string(&mut u, words())?;
        Some((tool, json::value(&mut u, words(), 2)?))
    } else {
        None
    };
    let session: Option<String> = u.arbitrary()?;
    let fields: Map<String, Value> = json::object(&mut u, words(), 2)?;
    let phase = if u.arbitrary()? {
        Phase::Guard
    } else {
        Phase::Observe
    };
    let exit = match u.int_in_range(0..=3)? {
        0 => (Some(0), None),
        1 => (Some(2), None),
        2 => (Some(u.arbitrary()?), None),
        _ => (None, Some(u.arbitrary()?)),
    };
    let stdout = if u.arbitrary()? {
        json::value(&mut u, words(), 3)?.to_string().into_bytes()
    } else {
        u.arbitrary::<Vec<u8>>()?
    };
    let stderr: String = u.arbitrary()?;
    let mut event = Event::new(name.as_str());
    if let Some(id) = &session {
        event = event.with_session(id.as_str());
    }
    if let Some((tool, input)) = &tool {
        event = event.with_tool(ToolCall {
            tool,
            input,
            tool_iterations: 0,
        });
    }
    for (key, value) in fields {
        event = event.with_field(key, value);
    }
    run(protocol, &event, phase, exit, &stdout, &stderr);
    Ok(())
}

/// Reads `stdout`/`stderr` after `exit` in `protocol`, and writes the event's stdin.
pub fn run(
    protocol: Protocol,
    event: &Event<'_>,
    phase: Phase,
    exit: (Option<i32>, Option<i32>),
    stdout: &[u8],
    stderr: &str,
) {
    let answer = protocol.fuzz_answer(event, phase, exit, stdout, stderr);
    let again = protocol.fuzz_answer(event, phase, exit, stdout, stderr);
    assert_eq!(answer, again, "the same output read twice");
    if let Err(failure) = &answer {
        assert!(
            !failure.to_string().is_empty(),
            "a failure without a message"
        );
    }
    let stdin = protocol.fuzz_stdin(event, phase, "/p");
    let json: Value = serde_json::from_slice(&stdin)
        .unwrap_or_else(|e| panic!("{protocol}'s stdin is not JSON ({e})"));
    assert!(json.is_object(), "{protocol}'s stdin is not an object");
    if let Some(format) = agent_of(protocol) {
        read_back(format, event, &stdin);
    }
}

fn agent_of(protocol: Protocol) -> Option<AgentFormat> {
    AgentFormat::from_name(protocol.as_str())
}

/// The agent's parser reads what its protocol wrote: the same event, session and tool call.
fn read_back(format: AgentFormat, event: &Event<'_>, stdin: &[u8]) {
    let text = std::str::from_utf8(stdin).expect("serde_json writes UTF-8");
    let agent_name = crate::agent::events(format)
        .iter()
        .find(|spec| spec.hookhost == event.name())
        .map_or(event.name(), |spec| spec.agent);
    let parsed: AgentEvent = match hookhost::agent::parse_event(format, text, Some(agent_name)) {
        Ok(parsed) => parsed,
        // A custom name that looks like a misspelt built-in one is refused by every reader.
        Err(hookhost::agent::AgentError::UnknownEvent { .. }) => return,
        Err(error) => panic!("{format} cannot read its protocol's stdin: {error}\n{text}"),
    };
    // Copilot's reader folds case and underscores (its documentation spells events several
    // ways): a custom name that folds to a built-in one is that event to it.
    let folds_to_parsed = format == AgentFormat::Copilot
        && hookhost::agent::copilot::event(event.name())
            .is_some_and(|spec| spec.hookhost == parsed.name);
    if !folds_to_parsed {
        assert_eq!(
            parsed.name,
            event.name(),
            "{format}: the event's name\n{text}"
        );
    }
    assert_eq!(
        parsed.session_id.as_deref(),
        event.session_id(),
        "{format}: the session\n{text}"
    );
    let written = event
        .tool_call()
        .map(|call| (call.tool.to_string(), call.input.clone()));
    assert_eq!(parsed.tool, written, "{format}: the tool call\n{text}");
}
