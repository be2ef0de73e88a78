//! A Ralph v2 subagent invocation read from a tool call (seed 002's Hooks #9 and #13): which
//! tool starts a subagent (Claude Code's `Task`, VS Code's `runSubagent`, Copilot's
//! `@agent NAME`), its target agent, and the parameters its prompt declares (`MODE:`,
//! `TASK_ID:`, `SESSION_PATH:`, `ITERATION:` lines, or the same names as input fields).

use serde_json::Value;

pub use crate::wildcard::matches as glob;

/// A subagent call's parameters, as far as they can be read (best effort: the seed's
/// `parsed_params`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    /// The target agent (`Ralph-v2-Executor`).
    pub agent: String,
    /// The invocation's whole text (its prompt).
    pub text: String,
    /// The distinct modes declared.
    pub modes: Vec<String>,
    /// The distinct task ids declared.
    pub task_ids: Vec<String>,
    /// The session directory, when declared.
    pub session_path: Option<String>,
    /// The iteration, when declared.
    pub iteration: Option<u64>,
}

/// Input fields that name the target agent.
const AGENT_FIELDS: &[&str] = &[
    "subagent_type",
    "agent",
    "agent_name",
    "agentName",
    "agent_type",
    "agent_target",
];
/// Input fields that hold the invocation's text.
const TEXT_FIELDS: &[&str] = &[
    "prompt",
    "invocation_text",
    "description",
    "task",
    "query",
    "instructions",
];

/// Reads a subagent invocation from the call `tool(input)`; `None` when the tool names no
/// agent.
pub fn invocation(tool: &str, input: &Value) -> Option<Invocation> {
    let agent = tool
        .strip_prefix("@agent ")
        .map(str::to_string)
        .or_else(|| {
            AGENT_FIELDS
                .iter()
                .find_map(|f| input.get(f).and_then(Value::as_str))
                .map(str::to_string)
        })?;
    let text: Vec<&str> = TEXT_FIELDS
        .iter()
        .filter_map(|f| input.get(f).and_then(Value::as_str))
        .collect();
    let text = if text.is_empty() {
        input.as_str().unwrap_or_default().to_string()
    } else {
        text.join("\n")
    };
    let mut found = Invocation {
        agent: agent.trim().to_string(),
        text: text.clone(),
        ..Invocation::default()
    };
    let params = input.get("parsed_params").unwrap_or(input);
    for (fields, into) in [
        (&["modes", "mode"][..], &mut found.modes),
        (&["task_ids", "task_id"][..], &mut found.task_ids),
    ] {
        for field in fields {
            match params.get(field) {
                Some(Value::String(v)) => push_values(v, into),
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .for_each(|v| push_values(v, into)),
                _ => {}
            }
        }
    }
    found.session_path = params
        .get("session_path")
        .and_then(Value::as_str)
        .map(str::to_string);
    found.iteration = params.get("iteration").and_then(|v| {
        v.as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    });
    for line in text.lines() {
        let line = line
            .trim()
            .trim_start_matches(['-', '*', '>', ' '])
            .replace(['*', '`'], "");
        let Some((key, value)) = line.split_once([':', '=']) else {
            continue;
        };
        let key = key.trim().to_ascii_uppercase().replace([' ', '-'], "_");
        match key.as_str() {
            "MODE" | "MODES" => push_values(value, &mut found.modes),
            "TASK_ID" | "TASK_IDS" | "TASKID" | "TASKS" => push_values(value, &mut found.task_ids),
            "SESSION_PATH" | "SESSION" if found.session_path.is_none() => {
                found.session_path = Some(value.trim().trim_matches(['"', '\'']).to_string());
            }
            "ITERATION" if found.iteration.is_none() => found.iteration = value.trim().parse().ok(),
            _ => {}
        }
    }
    Some(found)
}

/// Splits `MODE: A, B` / `TASK_ID: task-1 and task-2` into its distinct values.
fn push_values(value: &str, into: &mut Vec<String>) {
    for part in value.split(|c: char| {
        c == ',' || c == ';' || c == '+' || c == '&' || c == '|' || c.is_whitespace()
    }) {
        let part = part
            .trim()
            .trim_matches(['"', '\'', '[', ']', '(', ')'])
            .trim_end_matches('.');
        if part.is_empty() || part.eq_ignore_ascii_case("and") {
            continue;
        }
        if !into.iter().any(|v| v == part) {
            into.push(part.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_agents_subagent_call_is_read() {
        let claude = json!({"subagent_type": "Ralph-v2-Executor", "description": "run", "prompt": "MODE: EXECUTE\nTASK_ID: task-1, task-2\nSESSION_PATH: .ralph-sessions/260215-173319/\nITERATION: 2"});
        let found = invocation("Task", &claude).unwrap();
        assert_eq!(found.agent, "Ralph-v2-Executor");
        assert_eq!(found.modes, ["EXECUTE"]);
        assert_eq!(found.task_ids, ["task-1", "task-2"]);
        assert_eq!(
            found.session_path.as_deref(),
            Some(".ralph-sessions/260215-173319/")
        );
        assert_eq!(found.iteration, Some(2));

        let copilot = json!({"prompt": "- **MODE**: `REVIEW`\n- **TASK_ID**: task-3"});
        let found = invocation("@agent Ralph-v2-Reviewer", &copilot).unwrap();
        assert_eq!(
            (
                found.agent.as_str(),
                found.modes.clone(),
                found.task_ids.clone()
            ),
            (
                "Ralph-v2-Reviewer",
                vec!["REVIEW".to_string()],
                vec!["task-3".to_string()]
            )
        );

        let params = json!({"agent_target": "Ralph-v2-Planner", "parsed_params": {"modes": ["INITIALIZE"], "task_ids": []}});
        assert_eq!(
            invocation("runSubagent", &params).unwrap().modes,
            ["INITIALIZE"]
        );

        assert_eq!(invocation("Bash", &json!({"command": "ls"})), None);
    }
}
