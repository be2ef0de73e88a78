//! Cursor (`--format cursor`), per cursor.com/docs/hooks (`.cursor/hooks.json`, version 1).
//!
//! Its payloads are snake_case with camelCase event names (`hook_event_name: "preToolUse"`):
//! `conversation_id` is the session (`session_id` where Cursor sends one), the first of
//! `workspace_roots` the project whose hooks run (the payload's own `cwd`, a tool's working
//! directory, stays a field). `tool_input` given as a JSON string (beforeMCPExecution) is the
//! tool's input parsed; `tool_output`, a JSON string too, is the payload's `result`;
//! postToolUseFailure's `error_message` is `error`; `subagent_type` and `subagent_id` are also
//! `agent_type` and `agent_id`, which hookhost's subagent matchers compare.
//!
//! Answers are flat, and always one JSON object (`{}` for no objection: Cursor counts empty
//! stdout as a failed hook, which an entry with `failClosed` reads as a deny): `permission`
//! (`deny` with `user_message` and `agent_message`; `ask` where Cursor asks;
//! `allow` for a guard's approval) and `updated_input` on preToolUse; `followup_message` on stop
//! and subagentStop (the next user message); `continue: false` with `user_message` on
//! beforeSubmitPrompt; `additional_context` on postToolUse and sessionStart; `user_message` on
//! preCompact. An ask on preToolUse, where Cursor does not enforce one, refuses the call.

use serde_json::{Map, Value, json};

use super::{
    AgentError, AgentEvent, AgentEventSpec, AgentFormat, AgentReply, BlockAs, ContextAs, Plan,
    from_snake, given_name, resolve_name, type_name,
};

/// Cursor's table, in [`crate::dialect::cursor`].
pub use crate::dialect::cursor::{EVENTS, OTHER, agent_name};

/// Reads Cursor's payload.
pub(super) fn parse(
    mut object: Map<String, Value>,
    event: Option<&str>,
) -> Result<AgentEvent, AgentError> {
    let given = given_name(
        AgentFormat::Cursor,
        &object,
        event,
        "the payload has no hook_event_name; pass --event NAME",
    )?;
    let name = resolve_name(AgentFormat::Cursor, given)?;
    let field_error = |field: &'static str, found: &Value| AgentError::Field {
        agent: AgentFormat::Cursor.agent(),
        field,
        expected: "a string",
        found: type_name(found),
    };
    if !object.contains_key("session_id")
        && let Some(conversation) = object.get("conversation_id").cloned()
    {
        object.insert("session_id".into(), conversation);
    }
    // The project is the workspace root; the payload's `cwd` is its tool's directory.
    let tool_cwd = object.remove("cwd");
    let root = match object.get("workspace_roots") {
        None | Some(Value::Null) => None,
        Some(Value::Array(roots)) => match roots.first() {
            None => None,
            Some(Value::String(root)) => Some(Value::String(root.clone())),
            Some(other) => return Err(field_error("workspace_roots", other)),
        },
        Some(other) => {
            return Err(AgentError::Field {
                agent: AgentFormat::Cursor.agent(),
                field: "workspace_roots",
                expected: "a list of paths",
                found: type_name(other),
            });
        }
    };
    if let Some(cwd) = root.or_else(|| tool_cwd.clone()) {
        object.insert("cwd".into(), cwd);
    }
    // "tool_input": "<json params>" on beforeMCPExecution and afterMCPExecution.
    // Input that cannot be read is refused, never passed on as a string in which a guard
    // would find no command.
    if let Some(Value::String(text)) = object.get("tool_input") {
        let parsed = super::json::parse(text).map_err(|source| AgentError::EmbeddedJson {
            agent: AgentFormat::Cursor.agent(),
            field: "tool_input",
            source,
        })?;
        object.insert("tool_input".into(), parsed);
    }
    if let Some(output) = object.remove("tool_output") {
        let output = match output {
            Value::String(text) => super::json::parse(&text).unwrap_or(Value::String(text)),
            other => other,
        };
        object.insert("tool_result".into(), output);
    }
    if name == "PostToolUseFailure"
        && let Some(error) = object.remove("error_message")
    {
        object.insert("error".into(), error);
    }
    for (cursor_key, key) in [("subagent_type", "agent_type"), ("subagent_id", "agent_id")] {
        if let Some(value) = object.get(cursor_key).cloned() {
            object.entry(key).or_insert(value);
        }
    }
    let mut event = from_snake(AgentFormat::Cursor, name, object)?;
    if let Some(cwd) = tool_cwd {
        event.fields.push(("cwd".to_string(), cwd));
    }
    Ok(event)
}

/// Cursor's answer for `plan`.
pub(super) fn render(spec: &AgentEventSpec, plan: &mut Plan) -> AgentReply {
    let mut out = Map::new();
    match (spec.block, &plan.block) {
        (BlockAs::Permission, _) => {
            let (permission, reason) = match (&plan.block, &plan.ask) {
                (Some(reason), _) => (Some("deny"), Some(reason)),
                (None, Some(reason)) => (Some("ask"), Some(reason)),
                (None, None) if plan.approve => (Some("allow"), None),
                (None, None) => (None, None),
            };
            if let Some(permission) = permission {
                out.insert("permission".into(), json!(permission));
            }
            if let Some(reason) = reason {
                out.insert("user_message".into(), json!(reason));
                out.insert("agent_message".into(), json!(reason));
            }
            if let Some(input) = &plan.rewrite {
                out.insert("updated_input".into(), input.clone());
            }
        }
        (BlockAs::Decision, Some(reason)) => {
            out.insert("followup_message".into(), json!(reason));
        }
        (BlockAs::EndSession, Some(reason)) => {
            out.insert("continue".into(), json!(false));
            out.insert("user_message".into(), json!(reason));
        }
        _ => {}
    }
    if let (ContextAs::TopLevel, Some(context)) = (spec.context, &plan.context) {
        out.insert("additional_context".into(), json!(context));
    }
    if let Some(message) = &plan.message
        && !out.contains_key("user_message")
    {
        out.insert("user_message".into(), json!(message));
    }
    AgentReply {
        stdout: Value::Object(out).to_string(),
        ..AgentReply::default()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::parse_event;
    use super::super::test_support::{assert_reply, outcome, reply};
    use super::*;
    use crate::Verdict;

    /// What hookhost writes for a Cursor command hook, this reader reads back: a tool input
    /// that is itself a string included (fuzzing, `protocol`:
    /// fuzz/corpus/protocol/regression-cursor-string-tool-input).
    #[test]
    fn every_tool_input_hookhost_writes_reads_back() {
        use hookhost_core::{Event, Phase, Protocol, ToolCall};
        #[rustfmt::skip]
        let cases: [(&str, &str, Value); 5] = [
            ("a string that is not JSON", "PreToolUse", json!("s")),
            ("a string that looks like JSON", "PreToolUse", json!(r#"{"a":1}"#)),
            ("an MCP string", "beforeMCPExecution", json!("ls")),
            ("MCP parameters", "beforeMCPExecution", json!({"sql": "SELECT 1"})),
            ("an object", "PreToolUse", json!({"command": "ls"})),
        ];
        for (name, event, input) in cases {
            let event = Event::new(event).with_tool(ToolCall {
                tool: "t",
                input: &input,
                tool_iterations: 0,
            });
            let text = Protocol::Cursor.fuzz_stdin(&event, Phase::Guard, "/w");
            let text = String::from_utf8(text).unwrap();
            let read = parse_event(AgentFormat::Cursor, &text, None)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            assert_eq!(read.tool, Some(("t".to_string(), input)), "{name}");
        }
    }

    #[test]
    fn payloads_become_events() {
        #[rustfmt::skip]
        #[allow(clippy::type_complexity)] // a table of cases
        let cases: Vec<(&str, &str, &str, Option<(&str, Value)>, Vec<(&str, Value)>)> = vec![
            ("preToolUse", r#"{"conversation_id":"c1","generation_id":"g1","model":"m","hook_event_name":"preToolUse","cursor_version":"2.4.0","workspace_roots":["/w"],"user_email":null,"transcript_path":null,"tool_name":"Shell","tool_input":{"command":"npm install","working_directory":"/w/app"},"tool_use_id":"abc","cwd":"/w/app","agent_message":"Installing"}"#,
                "PreToolUse", Some(("Shell", json!({"command":"npm install","working_directory":"/w/app"}))), vec![("cwd", json!("/w/app")), ("conversation_id", json!("c1"))]),
            ("MCP input as a JSON string", r#"{"conversation_id":"c1","hook_event_name":"beforeMCPExecution","workspace_roots":["/w"],"tool_name":"query","tool_input":"{\"sql\":\"SELECT 1\"}","url":"http://localhost:3000"}"#,
                "beforeMCPExecution", Some(("query", json!({"sql":"SELECT 1"}))), vec![("url", json!("http://localhost:3000"))]),
            ("tool output is the result", r#"{"conversation_id":"c1","hook_event_name":"postToolUse","workspace_roots":["/w"],"tool_name":"Shell","tool_input":{"command":"ls"},"tool_output":"{\"exitCode\":0,\"stdout\":\"a\"}","duration":12}"#,
                "PostToolUse", Some(("Shell", json!({"command":"ls"}))), vec![("result", json!({"exitCode":0,"stdout":"a"}))]),
            ("failure error", r#"{"conversation_id":"c1","hook_event_name":"postToolUseFailure","workspace_roots":["/w"],"tool_name":"Shell","tool_input":{},"error_message":"timed out","failure_type":"timeout"}"#,
                "PostToolUseFailure", Some(("Shell", json!({}))), vec![("error", json!("timed out"))]),
            ("subagent type", r#"{"conversation_id":"c1","hook_event_name":"subagentStart","workspace_roots":["/w"],"subagent_id":"s-1","subagent_type":"explore","task":"t"}"#,
                "SubagentStart", None, vec![("agent_type", json!("explore")), ("agent_id", json!("s-1")), ("subagent_type", json!("explore"))]),
            ("shell command", r#"{"conversation_id":"c1","hook_event_name":"beforeShellExecution","workspace_roots":["/w"],"command":"git status","cwd":"/w","sandbox":false}"#,
                "beforeShellExecution", None, vec![("command", json!("git status")), ("cwd", json!("/w"))]),
            ("prompt", r#"{"conversation_id":"c1","hook_event_name":"beforeSubmitPrompt","workspace_roots":["/w"],"prompt":"hi","attachments":[]}"#,
                "UserPromptSubmit", None, vec![("prompt", json!("hi"))]),
            ("stop", r#"{"conversation_id":"c1","hook_event_name":"stop","workspace_roots":["/w"],"status":"completed","loop_count":0}"#,
                "Stop", None, vec![("status", json!("completed"))]),
        ];
        for (name, stdin, expected, tool, fields) in cases {
            let event = parse_event(AgentFormat::Cursor, stdin, None)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(event.name, expected, "{name}");
            assert_eq!(event.session_id.as_deref(), Some("c1"), "{name}");
            assert_eq!(
                event.cwd.as_deref(),
                Some(std::path::Path::new("/w")),
                "{name}"
            );
            assert_eq!(event.tool, tool.map(|(t, i)| (t.to_string(), i)), "{name}");
            for (key, value) in fields {
                assert!(
                    event.fields.iter().any(|(k, v)| k == key && *v == value),
                    "{name}: {key} = {value} not in {:?}",
                    event.fields
                );
            }
        }
        let error = parse_event(
            AgentFormat::Cursor,
            r#"{"hook_event_name":"stop","workspace_roots":"/w"}"#,
            None,
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the Cursor event's `workspace_roots` must be a list of paths, found string"
        );
    }

    #[test]
    fn answers_as_cursor_reads_them() {
        let input = json!({"command": "npm install"});
        #[rustfmt::skip]
        #[allow(clippy::type_complexity)] // a table of cases
        let cases: Vec<(&str, &str, Vec<(&str, Verdict)>, (&str, &str, u8))> = vec![
            ("nothing to say is an empty object", "PreToolUse", vec![("g", Verdict::allow())], ("{}", "", 0)),
            ("deny", "PreToolUse", vec![("g", Verdict::block("no"))],
                (r#"{"permission":"deny","user_message":"blocked by g: no","agent_message":"blocked by g: no"}"#, "", 0)),
            ("an ask on preToolUse is a deny", "PreToolUse", vec![("g", Verdict::ask("prod?"))],
                (r#"{"permission":"deny","user_message":"hookhost: g: prod? asks to confirm this call, which the agent cannot ask its user on preToolUse; refused rather than run unconfirmed","agent_message":"hookhost: g: prod? asks to confirm this call, which the agent cannot ask its user on preToolUse; refused rather than run unconfirmed"}"#, "", 0)),
            ("approve", "PreToolUse", vec![("g", Verdict::approve())], (r#"{"permission":"allow"}"#, "", 0)),
            ("rewrite", "PreToolUse", vec![("g", Verdict::allow().with_updated_input(json!({"command":"npm ci"})))], (r#"{"updated_input":{"command":"npm ci"}}"#, "", 0)),
            ("shell ask", "beforeShellExecution", vec![("g", Verdict::ask("sure?"))],
                (r#"{"permission":"ask","user_message":"g: sure?","agent_message":"g: sure?"}"#, "", 0)),
            ("post block is context", "PostToolUse", vec![("g", Verdict::block("a secret"))], (r#"{"additional_context":"blocked by g: a secret"}"#, "", 0)),
            ("prompt block", "UserPromptSubmit", vec![("g", Verdict::block("secret"))], (r#"{"continue":false,"user_message":"blocked by g: secret"}"#, "", 0)),
            ("prompt context is dropped", "UserPromptSubmit", vec![("g", Verdict::allow().with_context("c"))], ("{}", "hookhost: Cursor does not read context (c) on beforeSubmitPrompt\n", 0)),
            ("stop followup", "Stop", vec![("g", Verdict::block("run the tests"))], (r#"{"followup_message":"run the tests"}"#, "", 0)),
            ("subagent stop followup", "SubagentStop", vec![("g", Verdict::block("again"))], (r#"{"followup_message":"again"}"#, "", 0)),
            ("session context", "SessionStart", vec![("g", Verdict::allow().with_context("branch main"))], (r#"{"additional_context":"branch main"}"#, "", 0)),
            ("compaction message", "PreCompact", vec![("g", Verdict::warn("compacting"))], (r#"{"user_message":"g: compacting"}"#, "", 0)),
            ("a warning elsewhere goes to stderr", "PreToolUse", vec![("g", Verdict::warn("slow"))], ("{}", "hookhost: g: slow\n", 0)),
            ("an observer event says nothing", "afterFileEdit", vec![("g", Verdict::block("x"))], ("{}", "hookhost: Cursor does not read a block (blocked by g: x) on afterFileEdit\n", 0)),
        ];
        for (name, event, verdicts, expected) in cases {
            let got = reply(
                AgentFormat::Cursor,
                event,
                Some(&input),
                &outcome(event, &verdicts),
            );
            assert_reply(name, &got, expected);
        }
    }
}
