//! Cursor's hook protocol (`protocol = "cursor"`), so that a script from `.cursor/hooks.json`
//! runs unchanged: Cursor's event names and payloads in, its flat answers out.
//!
//! stdin: `conversation_id`, `generation_id`, `model`, `hook_event_name` (Cursor's name:
//! `preToolUse` for PreToolUse, `beforeSubmitPrompt` for UserPromptSubmit, ...),
//! `cursor_version`, `workspace_roots` (the project's directory when the event has none), then
//! `tool_name`, `tool_input` (JSON text in a string on beforeMCPExecution and
//! afterMCPExecution, and for an input that is itself a string) and `cwd` for tool events,
//! `tool_output` (the result as a JSON string) for PostToolUse, `error_message` for
//! PostToolUseFailure, `subagent_type` for subagent events, and the event's other fields.
//!
//! The answer, as Cursor reads it (`dialect::cursor::EVENTS` says what it reads per event):
//! - exit 0: stdout is one JSON object: `permission` (`deny` refuses with `agent_message`, else
//!   `user_message`; `ask` where Cursor asks, a deny on subagentStart, nothing on preToolUse;
//!   `allow`), `updated_input`, `additional_context`, `followup_message` (stop, subagentStop:
//!   go on), `continue: false` (beforeSubmitPrompt), `user_message` (preCompact). Claude
//!   Code's answers, which Cursor also reads, count too (`decision: "block"`,
//!   `hookSpecificOutput.permissionDecision`). Empty stdout is no answer; anything else fails
//!   the hook (Cursor lets the action through unless the entry sets `failClosed`);
//! - exit 2: a deny with stderr as the reason where Cursor reads a permission or `continue`;
//!   elsewhere a warning;
//! - any other status: a failed hook.

use serde_json::{Map, Value};

use super::{HookEvent, ProcessOutput};
use crate::dialect::cursor::{STRING_TOOL_INPUT, agent_name};
use crate::dialect::{AgentEventSpec, AgentFormat, BlockAs, ContextAs, fit_catalog};
use crate::verdict::{Answer, HookFailure, Verdict};

/// Fields written first (or renamed), not again with the rest.
const WRITTEN: &[&str] = &[
    "conversation_id",
    "generation_id",
    "model",
    "cursor_version",
    "workspace_roots",
    "cwd",
    "tool_iterations",
    "is_error",
];

/// Answers from Cursor's other hook points that hookhost's model has no place for.
const UNREAD: &[&str] = &["updated_mcp_tool_output", "env", "pluginPaths"];

/// The stdin JSON of a Cursor hook.
pub(crate) fn stdin(view: &HookEvent<'_>) -> Vec<u8> {
    super::to_json(view, write)
}

fn write(view: &HookEvent<'_>, map: &mut super::Entries<'_, '_>) -> serde_json::Result<()> {
    let event = view.event;
    let name = agent_name(event.name());
    // Cursor's session is its conversation (an event read from Cursor has both, the same).
    map.session("conversation_id", event.session_id())?;
    for field in ["generation_id", "model"] {
        if let Some(value) = event.field(field) {
            map.serialize_entry(field, value)?;
        }
    }
    map.serialize_entry("hook_event_name", name)?;
    if let Some(version) = event.field("cursor_version") {
        map.serialize_entry("cursor_version", version)?;
    }
    match event.field("workspace_roots") {
        Some(roots) => map.serialize_entry("workspace_roots", roots)?,
        None => map.serialize_entry("workspace_roots", &[view.cwd])?,
    }
    if let Some(call) = view.call {
        map.serialize_entry("tool_name", call.tool)?;
        // A string `tool_input` is JSON text to Cursor (and to hookhost's Cursor reader, which
        // refuses one that is not): an input that is itself a string is written encoded too,
        // never as raw text a script's JSON.parse would fail on (found by fuzzing, `protocol`).
        match call.input {
            input if input.is_string() || STRING_TOOL_INPUT.contains(&name) => {
                map.serialize_entry("tool_input", &input.to_string())?;
            }
            input => map.serialize_entry("tool_input", input)?,
        }
    }
    if view.call.is_some() || event.field("cwd").is_some() {
        match event.field("cwd") {
            Some(cwd) => map.serialize_entry("cwd", cwd)?,
            None => map.serialize_entry("cwd", view.cwd)?,
        }
    }
    let subagent = event.field("subagent_type").is_some();
    for (field, value) in event.fields() {
        match field {
            _ if WRITTEN.contains(&field) => {}
            // Cursor's payload carries them as subagent_type and subagent_id.
            "agent_type" | "agent_id" if subagent => {}
            "agent_type" => map.serialize_entry("subagent_type", value)?,
            "agent_id" => map.serialize_entry("subagent_id", value)?,
            "result" if view.call.is_some() => {
                // "JSON-stringified result payload from the tool".
                map.serialize_entry("tool_output", &value.to_string())?;
            }
            "error" if event.name() == "PostToolUseFailure" => {
                map.serialize_entry("error_message", value)?;
            }
            // A field of that name on an event without a tool call (a custom event's payload):
            // a string is JSON text under this key, as above (found by fuzzing, `protocol`).
            "tool_input" if value.is_string() => {
                map.serialize_entry(field, &value.to_string())?;
            }
            _ => map.serialize_entry(field, value)?,
        }
    }
    Ok(())
}

/// Reads a finished Cursor hook.
pub(crate) fn answer(view: &HookEvent<'_>, output: &ProcessOutput) -> Result<Verdict, HookFailure> {
    let spec = AgentFormat::Cursor.spec(view.event.name());
    let verdict = match output.code {
        Some(0) => from_stdout(spec, &String::from_utf8_lossy(&output.stdout))?,
        Some(2) => {
            let stderr = output.stderr.trim();
            match spec.block {
                BlockAs::Permission | BlockAs::EndSession => Verdict::block(if stderr.is_empty() {
                    format!("blocked by a {} hook (exit status 2)", spec.agent)
                } else {
                    stderr.to_string()
                }),
                _ if stderr.is_empty() => Verdict::allow(),
                _ => Verdict::warn(stderr),
            }
        }
        _ => return Err(output.failure().unwrap_or(HookFailure::Exited { code: -1 })),
    };
    Ok(fit_catalog(verdict, view.spec, view.event.name()))
}

fn from_stdout(spec: &AgentEventSpec, stdout: &str) -> Result<Verdict, HookFailure> {
    let text = stdout.trim();
    if text.is_empty() {
        return Ok(Verdict::allow());
    }
    let Ok(Value::Object(json)) = serde_json::from_str::<Value>(text) else {
        return Err(HookFailure::InvalidOutput {
            detail: format!(
                "{} is not a JSON object (Cursor lets the action through unless the hook sets failClosed)",
                crate::text::quote(text)
            ),
        });
    };
    let string = |object: &Map<String, Value>, key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let specific = json.get("hookSpecificOutput").and_then(Value::as_object);
    let reason = string(&json, "agent_message")
        .or_else(|| string(&json, "user_message"))
        .or_else(|| specific.and_then(|s| string(s, "permissionDecisionReason")))
        .or_else(|| string(&json, "reason"));
    let default = || format!("blocked by a {} hook", spec.agent);
    let mut verdict = Verdict::allow();
    let permission = string(&json, "permission")
        .or_else(|| specific.and_then(|s| string(s, "permissionDecision")))
        .or_else(|| (string(&json, "decision").as_deref() == Some("block")).then(|| "deny".into()));
    if spec.block == BlockAs::Permission {
        verdict.answer = match permission.as_deref() {
            Some("deny") => Answer::Block(reason.clone().unwrap_or_else(default)),
            Some("ask") if spec.ask => Answer::Ask(reason.clone().unwrap_or_else(default)),
            // subagentStart treats an ask as a deny.
            Some("ask") if spec.hookhost == "SubagentStart" => {
                Answer::Block(reason.clone().unwrap_or_else(default))
            }
            Some("allow") if spec.approve => Answer::Approve,
            _ => Answer::Allow,
        };
        if spec.rewrite
            && let Some(input) = json.get("updated_input").filter(|input| !input.is_null())
        {
            verdict.updated_input = Some(input.clone());
        }
    }
    match spec.block {
        BlockAs::Decision => {
            if let Some(followup) = string(&json, "followup_message") {
                verdict.answer = Answer::Block(followup);
            }
        }
        BlockAs::EndSession
            if json.get("continue") == Some(&Value::Bool(false))
                || permission.as_deref() == Some("deny") =>
        {
            verdict.answer = Answer::Block(
                string(&json, "user_message")
                    .or(reason)
                    .unwrap_or_else(default),
            );
        }
        _ => {}
    }
    if spec.context == ContextAs::TopLevel {
        verdict.context = string(&json, "additional_context")
            .or_else(|| string(&json, "additionalContext"))
            .or_else(|| specific.and_then(|s| string(s, "additionalContext")));
    }
    if spec.message {
        verdict.message = string(&json, "user_message");
    }
    let unread: Vec<&str> = UNREAD
        .iter()
        .copied()
        .filter(|key| json.contains_key(*key))
        .collect();
    if !unread.is_empty() {
        verdict.note = Some(format!("{} is not read by hookhost", unread.join(", ")));
    }
    Ok(verdict)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::test_support::{assert_answers, out, view};
    use crate::{Event, ToolCall};

    #[test]
    fn stdin_uses_cursor_names_and_shapes() {
        let input = json!({"command": "npm install", "working_directory": "/p"});
        let call = ToolCall {
            tool: "Shell",
            input: &input,
            tool_iterations: 0,
        };
        let pre = Event::pre_tool_use(call)
            .with_session("c1")
            .with_field("generation_id", "g1")
            .with_field("tool_use_id", "abc");
        assert_eq!(
            String::from_utf8(stdin(&view(&pre))).unwrap(),
            r#"{"conversation_id":"c1","generation_id":"g1","hook_event_name":"preToolUse","workspace_roots":["/p"],"tool_name":"Shell","tool_input":{"command":"npm install","working_directory":"/p"},"cwd":"/p","tool_use_id":"abc"}"#
        );
        let post = Event::new("PostToolUse")
            .with_tool(call)
            .with_field("result", json!({"exitCode": 0}));
        assert_eq!(
            String::from_utf8(stdin(&view(&post))).unwrap(),
            r#"{"hook_event_name":"postToolUse","workspace_roots":["/p"],"tool_name":"Shell","tool_input":{"command":"npm install","working_directory":"/p"},"cwd":"/p","tool_output":"{\"exitCode\":0}"}"#
        );
        let mcp_input = json!({"query": "SELECT 1"});
        let mcp = Event::new("beforeMCPExecution").with_tool(ToolCall {
            tool: "db",
            input: &mcp_input,
            tool_iterations: 0,
        });
        assert_eq!(
            String::from_utf8(stdin(&view(&mcp))).unwrap(),
            r#"{"hook_event_name":"beforeMCPExecution","workspace_roots":["/p"],"tool_name":"db","tool_input":"{\"query\":\"SELECT 1\"}","cwd":"/p"}"#
        );
        let subagent = Event::new("SubagentStart").with_field("agent_type", "explore");
        assert_eq!(
            String::from_utf8(stdin(&view(&subagent))).unwrap(),
            r#"{"hook_event_name":"subagentStart","workspace_roots":["/p"],"subagent_type":"explore"}"#
        );
    }

    /// Regression (fuzzing, `protocol`: fuzz/corpus/protocol/regression-cursor-string-tool-input):
    /// an input that is itself a string was written as raw text, which Cursor's reader (a
    /// script's JSON.parse, hookhost's `--format cursor`) refuses or reads as something else.
    /// (`agent::cursor`'s tests read each of these back through hookhost's Cursor reader.)
    #[test]
    fn a_string_tool_input_is_written_as_json_text() {
        #[rustfmt::skip]
        let cases: [(&str, &str, Value, &str); 5] = [
            ("a string that is not JSON", "PreToolUse", json!("s"), r#""tool_input":"\"s\"""#),
            ("a string that looks like JSON", "PreToolUse", json!(r#"{"a":1}"#), r#""tool_input":"\"{\\\"a\\\":1}\"""#),
            ("an MCP string", "beforeMCPExecution", json!("ls"), r#""tool_input":"\"ls\"""#),
            ("MCP parameters", "beforeMCPExecution", json!({"sql": "SELECT 1"}), r#""tool_input":"{\"sql\":\"SELECT 1\"}""#),
            ("an object", "PreToolUse", json!({"command": "ls"}), r#""tool_input":{"command":"ls"}"#),
        ];
        for (name, event, input, written) in cases {
            let event = Event::new(event).with_tool(ToolCall {
                tool: "t",
                input: &input,
                tool_iterations: 0,
            });
            let text = String::from_utf8(stdin(&view(&event))).unwrap();
            assert!(text.contains(written), "{name}: {text}");
        }
    }

    /// Regression (fuzzing, `protocol`: fuzz/corpus/protocol/regression-cursor-tool-input-field):
    /// an event without a tool call whose payload has a string field named `tool_input` wrote
    /// it as raw text under the key Cursor reads as JSON text.
    #[test]
    fn a_string_field_named_tool_input_is_written_as_json_text() {
        let event = Event::new("WorktreeCreate").with_field("tool_input", json!("e"));
        let text = String::from_utf8(stdin(&view(&event))).unwrap();
        assert!(text.contains(r#""tool_input":"\"e\"""#), "{text}");
        let event = Event::new("WorktreeCreate").with_field("tool_input", json!({"a": 1}));
        let text = String::from_utf8(stdin(&view(&event))).unwrap();
        assert!(text.contains(r#""tool_input":{"a":1}"#), "{text}");
    }

    #[test]
    fn answers_as_cursor_reads_them() {
        let input = json!({"command": "ls"});
        let call = ToolCall {
            tool: "Shell",
            input: &input,
            tool_iterations: 0,
        };
        let (pre, shell, post, prompt, stop, compact, read) = (
            Event::pre_tool_use(call),
            Event::new("beforeShellExecution").with_field("command", "ls"),
            Event::post_tool_use(call, "r", false),
            Event::user_prompt_submit("p"),
            Event::new("Stop"),
            Event::new("PreCompact"),
            Event::new("beforeReadFile"),
        );
        #[rustfmt::skip]
        let cases: Vec<(&str, &Event<'_>, ProcessOutput, Result<Verdict, ()>)> = vec![
            ("nothing", &pre, out(0, "", ""), Ok(Verdict::allow())),
            ("an empty object", &pre, out(0, "{}", ""), Ok(Verdict::allow())),
            ("deny with the agent's message", &pre, out(0, r#"{"permission":"deny","user_message":"blocked","agent_message":"use npm ci"}"#, ""), Ok(Verdict::block("use npm ci"))),
            ("deny with the user's message", &pre, out(0, r#"{"permission":"deny","user_message":"blocked"}"#, ""), Ok(Verdict::block("blocked"))),
            ("ask is not enforced on preToolUse", &pre, out(0, r#"{"permission":"ask"}"#, ""), Ok(Verdict::allow())),
            ("allow", &pre, out(0, r#"{"permission":"allow"}"#, ""), Ok(Verdict::approve())),
            ("updated input", &pre, out(0, r#"{"updated_input":{"command":"ls -a"}}"#, ""), Ok(Verdict::allow().with_updated_input(json!({"command":"ls -a"})))),
            ("a Claude-shaped deny", &pre, out(0, r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}"#, ""), Ok(Verdict::block("no"))),
            ("not JSON fails", &pre, out(0, "nope", ""), Err(())),
            ("exit 2 denies", &pre, out(2, "", "no rm\n"), Ok(Verdict::block("no rm"))),
            ("exit 1 fails", &pre, out(1, "", ""), Err(())),
            ("shell ask", &shell, out(0, r#"{"permission":"ask","user_message":"sure?"}"#, ""), Ok(Verdict::ask("sure?"))),
            ("post context", &post, out(0, r#"{"additional_context":"coverage 80%"}"#, ""), Ok(Verdict::allow().with_context("coverage 80%"))),
            ("post exit 2 warns", &post, out(2, "", "odd"), Ok(Verdict::warn("odd"))),
            ("prompt blocked", &prompt, out(0, r#"{"continue":false,"user_message":"no secrets"}"#, ""), Ok(Verdict::block("no secrets"))),
            ("prompt continue true", &prompt, out(0, r#"{"continue":true}"#, ""), Ok(Verdict::allow())),
            ("prompt exit 2 blocks", &prompt, out(2, "", "nope"), Ok(Verdict::block("nope"))),
            ("stop followup", &stop, out(0, r#"{"followup_message":"run the tests"}"#, ""), Ok(Verdict::block("run the tests"))),
            ("stop exit 2 is nothing", &stop, out(2, "", ""), Ok(Verdict::allow())),
            ("compaction message", &compact, out(0, r#"{"user_message":"compacting"}"#, ""), Ok(Verdict::allow().with_message("compacting"))),
            ("read deny", &read, out(0, r#"{"permission":"deny"}"#, ""), Ok(Verdict::block("blocked by a beforeReadFile hook"))),
        ];
        assert_answers(answer, cases);
    }
}
