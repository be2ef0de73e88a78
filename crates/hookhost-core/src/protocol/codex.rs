//! Codex CLI's hook protocol (`protocol = "codex"`), so that a script from `.codex/hooks.json`
//! (or `[hooks]` in `.codex/config.toml`) runs unchanged: Claude Code's shape, read as strictly
//! as Codex reads it.
//!
//! stdin: `session_id`, `turn_id`, `transcript_path` (null when there is none), `cwd`,
//! `hook_event_name`, `model`, `permission_mode`, then `tool_name`, `tool_input` and
//! `tool_use_id` for tool events, `tool_response` for PostToolUse, and the event's other fields.
//!
//! The answer, as Codex reads it (`dialect::codex` says what it reads per event):
//! - exit 0: empty stdout is no answer. A JSON object answers; a key Codex does not read on the
//!   event, a PreToolUse `ask`, a bare `allow`, a deny or block without a reason, `continue:
//!   false` on PreToolUse or PermissionRequest, fail the hook (Codex: the hook failed, the action
//!   goes on). Plain text is context on SessionStart, SubagentStart and UserPromptSubmit, a
//!   failed hook on Stop, SubagentStop, SessionEnd and Interrupt, and ignored elsewhere;
//! - exit 2: a refusal (on Stop and SubagentStop: go on, with the reason as the next prompt)
//!   with stderr as the reason, on PreToolUse, PermissionRequest, PostToolUse,
//!   UserPromptSubmit, Stop and SubagentStop; with nothing on stderr, or elsewhere, a failed
//!   hook (`exited with code 2`);
//! - any other status: a failed hook.

use serde_json::{Map, Value};

use super::{HookEvent, ProcessOutput};
use crate::dialect::codex::{EXIT2_DECIDES, STDOUT_IS_CONTEXT, STDOUT_MUST_BE_JSON, output_keys};
use crate::dialect::{AgentEventSpec, AgentFormat, fit_catalog};
use crate::verdict::{Answer, HookFailure, Verdict};

/// Fields written in Codex's own order, before the rest.
const LEADING: &[&str] = &[
    "turn_id",
    "transcript_path",
    "model",
    "permission_mode",
    "tool_use_id",
    "tool_iterations",
    "is_error",
    "cwd",
];

/// The stdin JSON of a Codex CLI hook.
pub(crate) fn stdin(view: &HookEvent<'_>) -> Vec<u8> {
    super::to_json(view, write)
}

fn write(view: &HookEvent<'_>, map: &mut super::Entries<'_, '_>) -> serde_json::Result<()> {
    let event = view.event;
    map.session("session_id", event.session_id())?;
    if let Some(turn) = event.field("turn_id") {
        map.serialize_entry("turn_id", turn)?;
    }
    map.serialize_entry(
        "transcript_path",
        event.field("transcript_path").unwrap_or(&Value::Null),
    )?;
    map.serialize_entry("cwd", view.cwd)?;
    map.serialize_entry("hook_event_name", event.name())?;
    for name in ["model", "permission_mode"] {
        if let Some(value) = event.field(name) {
            map.serialize_entry(name, value)?;
        }
    }
    if let Some(call) = view.call {
        map.serialize_entry("tool_name", call.tool)?;
        map.serialize_entry("tool_input", call.input)?;
        if let Some(id) = event.field("tool_use_id") {
            map.serialize_entry("tool_use_id", id)?;
        }
    }
    for (name, value) in event.fields() {
        match name {
            _ if LEADING.contains(&name) => {}
            "result" if view.call.is_some() => map.serialize_entry("tool_response", value)?,
            _ => map.serialize_entry(name, value)?,
        }
    }
    Ok(())
}

/// Reads a finished Codex CLI hook.
pub(crate) fn answer(view: &HookEvent<'_>, output: &ProcessOutput) -> Result<Verdict, HookFailure> {
    let spec = AgentFormat::Codex.spec(view.event.name());
    let event = view.event.name();
    let verdict = match output.code {
        Some(0) => from_stdout(spec, event, &String::from_utf8_lossy(&output.stdout))?,
        // Without a reason on stderr, Codex counts exit 2 as a failure.
        Some(2) if EXIT2_DECIDES.contains(&event) && !output.stderr.trim().is_empty() => {
            Verdict::block(output.stderr.trim())
        }
        _ => return Err(output.failure().unwrap_or(HookFailure::Exited { code: -1 })),
    };
    Ok(fit_catalog(verdict, view.spec, event))
}

/// A failed hook, as Codex fails one whose answer it cannot read.
fn invalid(detail: String) -> HookFailure {
    HookFailure::InvalidOutput {
        detail: format!("{detail} (Codex CLI fails the hook and goes on)"),
    }
}

fn from_stdout(spec: &AgentEventSpec, event: &str, stdout: &str) -> Result<Verdict, HookFailure> {
    let text = stdout.trim();
    if text.is_empty() {
        return Ok(Verdict::allow());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(json)) => from_json(spec, event, &json),
        _ if text.starts_with(['{', '[']) => Err(invalid(format!(
            "{event} hook output {} is not a JSON object",
            crate::text::quote(text)
        ))),
        _ if STDOUT_MUST_BE_JSON.contains(&event) => Err(invalid(format!(
            "{event} hook printed plain text, where Codex reads only JSON"
        ))),
        _ if STDOUT_IS_CONTEXT.contains(&event) => Ok(Verdict::allow().with_context(text)),
        _ => Ok(Verdict {
            note: Some(format!(
                "plain stdout is ignored on {event}, as Codex ignores it"
            )),
            ..Verdict::allow()
        }),
    }
}

/// The object's string at `key`: absent, or a string (anything else fails the hook).
fn string(
    object: &Map<String, Value>,
    key: &str,
    event: &str,
) -> Result<Option<String>, HookFailure> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(invalid(format!(
            "{event} hook answered `{key}` with something other than a string"
        ))),
    }
}

/// A reason that is there and not blank.
fn reason(text: Option<String>, what: &str, event: &str) -> Result<String, HookFailure> {
    match text.map(|text| text.trim().to_string()) {
        Some(text) if !text.is_empty() => Ok(text),
        _ => Err(invalid(format!(
            "{event} hook returned {what} without a non-empty reason"
        ))),
    }
}

fn from_json(
    spec: &AgentEventSpec,
    event: &str,
    json: &Map<String, Value>,
) -> Result<Verdict, HookFailure> {
    let keys = output_keys(event);
    if let Some(key) = json.keys().find(|key| !keys.top(key)) {
        return Err(invalid(format!(
            "{event} hook answered `{key}`, a key Codex does not read there"
        )));
    }
    let specific = match json.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(specific)) => {
            if let Some(key) = specific
                .keys()
                .find(|key| !keys.specific.contains(&key.as_str()))
            {
                return Err(invalid(format!(
                    "{event} hook answered `hookSpecificOutput.{key}`, a key Codex does not read there"
                )));
            }
            if !specific.contains_key("hookEventName") {
                return Err(invalid(format!(
                    "{event} hook answered `hookSpecificOutput` without `hookEventName`"
                )));
            }
            Some(specific)
        }
        Some(_) => {
            return Err(invalid(format!(
                "{event} hook's `hookSpecificOutput` is not an object"
            )));
        }
    };
    let keep_going = match json.get("continue") {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Bool(false)) => false,
        Some(_) => {
            return Err(invalid(format!(
                "{event} hook's `continue` is not a boolean"
            )));
        }
    };
    let stop_reason = string(json, "stopReason", event)?;
    let suppress = json.get("suppressOutput") == Some(&Value::Bool(true));
    let unsupported =
        |what: &str| Err(invalid(format!("{event} hook returned unsupported {what}")));
    if matches!(event, "PreToolUse" | "PermissionRequest") {
        if !keep_going {
            return unsupported("continue:false");
        }
        if stop_reason.is_some() {
            return unsupported("stopReason");
        }
    }
    if suppress && matches!(event, "PreToolUse" | "PermissionRequest" | "PostToolUse") {
        return unsupported("suppressOutput");
    }
    let mut verdict = Verdict::allow();
    verdict.message = string(json, "systemMessage", event)?;
    let decision = string(json, "decision", event)?;
    let why = string(json, "reason", event)?;
    let stopped = || {
        stop_reason
            .clone()
            .unwrap_or_else(|| format!("stopped by a {event} hook (continue: false)"))
    };
    match event {
        "PreToolUse" => pre_tool_use(&mut verdict, specific, decision, why, event)?,
        "PermissionRequest" => {
            if let Some(decision) = specific.and_then(|specific| specific.get("decision")) {
                verdict.answer = permission(decision, event)?;
            }
        }
        _ => {
            match (decision.as_deref(), spec.block) {
                (None, _) if why.is_some() && keep_going && event == "PostToolUse" => {
                    return Err(invalid(format!(
                        "{event} hook returned reason without decision"
                    )));
                }
                (None, _) => {}
                (Some("block"), crate::dialect::BlockAs::Decision) => {
                    verdict.answer = Answer::Block(reason(why, "decision:block", event)?);
                }
                (Some(other), _) => {
                    return Err(invalid(format!(
                        "{event} hook returned unsupported decision:{other}"
                    )));
                }
            }
            if let Some(specific) = specific {
                for key in ["updatedMCPToolOutput", "updatedToolOutput"] {
                    if specific.get(key).is_some_and(|value| !value.is_null()) {
                        return unsupported(key);
                    }
                }
                verdict.context = string(specific, "additionalContext", event)?;
            }
            if !keep_going {
                match spec.block {
                    // PreCompact: `continue: false` stops before compacting.
                    crate::dialect::BlockAs::EndSession => {
                        verdict.answer = Answer::Block(stopped())
                    }
                    _ if spec.stop => verdict.stop = Some(stopped()),
                    _ => {}
                }
            }
        }
    }
    Ok(verdict)
}

/// PreToolUse: `hookSpecificOutput`'s permission decision when it gives one, else the older
/// top-level `decision`.
fn pre_tool_use(
    verdict: &mut Verdict,
    specific: Option<&Map<String, Value>>,
    decision: Option<String>,
    why: Option<String>,
    event: &str,
) -> Result<(), HookFailure> {
    let unsupported =
        |what: &str| Err(invalid(format!("{event} hook returned unsupported {what}")));
    if let Some(specific) = specific {
        verdict.context = string(specific, "additionalContext", event)?;
        let permission = string(specific, "permissionDecision", event)?;
        let permission_reason = string(specific, "permissionDecisionReason", event)?;
        let updated = specific
            .get("updatedInput")
            .filter(|value| !value.is_null());
        if permission.is_some() || permission_reason.is_some() || updated.is_some() {
            match (permission.as_deref(), updated) {
                (Some("allow"), Some(input)) => verdict.updated_input = Some(input.clone()),
                (_, Some(_)) => {
                    return Err(invalid(format!(
                        "{event} hook returned updatedInput without permissionDecision:allow"
                    )));
                }
                (Some("allow"), None) => return unsupported("permissionDecision:allow"),
                (Some("ask"), None) => return unsupported("permissionDecision:ask"),
                (Some("deny"), None) => {
                    let reason = reason(permission_reason, "permissionDecision:deny", event)?;
                    verdict.answer = Answer::Block(reason);
                }
                (None, None) => {
                    return Err(invalid(format!(
                        "{event} hook returned permissionDecisionReason without permissionDecision"
                    )));
                }
                (Some(other), None) => return unsupported(&format!("permissionDecision:{other}")),
            }
            return Ok(());
        }
    }
    match decision.as_deref() {
        Some("block") => verdict.answer = Answer::Block(reason(why, "decision:block", event)?),
        Some(other) => return unsupported(&format!("decision:{other}")),
        None if why.is_some() => {
            return Err(invalid(format!(
                "{event} hook returned reason without decision"
            )));
        }
        None => {}
    }
    Ok(())
}

/// PermissionRequest's `hookSpecificOutput.decision`.
fn permission(decision: &Value, event: &str) -> Result<Answer, HookFailure> {
    const KEYS: &[&str] = &[
        "behavior",
        "updatedInput",
        "updatedPermissions",
        "addDirectories",
        "message",
        "interrupt",
    ];
    let Value::Object(decision) = decision else {
        return Err(invalid(format!(
            "{event} hook's `decision` is not an object"
        )));
    };
    if let Some(key) = decision.keys().find(|key| !KEYS.contains(&key.as_str())) {
        return Err(invalid(format!(
            "{event} hook answered `decision.{key}`, a key Codex does not read there"
        )));
    }
    for key in ["updatedInput", "updatedPermissions"] {
        if decision.get(key).is_some_and(|value| !value.is_null()) {
            return Err(invalid(format!("{event} hook returned unsupported {key}")));
        }
    }
    if decision.get("interrupt") == Some(&Value::Bool(true)) {
        return Err(invalid(format!(
            "{event} hook returned unsupported interrupt:true"
        )));
    }
    match decision.get("behavior").and_then(Value::as_str) {
        Some("allow") => Ok(Answer::Approve),
        Some("deny") => {
            let message = string(decision, "message", event)?
                .map(|text| text.trim().to_string())
                .filter(|text| !text.is_empty());
            Ok(Answer::Block(message.unwrap_or_else(|| {
                "PermissionRequest hook denied approval".to_string()
            })))
        }
        _ => Err(invalid(format!(
            "{event} hook's `decision.behavior` is not \"allow\" or \"deny\""
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::test_support::{assert_answers, out, view};
    use crate::{Event, ToolCall};

    #[test]
    fn stdin_is_codex_json() {
        let input = json!({"command": "cargo test"});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 3,
        };
        let pre = Event::pre_tool_use(call)
            .with_session("s")
            .with_field("turn_id", "t1")
            .with_field("model", "gpt-5.5")
            .with_field("permission_mode", "default")
            .with_field("tool_use_id", "call_1");
        assert_eq!(
            String::from_utf8(stdin(&view(&pre))).unwrap(),
            r#"{"session_id":"s","turn_id":"t1","transcript_path":null,"cwd":"/p","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"cargo test"},"tool_use_id":"call_1"}"#
        );
        let post = Event::post_tool_use(call, "ok", false).with_field("transcript_path", "/t");
        assert_eq!(
            String::from_utf8(stdin(&view(&post))).unwrap(),
            r#"{"transcript_path":"/t","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cargo test"},"tool_response":"ok"}"#
        );
    }

    #[test]
    fn answers_as_codex_reads_them() {
        let input = json!({"command": "ls"});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 0,
        };
        let (pre, permission, post, prompt, stop, start, compact, interrupt) = (
            Event::pre_tool_use(call),
            Event::permission_request(call),
            Event::post_tool_use(call, "r", false),
            Event::user_prompt_submit("p"),
            Event::new("Stop"),
            Event::session_start("startup"),
            Event::new("PreCompact"),
            Event::new("Interrupt"),
        );
        #[rustfmt::skip]
        let cases: Vec<(&str, &Event<'_>, ProcessOutput, Result<Verdict, ()>)> = vec![
            ("nothing", &pre, out(0, "", ""), Ok(Verdict::allow())),
            ("deny", &pre, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#, ""), Ok(Verdict::block("no"))),
            ("legacy block", &pre, out(0, r#"{"decision":"block","reason":"no"}"#, ""), Ok(Verdict::block("no"))),
            ("rewrite is allow with updatedInput", &pre, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}"#, ""), Ok(Verdict::allow().with_updated_input(json!({"command":"ls -a"})))),
            ("context and a message", &pre, out(0, r#"{"systemMessage":"m","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"c"}}"#, ""), Ok(Verdict::allow().with_context("c").with_message("m"))),
            ("ask fails the hook", &pre, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"?"}}"#, ""), Err(())),
            ("a bare allow fails the hook", &pre, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#, ""), Err(())),
            ("a deny without a reason fails", &pre, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#, ""), Err(())),
            ("continue false fails the deny too", &pre, out(0, r#"{"continue":false,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#, ""), Err(())),
            ("an unknown key fails", &pre, out(0, r#"{"permissionDecision":"deny"}"#, ""), Err(())),
            ("no hookEventName fails", &pre, out(0, r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}"#, ""), Err(())),
            ("plain text is ignored", &pre, out(0, "hello", ""), Ok(Verdict::allow())),
            ("exit 2 blocks", &pre, out(2, "", "rm is not allowed\n"), Ok(Verdict::block("rm is not allowed"))),
            ("exit 2 without a reason fails", &pre, out(2, "", ""), Err(())),
            ("exit 1 fails", &pre, out(1, "", "boom"), Err(())),
            ("permission deny", &permission, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not here"}}}"#, ""), Ok(Verdict::block("not here"))),
            ("permission allow", &permission, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#, ""), Ok(Verdict::approve())),
            ("permission interrupt fails", &permission, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","interrupt":true}}}"#, ""), Err(())),
            ("post block", &post, out(0, r#"{"decision":"block","reason":"review it"}"#, ""), Ok(Verdict::block("review it"))),
            ("post stop", &post, out(0, r#"{"continue":false,"stopReason":"enough"}"#, ""), Ok(Verdict::allow().with_stop("enough"))),
            ("post reason without decision fails", &post, out(0, r#"{"reason":"x"}"#, ""), Err(())),
            ("post updatedMCPToolOutput fails", &post, out(0, r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{}}}"#, ""), Err(())),
            ("prompt plain text is context", &prompt, out(0, "branch main\n", ""), Ok(Verdict::allow().with_context("branch main"))),
            ("prompt block", &prompt, out(0, r#"{"decision":"block","reason":"secret"}"#, ""), Ok(Verdict::block("secret"))),
            ("stop continues", &stop, out(0, r#"{"decision":"block","reason":"run the tests"}"#, ""), Ok(Verdict::block("run the tests"))),
            ("stop plain text fails", &stop, out(0, "done", ""), Err(())),
            ("stop exit 2 continues", &stop, out(2, "", "one more pass"), Ok(Verdict::block("one more pass"))),
            ("session context", &start, out(0, r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c"}}"#, ""), Ok(Verdict::allow().with_context("c"))),
            ("session exit 2 fails", &start, out(2, "", "x"), Err(())),
            ("compaction refused by continue false", &compact, out(0, r#"{"continue":false,"stopReason":"not now"}"#, ""), Ok(Verdict::block("not now"))),
            ("interrupt message", &interrupt, out(0, r#"{"systemMessage":"bye"}"#, ""), Ok(Verdict::allow().with_message("bye"))),
            ("interrupt continue fails", &interrupt, out(0, r#"{"continue":true}"#, ""), Err(())),
        ];
        assert_answers(answer, cases);
        let failed = answer(&view(&pre), &out(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"?"}}"#, "")).unwrap_err();
        assert_eq!(
            failed.detailed(),
            "returned invalid JSON: PreToolUse hook returned unsupported permissionDecision:ask (Codex CLI fails the hook and goes on)"
        );
    }
}
