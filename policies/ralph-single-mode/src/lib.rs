//! `ralph-single-mode` (seed 002, Hook #9, the Single-Mode Subagent Guard): each subagent
//! invocation of a Ralph v2 agent handles exactly one MODE and at most one TASK_ID. A call with
//! no MODE or several, or with several TASK_IDs, is blocked; a call to the Reviewer is also
//! blocked when its text names several tasks (Hook #10's Reviewer Single-Task Guard, which the
//! contract applies to the Reviewer).
//!
//! The contract's fail mode is fail-open with a warning (parsing is best effort): a
//! misconfigured hook warns on every call instead of blocking, and its hooks.toml entry sets
//! `on_failure = "allow"` so that a crash lets the call through, logged.

use hook_sdk::{Event, Hook, Phase, Verdict};
use policy_common::options::{OptionError, Options, misconfigured_open};
use policy_common::ralph::{Invocation, glob, invocation};

/// The options the hook takes.
pub const OPTIONS: &[&str] = &["tools", "agents", "reviewer"];

/// The hook, configured.
#[derive(Debug, Clone)]
pub struct SingleMode {
    tools: Vec<String>,
    agents: Vec<String>,
    reviewer: String,
}

impl Default for SingleMode {
    fn default() -> SingleMode {
        SingleMode {
            tools: ["Task", "Agent", "runSubagent", "task", "@agent *"]
                .map(String::from)
                .to_vec(),
            agents: vec!["Ralph-v2-*".into()],
            reviewer: "Ralph-v2-Reviewer".into(),
        }
    }
}

impl SingleMode {
    /// The hook configured by `[hooks.config]` (JSON text).
    pub fn from_config(json: &str) -> Result<SingleMode, OptionError> {
        let options = Options::parse(json, OPTIONS)?;
        let default = SingleMode::default();
        Ok(SingleMode {
            tools: options.strings("tools")?.unwrap_or(default.tools),
            agents: options.strings("agents")?.unwrap_or(default.agents),
            reviewer: options.string("reviewer")?.unwrap_or(default.reviewer),
        })
    }

    /// The subagent call `tool(input)`, when it is one the hook is about.
    pub fn in_scope(&self, tool: &str, input: &serde_json::Value) -> Option<Invocation> {
        if !self.tools.iter().any(|t| glob(t, tool)) {
            return None;
        }
        invocation(tool, input).filter(|found| self.agents.iter().any(|a| glob(a, &found.agent)))
    }

    /// PASS (`None`) or BLOCK with the contract's reason.
    pub fn check(&self, found: &Invocation) -> Option<String> {
        match found.modes.len() {
            0 => {
                return Some(format!(
                    "No MODE found in the invocation of {}. Each subagent call must declare exactly one MODE.",
                    found.agent
                ));
            }
            1 => {}
            _ => {
                return Some(format!(
                    "Multiple MODEs detected: [{}]. Each subagent call must handle exactly one MODE.",
                    found.modes.join(", ")
                ));
            }
        }
        if found.task_ids.len() > 1 {
            return Some(format!(
                "Multiple TASK_IDs detected: [{}]. Each subagent call must handle exactly one task.",
                found.task_ids.join(", ")
            ));
        }
        if found.agent == self.reviewer {
            let mentioned = task_mentions(&found.text);
            if mentioned.len() > 1 {
                return Some(format!(
                    "Reviewer invocation names multiple tasks: [{}]. Each review must cover exactly one task.",
                    mentioned.join(", ")
                ));
            }
        }
        None
    }
}

/// The distinct `task-N` ids a text mentions.
fn task_mentions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("task-") {
        let digits: String = rest[at + 5..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let boundary = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_' && c != '/');
        if !digits.is_empty() && boundary {
            let id = format!("task-{digits}");
            if !out.contains(&id) {
                out.push(id);
            }
        }
        rest = &rest[at + 5..];
    }
    out
}

/// The component.
#[derive(Debug)]
pub struct SingleModeGuard;

impl Hook for SingleModeGuard {
    fn handle(event: &Event) -> Verdict {
        if event.phase() != Phase::Guard || event.name() != "PreToolUse" {
            return Verdict::allow();
        }
        let Some(call) = event.tool_call() else {
            return Verdict::allow();
        };
        let guard = match SingleMode::from_config(&hook_sdk::config_json()) {
            Ok(guard) => guard,
            // The contract fails open with a warning.
            Err(error) => {
                return Verdict::warn(misconfigured_open("ralph-single-mode", &error));
            }
        };
        let Some(found) = guard.in_scope(&call.tool, &call.input) else {
            return Verdict::allow();
        };
        hook_sdk::log::debug(format!(
            "modes_found={:?} task_ids_found={:?}",
            found.modes, found.task_ids
        ));
        match guard.check(&found) {
            Some(reason) => Verdict::block(reason),
            None => Verdict::allow(),
        }
    }
}

hook_sdk::export!(SingleModeGuard);

#[cfg(test)]
mod tests {
    use super::*;
    use hook_sdk::{Answer, ToolCall, testing};
    use serde_json::json;

    fn answer(tool: &str, input: serde_json::Value) -> Answer {
        SingleModeGuard::handle(&Event::new("PreToolUse").with_tool(&ToolCall::new(tool, input)))
            .answer
    }

    #[test]
    fn the_contracts_rules() {
        testing::reset();
        let cases: &[(&str, serde_json::Value, Answer)] = &[
            ("Task", json!({"subagent_type": "Ralph-v2-Executor", "prompt": "MODE: EXECUTE\nTASK_ID: task-1, task-2"}),
                Answer::Block("Multiple TASK_IDs detected: [task-1, task-2]. Each subagent call must handle exactly one task.".into())),
            ("Task", json!({"subagent_type": "Ralph-v2-Executor", "prompt": "MODE: EXECUTE, REVIEW\nTASK_ID: task-1"}),
                Answer::Block("Multiple MODEs detected: [EXECUTE, REVIEW]. Each subagent call must handle exactly one MODE.".into())),
            ("@agent Ralph-v2-Executor", json!({"prompt": "Please do task-1"}),
                Answer::Block("No MODE found in the invocation of Ralph-v2-Executor. Each subagent call must declare exactly one MODE.".into())),
            ("Task", json!({"subagent_type": "Ralph-v2-Reviewer", "prompt": "MODE: REVIEW\nTASK_ID: task-4\nAlso look at task-5 while you are there."}),
                Answer::Block("Reviewer invocation names multiple tasks: [task-4, task-5]. Each review must cover exactly one task.".into())),
            ("Task", json!({"subagent_type": "Ralph-v2-Executor", "prompt": "MODE: EXECUTE\nTASK_ID: task-1"}), Answer::Allow),
            ("Task", json!({"subagent_type": "Ralph-v2-Planner", "prompt": "MODE: INITIALIZE"}), Answer::Allow),
            ("runSubagent", json!({"agentName": "Ralph-v2-Questioner", "prompt": "MODE: BRAINSTORM"}), Answer::Allow),
            ("Task", json!({"subagent_type": "Explore", "prompt": "look around"}), Answer::Allow),
            ("Bash", json!({"command": "MODE: A, B"}), Answer::Allow),
        ];
        for (tool, input, expected) in cases {
            assert_eq!(&answer(tool, input.clone()), expected, "{tool} {input}");
        }
    }

    #[test]
    fn bad_options_warn_and_let_the_call_through() {
        testing::reset();
        testing::set_config(json!({"agent": ["Ralph-*"]}));
        let Answer::Warn(reason) = answer(
            "Task",
            json!({"subagent_type": "Ralph-v2-Executor", "prompt": "MODE: A, B"}),
        ) else {
            panic!()
        };
        assert_eq!(
            reason,
            "policy ralph-single-mode is misconfigured, so it checks nothing: [hooks.config]: unknown option `agent` (did you mean `agents`?); the options are: tools, agents, reviewer"
        );
        testing::set_config(json!({"agents": ["Custom-*"], "tools": ["delegate"]}));
        assert!(matches!(
            answer(
                "delegate",
                json!({"agent": "Custom-A", "prompt": "MODE: A, B"})
            ),
            Answer::Block(_)
        ));
        assert_eq!(
            answer(
                "Task",
                json!({"subagent_type": "Ralph-v2-Executor", "prompt": "MODE: A, B"})
            ),
            Answer::Allow
        );
    }
}
