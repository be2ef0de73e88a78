//! Gemini CLI's hook protocol (`protocol = "gemini"`), so that a script from
//! `.gemini/settings.json` runs unchanged: Gemini's event names and answers.
//!
//! stdin: `session_id`, `transcript_path`, `cwd`, `hook_event_name` (Gemini's name:
//! `BeforeTool` for PreToolUse, ...), `timestamp` (ISO 8601), then `tool_name` and `tool_input`
//! for tool events, `tool_response` for PostToolUse, and the event's other fields.
//!
//! The answer, as Gemini reads it (`dialect::gemini::EVENTS` says what it reads per event):
//! - exit 0: stdout is JSON (a JSON string holding JSON too): `decision` (`deny`/`block`
//!   refuse with `stopReason` or `reason`, `ask`, `allow`), `continue: false`, `systemMessage`,
//!   `hookSpecificOutput.additionalContext`, and `hookSpecificOutput.tool_input`, which
//!   replaces the tool's input as Gemini CLI 0.61 replaces it (its documentation says it is
//!   merged). Stdout that is not JSON is a message for the user, and the action goes on;
//! - exit 2: a refusal with stderr as the reason (where the event can be refused; elsewhere a
//!   warning); stdout is not read;
//! - any other status: a hook failure (Gemini: a warning, the action goes on).

use serde_json::{Map, Value, json};

use super::{HookEvent, ProcessOutput};
use crate::dialect::gemini::agent_name;
use crate::dialect::{AgentEventSpec, AgentFormat, BlockAs, ContextAs, fit_catalog};
use crate::verdict::{Answer, HookFailure, Verdict};

/// Answers from the agent's other hook points that hookhost's model has no place for.
const UNREAD: &[&str] = &[
    "tool_output",
    "llm_request",
    "llm_response",
    "toolConfig",
    "clearContext",
];

/// The stdin JSON of a Gemini CLI hook.
pub(crate) fn stdin(view: &HookEvent<'_>) -> Vec<u8> {
    super::to_json(view, write)
}

fn write(view: &HookEvent<'_>, map: &mut super::Entries<'_, '_>) -> serde_json::Result<()> {
    let event = view.event;
    super::serialize_session(map, view)?;
    map.serialize_entry("hook_event_name", agent_name(event.name()))?;
    match event.field("timestamp") {
        Some(stamp @ Value::String(_)) => map.serialize_entry("timestamp", stamp)?,
        // ISO 8601 in UTC, as Gemini sends it.
        _ => map.serialize_entry(
            "timestamp",
            &humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        )?,
    }
    if let Some(call) = view.call {
        map.serialize_entry("tool_name", call.tool)?;
        map.serialize_entry("tool_input", call.input)?;
    }
    for (name, value) in event.fields() {
        match name {
            "transcript_path" | "timestamp" | "tool_iterations" | "is_error" | "cwd" => {}
            "result" if view.call.is_some() => match value {
                // hookhost's own PostToolUse result is text: give it Gemini's shape.
                Value::String(text) => {
                    let mut response = json!({ "llmContent": text, "returnDisplay": text });
                    if event.field("is_error") == Some(&Value::Bool(true)) {
                        response["error"] = json!(text);
                    }
                    map.serialize_entry("tool_response", &response)?;
                }
                other => map.serialize_entry("tool_response", other)?,
            },
            _ => map.serialize_entry(name, value)?,
        }
    }
    Ok(())
}

/// Reads a finished Gemini CLI hook.
pub(crate) fn answer(view: &HookEvent<'_>, output: &ProcessOutput) -> Result<Verdict, HookFailure> {
    let spec = AgentFormat::Gemini.spec(view.event.name());
    let verdict = match output.code {
        Some(0) => from_stdout(view, spec, &String::from_utf8_lossy(&output.stdout)),
        Some(2) => {
            let stderr = output.stderr.trim();
            let reason = if stderr.is_empty() {
                format!("blocked by a {} hook (exit status 2)", spec.agent)
            } else {
                stderr.to_string()
            };
            match spec.block {
                BlockAs::Decision => Verdict::block(reason),
                _ => Verdict::warn(reason),
            }
        }
        _ => return Err(output.failure().unwrap_or(HookFailure::Exited { code: -1 })),
    };
    Ok(fit_catalog(verdict, view.spec, view.event.name()))
}

fn from_stdout(view: &HookEvent<'_>, spec: &AgentEventSpec, stdout: &str) -> Verdict {
    let text = stdout.trim();
    if text.is_empty() {
        return Verdict::allow();
    }
    let value = match serde_json::from_str::<Value>(text) {
        // A JSON string holding JSON (double-encoded) is read too.
        Ok(Value::String(inner)) => {
            serde_json::from_str::<Value>(&inner).unwrap_or(Value::String(inner))
        }
        Ok(value) => value,
        Err(_) => Value::String(text.to_string()),
    };
    let Value::Object(json) = value else {
        // Gemini: output that is not JSON is a message for the user; the action goes on.
        return Verdict::allow().with_message(text);
    };
    let string = |object: &Map<String, Value>, key: &str| {
        object.get(key).and_then(Value::as_str).map(str::to_string)
    };
    let mut verdict = Verdict::allow();
    let reason = string(&json, "stopReason").or_else(|| string(&json, "reason"));
    let default = || format!("blocked by a {} hook", spec.agent);
    verdict.answer = match json.get("decision").and_then(Value::as_str) {
        Some("deny" | "block") if spec.block == BlockAs::Decision => {
            Answer::Block(reason.clone().unwrap_or_else(default))
        }
        // A Gemini script's ask is an ask (hookhost decides what to tell the calling agent;
        // the table's `ask` says Gemini itself is not asked).
        Some("ask") if spec.agent == "BeforeTool" => {
            Answer::Ask(string(&json, "reason").unwrap_or_else(default))
        }
        Some("allow" | "approve") if spec.approve => Answer::Approve,
        _ => Answer::Allow,
    };
    if spec.stop && json.get("continue") == Some(&Value::Bool(false)) {
        verdict.stop = Some(reason.unwrap_or_else(|| format!("stopped by a {} hook", spec.agent)));
    }
    if spec.message {
        verdict.message = string(&json, "systemMessage");
    }
    if let Some(Value::Object(specific)) = json.get("hookSpecificOutput") {
        if spec.context == ContextAs::Specific {
            verdict.context = string(specific, "additionalContext");
        }
        if let (true, Some(input @ Value::Object(_)), Some(_)) =
            (spec.rewrite, specific.get("tool_input"), view.call)
        {
            // Gemini CLI 0.61 builds the call from `tool_input` alone.
            verdict.updated_input = Some(input.clone());
        }
        let unread: Vec<&str> = UNREAD
            .iter()
            .copied()
            .filter(|key| specific.contains_key(*key))
            .collect();
        if !unread.is_empty() {
            verdict.note = Some(format!(
                "hookSpecificOutput.{} is not read by hookhost",
                unread.join(", hookSpecificOutput.")
            ));
        }
    }
    verdict
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::test_support::{assert_answers, out, view};
    use crate::{Event, ToolCall};

    #[test]
    fn stdin_uses_gemini_names() {
        let input = json!({"command": "ls"});
        let call = ToolCall {
            tool: "run_shell_command",
            input: &input,
            tool_iterations: 0,
        };
        let pre = Event::pre_tool_use(call)
            .with_session("s")
            .with_field("timestamp", "2025-12-01T10:30:00Z");
        assert_eq!(
            String::from_utf8(stdin(&view(&pre))).unwrap(),
            r#"{"session_id":"s","cwd":"/p","hook_event_name":"BeforeTool","timestamp":"2025-12-01T10:30:00Z","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#
        );
        let stop = Event::new("Stop")
            .with_field("timestamp", "t")
            .with_field("prompt_response", "done");
        assert_eq!(
            String::from_utf8(stdin(&view(&stop))).unwrap(),
            r#"{"cwd":"/p","hook_event_name":"AfterAgent","timestamp":"t","prompt_response":"done"}"#
        );
    }

    #[test]
    fn answers_as_gemini_reads_them() {
        let input = json!({"command": "rm -rf /", "dir_path": "."});
        let call = ToolCall {
            tool: "run_shell_command",
            input: &input,
            tool_iterations: 0,
        };
        let (pre, post, prompt, stop, start, end) = (
            Event::pre_tool_use(call),
            Event::post_tool_use(call, "r", false),
            Event::user_prompt_submit("p"),
            Event::new("Stop"),
            Event::session_start("startup"),
            Event::session_end("exit"),
        );
        #[rustfmt::skip]
        let cases: Vec<(&str, &Event<'_>, ProcessOutput, Result<Verdict, ()>)> = vec![
            ("nothing", &pre, out(0, "", ""), Ok(Verdict::allow())),
            ("deny", &pre, out(0, r#"{"decision":"deny","reason":"no rm"}"#, ""), Ok(Verdict::block("no rm"))),
            ("block is deny", &pre, out(0, r#"{"decision":"block","reason":"no rm"}"#, ""), Ok(Verdict::block("no rm"))),
            ("stopReason wins", &pre, out(0, r#"{"decision":"deny","reason":"r","stopReason":"s"}"#, ""), Ok(Verdict::block("s"))),
            ("ask", &pre, out(0, r#"{"decision":"ask","reason":"sure?"}"#, ""), Ok(Verdict::ask("sure?"))),
            ("allow", &pre, out(0, r#"{"decision":"allow"}"#, ""), Ok(Verdict::approve())),
            ("double-encoded", &pre, out(0, r#""{\"decision\":\"deny\",\"reason\":\"x\"}""#, ""), Ok(Verdict::block("x"))),
            ("tool_input replaces the input, as Gemini CLI 0.61 does", &pre, out(0, r#"{"hookSpecificOutput":{"tool_input":{"command":"ls"}}}"#, ""), Ok(Verdict::allow().with_updated_input(json!({"command":"ls"})))),
            ("continue false", &pre, out(0, r#"{"continue":false,"stopReason":"done"}"#, ""), Ok(Verdict::allow().with_stop("done"))),
            ("plain stdout is a message", &pre, out(0, "hello", ""), Ok(Verdict::allow().with_message("hello"))),
            ("exit 2 denies with stderr", &pre, out(2, r#"{"decision":"allow"}"#, "rm is not allowed\n"), Ok(Verdict::block("rm is not allowed"))),
            ("exit 1 is a failure", &pre, out(1, "", "x"), Err(())),
            ("after tool deny", &post, out(0, r#"{"decision":"deny","reason":"secret"}"#, ""), Ok(Verdict::block("secret"))),
            ("after tool context", &post, out(0, r#"{"hookSpecificOutput":{"additionalContext":"c"}}"#, ""), Ok(Verdict::allow().with_context("c"))),
            ("before agent deny", &prompt, out(0, r#"{"decision":"deny","reason":"r"}"#, ""), Ok(Verdict::block("r"))),
            ("after agent retry by exit 2", &stop, out(2, "", "fix it"), Ok(Verdict::block("fix it"))),
            ("session start ignores decisions", &start, out(0, r#"{"decision":"deny","continue":false,"hookSpecificOutput":{"additionalContext":"c"}}"#, ""), Ok(Verdict::allow().with_context("c"))),
            ("session end exit 2 warns", &end, out(2, "", "w"), Ok(Verdict::warn("w"))),
        ];
        assert_answers(answer, cases);
    }
}
