//! path-allowlist (seed 002, Hook #7): write tools may only touch paths inside the workspace
//! root that match the allowlist. Paths are normalised first (`..`, `//`, `./`, relative
//! paths) and, when the hook may read the workspace, symlinks are followed, so that neither
//! `src/../../etc/passwd` nor a symlinked directory leads out. Read-only tools are exempt.

use hook_sdk::glob::Glob;
use hook_sdk::path::{self, PathError};
use hook_sdk::{Guard, Hook, ToolCall};
use serde::Deserialize;

/// The hook's `[hooks.config]`.
#[derive(Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Globs of writable paths, relative to the workspace root.
    pub allow: Vec<String>,
    /// Tools that write, besides `Edit`. Their input's `file_path` (or `path`) is checked.
    pub write_tools: Vec<String>,
    /// The workspace root; default: the agent's working directory.
    pub root: Option<String>,
    /// Follow symlinks (needs `read` granted on the workspace). Default true.
    pub resolve_symlinks: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            allow: Vec::new(),
            write_tools: vec![
                "Write".to_string(),
                "MultiEdit".to_string(),
                "NotebookEdit".to_string(),
            ],
            root: None,
            resolve_symlinks: true,
        }
    }
}

/// The hook.
#[derive(Debug)]
pub struct PathAllowlist;

impl Hook for PathAllowlist {
    fn guard(call: &ToolCall) -> Guard {
        let config: Config = match hook_sdk::config() {
            Ok(config) => config,
            Err(error) => return Guard::block(format!("path-allowlist is misconfigured: {error}")),
        };
        match check(call, &config) {
            Ok(()) => Guard::Allow,
            Err(reason) => Guard::Block(reason),
        }
    }
}

hook_sdk::export!(PathAllowlist);

/// `Ok` when the call may proceed, else the reason to block it.
pub fn check(call: &ToolCall, config: &Config) -> Result<(), String> {
    let writes = call.tool == "Edit" || config.write_tools.iter().any(|tool| tool == &call.tool);
    if !writes {
        return Ok(());
    }
    let Some(target) = ["file_path", "path", "notebook_path"]
        .iter()
        .find_map(|key| call.input.get(key).and_then(|v| v.as_str()))
    else {
        return Err(format!(
            "{} call without a file_path: cannot check it against the allowlist",
            call.tool
        ));
    };
    let root = config.root.as_deref().unwrap_or(&call.cwd);
    if config.resolve_symlinks && std::fs::metadata(root).is_err() {
        hook_sdk::log::warn(format!(
            "cannot see {root}: symlinks are not resolved; grant `read = [\".\"]` to this hook"
        ));
    }
    let resolved = if config.resolve_symlinks {
        path::resolve_symlinks(root, target)
    } else {
        path::normalize(root, target)
    };
    let resolved = resolved.map_err(|error| match error {
        PathError::OutsideRoot { .. } | PathError::UnreadableSymlink { .. } => {
            format!("{error}: path resolves outside the workspace root")
        }
        other => other.to_string(),
    })?;
    let mut globs = Vec::new();
    for pattern in &config.allow {
        globs
            .push(Glob::new(pattern).map_err(|e| format!("path-allowlist is misconfigured: {e}"))?);
    }
    match hook_sdk::glob::first_match(&globs, resolved.relative()) {
        Some(_) => Ok(()),
        None if globs.is_empty() => Err(format!(
            "{} is not writable: the allowlist is empty",
            resolved.relative()
        )),
        None => Err(format!(
            "{} is outside the allowlist ({})",
            resolved.relative(),
            config.allow.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config() -> Config {
        Config {
            allow: vec![
                ".ralph-sessions/*/**".into(),
                ".ralph-sessions/*.instructions.md".into(),
                "agents/ralph-v2/**".into(),
            ],
            resolve_symlinks: false,
            ..Config::default()
        }
    }

    fn edit(path: &str) -> ToolCall {
        ToolCall::edit_file(path, "a", "b").with_cwd("/ws")
    }

    #[test]
    fn enforces_the_allowlist_on_write_tools() {
        let cases: &[(&str, ToolCall, bool)] = &[
            (
                "session file",
                edit(".ralph-sessions/260215-173319/progress.md"),
                true,
            ),
            (
                "session instructions",
                edit(".ralph-sessions/260215-173319.instructions.md"),
                true,
            ),
            ("agent file", edit("agents/ralph-v2/planner.md"), true),
            ("absolute inside", edit("/ws/agents/ralph-v2/x.md"), true),
            ("source file", edit("src/main.rs"), false),
            ("parent escape", edit("../../etc/passwd"), false),
            (
                "dot-dot through allowed dir",
                edit("agents/ralph-v2/../../src/main.rs"),
                false,
            ),
            ("double slash", edit("agents//ralph-v2//x.md"), true),
            ("dot segments", edit("./agents/./ralph-v2/x.md"), true),
            ("absolute outside", edit("/etc/passwd"), false),
            ("sibling prefix", edit("/ws2/agents/ralph-v2/x.md"), false),
            (
                "write tool",
                ToolCall::new("Write", json!({"file_path": "src/x.rs", "content": ""}))
                    .with_cwd("/ws"),
                false,
            ),
            (
                "read is exempt",
                ToolCall::read_file("/etc/passwd").with_cwd("/ws"),
                true,
            ),
            (
                "bash is exempt",
                ToolCall::bash_command("ls").with_cwd("/ws"),
                true,
            ),
            (
                "edit without path",
                ToolCall::new("Edit", json!({})).with_cwd("/ws"),
                false,
            ),
        ];
        for (name, call, allowed) in cases {
            assert_eq!(
                check(call, &config()).is_ok(),
                *allowed,
                "{name}: {:?}",
                check(call, &config())
            );
        }
    }

    #[test]
    fn reasons_say_why() {
        assert_eq!(
            check(&edit("../../etc/passwd"), &config()).unwrap_err(),
            "../../etc/passwd resolves to /etc/passwd, outside the workspace root /ws: path resolves outside the workspace root"
        );
        assert_eq!(
            check(&edit("src/main.rs"), &config()).unwrap_err(),
            "src/main.rs is outside the allowlist (.ralph-sessions/*/**, .ralph-sessions/*.instructions.md, agents/ralph-v2/**)"
        );
    }

    #[test]
    fn a_symlinked_directory_does_not_lead_out() {
        let dir = std::env::temp_dir().join(format!("path-allowlist-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("ws/agents")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        std::os::unix::fs::symlink(dir.join("outside"), dir.join("ws/agents/ralph-v2")).unwrap();
        let ws = dir.join("ws").to_string_lossy().into_owned();
        let config = Config {
            resolve_symlinks: true,
            ..config()
        };
        let call = ToolCall::edit_file("agents/ralph-v2/x.md", "", "y").with_cwd(&ws);
        assert!(
            check(&call, &config)
                .unwrap_err()
                .contains("outside the workspace root")
        );
        let lexical = Config {
            resolve_symlinks: false,
            ..config
        };
        assert!(
            check(&call, &lexical).is_ok(),
            "lexically it looks allowed: why symlinks must be resolved"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_hook_reads_its_config() {
        hook_sdk::testing::set_config(json!({"allow": ["docs/**"], "resolve_symlinks": false}));
        assert_eq!(
            PathAllowlist::guard(&ToolCall::edit_file("docs/a.md", "", "x").with_cwd("/ws")),
            Guard::Allow
        );
        assert!(matches!(
            PathAllowlist::guard(&ToolCall::edit_file("src/a.rs", "", "x").with_cwd("/ws")),
            Guard::Block(_)
        ));
        hook_sdk::testing::set_config(json!({"allow": ["[bad"]}));
        assert!(
            matches!(PathAllowlist::guard(&ToolCall::edit_file("docs/a.md", "", "x").with_cwd("/ws")), Guard::Block(r) if r.contains("misconfigured"))
        );
    }
}
