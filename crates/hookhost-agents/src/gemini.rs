//! Gemini CLI (`--format gemini`), per geminicli.com/docs/hooks/reference and its source
//! (`packages/core/src/hooks/`).
//!
//! Its payload is snake_case like Claude Code's, with its own event names: BeforeTool is
//! PreToolUse, AfterTool PostToolUse, BeforeAgent UserPromptSubmit, AfterAgent Stop,
//! PreCompress PreCompact; SessionStart, SessionEnd and Notification keep theirs; BeforeModel,
//! AfterModel and BeforeToolSelection are custom events under their own names.
//!
//! Answers: top-level `decision` (`deny` refuses, `ask` asks the user on BeforeTool, `allow`)
//! with `reason`; `continue: false` with `stopReason`; `systemMessage`; `hookSpecificOutput`
//! with `additionalContext` (BeforeAgent, AfterTool, SessionStart) and, on BeforeTool,
//! `tool_input`. Gemini CLI 0.61 builds the call from `tool_input` alone (it replaces the
//! model's arguments; its older path merged them), so hookhost always sends the whole rewritten
//! input: a key a guard removed is gone under either reading.
//!
//! Gemini reads stderr as the hook's answer when stdout is empty (plain text becomes
//! `decision: "allow"` with the text as a message), so hookhost always prints a JSON object,
//! `{}` for no objection: its own notes on stderr stay notes. An ask is refused (see
//! [`crate::dialect::gemini`]): `gemini -p` would wait for a confirmation forever.

use serde_json::{Map, Value, json};

use super::{
    AgentError, AgentEvent, AgentEventSpec, AgentFormat, AgentReply, BlockAs, ContextAs, Plan,
    from_snake, given_name, resolve_name,
};

/// The table moved to [`crate::dialect::gemini`]; these paths stay for embedders.
pub use crate::dialect::gemini::{EVENTS, OTHER, agent_name};

/// Reads Gemini CLI's payload.
pub(super) fn parse(
    object: Map<String, Value>,
    event: Option<&str>,
) -> Result<AgentEvent, AgentError> {
    let given = given_name(
        AgentFormat::Gemini,
        &object,
        event,
        "the payload has no hook_event_name; pass --event NAME",
    )?;
    let name = resolve_name(AgentFormat::Gemini, given)?;
    from_snake(AgentFormat::Gemini, name, object)
}

/// Gemini CLI's answer for `plan`.
pub(super) fn render(spec: &AgentEventSpec, plan: &mut Plan) -> AgentReply {
    if plan
        .rewrite
        .as_ref()
        .is_some_and(|rewritten| !rewritten.is_object())
    {
        let reason = format!(
            "hookhost: {} rewrote the tool input into something other than a JSON object, which Gemini CLI cannot apply; the call is denied rather than run with an input no guard approved",
            plan.rewriters()
        );
        plan.refuse(spec, reason);
    }
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut messages: Vec<&str> = Vec::new();
    let (decision, reason) = match (&plan.block, &plan.ask) {
        (Some(reason), _) if spec.block == BlockAs::Decision => (Some("deny"), Some(reason)),
        (None, Some(reason)) => {
            // Gemini shows `systemMessage` when it asks.
            messages.push(reason);
            (Some("ask"), Some(reason))
        }
        (None, None) if plan.approve => (Some("allow"), None),
        _ => (None, None),
    };
    if let Some(decision) = decision {
        out.insert("decision".into(), json!(decision));
    }
    if let Some(reason) = reason {
        out.insert("reason".into(), json!(reason));
    }
    if let Some(input) = &plan.rewrite {
        specific.insert("tool_input".into(), input.clone());
    }
    if let (ContextAs::Specific, Some(context)) = (spec.context, &plan.context) {
        specific.insert("additionalContext".into(), json!(context));
    }
    if let Some(reason) = &plan.stop {
        out.insert("continue".into(), json!(false));
        out.insert("stopReason".into(), json!(reason));
    }
    messages.extend(plan.message.as_deref());
    if !messages.is_empty() {
        out.insert("systemMessage".into(), json!(messages.join("\n")));
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(spec.agent));
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    // Never an empty stdout: Gemini would read stderr as the answer.
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

    #[test]
    fn payloads_become_events() {
        #[rustfmt::skip]
        let cases = [
            (r#"{"session_id":"abc123","transcript_path":"/t.json","cwd":"/p","hook_event_name":"BeforeTool","timestamp":"2025-12-01T10:30:00Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}"#, "PreToolUse", true),
            (r#"{"session_id":"a","cwd":"/p","hook_event_name":"AfterTool","timestamp":"t","tool_name":"read_file","tool_input":{"path":"a"},"tool_response":{"llmContent":"x","returnDisplay":"x"}}"#, "PostToolUse", true),
            (r#"{"session_id":"a","cwd":"/p","hook_event_name":"BeforeAgent","timestamp":"t","prompt":"hi"}"#, "UserPromptSubmit", false),
            (r#"{"session_id":"a","cwd":"/p","hook_event_name":"AfterAgent","timestamp":"t","prompt":"hi","prompt_response":"done","stop_hook_active":false}"#, "Stop", false),
            (r#"{"session_id":"a","cwd":"/p","hook_event_name":"PreCompress","timestamp":"t","trigger":"auto"}"#, "PreCompact", false),
            (r#"{"session_id":"a","cwd":"/p","hook_event_name":"BeforeModel","timestamp":"t","llm_request":{"model":"m"}}"#, "BeforeModel", false),
            (r#"{"session_id":"a","cwd":"/p","hook_event_name":"Notification","timestamp":"t","notification_type":"ToolPermission","message":"m","details":{}}"#, "Notification", false),
        ];
        for (stdin, name, has_tool) in cases {
            let event = parse_event(AgentFormat::Gemini, stdin, None).unwrap();
            assert_eq!(
                (event.name.as_str(), event.tool.is_some()),
                (name, has_tool),
                "{stdin}"
            );
        }
        let post = parse_event(AgentFormat::Gemini, cases[1].0, None).unwrap();
        assert!(
            post.fields
                .iter()
                .any(|(k, v)| k == "result" && v["llmContent"] == "x")
        );
    }

    #[test]
    fn answers_as_gemini_reads_them() {
        let input = json!({"command": "npm test", "dir_path": "."});
        #[rustfmt::skip]
        #[allow(clippy::type_complexity)] // a table of cases
        let cases: Vec<(&str, &str, Vec<(&str, Verdict)>, (&str, &str, u8))> = vec![
            ("nothing to say is an empty object, so that stderr is never read as the answer", "PreToolUse", vec![("g", Verdict::allow())], ("{}", "", 0)),
            ("deny", "PreToolUse", vec![("g", Verdict::block("no"))], (r#"{"decision":"deny","reason":"blocked by g: no"}"#, "", 0)),
            ("an ask is refused: gemini -p would wait for ever", "PreToolUse", vec![("g", Verdict::ask("sure?"))],
                (r#"{"decision":"deny","reason":"hookhost: g: sure? asks to confirm this call, which the agent cannot ask its user on BeforeTool; refused rather than run unconfirmed"}"#, "", 0)),
            ("approve", "PreToolUse", vec![("g", Verdict::approve())], (r#"{"decision":"allow"}"#, "", 0)),
            ("rewrite", "PreToolUse", vec![("g", Verdict::allow().with_updated_input(json!({"command":"pnpm test","dir_path":"."})))],
                (r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"pnpm test","dir_path":"."}}}"#, "", 0)),
            ("a rewrite that removes a key is the whole new input", "PreToolUse", vec![("g", Verdict::allow().with_updated_input(json!({"command":"pnpm test"})))],
                (r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"pnpm test"}}}"#, "", 0)),
            ("a rewrite that is not an object is denied", "PreToolUse", vec![("g", Verdict::allow().with_updated_input(json!("pnpm test")))],
                (r#"{"decision":"deny","reason":"hookhost: g rewrote the tool input into something other than a JSON object, which Gemini CLI cannot apply; the call is denied rather than run with an input no guard approved"}"#, "", 0)),
            ("stop", "PreToolUse", vec![("g", Verdict::allow().with_stop("done"))], (r#"{"continue":false,"stopReason":"g: done"}"#, "", 0)),
            ("warning", "PreToolUse", vec![("g", Verdict::warn("slow"))], (r#"{"systemMessage":"g: slow"}"#, "", 0)),
            ("after tool deny hides the output", "PostToolUse", vec![("g", Verdict::block("a secret"))], (r#"{"decision":"deny","reason":"blocked by g: a secret"}"#, "", 0)),
            ("after tool context", "PostToolUse", vec![("g", Verdict::allow().with_context("c"))], (r#"{"hookSpecificOutput":{"additionalContext":"c","hookEventName":"AfterTool"}}"#, "", 0)),
            ("prompt deny", "UserPromptSubmit", vec![("g", Verdict::block("secret"))], (r#"{"decision":"deny","reason":"blocked by g: secret"}"#, "", 0)),
            ("after agent retry", "Stop", vec![("g", Verdict::block("fix the lint"))], (r#"{"decision":"deny","reason":"fix the lint"}"#, "", 0)),
            ("after agent context is dropped, with JSON on stdout", "Stop", vec![("g", Verdict::allow().with_context("c"))], ("{}", "hookhost: Gemini CLI does not read context (c) on AfterAgent\n", 0)),
            ("session context", "SessionStart", vec![("g", Verdict::allow().with_context("branch main"))], (r#"{"hookSpecificOutput":{"additionalContext":"branch main","hookEventName":"SessionStart"}}"#, "", 0)),
            ("compaction is advisory", "PreCompact", vec![("g", Verdict::block("not now"))], ("{}", "hookhost: Gemini CLI does not read a block (blocked by g: not now) on PreCompress\n", 0)),
        ];
        for (name, event, verdicts, expected) in cases {
            let got = reply(
                AgentFormat::Gemini,
                event,
                Some(&input),
                &outcome(event, &verdicts),
            );
            assert_reply(name, &got, expected);
        }
    }
}
