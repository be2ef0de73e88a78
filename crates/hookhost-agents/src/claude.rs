//! Claude Code (`--format claude`): its events keep their names (hookhost's built-in events
//! are Claude Code's); the payload is snake_case.
//!
//! Answers, as Claude Code reads them (code.claude.com/docs/en/hooks): exit 0 and JSON, never
//! exit 2 and JSON together. PreToolUse: `hookSpecificOutput.permissionDecision`
//! (`deny`/`ask`/`allow`) with `permissionDecisionReason`, `updatedInput`, `additionalContext`;
//! PermissionRequest: `hookSpecificOutput.decision` (`behavior`, `updatedInput`, `message`,
//! `interrupt`); UserPromptSubmit, PostToolUse, Stop, SubagentStop, PreCompact, ...: top-level
//! `decision: "block"` with `reason`; everywhere: `continue: false` with `stopReason`,
//! `systemMessage`. Events that can be refused only by exit status 2 get exit 2 and the reason
//! on stderr.

use serde_json::{Map, Value, json};

use super::{
    AgentError, AgentEvent, AgentEventSpec, AgentFormat, AgentReply, BlockAs, ContextAs, Plan,
    from_snake, given_name, resolve_name,
};

/// The table moved to [`crate::dialect::claude`]; these paths stay for embedders.
pub use crate::dialect::claude::{EVENTS, OTHER};

/// Reads Claude Code's payload.
pub(super) fn parse(
    object: Map<String, Value>,
    event: Option<&str>,
) -> Result<AgentEvent, AgentError> {
    let given = given_name(
        AgentFormat::Claude,
        &object,
        event,
        "the payload has no hook_event_name; pass --event NAME",
    )?;
    let name = resolve_name(AgentFormat::Claude, given)?;
    from_snake(AgentFormat::Claude, name, object)
}

/// Claude Code's answer for `plan`.
pub(super) fn render(spec: &AgentEventSpec, plan: &mut Plan) -> AgentReply {
    // Claude Code applies a rewrite only with a permission decision; hookhost never gives an
    // "allow" on a guard's behalf, so an unapproved rewrite asks the user to confirm it.
    let unapproved_rewrite = plan.rewrite.is_some() && !plan.approve && plan.block.is_none();
    if unapproved_rewrite && spec.block == BlockAs::Permission && plan.ask.is_none() {
        plan.ask = Some(format!(
            "hookhost: {} rewrote the tool input; confirm the new input",
            plan.rewriters()
        ));
    }
    if unapproved_rewrite && spec.block == BlockAs::Behavior {
        let reason = format!(
            "hookhost: {} rewrote the tool input, which Claude Code applies to a permission request only with an allow, and no guard approved it; denied rather than run unchanged",
            plan.rewriters()
        );
        plan.refuse(spec, reason);
    }
    let out = Map::new();
    let mut specific = Map::new();
    match (spec.block, &plan.block) {
        (BlockAs::Exit2, Some(reason)) => {
            return AgentReply {
                stdout: String::new(),
                stderr: format!("{reason}\n"),
                exit_code: 2,
            };
        }
        (BlockAs::Permission, _) => {
            let (decision, reason) = plan.permission();
            if let Some(decision) = decision {
                specific.insert("permissionDecision".into(), json!(decision));
            }
            if let Some(reason) = reason {
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
            if let Some(input) = &plan.rewrite {
                specific.insert("updatedInput".into(), input.clone());
            }
        }
        (BlockAs::Behavior, _) => {
            let decision = match &plan.block {
                Some(reason) => {
                    let mut deny = json!({ "behavior": "deny", "message": reason });
                    if plan.stop.take().is_some() {
                        deny["interrupt"] = json!(true);
                    }
                    Some(deny)
                }
                None if plan.approve => {
                    let mut allow = json!({ "behavior": "allow" });
                    if let Some(input) = &plan.rewrite {
                        allow["updatedInput"] = input.clone();
                    }
                    Some(allow)
                }
                None => None,
            };
            if let Some(decision) = decision {
                specific.insert("decision".into(), decision);
            }
        }
        _ => {}
    }
    finish(spec, plan, out, specific)
}

/// The rest of an answer in Claude Code's shape, which Codex CLI reads too: a top-level block
/// (`decision: "block"`, or `continue: false` where that is the refusal), context in
/// `hookSpecificOutput` (which gets its `hookEventName`), a stop, `systemMessage`.
pub(super) fn finish(
    spec: &AgentEventSpec,
    plan: &Plan,
    mut out: Map<String, Value>,
    mut specific: Map<String, Value>,
) -> AgentReply {
    match (spec.block, &plan.block) {
        (BlockAs::Decision, Some(reason)) => {
            out.insert("decision".into(), json!("block"));
            out.insert("reason".into(), json!(reason));
        }
        (BlockAs::EndSession, Some(reason)) => {
            out.insert("continue".into(), json!(false));
            out.insert("stopReason".into(), json!(reason));
        }
        _ => {}
    }
    if let (ContextAs::Specific, Some(context)) = (spec.context, &plan.context) {
        specific.insert("additionalContext".into(), json!(context));
    }
    if let Some(reason) = &plan.stop
        && !out.contains_key("continue")
    {
        out.insert("continue".into(), json!(false));
        out.insert("stopReason".into(), json!(reason));
    }
    if let Some(message) = &plan.message {
        out.insert("systemMessage".into(), json!(message));
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(spec.agent));
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    AgentReply::json(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::{assert_reply, outcome, reply};
    use super::*;
    use crate::Verdict;

    #[test]
    fn payloads_become_events() {
        let event = super::super::parse_event(
            AgentFormat::Claude,
            r#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/user/my-project","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/p/f.txt","content":"x"},"tool_response":{"filePath":"/p/f.txt","type":"create"},"tool_use_id":"toolu_01","duration_ms":12}"#,
            None,
        )
        .unwrap();
        assert_eq!(event.name, "PostToolUse");
        assert_eq!(event.session_id.as_deref(), Some("abc123"));
        assert_eq!(
            event.cwd.as_deref(),
            Some(std::path::Path::new("/home/user/my-project"))
        );
        assert_eq!(
            event.tool,
            Some((
                "Write".into(),
                json!({"file_path":"/p/f.txt","content":"x"})
            ))
        );
        let fields: Vec<&str> = event.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            fields,
            [
                "duration_ms",
                "permission_mode",
                "result",
                "tool_use_id",
                "transcript_path"
            ]
        );
        let custom = super::super::parse_event(
            AgentFormat::Claude,
            r#"{"hook_event_name":"PostToolBatch","tool_calls":[]}"#,
            None,
        )
        .unwrap();
        assert_eq!(
            (custom.name.as_str(), custom.tool.is_none()),
            ("PostToolBatch", true)
        );
    }

    #[test]
    fn answers_as_claude_code_reads_them() {
        let input = json!({"command": "npm test", "run_in_background": false});
        #[rustfmt::skip]
        #[allow(clippy::type_complexity)] // a table of cases
        let cases: Vec<(&str, &str, Vec<(&str, Verdict)>, (&str, &str, u8))> = vec![
            ("nothing to say", "PreToolUse", vec![("g", Verdict::allow())], ("", "", 0)),
            ("deny", "PreToolUse", vec![("g", Verdict::block("no db writes"))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocked by g: no db writes"}}"#, "", 0)),
            ("ask", "PreToolUse", vec![("g", Verdict::ask("prod?"))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"g: prod?"}}"#, "", 0)),
            ("approve", "PreToolUse", vec![("g", Verdict::approve())],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#, "", 0)),
            ("approved rewrite", "PreToolUse", vec![("g", Verdict::approve().with_updated_input(json!({"command":"pnpm test"})))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"pnpm test"}}}"#, "", 0)),
            ("unapproved rewrite asks", "PreToolUse", vec![("g", Verdict::allow().with_updated_input(json!({"command":"pnpm test"})))],
                (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"hookhost: g rewrote the tool input; confirm the new input","updatedInput":{"command":"pnpm test"}}}"#, "", 0)),
            ("warn and context", "PreToolUse", vec![("g", Verdict::warn("slow").with_context("use --offline"))],
                (r#"{"hookSpecificOutput":{"additionalContext":"use --offline","hookEventName":"PreToolUse"},"systemMessage":"g: slow"}"#, "", 0)),
            ("stop", "PreToolUse", vec![("g", Verdict::allow().with_stop("budget spent"))],
                (r#"{"continue":false,"stopReason":"g: budget spent"}"#, "", 0)),
            ("permission deny", "PermissionRequest", vec![("g", Verdict::block("no"))],
                (r#"{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"blocked by g: no"},"hookEventName":"PermissionRequest"}}"#, "", 0)),
            ("permission allow with rewrite", "PermissionRequest", vec![("g", Verdict::approve().with_updated_input(json!({"command":"npm run lint"})))],
                (r#"{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"command":"npm run lint"}},"hookEventName":"PermissionRequest"}}"#, "", 0)),
            // The agent's own dialog asks; the user also sees why.
            ("permission ask is the dialog", "PermissionRequest", vec![("g", Verdict::ask("?"))], (r#"{"systemMessage":"g: ?"}"#, "", 0)),
            ("prompt block", "UserPromptSubmit", vec![("g", Verdict::block("secrets in prompt"))],
                (r#"{"decision":"block","reason":"blocked by g: secrets in prompt"}"#, "", 0)),
            ("prompt context", "UserPromptSubmit", vec![("g", Verdict::allow().with_context("branch: main"))],
                (r#"{"hookSpecificOutput":{"additionalContext":"branch: main","hookEventName":"UserPromptSubmit"}}"#, "", 0)),
            ("stop block is an instruction", "Stop", vec![("g", Verdict::block("run the tests first"))],
                (r#"{"decision":"block","reason":"run the tests first"}"#, "", 0)),
            ("post block", "PostToolUse", vec![("g", Verdict::block("output has a secret"))],
                (r#"{"decision":"block","reason":"blocked by g: output has a secret"}"#, "", 0)),
            ("session start refused", "SessionStart", vec![("g", Verdict::block("wrong repo"))],
                (r#"{"continue":false,"stopReason":"blocked by g: wrong repo"}"#, "", 0)),
            ("exit 2 only", "TeammateIdle", vec![("g", Verdict::block("keep going"))], ("", "blocked by g: keep going\n", 2)),
            ("notification warning goes to stderr", "Notification", vec![("g", Verdict::warn("odd"))], ("", "hookhost: g: odd\n", 0)),
        ];
        for (name, event, verdicts, expected) in cases {
            let got = reply(
                AgentFormat::Claude,
                event,
                Some(&input),
                &outcome(event, &verdicts),
            );
            assert_reply(name, &got, expected);
        }
    }

    #[test]
    fn an_unapproved_rewrite_of_a_permission_request_is_denied() {
        let input = json!({"command": "rm -rf build"});
        let verdicts = [(
            "g",
            Verdict::allow().with_updated_input(json!({"command": "rm -r build"})),
        )];
        let got = reply(
            AgentFormat::Claude,
            "PermissionRequest",
            Some(&input),
            &outcome("PermissionRequest", &verdicts),
        );
        assert!(got.stdout.contains(r#""behavior":"deny""#), "{got:?}");
        assert!(
            got.stdout
                .contains("applies to a permission request only with an allow"),
            "{got:?}"
        );
    }
}
