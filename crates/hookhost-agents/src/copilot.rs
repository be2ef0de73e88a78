//! GitHub Copilot CLI (`--format copilot`), per docs.github.com/en/copilot/reference/hooks-reference.
//!
//! Copilot's camelCase payloads (`sessionId`, `toolName`, `toolArgs`, `timestamp` in epoch
//! milliseconds) carry no event name, so each settings entry passes `--event preToolUse` (or
//! whichever event it is registered for). `toolArgs` is a JSON string in the documented
//! examples and an object in some versions: both are read. The PascalCase ("VS Code
//! compatible") variant, snake_case with `hook_event_name`, is read too. Keys are turned into
//! snake_case, so that hookhost's hooks see one shape whichever agent fired the event.
//!
//! Answers are flat: preToolUse `permissionDecision` (`deny`/`ask`/`allow`) with
//! `permissionDecisionReason` and `modifiedArgs`; permissionRequest `behavior` with `message`
//! and `interrupt`; userPromptSubmitted, agentStop and subagentStop `decision: "block"` with
//! `reason`; `additionalContext` on preToolUse, userPromptSubmitted, postToolUse,
//! postToolUseFailure, sessionStart, subagentStart and notification. Copilot has no
//! `systemMessage` and no `continue`. Checked against Copilot CLI 1.0.102 (its
//! `copilot-sdk/types.d.ts`, `changelog.json`, and tests/agents_e2e).

use serde_json::{Map, Value, json};

use super::{
    AgentError, AgentEvent, AgentEventSpec, AgentFormat, AgentReply, BlockAs, ContextAs, Plan,
    from_snake, given_name,
};

use crate::dialect::copilot::snake_key;
/// The table and key spelling moved to [`crate::dialect::copilot`]; these paths stay for
/// embedders.
pub use crate::dialect::copilot::{EVENTS, OTHER, event};

/// Reads Copilot CLI's payload.
pub(super) fn parse(
    object: Map<String, Value>,
    event: Option<&str>,
) -> Result<AgentEvent, AgentError> {
    let given = given_name(
        AgentFormat::Copilot,
        &object,
        event,
        "Copilot CLI's camelCase payloads carry none; pass --event preToolUse (the event the settings entry is registered for)",
    )?;
    let spec = self::event(given).ok_or_else(|| AgentError::UnknownEvent {
        agent: AgentFormat::Copilot.agent(),
        name: crate::text::quote(given),
        hint: match crate::event::catalog::lookalike(given)
            .and_then(|meant| EVENTS.iter().find(|spec| spec.hookhost == meant.name))
        {
            Some(meant) => format!(
                "did you mean {}? (a misspelt event would run no hook)",
                meant.agent
            ),
            None => format!(
                "Copilot CLI's events are {}",
                EVENTS
                    .iter()
                    .map(|spec| spec.agent)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    })?;
    let mut snake = Map::with_capacity(object.len());
    for (key, value) in object {
        let value = match (key.as_str(), value) {
            // "JSON string containing the tool's arguments" (and an object in some versions):
            // written by JSON.stringify, so always JSON. Input that cannot be read is never
            // passed on as a string, where a guard looking for a command would find none.
            ("toolArgs", Value::String(text)) => {
                super::json::parse(&text).map_err(|source| AgentError::EmbeddedJson {
                    agent: AgentFormat::Copilot.agent(),
                    field: "toolArgs",
                    source,
                })?
            }
            ("tool_input", Value::String(text)) => {
                super::json::parse(&text).map_err(|source| AgentError::EmbeddedJson {
                    agent: AgentFormat::Copilot.agent(),
                    field: "tool_input",
                    source,
                })?
            }
            ("toolResult" | "tool_result", Value::String(text)) => {
                super::json::parse(&text).unwrap_or(Value::String(text))
            }
            (_, value) => value,
        };
        let key = match key.as_str() {
            "toolArgs" => "tool_input".to_string(),
            "toolResult" => "tool_result".to_string(),
            _ => snake_key(&key),
        };
        snake.insert(key, value);
    }
    // hookhost's SubagentStart matcher compares `agent_type`; Copilot matches `agentName`.
    if spec.hookhost == "SubagentStart"
        && !snake.contains_key("agent_type")
        && let Some(name) = snake.get("agent_name").cloned()
    {
        snake.insert("agent_type".to_string(), name);
    }
    from_snake(AgentFormat::Copilot, spec.hookhost.to_string(), snake)
}

/// Copilot CLI's answer for `plan`.
pub(super) fn render(spec: &AgentEventSpec, plan: &mut Plan) -> AgentReply {
    let mut out = Map::new();
    match spec.block {
        BlockAs::Permission => {
            let (decision, reason) = plan.permission();
            if let Some(decision) = decision {
                out.insert("permissionDecision".into(), json!(decision));
            }
            if let Some(reason) = reason {
                out.insert("permissionDecisionReason".into(), json!(reason));
            }
            if let Some(input) = &plan.rewrite {
                out.insert("modifiedArgs".into(), input.clone());
            }
        }
        BlockAs::Behavior => match &plan.block {
            Some(reason) => {
                out.insert("behavior".into(), json!("deny"));
                out.insert("message".into(), json!(reason));
                if plan.stop.take().is_some() {
                    out.insert("interrupt".into(), json!(true));
                }
            }
            None if plan.approve => {
                out.insert("behavior".into(), json!("allow"));
            }
            None => {}
        },
        BlockAs::Decision => {
            if let Some(reason) = &plan.block {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
        }
        _ => {}
    }
    if let Some(stop) = plan.stop.take() {
        plan.dropped.push(format!("a stop without a deny ({stop})"));
    }
    match (spec.context, &plan.context) {
        (ContextAs::TopLevel, Some(context)) => {
            out.insert("additionalContext".into(), json!(context));
        }
        (ContextAs::Exit2Stdout, Some(context)) => {
            return AgentReply {
                stdout: format!("{context}\n"),
                stderr: String::new(),
                exit_code: 2,
            };
        }
        _ => {}
    }
    AgentReply::json(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::parse_event;
    use super::super::test_support::{assert_reply, outcome, reply};
    use super::*;
    use crate::Verdict;

    #[test]
    fn names_in_every_casing() {
        #[rustfmt::skip]
        let cases = [
            ("preToolUse", Some("PreToolUse")), ("PreToolUse", Some("PreToolUse")), ("pre_tool_use", Some("PreToolUse")),
            ("userPromptSubmitted", Some("UserPromptSubmit")), ("UserPromptSubmit", Some("UserPromptSubmit")),
            ("agentStop", Some("Stop")), ("Stop", Some("Stop")), ("errorOccurred", Some("ErrorOccurred")),
            ("postToolUseFailure", Some("PostToolUseFailure")), ("notification", Some("Notification")),
            ("preTool", None), ("BeforeTool", None),
        ];
        for (name, expected) in cases {
            assert_eq!(event(name).map(|spec| spec.hookhost), expected, "{name}");
        }
    }

    #[test]
    fn payloads_become_events() {
        #[rustfmt::skip]
        #[allow(clippy::type_complexity)] // a table of cases
        let cases: Vec<(&str, &str, Option<&str>, &str, Option<(&str, serde_json::Value)>, Vec<&str>)> = vec![
            ("tool args as a JSON string", r#"{"timestamp":1704614600000,"cwd":"/path/to/project","toolName":"bash","toolArgs":"{\"command\":\"rm -rf dist\",\"description\":\"Clean build directory\"}"}"#,
                Some("preToolUse"), "PreToolUse", Some(("bash", json!({"command":"rm -rf dist","description":"Clean build directory"}))), vec!["timestamp"]),
            ("tool args as an object", r#"{"sessionId":"s1","timestamp":1,"cwd":"/p","toolName":"edit","toolArgs":{"path":"a.rs"}}"#,
                Some("preToolUse"), "PreToolUse", Some(("edit", json!({"path":"a.rs"}))), vec!["timestamp"]),
            ("tool result", r#"{"timestamp":1,"cwd":"/p","toolName":"bash","toolArgs":"{}","toolResult":{"resultType":"success","textResultForLlm":"ok"}}"#,
                Some("postToolUse"), "PostToolUse", Some(("bash", json!({}))), vec!["timestamp", "result"]),
            ("PascalCase, snake_case payload", r#"{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/p","timestamp":"2026-01-01T00:00:00Z","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
                None, "PreToolUse", Some(("Bash", json!({"command":"ls"}))), vec!["timestamp"]),
            ("notification names itself", r#"{"sessionId":"s","timestamp":1,"cwd":"/p","hook_event_name":"Notification","message":"done","notification_type":"agent_completed"}"#,
                None, "Notification", None, vec!["message", "notification_type", "timestamp"]),
            ("agent stop", r#"{"sessionId":"s","timestamp":1,"cwd":"/p","transcriptPath":"/t","stopReason":"end_turn","stop_hook_active":false}"#,
                Some("agentStop"), "Stop", None, vec!["stop_hook_active", "stop_reason", "timestamp", "transcript_path"]),
            ("subagent start matches on its name", r#"{"sessionId":"s","timestamp":1,"cwd":"/p","agentName":"reviewer"}"#,
                Some("subagentStart"), "SubagentStart", None, vec!["agent_name", "agent_type", "timestamp"]),
            ("error", r#"{"sessionId":"s","timestamp":1,"cwd":"/p","error":{"message":"m","name":"E"},"errorContext":"system","recoverable":true}"#,
                Some("errorOccurred"), "ErrorOccurred", None, vec!["error", "error_context", "recoverable", "timestamp"]),
        ];
        for (name, stdin, event, expected_name, tool, fields) in cases {
            let parsed = parse_event(AgentFormat::Copilot, stdin, event)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(parsed.name, expected_name, "{name}");
            assert_eq!(parsed.tool, tool.map(|(t, i)| (t.to_string(), i)), "{name}");
            let got: Vec<&str> = parsed.fields.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(got, fields, "{name}");
        }
    }

    #[test]
    fn answers_as_copilot_reads_them() {
        let input = json!({"command": "npm test"});
        #[rustfmt::skip]
        #[allow(clippy::type_complexity)] // a table of cases
        let cases: Vec<(&str, &str, Vec<(&str, Verdict)>, (&str, &str, u8))> = vec![
            ("nothing to say", "PreToolUse", vec![("g", Verdict::allow())], ("", "", 0)),
            ("deny", "PreToolUse", vec![("g", Verdict::block("no"))], (r#"{"permissionDecision":"deny","permissionDecisionReason":"blocked by g: no"}"#, "", 0)),
            ("ask", "PreToolUse", vec![("g", Verdict::ask("sure?"))], (r#"{"permissionDecision":"ask","permissionDecisionReason":"g: sure?"}"#, "", 0)),
            ("approve", "PreToolUse", vec![("g", Verdict::approve())], (r#"{"permissionDecision":"allow"}"#, "", 0)),
            ("rewrite", "PreToolUse", vec![("g", Verdict::allow().with_updated_input(json!({"command":"pnpm test"})))], (r#"{"modifiedArgs":{"command":"pnpm test"}}"#, "", 0)),
            ("context on preToolUse", "PreToolUse", vec![("g", Verdict::allow().with_context("c"))], (r#"{"additionalContext":"c"}"#, "", 0)),
            ("warning on stderr", "PreToolUse", vec![("g", Verdict::warn("slow"))], ("", "hookhost: g: slow\n", 0)),
            ("permission deny and interrupt", "PermissionRequest", vec![("g", Verdict::block("no").with_stop("halt"))], (r#"{"behavior":"deny","message":"blocked by g: no","interrupt":true}"#, "", 0)),
            ("permission approve", "PermissionRequest", vec![("g", Verdict::approve())], (r#"{"behavior":"allow"}"#, "", 0)),
            ("permission rewrite cannot be applied", "PermissionRequest", vec![("g", Verdict::allow().with_updated_input(json!({})))],
                (r#"{"behavior":"deny","message":"hookhost: g rewrote the tool input, which the agent cannot apply on permissionRequest; the call is refused rather than run with an input no guard approved"}"#, "", 0)),
            ("post block is context", "PostToolUse", vec![("g", Verdict::block("leaked a key"))], (r#"{"additionalContext":"blocked by g: leaked a key"}"#, "", 0)),
            ("failure context at exit 0", "PostToolUseFailure", vec![("g", Verdict::allow().with_context("see the log"))], (r#"{"additionalContext":"see the log"}"#, "", 0)),
            ("agent stop block", "Stop", vec![("g", Verdict::block("tests are red"))], (r#"{"decision":"block","reason":"tests are red"}"#, "", 0)),
            ("session context", "SessionStart", vec![("g", Verdict::allow().with_context("branch main"))], (r#"{"additionalContext":"branch main"}"#, "", 0)),
            ("a prompt block", "UserPromptSubmit", vec![("g", Verdict::block("secret"))], (r#"{"decision":"block","reason":"blocked by g: secret"}"#, "", 0)),
            ("prompt context", "UserPromptSubmit", vec![("g", Verdict::allow().with_context("on branch main"))], (r#"{"additionalContext":"on branch main"}"#, "", 0)),
            ("a stop is said on stderr", "PreToolUse", vec![("g", Verdict::allow().with_stop("enough"))], ("", "hookhost: Copilot CLI does not read a stop (g: enough) on preToolUse\n", 0)),
        ];
        for (name, event, verdicts, expected) in cases {
            let got = reply(
                AgentFormat::Copilot,
                event,
                Some(&input),
                &outcome(event, &verdicts),
            );
            assert_reply(name, &got, expected);
        }
    }
}
