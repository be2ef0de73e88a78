//! `ralph-task-file` (seed 002, Hook #13, the Task File Existence Check): before the Executor or
//! the Reviewer runs, its task file must exist, at `<session_path>/iterations/<iteration>/tasks/
//! <task_id>.md` or, for sessions from before that layout, `<session_path>/tasks/<task_id>.md`.
//! Missing: blocked. Empty: a warning.
//!
//! The invocation's `TASK_ID:`, `SESSION_PATH:` and `ITERATION:` come from its prompt (or input
//! fields of those names); the session path defaults to `.ralph-sessions/<session id>/`. The hook
//! needs `read = ["."]` to see the files. The contract's fail mode is fail-open: without that
//! grant, or misconfigured, it warns and lets the call through; its hooks.toml entry sets
//! `on_failure = "allow"`.

use hook_sdk::{Event, Hook, Phase, Verdict};
use policy_common::options::{OptionError, Options, misconfigured_open};
use policy_common::ralph::{Invocation, glob, invocation};

/// The options the hook takes.
pub const OPTIONS: &[&str] = &["tools", "agents", "sessions_dir"];

/// The hook, configured.
#[derive(Debug, Clone)]
pub struct TaskFile {
    tools: Vec<String>,
    agents: Vec<String>,
    sessions_dir: String,
}

impl Default for TaskFile {
    fn default() -> TaskFile {
        TaskFile {
            tools: ["Task", "Agent", "runSubagent", "task", "@agent *"]
                .map(String::from)
                .to_vec(),
            agents: vec!["Ralph-v2-Executor".into(), "Ralph-v2-Reviewer".into()],
            sessions_dir: ".ralph-sessions".into(),
        }
    }
}

/// What the check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The file is there and not empty (`expected_path`).
    Present(String),
    /// It is there but empty: a warning.
    Empty(String),
    /// It is at neither place: blocked.
    Missing(String),
    /// The hook cannot tell (no task id, or no view of the project): a warning or nothing.
    Unknown(String),
}

impl TaskFile {
    /// The hook configured by `[hooks.config]` (JSON text).
    pub fn from_config(json: &str) -> Result<TaskFile, OptionError> {
        let options = Options::parse(json, OPTIONS)?;
        let default = TaskFile::default();
        Ok(TaskFile {
            tools: options.strings("tools")?.unwrap_or(default.tools),
            agents: options.strings("agents")?.unwrap_or(default.agents),
            sessions_dir: options
                .string("sessions_dir")?
                .unwrap_or(default.sessions_dir),
        })
    }

    /// The subagent call `tool(input)`, when it starts the Executor or the Reviewer.
    pub fn in_scope(&self, tool: &str, input: &serde_json::Value) -> Option<Invocation> {
        if !self.tools.iter().any(|t| glob(t, tool)) {
            return None;
        }
        invocation(tool, input).filter(|found| self.agents.iter().any(|a| glob(a, &found.agent)))
    }

    /// Looks for the task file of `found`, in the workspace `cwd`, for session `session_id`.
    /// `size` is a file's size, `None` when it does not exist (injected for tests).
    pub fn check(
        &self,
        found: &Invocation,
        cwd: &str,
        session_id: Option<&str>,
        size: &dyn Fn(&str) -> Option<u64>,
    ) -> Finding {
        let [task_id] = found.task_ids.as_slice() else {
            return Finding::Unknown(format!(
                "no single TASK_ID in the invocation of {}",
                found.agent
            ));
        };
        if task_id.is_empty()
            || !task_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
            || task_id.contains("..")
        {
            return Finding::Missing(format!("Task id '{task_id}' cannot name a task file"));
        }
        let session = match (&found.session_path, session_id) {
            (Some(path), _) => path.trim_end_matches('/').to_string(),
            (None, Some(id)) => format!("{}/{id}", self.sessions_dir.trim_end_matches('/')),
            (None, None) => {
                return Finding::Unknown(
                    "no SESSION_PATH in the invocation and no session id".into(),
                );
            }
        };
        let absolute = |relative: &str| {
            if session.starts_with('/') {
                format!("{session}/{relative}")
            } else {
                format!("{}/{session}/{relative}", cwd.trim_end_matches('/'))
            }
        };
        if size(&absolute("")).is_none() && size(cwd).is_none() {
            return Finding::Unknown(format!("cannot see {cwd}: grant the hook read = [\".\"]"));
        }
        let primary = found
            .iteration
            .map(|n| format!("iterations/{n}/tasks/{task_id}.md"));
        let fallback = format!("tasks/{task_id}.md");
        for relative in primary.iter().chain(std::iter::once(&fallback)) {
            match size(&absolute(relative)) {
                Some(0) => return Finding::Empty(relative.clone()),
                Some(_) => return Finding::Present(relative.clone()),
                None => {}
            }
        }
        Finding::Missing(format!(
            "Task file not found: {}",
            primary.unwrap_or(fallback)
        ))
    }
}

/// The component.
#[derive(Debug)]
pub struct TaskFileCheck;

impl Hook for TaskFileCheck {
    fn handle(event: &Event) -> Verdict {
        if event.phase() != Phase::Guard || event.name() != "PreToolUse" {
            return Verdict::allow();
        }
        let Some(call) = event.tool_call() else {
            return Verdict::allow();
        };
        let check = match TaskFile::from_config(&hook_sdk::config_json()) {
            Ok(check) => check,
            // The contract fails open.
            Err(error) => {
                return Verdict::warn(misconfigured_open("ralph-task-file", &error));
            }
        };
        let Some(found) = check.in_scope(&call.tool, &call.input) else {
            return Verdict::allow();
        };
        let size = |path: &str| std::fs::metadata(path).ok().map(|m| m.len());
        match check.check(&found, &call.cwd, event.session_id(), &size) {
            Finding::Present(path) => {
                hook_sdk::log::debug(format!("expected_path={path} file_exists=true"));
                Verdict::allow()
            }
            Finding::Empty(path) => Verdict::warn(format!("Task file is empty: {path}")),
            Finding::Missing(reason) => Verdict::block(reason),
            Finding::Unknown(reason) => Verdict::warn(format!("task file not checked: {reason}")),
        }
    }
}

hook_sdk::export!(TaskFileCheck);

#[cfg(test)]
mod tests;
