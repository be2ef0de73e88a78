//! OpenAI's Codex CLI (`--format codex`), per developers.openai.com/codex/hooks and its source
//! (`codex-rs/hooks`, the truth where the two differ).
//!
//! Its payload is Claude Code's (snake_case, `hook_event_name`, the same event names) with
//! `turn_id` and `model` added; tool names are Codex's own (`Bash`, `apply_patch`, MCP tools as
//! `mcp__server__tool`).
//!
//! Answers are Claude Code's shape, but Codex fails a hook that answers a key it does not read
//! on the event, and a failed hook lets the action go on. So every answer here uses only what
//! Codex reads: PreToolUse `hookSpecificOutput.permissionDecision: "deny"` with a reason, a
//! rewrite as `allow` with `updatedInput` (a bare `allow`, `ask` and `continue: false` would fail
//! the hook, and with it a deny), `additionalContext`; PermissionRequest
//! `hookSpecificOutput.decision` (`behavior` allow/deny, `message`); PostToolUse,
//! UserPromptSubmit, Stop and SubagentStop `decision: "block"` with `reason`; `continue: false`
//! with `stopReason` where Codex reads it (on PreCompact, the refusal); `systemMessage`. An ask
//! on PreToolUse, which Codex cannot put to its user, refuses the call.

use serde_json::{Map, Value, json};

use super::{
    AgentError, AgentEvent, AgentEventSpec, AgentFormat, AgentReply, BlockAs, Plan, from_snake,
    given_name, resolve_name,
};

/// Codex's table, in [`crate::dialect::codex`].
pub use crate::dialect::codex::{EVENTS, OTHER};

/// Reads Codex CLI's payload.
pub(super) fn parse(
    object: Map<String, Value>,
    event: Option<&str>,
) -> Result<AgentEvent, AgentError> {
    let given = given_name(
        AgentFormat::Codex,
        &object,
        event,
        "the payload has no hook_event_name; pass --event NAME",
    )?;
    let name = resolve_name(AgentFormat::Codex, given)?;
    from_snake(AgentFormat::Codex, name, object)
}

/// Codex CLI's answer for `plan`.
pub(super) fn render(spec: &AgentEventSpec, plan: &mut Plan) -> AgentReply {
    // Codex reads a Bash or apply_patch rewrite only with a string `command`; anything else
    // fails the hook and runs the original input.
    let is_command = |input: Option<&Value>| {
        input
            .and_then(|input| input.get("command"))
            .is_some_and(Value::is_string)
    };
    if plan.rewrite.is_some()
        && is_command(plan.original.as_ref())
        && !is_command(plan.rewrite.as_ref())
    {
        let reason = format!(
            "hookhost: {} rewrote the tool input without a string `command`, which Codex CLI cannot apply; the call is refused rather than run with an input no guard approved",
            plan.rewriters()
        );
        plan.refuse(spec, reason);
    }
    let mut specific = Map::new();
    match (spec.block, &plan.block) {
        (BlockAs::Permission, Some(reason)) => {
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert("permissionDecisionReason".into(), json!(reason));
        }
        (BlockAs::Permission, None) => {
            if let Some(input) = &plan.rewrite {
                specific.insert("permissionDecision".into(), json!("allow"));
                specific.insert("updatedInput".into(), input.clone());
            }
        }
        (BlockAs::Behavior, Some(reason)) => {
            specific.insert(
                "decision".into(),
                json!({ "behavior": "deny", "message": reason }),
            );
        }
        (BlockAs::Behavior, None) if plan.approve => {
            specific.insert("decision".into(), json!({ "behavior": "allow" }));
        }
        _ => {}
    }
    super::claude::finish(spec, plan, Map::new(), specific)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::parse_event;
    use super::super::test_support::{assert_reply, outcome, reply};
    use super::*;
    use crate::Verdict;
    use crate::dialect::codex::output_keys;

    #[test]
    fn payloads_become_events() {
        let event = parse_event(
            AgentFormat::Codex,
            r#"{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":"/p","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"call_1"}"#,
            None,
        )
        .unwrap();
        assert_eq!(
            (event.name.as_str(), event.session_id.as_deref()),
            ("PreToolUse", Some("019a"))
        );
        assert_eq!(
            event.tool,
            Some(("Bash".into(), json!({"command": "rm -rf /"})))
        );
        let fields: Vec<&str> = event.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            fields,
            [
                "model",
                "permission_mode",
                "tool_use_id",
                "transcript_path",
                "turn_id"
            ]
        );
        let compact = parse_event(
            AgentFormat::Codex,
            r#"{"session_id":"s","cwd":"/p","hook_event_name":"PostCompact","trigger":"auto"}"#,
            None,
        )
        .unwrap();
        assert_eq!(compact.name, "PostCompact");
    }

    #[test]
    fn answers_as_codex_reads_them() {
        let input = json!({"command": "npm test"});
        #[rustfmt::skip]
        #[allow(clippy::type_complexity)] // a table of cases
        let cases: Vec<(&str, &str, Vec<(&str, Verdict)>, (&str, &str, u8))> = vec![
            ("nothing to say", "PreToolUse", vec![("g", Verdict::allow())], ("", "", 0)),
            ("deny", "PreToolUse", vec![("g", Verdict::block("no"))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocked by g: no"}}"#, "", 0)),
            ("an ask is a deny", "PreToolUse", vec![("g", Verdict::ask("prod?"))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"hookhost: g: prod? asks to confirm this call, which the agent cannot ask its user on PreToolUse; refused rather than run unconfirmed"}}"#, "", 0)),
            ("an approval alone says nothing", "PreToolUse", vec![("g", Verdict::approve())], ("", "", 0)),
            ("rewrite", "PreToolUse", vec![("g", Verdict::allow().with_updated_input(json!({"command":"npm test -- --bail"})))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"npm test -- --bail"}}}"#, "", 0)),
            ("a rewrite without a command is refused", "PreToolUse", vec![("g", Verdict::allow().with_updated_input(json!({"cmd":"ls"})))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"hookhost: g rewrote the tool input without a string `command`, which Codex CLI cannot apply; the call is refused rather than run with an input no guard approved"}}"#, "", 0)),
            ("context and a warning", "PreToolUse", vec![("g", Verdict::warn("slow").with_context("c"))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"c"},"systemMessage":"g: slow"}"#, "", 0)),
            ("a stop cannot be said on PreToolUse", "PreToolUse", vec![("g", Verdict::allow().with_stop("enough"))],
                ("", "hookhost: Codex CLI does not read a stop (g: enough) on PreToolUse\n", 0)),
            ("permission deny", "PermissionRequest", vec![("g", Verdict::block("no"))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"blocked by g: no"}}}"#, "", 0)),
            ("permission allow", "PermissionRequest", vec![("g", Verdict::approve())],
                (r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#, "", 0)),
            ("post block and stop", "PostToolUse", vec![("g", Verdict::block("review").with_stop("halt"))],
                (r#"{"decision":"block","reason":"blocked by g: review","continue":false,"stopReason":"g: halt"}"#, "", 0)),
            ("prompt context", "UserPromptSubmit", vec![("g", Verdict::allow().with_context("branch main"))],
                (r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"branch main"}}"#, "", 0)),
            ("stop continues", "Stop", vec![("g", Verdict::block("run the tests"))], (r#"{"decision":"block","reason":"run the tests"}"#, "", 0)),
            ("stop context is dropped", "Stop", vec![("g", Verdict::allow().with_context("c"))], ("", "hookhost: Codex CLI does not read context (c) on Stop\n", 0)),
            ("compaction refused", "PreCompact", vec![("g", Verdict::block("not now"))], (r#"{"continue":false,"stopReason":"blocked by g: not now"}"#, "", 0)),
            ("session context", "SessionStart", vec![("g", Verdict::allow().with_context("c"))],
                (r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c"}}"#, "", 0)),
            ("interrupt message", "Interrupt", vec![("g", Verdict::warn("w"))], (r#"{"systemMessage":"g: w"}"#, "", 0)),
        ];
        for (name, event, verdicts, expected) in cases {
            let got = reply(
                AgentFormat::Codex,
                event,
                Some(&input),
                &outcome(event, &verdicts),
            );
            assert_reply(name, &got, expected);
        }
    }

    /// Codex fails a hook that answers a key it does not read: whatever hookhost answers on an
    /// event uses only the keys Codex reads there.
    #[test]
    fn every_answer_uses_only_keys_codex_reads() {
        let input = json!({"command": "ls"});
        let everything = Verdict::block("b")
            .with_context("c")
            .with_stop("s")
            .with_message("m");
        for spec in EVENTS.iter() {
            for verdict in [
                everything.clone(),
                Verdict::approve(),
                Verdict::ask("a"),
                Verdict::allow().with_updated_input(json!({"command": "ls -a"})),
                Verdict::warn("w").with_context("c"),
            ] {
                let got = reply(
                    AgentFormat::Codex,
                    spec.hookhost,
                    Some(&input),
                    &outcome(spec.hookhost, &[("g", verdict.clone())]),
                );
                if got.stdout.is_empty() {
                    continue;
                }
                let json: Value = serde_json::from_str(&got.stdout).unwrap();
                let keys = output_keys(spec.agent);
                for key in json.as_object().unwrap().keys() {
                    assert!(keys.top(key), "{}: {key} in {}", spec.agent, got.stdout);
                }
                if let Some(object) = json.get("hookSpecificOutput") {
                    for key in object.as_object().unwrap().keys() {
                        assert!(
                            keys.specific.contains(&key.as_str()),
                            "{}: hookSpecificOutput.{key}",
                            spec.agent
                        );
                    }
                }
                if matches!(spec.agent, "PreToolUse" | "PermissionRequest") {
                    assert!(json.get("continue").is_none(), "{}", got.stdout);
                }
            }
        }
    }
}
