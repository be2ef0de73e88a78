//! The Claude Agent SDK's hook callbacks (Python `claude-agent-sdk`, TypeScript
//! `@anthropic-ai/claude-agent-sdk`): the SDK hands an in-process callback the JSON Claude Code
//! gives a hook command on stdin, and reads back the JSON such a command prints. So a callback
//! is `agent-hook --format claude` without the process: the same reading ([`parse_event`]), the
//! same answer ([`render_outcome`]), taken as a value instead of stdout and an exit status. The
//! Python and Node packages' SDK helpers call this, once per hook callback.

use serde_json::{Map, Value, json};

use super::{
    AgentFormat, AgentReply, event_name, input_failure_reply, parse_event, render_outcome,
};
use crate::runner::HookRunner;

/// What a Claude Agent SDK hook callback returns for one event.
#[derive(Debug, Clone, PartialEq)]
pub struct SdkAnswer {
    /// The callback's output (`SyncHookJSONOutput`): `{}` for no objection.
    pub output: Map<String, Value>,
    /// What Claude Code would have read on the hook's stderr (what the agent cannot apply on
    /// this event, hookhost's warnings, failed observers), for the caller to log; empty when
    /// there is nothing to say.
    pub diagnostics: String,
}

/// Runs `input` (the SDK's hook input, as JSON text) through `runner` and returns the callback's
/// output. An input that cannot be read refuses a tool call (a deny naming the problem), as
/// `agent-hook` does; the input's `cwd` is not used to find a configuration: `runner` is the
/// agent's.
pub async fn sdk_callback(runner: &HookRunner, input: &str) -> SdkAnswer {
    let reply = match parse_event(AgentFormat::Claude, input, None) {
        Ok(event) => {
            let outcome = runner.fire(&event.event()).await;
            render_outcome(&event, &outcome)
        }
        Err(error) => {
            let name = event_name(AgentFormat::Claude, input.as_bytes(), None);
            let problem = crate::text::error_chain(&error);
            input_failure_reply(AgentFormat::Claude, name.as_deref(), &problem)
        }
    };
    sdk_answer(reply)
}

/// The events hookhost reads in Claude Code's dialect, by Claude Code's names: what a helper
/// registers a callback for when it is not told which events.
pub fn claude_events() -> impl Iterator<Item = &'static str> {
    crate::dialect::claude::EVENTS.iter().map(|spec| spec.agent)
}

/// A hook command's reply as the SDK's callback output. A callback has no exit status: where
/// Claude Code reads a block only from exit status 2 (its reason on stderr), the callback
/// answers `{"decision": "block", "reason": ...}`, the SDK's block for every event.
pub fn sdk_answer(reply: AgentReply) -> SdkAnswer {
    let AgentReply {
        stdout,
        stderr,
        exit_code,
    } = reply;
    let diagnostics = stderr.trim_end().to_string();
    if exit_code == 2 {
        let output = json!({ "decision": "block", "reason": diagnostics });
        return SdkAnswer {
            output: output.as_object().cloned().unwrap_or_default(),
            diagnostics: String::new(),
        };
    }
    let output = match serde_json::from_str::<Value>(&stdout) {
        Ok(Value::Object(output)) => output,
        // An empty stdout is "no objection"; the renderers print nothing else but objects.
        _ => Map::new(),
    };
    SdkAnswer {
        output,
        diagnostics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::NativeHook;
    use crate::runner::RunnerOptions;
    use crate::verdict::Verdict;

    fn runner() -> HookRunner {
        let dir = std::env::temp_dir();
        let runner = HookRunner::new(
            crate::config::Config::empty(dir.join("hooks.toml")),
            RunnerOptions::new(&dir),
        )
        .unwrap();
        runner.register(
            NativeHook::new("no-rm", "PreToolUse", |input| {
                match input
                    .tool_call()
                    .and_then(|call| call.input["command"].as_str())
                {
                    Some(command) if command.starts_with("rm ") => Verdict::block("no rm"),
                    _ => Verdict::allow(),
                }
            })
            .unwrap(),
        );
        runner.register(
            NativeHook::new("done-check", "TaskCompleted", |_| {
                Verdict::block("tests are failing")
            })
            .unwrap(),
        );
        runner
    }

    fn answer(input: Value) -> SdkAnswer {
        let runner = runner();
        let input = input.to_string();
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(sdk_callback(&runner, &input))
    }

    #[test]
    fn a_block_is_the_permission_decision_claude_code_reads() {
        let answer = answer(json!({
            "hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/",
            "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1"
        }));
        assert_eq!(
            answer.output["hookSpecificOutput"],
            json!({
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "blocked by no-rm: no rm"
            })
        );
    }

    #[test]
    fn no_objection_is_an_empty_output() {
        let answer = answer(json!({
            "hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/",
            "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"
        }));
        assert_eq!(answer.output, Map::new());
    }

    #[test]
    fn an_exit_status_block_is_a_decision_block() {
        let answer = answer(json!({
            "hook_event_name": "TaskCompleted", "session_id": "s", "cwd": "/",
            "task_id": "1", "task_subject": "fix it"
        }));
        assert_eq!(
            Value::Object(answer.output),
            json!({"decision": "block", "reason": "blocked by done-check: tests are failing"})
        );
    }

    #[test]
    fn an_unreadable_tool_call_is_denied_naming_the_problem() {
        let answer = answer(json!({"hook_event_name": "PreToolUse", "tool_name": 7}));
        let specific = &answer.output["hookSpecificOutput"];
        assert_eq!(specific["permissionDecision"], "deny");
        let reason = specific["permissionDecisionReason"].as_str().unwrap();
        assert!(
            reason.contains("`tool_name` must be a string, found number"),
            "{reason}"
        );
    }
}
