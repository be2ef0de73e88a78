//! progress-guard (seed 002, Hooks #8 and #14): `progress.md` drives the Ralph orchestrator,
//! which routes tasks by their status marker. An edit that writes any status other than
//! `[ ]`, `[/]`, `[P]`, `[x]`, `[F]`, `[C]` is blocked, naming the task and the bad status.
//! Transitions outside the usual flow (`[ ]` → `[x]` skipping the work) are logged as
//! warnings, not blocked.

use hook_sdk::glob::Glob;
use hook_sdk::{Guard, Hook, ToolCall, log};
use serde::Deserialize;

/// The hook's `[hooks.config]`.
#[derive(Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Globs of the files this guard protects, relative to the workspace root.
    pub files: Vec<String>,
    /// The allowed status markers (the text between `[` and `]`).
    pub statuses: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            files: vec!["**/progress.md".to_string()],
            statuses: [" ", "/", "P", "x", "F", "C"].map(String::from).to_vec(),
        }
    }
}

/// The hook.
#[derive(Debug)]
pub struct ProgressGuard;

impl Hook for ProgressGuard {
    fn guard(call: &ToolCall) -> Guard {
        let config: Config = match hook_sdk::config() {
            Ok(config) => config,
            Err(error) => return Guard::block(format!("progress-guard is misconfigured: {error}")),
        };
        match check(call, &config) {
            Ok(warnings) => {
                for warning in warnings {
                    log::warn(warning);
                }
                Guard::Allow
            }
            Err(reason) => Guard::Block(reason),
        }
    }
}

hook_sdk::export!(ProgressGuard);

/// A task line: `- [status] task-id ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStatus {
    /// The task's id: the first word after the marker, without a trailing `:`.
    pub task: String,
    /// The text between `[` and `]`.
    pub status: String,
}

/// Every task line of `text`.
pub fn task_statuses(text: &str) -> Vec<TaskStatus> {
    text.lines()
        .filter_map(|line| {
            let rest = line
                .trim_start()
                .strip_prefix("- [")
                .or_else(|| line.trim_start().strip_prefix("* ["))?;
            let (status, after) = rest.split_once(']')?;
            let task = after
                .split_whitespace()
                .next()
                .unwrap_or("(unnamed)")
                .trim_end_matches(':');
            Some(TaskStatus {
                task: task.to_string(),
                status: status.to_string(),
            })
        })
        .collect()
}

/// `Ok(warnings)` to allow, `Err(reason)` to block.
pub fn check(call: &ToolCall, config: &Config) -> Result<Vec<String>, String> {
    let (path, old, new) = if let Some(edit) = call.edit() {
        (edit.file_path, edit.old_str, edit.new_str)
    } else if call.tool == "Write" {
        let text = |key: &str| {
            call.input
                .get(key)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        (text("file_path"), String::new(), text("content"))
    } else {
        return Ok(Vec::new());
    };
    let relative = hook_sdk::path::normalize(&call.cwd, &path)
        .map(|p| p.relative().to_string())
        .unwrap_or(path.clone());
    let mut protected = false;
    for pattern in &config.files {
        let glob =
            Glob::new(pattern).map_err(|e| format!("progress-guard is misconfigured: {e}"))?;
        protected |= glob.matches(&relative);
    }
    if !protected {
        return Ok(Vec::new());
    }
    let bad: Vec<String> = task_statuses(&new)
        .into_iter()
        .filter(|t| !config.statuses.contains(&t.status))
        .map(|t| format!("{} has status [{}]", t.task, t.status))
        .collect();
    if !bad.is_empty() {
        let allowed: Vec<String> = config.statuses.iter().map(|s| format!("[{s}]")).collect();
        return Err(format!(
            "{relative}: {}; allowed statuses are {}",
            bad.join(", "),
            allowed.join(" ")
        ));
    }
    Ok(transition_warnings(&old, &new))
}

/// Warnings for status changes outside the usual flow (seed 002, Hook #14, rule 4).
fn transition_warnings(old: &str, new: &str) -> Vec<String> {
    let before = task_statuses(old);
    task_statuses(new)
        .into_iter()
        .filter_map(|after| {
            let previous = before.iter().find(|b| b.task == after.task)?;
            let ok = previous.status == after.status
                || matches!(
                    (previous.status.as_str(), after.status.as_str()),
                    (" ", "/")
                        | ("/", "P")
                        | ("/", "F")
                        | ("P", "x")
                        | ("P", "/")
                        | ("F", "/")
                        | (_, "C")
                );
            (!ok).then(|| {
                format!(
                    "{}: unusual transition [{}] -> [{}]",
                    after.task, previous.status, after.status
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(path: &str, old: &str, new: &str) -> Result<Vec<String>, String> {
        check(
            &ToolCall::edit_file(path, old, new).with_cwd("/ws"),
            &Config::default(),
        )
    }

    #[test]
    fn blocks_invalid_statuses_naming_task_and_status() {
        assert_eq!(
            edit(
                ".ralph-sessions/s1/progress.md",
                "- [/] task-3: build",
                "- [?] task-3: build"
            )
            .unwrap_err(),
            ".ralph-sessions/s1/progress.md: task-3 has status [?]; allowed statuses are [ ] [/] [P] [x] [F] [C]"
        );
        let err = edit(
            "progress.md",
            "",
            "- [x] task-1\n- [done] task-2: y\n  - [X] task-4",
        )
        .unwrap_err();
        assert!(
            err.contains("task-2 has status [done], task-4 has status [X]"),
            "{err}"
        );
    }

    #[test]
    fn allows_valid_statuses_and_other_files() {
        for status in [" ", "/", "P", "x", "F", "C"] {
            assert!(
                edit("progress.md", "", &format!("- [{status}] task-1: a")).is_ok(),
                "[{status}]"
            );
        }
        assert!(
            edit("notes.md", "", "- [?] task-1").is_ok(),
            "only progress.md is guarded"
        );
        assert!(edit("docs/progress.md.bak", "", "- [?] task-1").is_ok());
        assert!(
            check(
                &ToolCall::bash_command("echo '- [?] task-1' >> progress.md"),
                &Config::default()
            )
            .is_ok()
        );
    }

    #[test]
    fn the_write_tool_and_path_tricks_are_covered() {
        let call = ToolCall::new(
            "Write",
            serde_json::json!({"file_path": "./a/../progress.md", "content": "- [!] task-9"}),
        )
        .with_cwd("/ws");
        assert!(
            check(&call, &Config::default())
                .unwrap_err()
                .contains("task-9 has status [!]")
        );
    }

    #[test]
    fn unusual_transitions_warn() {
        assert_eq!(
            edit("progress.md", "- [ ] task-1: a", "- [x] task-1: a").unwrap(),
            ["task-1: unusual transition [ ] -> [x]"]
        );
        assert!(
            edit("progress.md", "- [ ] task-1: a", "- [/] task-1: a")
                .unwrap()
                .is_empty()
        );
        hook_sdk::testing::reset();
        assert_eq!(
            ProgressGuard::guard(
                &ToolCall::edit_file("progress.md", "- [ ] t", "- [x] t").with_cwd("/ws")
            ),
            Guard::Allow
        );
        assert_eq!(hook_sdk::testing::logs().len(), 1);
    }
}
