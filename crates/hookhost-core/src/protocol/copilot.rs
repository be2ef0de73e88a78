//! Copilot CLI's hook protocol (`protocol = "copilot"`), so that a script from
//! `.github/hooks/*.json` runs unchanged: it reads the camelCase payload it was written for
//! and answers the way Copilot reads answers.
//!
//! stdin: `timestamp` (epoch milliseconds), `cwd`, `sessionId`, then `toolName` and `toolArgs`
//! (a JSON string, as Copilot documents it) for tool events, `toolResult` for PostToolUse, and
//! the event's other fields in camelCase (`transcriptPath`, ...; `stop_hook_active` and
//! `notification_type` stay snake_case, as Copilot sends them).
//!
//! The answer, as Copilot reads it (`dialect::copilot::EVENTS` says what it reads per event):
//! - exit 0: stdout, less `{"type":"progress",...}` lines, is one JSON object; empty or
//!   unparseable output is "no output" (the default behaviour), as in Copilot;
//! - exit 2: on preToolUse and permissionRequest a deny (with the JSON's reason, else stderr);
//!   elsewhere a warning (Copilot CLI 1.0.102 reads postToolUseFailure's context as
//!   `additionalContext` at exit 0, no longer from stdout after exit 2);
//! - any other status: preToolUse is denied ("Denied by preToolUse hook (hook errored)":
//!   Copilot fails closed there); elsewhere it is a hook failure, which fails open.

use serde::Deserialize;
use serde_json::Value;

use super::{HookEvent, ProcessOutput};
use crate::dialect::copilot::camel_key;
use crate::dialect::{AgentEventSpec, AgentFormat, BlockAs, ContextAs, fit_catalog};
use crate::verdict::{Answer, HookFailure, Verdict};

/// The stdin JSON of a Copilot CLI hook.
pub(crate) fn stdin(view: &HookEvent<'_>) -> Vec<u8> {
    super::to_json(view, write)
}

fn write(view: &HookEvent<'_>, map: &mut super::Entries<'_, '_>) -> serde_json::Result<()> {
    let event = view.event;
    match event.field("timestamp") {
        Some(stamp @ Value::Number(_)) => map.serialize_entry("timestamp", stamp)?,
        _ => map.serialize_entry("timestamp", &epoch_millis())?,
    }
    map.serialize_entry("cwd", view.cwd)?;
    map.session("sessionId", event.session_id())?;
    if event.name() == "Notification" {
        map.serialize_entry("hook_event_name", "Notification")?;
    }
    if let Some(call) = view.call {
        map.serialize_entry("toolName", call.tool)?;
        map.serialize_entry("toolArgs", &call.input.to_string())?;
    }
    for (name, value) in event.fields() {
        match name {
            "timestamp" | "tool_iterations" | "hook_event_name" | "is_error" | "cwd" => {}
            "result" if view.call.is_some() => match value {
                // hookhost's own PostToolUse result is text: give it Copilot's shape.
                Value::String(text) => {
                    let failed = event.field("is_error") == Some(&Value::Bool(true));
                    let result = serde_json::json!({
                        "resultType": if failed { "failure" } else { "success" },
                        "textResultForLlm": text,
                    });
                    map.serialize_entry("toolResult", &result)?;
                }
                other => map.serialize_entry("toolResult", other)?,
            },
            _ => {
                let key = camel_key(name);
                match key.as_str() {
                    // Copilot's readers take `toolInput` for `toolArgs` (its snake_case payload's
                    // `tool_input`): beside a tool call, a field of that name would stand for the
                    // call's input to a reader that keeps the last (found by fuzzing, `protocol`).
                    "toolInput" if view.call.is_some() => {}
                    // `toolArgs` is JSON text to Copilot's readers: a string field of that name
                    // on an event without a call is written encoded, as the call's would be.
                    "toolArgs" if value.is_string() => {
                        map.serialize_entry(&key, &value.to_string())?;
                    }
                    _ => map.serialize_entry(&key, value)?,
                }
            }
        }
    }
    Ok(())
}

fn epoch_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as u64)
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Output {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    modified_args: Option<Value>,
    behavior: Option<String>,
    message: Option<String>,
    interrupt: Option<bool>,
    decision: Option<String>,
    reason: Option<String>,
    additional_context: Option<String>,
}

/// Reads a finished Copilot CLI hook.
pub(crate) fn answer(view: &HookEvent<'_>, output: &ProcessOutput) -> Result<Verdict, HookFailure> {
    let spec = AgentFormat::Copilot.spec(view.event.name());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let (parsed, unreadable) = parse_stdout(&stdout);
    let mut verdict = match output.code {
        Some(0) => read(spec, parsed.unwrap_or_default()),
        Some(2) if matches!(spec.block, BlockAs::Permission | BlockAs::Behavior) => {
            // Exit 2 denies even when the JSON says allow; the JSON's reason still counts.
            let json = parsed.unwrap_or_default();
            let reason = json
                .permission_decision_reason
                .or(json.message)
                .or_else(|| non_empty(&output.stderr))
                .unwrap_or_else(|| format!("Denied by {} hook", spec.agent));
            Verdict::block(reason)
        }
        Some(2) if spec.context == ContextAs::Exit2Stdout => match non_empty(&stdout) {
            Some(context) => Verdict::allow().with_context(context),
            None => Verdict::allow(),
        },
        Some(2) => match non_empty(&output.stderr) {
            Some(warning) => Verdict::warn(warning),
            None => Verdict::allow(),
        },
        _ if spec.block == BlockAs::Permission => {
            let failure = output.failure().unwrap_or(HookFailure::Exited { code: -1 });
            Verdict::block(format!(
                "Denied by {} hook (hook errored: {failure})",
                spec.agent
            ))
        }
        _ => return Err(output.failure().unwrap_or(HookFailure::Exited { code: -1 })),
    };
    if let Some(text) = unreadable {
        verdict.note = Some(format!(
            "output {} is not JSON; Copilot CLI treats it as no output",
            crate::text::quote(&text)
        ));
    }
    Ok(fit_catalog(verdict, view.spec, view.event.name()))
}

/// Copilot's reading of stdout: progress lines stripped, then one JSON object or nothing.
/// Returns the object and, when there was text that did not parse, that text.
fn parse_stdout(stdout: &str) -> (Option<Output>, Option<String>) {
    let kept: Vec<&str> = stdout
        .lines()
        .filter(|line| {
            serde_json::from_str::<Value>(line).map_or(true, |value| {
                value.get("type") != Some(&Value::from("progress"))
            })
        })
        .collect();
    let text = kept.join("\n");
    let text = text.trim();
    if text.is_empty() {
        return (None, None);
    }
    match serde_json::from_str::<Output>(text) {
        Ok(output) => (Some(output), None),
        Err(_) => (None, Some(text.to_string())),
    }
}

/// What Copilot reads from `json` on this event, and nothing else.
fn read(spec: &AgentEventSpec, json: Output) -> Verdict {
    let mut verdict = Verdict::allow();
    match spec.block {
        BlockAs::Permission => {
            let reason = || {
                json.permission_decision_reason
                    .clone()
                    .unwrap_or_else(|| format!("Denied by {} hook", spec.agent))
            };
            verdict.answer = match json.permission_decision.as_deref() {
                Some("deny") => Answer::Block(reason()),
                Some("ask") => Answer::Ask(reason()),
                Some("allow") => Answer::Approve,
                _ => Answer::Allow,
            };
            verdict.updated_input = json.modified_args;
        }
        BlockAs::Behavior => match json.behavior.as_deref() {
            Some("deny") => {
                verdict.answer = Answer::Block(
                    json.message
                        .unwrap_or_else(|| format!("Denied by {} hook", spec.agent)),
                );
                if json.interrupt == Some(true) {
                    verdict.stop = Some(format!("interrupted by a {} hook", spec.agent));
                }
            }
            Some("allow") => verdict.answer = Answer::Approve,
            _ => {}
        },
        BlockAs::Decision if json.decision.as_deref() == Some("block") => {
            verdict.answer = Answer::Block(
                json.reason
                    .unwrap_or_else(|| format!("blocked by a {} hook", spec.agent)),
            );
        }
        _ => {}
    }
    if spec.context == ContextAs::TopLevel {
        verdict.context = json.additional_context;
    }
    verdict
}

fn non_empty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::test_support::{assert_answers, out, view};
    use crate::{Event, ToolCall};

    /// Regression (fuzzing, `protocol`: fuzz/corpus/protocol/regression-copilot-tool-input-field):
    /// a field the reader takes for the tool's input (`toolInput`, `tool_input`) written
    /// beside the call's `toolArgs`; a string `toolArgs` field on an event without a call
    /// written as raw text where Copilot's readers expect JSON text.
    #[test]
    fn no_field_stands_for_the_calls_input() {
        let input = json!(-7.0);
        let call = ToolCall {
            tool: "bash",
            input: &input,
            tool_iterations: 1,
        };
        for name in ["toolInput", "tool_input"] {
            let event = Event::pre_tool_use(call).with_field(name, json!(""));
            let text = String::from_utf8(stdin(&view(&event))).unwrap();
            let object: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(object["toolArgs"], json!("-7.0"), "{name}: {text}");
            assert!(object.get("toolInput").is_none(), "{name}: {text}");
        }
        let event = Event::new("Notification").with_field("tool_args", json!("ls"));
        let text = String::from_utf8(stdin(&view(&event))).unwrap();
        assert!(text.contains(r#""toolArgs":"\"ls\"""#), "{text}");
    }

    #[test]
    fn stdin_is_copilots_camel_case() {
        let input = json!({"command": "rm -rf dist"});
        let call = ToolCall {
            tool: "bash",
            input: &input,
            tool_iterations: 0,
        };
        let pre = Event::pre_tool_use(call)
            .with_session("s1")
            .with_field("timestamp", 1704614600000u64);
        assert_eq!(
            String::from_utf8(stdin(&view(&pre))).unwrap(),
            r#"{"timestamp":1704614600000,"cwd":"/p","sessionId":"s1","toolName":"bash","toolArgs":"{\"command\":\"rm -rf dist\"}"}"#
        );
        let post = Event::post_tool_use(call, "done", false).with_field("timestamp", 1);
        assert_eq!(
            String::from_utf8(stdin(&view(&post))).unwrap(),
            r#"{"timestamp":1,"cwd":"/p","toolName":"bash","toolArgs":"{\"command\":\"rm -rf dist\"}","toolResult":{"resultType":"success","textResultForLlm":"done"}}"#
        );
        let stop = Event::new("Stop")
            .with_field("timestamp", 1)
            .with_field("transcript_path", "/t")
            .with_field("stop_hook_active", false);
        assert_eq!(
            String::from_utf8(stdin(&view(&stop))).unwrap(),
            r#"{"timestamp":1,"cwd":"/p","transcriptPath":"/t","stop_hook_active":false}"#
        );
    }

    #[test]
    fn answers_as_copilot_reads_them() {
        let input = json!({});
        let call = ToolCall {
            tool: "bash",
            input: &input,
            tool_iterations: 0,
        };
        let (pre, permission, post, failure, stop, prompt) = (
            Event::pre_tool_use(call),
            Event::permission_request(call),
            Event::post_tool_use(call, "r", false),
            Event::post_tool_use_failure(call, "e"),
            Event::new("Stop"),
            Event::user_prompt_submit("p"),
        );
        #[rustfmt::skip]
        let cases: Vec<(&str, &Event<'_>, ProcessOutput, Result<Verdict, ()>)> = vec![
            ("nothing", &pre, out(0, "", ""), Ok(Verdict::allow())),
            ("deny", &pre, out(0, r#"{"permissionDecision":"deny","permissionDecisionReason":"no rm"}"#, ""), Ok(Verdict::block("no rm"))),
            ("ask", &pre, out(0, r#"{"permissionDecision":"ask","permissionDecisionReason":"sure?"}"#, ""), Ok(Verdict::ask("sure?"))),
            ("allow", &pre, out(0, r#"{"permissionDecision":"allow"}"#, ""), Ok(Verdict::approve())),
            ("modified args", &pre, out(0, r#"{"modifiedArgs":{"command":"ls"}}"#, ""), Ok(Verdict::allow().with_updated_input(json!({"command":"ls"})))),
            ("progress lines are stripped", &pre, out(0, "{\"type\":\"progress\",\"message\":\"scanning\"}\n{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"x\"}\n", ""), Ok(Verdict::block("x"))),
            ("exit 2 denies", &pre, out(2, "", "rm is not allowed\n"), Ok(Verdict::block("rm is not allowed"))),
            ("exit 2 denies over an allow", &pre, out(2, r#"{"permissionDecision":"allow"}"#, ""), Ok(Verdict::block("Denied by preToolUse hook"))),
            ("exit 1 denies on preToolUse", &pre, out(1, "", "boom"), Ok(Verdict::block("Denied by preToolUse hook (hook errored: exited with code 1)"))),
            ("permission deny with interrupt", &permission, out(0, r#"{"behavior":"deny","message":"no","interrupt":true}"#, ""), Ok(Verdict::block("no").with_stop("interrupted by a permissionRequest hook"))),
            ("post context", &post, out(0, r#"{"additionalContext":"c"}"#, ""), Ok(Verdict::allow().with_context("c"))),
            ("failure context at exit 0", &failure, out(0, r#"{"additionalContext":"check the port"}"#, ""), Ok(Verdict::allow().with_context("check the port"))),
            ("what a failure hook prints with exit 2 is not read", &failure, out(2, "check the port\n", ""), Ok(Verdict::allow())),
            ("pre context", &pre, out(0, r#"{"additionalContext":"c"}"#, ""), Ok(Verdict::allow().with_context("c"))),
            ("agent stop block", &stop, out(0, r#"{"decision":"block","reason":"keep going"}"#, ""), Ok(Verdict::block("keep going"))),
            ("a prompt block, with context", &prompt, out(0, r#"{"additionalContext":"c","decision":"block","reason":"no secrets"}"#, ""), Ok(Verdict::block("no secrets").with_context("c"))),
            ("exit 2 elsewhere warns", &stop, out(2, "", "hmm"), Ok(Verdict::warn("hmm"))),
            ("exit 1 elsewhere fails open", &stop, out(1, "", ""), Err(())),
        ];
        assert_answers(answer, cases);
        let garbage = answer(&view(&pre), &out(0, "not json", "")).unwrap();
        assert_eq!(garbage.answer, Answer::Allow);
        assert!(garbage.note.unwrap().contains("treats it as no output"));
    }
}
