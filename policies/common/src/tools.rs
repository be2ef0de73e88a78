//! The one place that knows the agents' tool names: Claude Code's `Bash`/`Read`/`Write`/`Edit`,
//! Copilot CLI's `bash`/`view`/`create`/`edit`, Gemini CLI's `run_shell_command`/`read_file`/
//! `write_file`/`replace`, Codex's `shell` and `apply_patch`, Cursor's `Shell`, VS Code's
//! `run_in_terminal`, MCP tools (`mcp__server__tool`). Each maps to a [`ToolKind`], and the
//! views a policy needs come out of the input whatever the agent: the shell command, the paths,
//! the text written, the URLs.
//!
//! This mirrors the `ToolCall::kind()`, `shell()`, `paths()`, `contents()`, `urls()` accessors
//! planned for hook-sdk (the `hookhost-tools` crate): when they land, this module becomes a thin
//! call to them and no policy changes.
//!
//! (Over 400 lines with its tests: the name table is one place by design.)

use serde_json::Value;

/// What a tool does, whatever the agent calls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// Runs a shell command.
    Shell,
    /// Reads a file.
    Read,
    /// Creates or overwrites a file.
    Write,
    /// Changes part of a file.
    Edit,
    /// Searches or lists files.
    Search,
    /// Fetches a URL.
    Fetch,
    /// A tool of an MCP server.
    Mcp,
    /// Anything else.
    Other,
}

/// Known tool names, per kind (compared exactly).
const KINDS: &[(ToolKind, &[&str])] = &[
    (
        ToolKind::Shell,
        &[
            "Bash",
            "bash",
            "shell",
            "Shell",
            "run_shell_command",
            "exec_command",
            "local_shell",
            "container.exec",
            "run_in_terminal",
            "runInTerminal",
            "runTerminalCommand",
            "PowerShell",
            "powershell",
            "Monitor",
            "terminal",
            "execute_command",
        ],
    ),
    (
        ToolKind::Read,
        &[
            "Read",
            "view",
            "read_file",
            "read_many_files",
            "NotebookRead",
            "readFile",
            "read",
            "cat",
        ],
    ),
    (
        ToolKind::Write,
        &[
            "Write",
            "create",
            "write_file",
            "create_file",
            "writeFile",
            "write",
        ],
    ),
    (
        ToolKind::Edit,
        &[
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "edit",
            "str_replace_editor",
            "str_replace_based_edit_tool",
            "replace",
            "apply_patch",
            "replace_string_in_file",
            "insert_edit_into_file",
            "edit_file",
            "StrReplace",
            "applyPatch",
        ],
    ),
    (
        ToolKind::Search,
        &[
            "Grep",
            "Glob",
            "LS",
            "grep",
            "glob",
            "search_file_content",
            "list_directory",
            "grep_search",
            "file_search",
            "list_dir",
            "codebase_search",
            "ls",
        ],
    ),
    (
        ToolKind::Fetch,
        &[
            "WebFetch",
            "web_fetch",
            "fetch_webpage",
            "fetch",
            "WebSearch",
            "google_web_search",
            "web_search",
        ],
    ),
];

/// Input fields that hold one path.
const PATH_FIELDS: &[&str] = &[
    "file_path",
    "path",
    "absolute_path",
    "notebook_path",
    "filePath",
    "filepath",
    "dir_path",
    "directory",
    "target_file",
    "source",
    "destination",
];
/// Input fields that hold text written to a file.
const CONTENT_FIELDS: &[&str] = &[
    "content",
    "new_string",
    "new_str",
    "file_text",
    "new_source",
    "newString",
    "code_edit",
    "text",
];

/// A tool call seen through the adapter.
#[derive(Debug, Clone, Copy)]
pub struct Tool<'a> {
    /// The tool's name as the agent gave it.
    pub name: &'a str,
    /// Its input.
    pub input: &'a Value,
}

impl<'a> Tool<'a> {
    /// A view of the call `name(input)`.
    pub fn new(name: &'a str, input: &'a Value) -> Tool<'a> {
        Tool { name, input }
    }

    /// What the tool does.
    pub fn kind(&self) -> ToolKind {
        if self.name.starts_with("mcp__") || self.name.starts_with("mcp_") {
            return ToolKind::Mcp;
        }
        KINDS
            .iter()
            .find(|(_, names)| names.contains(&self.name))
            .map_or(ToolKind::Other, |(kind, _)| *kind)
    }

    /// The command line of a shell tool (Codex's argv form `["bash", "-lc", "..."]` joined as
    /// a shell would read it).
    pub fn shell(&self) -> Option<String> {
        if self.kind() != ToolKind::Shell {
            return None;
        }
        let command = self
            .input
            .get("command")
            .or_else(|| self.input.get("cmd"))
            .or_else(|| self.input.get("script"))?;
        match command {
            Value::String(text) => Some(text.clone()),
            Value::Array(argv) => {
                let words: Vec<String> =
                    argv.iter().filter_map(|w| w.as_str().map(quote)).collect();
                Some(words.join(" "))
            }
            _ => None,
        }
    }

    /// The files the call reads, writes or lists (empty for shell calls: parse [`Tool::shell`]).
    /// For MCP tools, every string of the input that looks like a path.
    pub fn paths(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.kind() {
            ToolKind::Shell | ToolKind::Fetch | ToolKind::Other => {}
            ToolKind::Mcp => strings_like_paths(self.input, &mut out),
            _ => {
                for field in PATH_FIELDS {
                    if let Some(path) = self.input.get(field).and_then(Value::as_str) {
                        out.push(path.to_string());
                    }
                }
                for field in ["paths", "file_paths", "files"] {
                    if let Some(list) = self.input.get(field).and_then(Value::as_array) {
                        out.extend(list.iter().filter_map(|p| p.as_str().map(str::to_string)));
                    }
                }
                if let Some(patch) = self.patch_text() {
                    out.extend(patch_paths(&patch));
                }
            }
        }
        out
    }

    /// The text the call writes (new file contents, replacement strings, a patch's added lines).
    pub fn contents(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !matches!(self.kind(), ToolKind::Write | ToolKind::Edit) {
            return out;
        }
        for field in CONTENT_FIELDS {
            if let Some(text) = self.input.get(field).and_then(Value::as_str) {
                out.push(text.to_string());
            }
        }
        if let Some(edits) = self.input.get("edits").and_then(Value::as_array) {
            for edit in edits {
                for field in CONTENT_FIELDS {
                    if let Some(text) = edit.get(field).and_then(Value::as_str) {
                        out.push(text.to_string());
                    }
                }
            }
        }
        if let Some(patch) = self.patch_text() {
            let added: Vec<&str> = patch
                .lines()
                .filter_map(|l| l.strip_prefix('+').filter(|_| !l.starts_with("+++")))
                .collect();
            out.push(added.join("\n"));
        }
        out
    }

    /// The URLs the call fetches (a fetch tool's `url`/`urls`, or the URLs written in its
    /// prompt, as Gemini's `web_fetch` takes them).
    pub fn urls(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.kind() != ToolKind::Fetch {
            return out;
        }
        if let Some(url) = self.input.get("url").and_then(Value::as_str) {
            out.push(url.to_string());
        }
        if let Some(list) = self.input.get("urls").and_then(Value::as_array) {
            out.extend(list.iter().filter_map(|u| u.as_str().map(str::to_string)));
        }
        if let Some(prompt) = self.input.get("prompt").and_then(Value::as_str) {
            out.extend(
                prompt
                    .split_whitespace()
                    .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
                    .map(|w| w.trim_end_matches([',', '.', ')', ';']).to_string()),
            );
        }
        out
    }

    fn patch_text(&self) -> Option<String> {
        if !matches!(self.name, "apply_patch" | "applyPatch") {
            return None;
        }
        ["patch", "input", "command"]
            .iter()
            .find_map(|f| match self.input.get(f) {
                Some(Value::String(text)) => Some(text.clone()),
                Some(Value::Array(parts)) => Some(
                    parts
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
                _ => None,
            })
    }
}

/// The files a Codex patch names (`*** Add File: p`, `*** Update File: p`, `*** Delete File:
/// p`, `*** Move to: p`).
fn patch_paths(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|line| {
            [
                "*** Add File: ",
                "*** Update File: ",
                "*** Delete File: ",
                "*** Move to: ",
            ]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
        })
        .map(|p| p.trim().to_string())
        .collect()
}

fn strings_like_paths(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) if looks_like_path(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings_like_paths(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings_like_paths(v, out)),
        _ => {}
    }
}

/// A string an MCP server would take for a path: no whitespace or URL scheme, and rooted
/// (`/`, `~`, `./`, `../`) or with a directory separator or a dotted file name.
pub fn looks_like_path(text: &str) -> bool {
    !text.is_empty()
        && text.len() < 4096
        && !text.contains(char::is_whitespace)
        && !text.contains("://")
        && (text.starts_with(['/', '~', '.']) || text.contains('/') || text.contains('.'))
}

/// `word` quoted for a shell when it needs it.
fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_agents_names_map_to_kinds() {
        let cases = [
            ("Bash", ToolKind::Shell),
            ("bash", ToolKind::Shell),
            ("run_shell_command", ToolKind::Shell),
            ("Shell", ToolKind::Shell),
            ("shell", ToolKind::Shell),
            ("Read", ToolKind::Read),
            ("view", ToolKind::Read),
            ("read_file", ToolKind::Read),
            ("Write", ToolKind::Write),
            ("create", ToolKind::Write),
            ("write_file", ToolKind::Write),
            ("Edit", ToolKind::Edit),
            ("edit", ToolKind::Edit),
            ("replace", ToolKind::Edit),
            ("apply_patch", ToolKind::Edit),
            ("Grep", ToolKind::Search),
            ("WebFetch", ToolKind::Fetch),
            ("web_fetch", ToolKind::Fetch),
            ("mcp__fs__read_text_file", ToolKind::Mcp),
            ("TodoWrite", ToolKind::Other),
        ];
        for (name, kind) in cases {
            assert_eq!(Tool::new(name, &json!({})).kind(), kind, "{name}");
        }
    }

    #[test]
    fn views_read_each_agents_fields() {
        let codex = json!({"command": ["bash", "-lc", "rm -rf /tmp/x && ls"]});
        assert_eq!(
            Tool::new("shell", &codex).shell().as_deref(),
            Some("bash -lc 'rm -rf /tmp/x && ls'")
        );
        let gemini = json!({"absolute_path": "/p/.env"});
        assert_eq!(Tool::new("read_file", &gemini).paths(), ["/p/.env"]);
        let patch = json!({"command": "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** End Patch"});
        let tool = Tool::new("apply_patch", &patch);
        assert_eq!(tool.paths(), ["src/a.rs"]);
        assert_eq!(tool.contents(), ["y"]);
        let multi = json!({"file_path": "a", "edits": [{"old_string": "x", "new_string": "K"}]});
        assert_eq!(Tool::new("MultiEdit", &multi).contents(), ["K"]);
        let mcp = json!({"path": "/home/u/.ssh/id_rsa", "n": 3, "note": "two words"});
        assert_eq!(
            Tool::new("mcp__fs__read", &mcp).paths(),
            ["/home/u/.ssh/id_rsa"]
        );
        let fetch = json!({"prompt": "summarise https://evil.example/x, please"});
        assert_eq!(
            Tool::new("web_fetch", &fetch).urls(),
            ["https://evil.example/x"]
        );
    }
}
