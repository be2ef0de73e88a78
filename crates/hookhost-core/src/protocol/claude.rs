//! Claude Code's hook protocol (`protocol = "claude"`), so that an existing Claude Code hook
//! script runs unchanged (Copilot CLI, Gemini CLI and Codex copied its shape).
//!
//! stdin: `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, then
//! `tool_name`, `tool_input` for tool events, then the event's own fields (PostToolUse's
//! `result` as `tool_response`).
//!
//! The answer, as Claude Code reads it:
//! - exit 0: stdout that starts with `{` and ends with `}` is JSON: `continue: false` with
//!   `stopReason`, `systemMessage`, `decision: "block"` with `reason`, and `hookSpecificOutput`
//!   (`permissionDecision` allow/deny/ask with `permissionDecisionReason`, `updatedInput`,
//!   `additionalContext`, PermissionRequest's `decision.behavior`). Other stdout is context for
//!   UserPromptSubmit and SessionStart, and ignored elsewhere;
//! - exit 2: a block with stderr as the reason, where the event can block (what exit 2 does per
//!   event is in the event catalog: on PostToolUseFailure stderr is context for the model, on
//!   SessionStart a warning, on PermissionRequest nothing);
//! - any other status: the JSON decides when stdout is valid JSON; otherwise it is a hook
//!   failure ("exited with code 1"), which blocks only a fail-closed guard.

use serde::Deserialize;
use serde_json::Value;

use super::{HookEvent, ProcessOutput};
use crate::event::catalog::ClaudeExit2;
use crate::verdict::{Answer, HookFailure, Verdict};

/// Events where plain stdout after exit 0 is context for the model.
const STDOUT_IS_CONTEXT: &[&str] = &["UserPromptSubmit", "SessionStart"];

/// The stdin JSON of a Claude Code hook.
pub(crate) fn stdin(view: &HookEvent<'_>) -> Vec<u8> {
    super::to_json(view, write)
}

fn write(view: &HookEvent<'_>, map: &mut super::Entries<'_, '_>) -> serde_json::Result<()> {
    let event = view.event;
    super::serialize_session(map, view)?;
    if let Some(mode) = event.field("permission_mode") {
        map.serialize_entry("permission_mode", mode)?;
    }
    map.serialize_entry("hook_event_name", event.name())?;
    if let Some(call) = view.call {
        map.serialize_entry("tool_name", call.tool)?;
        map.serialize_entry("tool_input", call.input)?;
    }
    for (name, value) in event.fields() {
        match name {
            // `cwd` is written above (an agent's event may carry its tool's own).
            "transcript_path" | "permission_mode" | "tool_iterations" | "cwd" => {}
            "result" if view.call.is_some() => map.serialize_entry("tool_response", value)?,
            _ => map.serialize_entry(name, value)?,
        }
    }
    Ok(())
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Output {
    #[serde(rename = "continue")]
    keep_going: Option<bool>,
    stop_reason: Option<String>,
    system_message: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    hook_specific_output: Option<Specific>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Specific {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Value>,
    additional_context: Option<String>,
    /// PermissionRequest's `{behavior, updatedInput, message, interrupt}`.
    decision: Option<PermissionDecision>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PermissionDecision {
    behavior: Option<String>,
    updated_input: Option<Value>,
    message: Option<String>,
    interrupt: Option<bool>,
}

/// Reads a finished Claude Code hook.
pub(crate) fn answer(view: &HookEvent<'_>, output: &ProcessOutput) -> Result<Verdict, HookFailure> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let trimmed = stdout.trim();
    let json = (trimmed.starts_with('{') && trimmed.ends_with('}')).then_some(trimmed);
    match output.code {
        Some(0) => match json {
            Some(json) => from_json(json),
            None if !trimmed.is_empty() && STDOUT_IS_CONTEXT.contains(&view.event.name()) => {
                Ok(Verdict::allow().with_context(trimmed))
            }
            None => Ok(Verdict::allow()),
        },
        Some(2) => {
            let from_stdout = json.and_then(|json| from_json(json).ok());
            if let Some(verdict) = from_stdout.filter(Verdict::is_block) {
                return Ok(verdict);
            }
            Ok(exit2(view, output.stderr.trim()))
        }
        _ => match json.map(from_json) {
            Some(Ok(verdict)) => Ok(verdict),
            _ => Err(output.failure().unwrap_or(HookFailure::Exited { code: -1 })),
        },
    }
}

/// Exit status 2, as Claude Code treats it on this event.
fn exit2(view: &HookEvent<'_>, stderr: &str) -> Verdict {
    let reason = if stderr.is_empty() {
        format!("blocked by a {} hook (exit status 2)", view.event.name())
    } else {
        stderr.to_string()
    };
    match view.spec.claude_exit2 {
        ClaudeExit2::Block => Verdict::block(reason),
        ClaudeExit2::Context => Verdict::allow().with_context(reason),
        ClaudeExit2::Warn => Verdict::warn(reason),
        ClaudeExit2::Ignore => Verdict {
            note: Some(format!(
                "exit status 2 is ignored on {} (as Claude Code ignores it)",
                view.event.name()
            )),
            ..Verdict::allow()
        },
    }
}

fn from_json(text: &str) -> Result<Verdict, HookFailure> {
    let output: Output =
        serde_json::from_str(text).map_err(|error| HookFailure::InvalidOutput {
            detail: format!(
                "{error} in Claude Code hook output {}",
                crate::text::quote(text)
            ),
        })?;
    let mut verdict = Verdict::allow();
    let mut decide = |answer: Answer| {
        if rank(&answer) > rank(&verdict.answer) {
            verdict.answer = answer;
        }
    };
    match output.decision.as_deref() {
        Some("block") => decide(Answer::Block(
            output
                .reason
                .clone()
                .unwrap_or_else(|| "blocked by hook".to_string()),
        )),
        Some("approve") => decide(Answer::Approve),
        _ => {}
    }
    let mut updated_input = None;
    let mut context = None;
    let mut stop = None;
    if let Some(specific) = output.hook_specific_output {
        let reason = specific
            .permission_decision_reason
            .clone()
            .unwrap_or_else(|| "no reason provided".to_string());
        match specific.permission_decision.as_deref() {
            Some("allow") => decide(Answer::Approve),
            Some("deny") => decide(Answer::Block(reason)),
            Some("ask") => decide(Answer::Ask(reason)),
            _ => {}
        }
        if let Some(permission) = specific.decision {
            match permission.behavior.as_deref() {
                Some("allow") => decide(Answer::Approve),
                Some("deny") => decide(Answer::Block(
                    permission
                        .message
                        .unwrap_or_else(|| "denied by hook".to_string()),
                )),
                _ => {}
            }
            updated_input = permission.updated_input;
            if permission.interrupt == Some(true) {
                stop = Some("interrupted by a PermissionRequest hook".to_string());
            }
        }
        updated_input = specific.updated_input.or(updated_input);
        context = specific.additional_context;
    }
    verdict.updated_input = updated_input;
    verdict.context = context;
    if output.keep_going == Some(false) {
        verdict.stop = Some(
            output
                .stop_reason
                .unwrap_or_else(|| "stopped by hook (continue: false)".to_string()),
        );
    } else {
        verdict.stop = stop;
    }
    verdict.message = output.system_message;
    Ok(verdict)
}

fn rank(answer: &Answer) -> u8 {
    match answer {
        Answer::Allow => 0,
        Answer::Approve => 1,
        Answer::Warn(_) => 2,
        Answer::Ask(_) => 3,
        Answer::Block(_) => 4,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::test_support::{out, view};
    use crate::{Event, ToolCall};

    #[test]
    fn stdin_uses_claude_names() {
        let input = json!({"command": "npm test"});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 2,
        };
        let event = Event::post_tool_use(call, "ok", false)
            .with_session("abc123")
            .with_field("transcript_path", "/t.jsonl")
            .with_field("permission_mode", "default");
        let text = String::from_utf8(stdin(&view(&event))).unwrap();
        assert_eq!(
            text,
            r#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_response":"ok","is_error":false}"#
        );
    }

    #[test]
    fn answers_as_claude_code_reads_them() {
        let input = json!({});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 0,
        };
        let pre = Event::pre_tool_use(call);
        let prompt = Event::user_prompt_submit("p");
        let failure = Event::post_tool_use_failure(call, "e");
        let permission = Event::permission_request(call);
        let start = Event::session_start("startup");
        let (pre, prompt, failure, permission, start) = (
            view(&pre),
            view(&prompt),
            view(&failure),
            view(&permission),
            view(&start),
        );
        #[rustfmt::skip]
        let cases: Vec<(&str, HookEvent<'_>, ProcessOutput, Result<Verdict, ()>)> = vec![
            ("exit 0, nothing", pre, out(0, "", ""), Ok(Verdict::allow())),
            ("exit 2 blocks with stderr", pre, out(2, "", "rm -rf is not allowed\n"), Ok(Verdict::block("rm -rf is not allowed"))),
            ("deny", pre, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no db writes"}}"#, ""), Ok(Verdict::block("no db writes"))),
            ("ask", pre, out(0, r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#, ""), Ok(Verdict::ask("sure?"))),
            ("allow is approval", pre, out(0, r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#, ""), Ok(Verdict::approve())),
            ("rewrite and context", pre, out(0, r#"{"hookSpecificOutput":{"updatedInput":{"command":"ls"},"additionalContext":"c"}}"#, ""), Ok(Verdict::allow().with_updated_input(json!({"command":"ls"})).with_context("c"))),
            ("legacy decision block", pre, out(0, r#"{"decision":"block","reason":"r"}"#, ""), Ok(Verdict::block("r"))),
            ("continue false stops", pre, out(0, r#"{"continue":false,"stopReason":"done","systemMessage":"bye"}"#, ""), Ok(Verdict::allow().with_stop("done").with_message("bye"))),
            ("exit 1 is a failure", pre, out(1, "", "oops"), Err(())),
            ("exit 1 with JSON: the JSON decides", pre, out(1, r#"{"decision":"block","reason":"r"}"#, ""), Ok(Verdict::block("r"))),
            ("invalid JSON", pre, out(0, "{nope}", ""), Err(())),
            ("plain stdout is prompt context", prompt, out(0, "remember X\n", ""), Ok(Verdict::allow().with_context("remember X"))),
            ("plain stdout is ignored elsewhere", pre, out(0, "hello", ""), Ok(Verdict::allow())),
            ("exit 2 on a failure is context", failure, out(2, "", "look at the log"), Ok(Verdict::allow().with_context("look at the log"))),
            ("exit 2 on SessionStart warns", start, out(2, "", "odd"), Ok(Verdict::warn("odd"))),
            ("permission allow", permission, out(0, r#"{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"command":"npm run lint"}}}}"#, ""), Ok(Verdict::approve().with_updated_input(json!({"command":"npm run lint"})))),
            ("permission deny", permission, out(0, r#"{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no"}}}"#, ""), Ok(Verdict::block("no"))),
        ];
        for (name, view, output, expected) in cases {
            let got = answer(&view, &output).map_err(|_| ());
            assert_eq!(got, expected, "{name}");
        }
        let ignored = answer(&permission, &out(2, "", "x")).unwrap();
        assert!(ignored.note.unwrap().contains("ignored"));
    }
}
