//! Typed views of tool inputs: [`ShellInput`], any agent's shell command; and the inputs of
//! forgeflare's tools by Claude Code's names (`Bash`, `Read`, `Edit`, `Glob`, `Grep`). Unknown
//! fields are ignored, so a view keeps working when an agent adds fields.

use serde::Deserialize;

/// The command line a shell tool runs, whatever the agent calls the tool: Claude Code's
/// `Bash` and `PowerShell`, Copilot CLI's `bash`, Gemini CLI's `run_shell_command`, Codex
/// CLI's `Bash` (an argv joined with shell quoting), Cursor's `Shell`, ... (see
/// [`ToolCall::shell`](crate::ToolCall::shell)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellInput {
    /// The command line.
    pub command: String,
    /// What the model says the command is for, when the agent passes it.
    pub description: Option<String>,
}

/// `Bash`: run a shell command. Claude Code's (and Codex's, forgeflare's) name only: read
/// [`ShellInput`] for every agent's.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct BashInput {
    /// The command line.
    pub command: String,
    /// What the model says the command is for.
    #[serde(default)]
    pub description: Option<String>,
}

/// `Read`: read a file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ReadInput {
    /// The file, absolute or relative to the workspace root.
    pub file_path: String,
}

/// `Edit`: replace text in a file (or create it, when `old_str` is empty).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct EditInput {
    /// The file, absolute or relative to the workspace root.
    pub file_path: String,
    /// The text to replace.
    #[serde(default)]
    pub old_str: String,
    /// The replacement.
    #[serde(default)]
    pub new_str: String,
    /// Replace every occurrence instead of exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

/// `Glob`: list files matching a pattern.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GlobInput {
    /// The pattern.
    pub pattern: String,
    /// Where to search.
    #[serde(default)]
    pub path: Option<String>,
}

/// `Grep`: search file contents.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GrepInput {
    /// The regular expression.
    pub pattern: String,
    /// Where to search.
    #[serde(default)]
    pub path: Option<String>,
    /// Only files of this type.
    #[serde(default)]
    pub file_type: Option<String>,
    /// Case sensitivity, when given.
    #[serde(default)]
    pub case_sensitive: Option<bool>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{Event, ToolCall, ToolKind};

    /// One line per agent's shell tool, as that agent sends it.
    #[test]
    fn shell_is_the_command_of_every_agents_shell_tool() {
        #[rustfmt::skip]
        let cases = [
            ("claude", "Bash", json!({"command": "rm -rf /", "description": "wipe"}), Some("wipe")),
            ("claude", "PowerShell", json!({"command": "rm -rf /"}), None),
            ("copilot", "bash", json!({"command": "rm -rf /", "description": "wipe", "mode": "sync"}), Some("wipe")),
            ("gemini", "run_shell_command", json!({"command": "rm -rf /", "dir_path": "."}), None),
            ("codex", "Bash", json!({"command": "rm -rf /"}), None),
            ("codex, an argv", "shell", json!({"command": ["rm", "-rf", "/"]}), None),
            ("cursor", "Shell", json!({"command": "rm -rf /", "working_directory": "/w"}), None),
            ("forgeflare", "Bash", json!({"command": "rm -rf /", "cwd": "/w"}), None),
        ];
        for (agent, tool, input, description) in cases {
            let call = ToolCall::new(tool, input);
            assert_eq!(call.kind(), ToolKind::Shell, "{agent}");
            let shell = call.shell().unwrap_or_else(|| panic!("{agent}: no shell"));
            assert_eq!(shell.command, "rm -rf /", "{agent}");
            assert_eq!(shell.description.as_deref(), description, "{agent}");
        }
        assert_eq!(ToolCall::read_file("/").shell(), None);
        assert_eq!(ToolCall::new("Bash", json!({"command": 3})).shell(), None);
    }

    #[test]
    fn bash_stays_claudes_name_only() {
        let gemini = ToolCall::new("run_shell_command", json!({"command": "ls"}));
        assert_eq!(gemini.bash(), None);
        assert_eq!(ToolCall::bash_command("ls").bash().unwrap().command, "ls");
    }

    #[test]
    #[allow(clippy::type_complexity)] // a table of cases
    fn paths_contents_urls_and_mcp_under_every_agents_names() {
        #[rustfmt::skip]
        let cases: [(&str, serde_json::Value, ToolKind, &[&str], &[&str], &[&str]); 6] = [
            ("Write", json!({"file_path": "/p/a", "content": "x"}), ToolKind::Write, &["/p/a"], &["x"], &[]),
            ("create", json!({"path": "/p/a", "file_text": "x"}), ToolKind::Write, &["/p/a"], &["x"], &[]),
            ("replace", json!({"file_path": "/p/a", "old_string": "a", "new_string": "b"}), ToolKind::Edit, &["/p/a"], &["b"], &[]),
            ("apply_patch", json!({"command": "*** Begin Patch\n*** Update File: a.rs\n*** End Patch"}), ToolKind::Edit, &["a.rs"], &["*** Begin Patch\n*** Update File: a.rs\n*** End Patch"], &[]),
            ("web_fetch", json!({"prompt": "read https://example.com/x please"}), ToolKind::Fetch, &[], &[], &["https://example.com/x"]),
            ("WebFetch", json!({"url": "https://example.com/y"}), ToolKind::Fetch, &[], &[], &["https://example.com/y"]),
        ];
        for (tool, input, kind, paths, contents, urls) in cases {
            let call = ToolCall::new(tool, input);
            assert_eq!(call.kind(), kind, "{tool}");
            assert_eq!(call.paths(), paths, "{tool}");
            assert_eq!(call.contents(), contents, "{tool}");
            assert_eq!(call.urls(), urls, "{tool}");
        }
        let mcp = ToolCall::new("mcp__github__get_issue", json!({}));
        assert_eq!(
            (mcp.kind(), mcp.mcp().map(|m| (m.server, m.tool))),
            (ToolKind::Mcp, Some((Some("github"), "get_issue")))
        );
        assert_eq!(
            ToolCall::new("NoSuchTool", json!({})).kind(),
            ToolKind::Other
        );
    }

    #[test]
    fn cursors_events_without_a_tool_name_are_seen_as_their_tool() {
        let shell = Event::new("beforeShellExecution").with_field("command", "rm -rf /");
        assert_eq!(shell.tool_call(), None);
        let call = shell.tool_use().unwrap();
        assert_eq!(call.tool, "beforeShellExecution");
        assert_eq!(call.shell().unwrap().command, "rm -rf /");
        let mcp = Event::new("beforeMCPExecution")
            .with_tool(&ToolCall::new("query", serde_json::json!({"sql": "x"})));
        let call = mcp.tool_use().unwrap();
        assert_eq!(
            (call.tool.as_str(), call.kind()),
            ("MCP:query", ToolKind::Mcp)
        );
        let pre = Event::new("PreToolUse").with_tool(&ToolCall::new(
            "Shell",
            serde_json::json!({"command": "ls"}),
        ));
        assert_eq!(pre.tool_use().unwrap().tool, "Shell");
        assert_eq!(Event::new("SessionStart").tool_use(), None);
    }
}
