//! Which of Claude Code's tools an agent's tool stands for, and where its command, paths and
//! URLs are: the one seam between rules written in Claude Code's names and the tools of every
//! agent. `hookhost-tools` (another crate, being written beside this one) has the full table of
//! agents' tools; when it lands, [`family`] maps its `ToolKind` here and [`fields`] becomes its
//! `view`, and nothing else in this crate changes.
//!
//! The names below were checked against the releases `hookhost-tools` records: Claude Code
//! 2.1.332, Copilot CLI 1.0.63, Gemini CLI 0.61.0, Codex CLI 0.169.0, Cursor's hooks (cursor
//! 2.4 payloads) and forgeflare.

use std::borrow::Cow;

use serde_json::Value;

/// What a tool does, in hookhost's vocabulary (the same kinds as `hookhost-tools`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// Runs a command line.
    Shell,
    /// Reads a file.
    Read,
    /// Writes a whole file (creates, overwrites, deletes).
    Write,
    /// Changes part of a file.
    Edit,
    /// Searches or lists files.
    Search,
    /// Reaches the web.
    Fetch,
    /// An MCP server's tool.
    Mcp,
    /// Anything else.
    Other,
}

/// The Claude Code tool an agent's tool stands for, as far as rules are concerned: a rule
/// names a family (`Bash(...)` holds for every [`Family::Bash`] tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Bash and the other agents' POSIX shell tools.
    Bash,
    /// PowerShell tools (Claude Code's `PowerShell`, Copilot CLI's `powershell`).
    PowerShell,
    /// File readers.
    Read,
    /// Searches and listings (Glob, Grep, LS and their equivalents).
    Search,
    /// Tools that change part of a file (Edit, MultiEdit, NotebookEdit, patches).
    Edit,
    /// Tools that write, create or delete a whole file.
    Write,
    /// Fetches of a URL.
    WebFetch,
    /// Web searches.
    WebSearch,
    /// MCP tools.
    Mcp,
    /// Any other tool: rules name it by its exact name.
    Other,
}

#[rustfmt::skip]
const NAMES: &[(Family, &[&str])] = &[
    // Claude Code, Codex CLI and forgeflare `Bash`; Copilot CLI `bash`, `write_bash` (text typed
    // into a running shell); Gemini CLI `run_shell_command`; Cursor `Shell`; Codex's
    // model-facing names, for embedders that fire them as they are.
    (Family::Bash, &["Bash", "bash", "write_bash", "run_shell_command", "Shell", "shell",
        "local_shell", "shell_command", "exec_command"]),
    (Family::PowerShell, &["PowerShell", "powershell", "write_powershell"]),
    (Family::Read, &["Read", "NotebookRead", "view", "read_file", "read_many_files"]),
    (Family::Search, &["Glob", "Grep", "LS", "grep", "rg", "glob", "grep_search",
        "search_file_content", "list_directory"]),
    (Family::Edit, &["Edit", "MultiEdit", "NotebookEdit", "edit", "str_replace", "insert",
        "str_replace_editor", "apply_patch", "replace", "StrReplace"]),
    (Family::Write, &["Write", "create", "write_file", "Delete"]),
    (Family::WebFetch, &["WebFetch", "web_fetch"]),
    (Family::WebSearch, &["WebSearch", "web_search", "google_web_search"]),
];

/// The family of the tool named `tool`. A known kind decides (a shell named like PowerShell is
/// [`Family::PowerShell`]; a fetch tool without a URL field is a web search); without one, the
/// agents' names above, then MCP spellings (`mcp__server__tool`, Cursor's `MCP:tool`), then
/// [`Family::Other`].
pub fn family(tool: &str, kind: Option<ToolKind>, input: &Value) -> Family {
    let Some(kind) = kind else {
        return NAMES
            .iter()
            .find(|(_, names)| names.contains(&tool))
            .map(|(family, _)| *family)
            .unwrap_or_else(|| {
                if tool.starts_with("mcp__") || tool.starts_with("MCP:") {
                    Family::Mcp
                } else {
                    Family::Other
                }
            });
    };
    match kind {
        ToolKind::Shell if tool.to_ascii_lowercase().contains("powershell") => Family::PowerShell,
        ToolKind::Shell => Family::Bash,
        ToolKind::Read => Family::Read,
        ToolKind::Search => Family::Search,
        ToolKind::Edit => Family::Edit,
        ToolKind::Write => Family::Write,
        ToolKind::Fetch if urls(input).is_empty() && !has_url_field(input) => Family::WebSearch,
        ToolKind::Fetch => Family::WebFetch,
        ToolKind::Mcp => Family::Mcp,
        ToolKind::Other => Family::Other,
    }
}

fn has_url_field(input: &Value) -> bool {
    ["url", "urls"].iter().any(|key| input.get(key).is_some())
}

/// The command line a shell tool runs: `command` (a string, or an argv joined with shell
/// quoting), Codex's `cmd`, or the text typed into Copilot's `write_bash`.
pub(crate) fn command(input: &Value) -> Option<Cow<'_, str>> {
    for key in ["command", "cmd", "input"] {
        match input.get(key) {
            Some(Value::String(text)) => return Some(Cow::Borrowed(text)),
            Some(Value::Array(argv)) if argv.iter().all(Value::is_string) => {
                let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
                return Some(Cow::Owned(join_argv(&words)));
            }
            _ => {}
        }
    }
    None
}

/// An argv as one shell line: words that need it in single quotes.
fn join_argv(words: &[&str]) -> String {
    let quote = |word: &&str| {
        if !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
        {
            word.to_string()
        } else {
            format!("'{}'", word.replace('\'', r"'\''"))
        }
    };
    words.iter().map(quote).collect::<Vec<_>>().join(" ")
}

const PATH_KEYS: &[&str] = &[
    "file_path",
    "path",
    "absolute_path",
    "notebook_path",
    "target_file",
    "dir_path",
    "filePath",
    "paths",
];

/// The files and directories a file tool touches, as the input gives them: its path fields
/// (a string, or an array of strings), and for a patch tool the files the patch names
/// (`*** Update File: src/a.rs`).
pub(crate) fn paths(input: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for key in PATH_KEYS {
        match input.get(key) {
            Some(Value::String(path)) => found.push(path.clone()),
            Some(Value::Array(items)) => {
                found.extend(items.iter().filter_map(Value::as_str).map(str::to_string))
            }
            _ => {}
        }
    }
    let patches = [
        input.as_str(),
        ["patch", "input", "command"]
            .iter()
            .find_map(|key| input.get(key)?.as_str()),
    ];
    for patch in patches.into_iter().flatten() {
        found.extend(patch_paths(patch));
    }
    found
}

/// The files an `apply_patch` text names.
fn patch_paths(patch: &str) -> Vec<String> {
    if !patch.contains("*** Begin Patch") {
        return Vec::new();
    }
    let headers = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch
        .lines()
        .filter_map(|line| headers.iter().find_map(|header| line.strip_prefix(header)))
        .map(|path| path.trim().to_string())
        .collect()
}

/// The URLs a fetch tool reaches: `url`, `urls`, or (Gemini CLI's `web_fetch`) the
/// `http://` and `https://` URLs written in its `prompt`.
pub(crate) fn urls(input: &Value) -> Vec<String> {
    let mut found = Vec::new();
    match input.get("url") {
        Some(Value::String(url)) => found.push(url.clone()),
        Some(Value::Array(items)) => {
            found.extend(items.iter().filter_map(Value::as_str).map(str::to_string))
        }
        _ => {}
    }
    if let Some(Value::Array(items)) = input.get("urls") {
        found.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
    }
    if found.is_empty()
        && let Some(prompt) = input.get("prompt").and_then(Value::as_str)
    {
        found.extend(
            prompt
                .split(|c: char| c.is_whitespace() || "<>\"'`()[]{}".contains(c))
                .filter(|word| {
                    let lower = word.to_ascii_lowercase();
                    lower.starts_with("http://") || lower.starts_with("https://")
                })
                .map(|url| {
                    url.trim_end_matches([',', '.', ';', ':', '!', '?'])
                        .to_string()
                }),
        );
    }
    found
}

/// A top-level field of the input as text, for `key:value` rules and the specifiers that name
/// one field (`WebSearch(query)`, `Agent(subagent type)`): a string, number or boolean.
pub(crate) fn scalar(input: &Value, key: &str) -> Option<String> {
    match input.get(key)? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_agents_shell_is_bash_and_a_kind_decides() {
        let input = json!({"command": "ls"});
        for name in ["Bash", "bash", "run_shell_command", "Shell", "exec_command"] {
            assert_eq!(family(name, None, &input), Family::Bash, "{name}");
        }
        assert_eq!(
            family("MyShell", Some(ToolKind::Shell), &input),
            Family::Bash
        );
        assert_eq!(
            family("powershell", Some(ToolKind::Shell), &input),
            Family::PowerShell
        );
        assert_eq!(
            family("mcp__github__create_issue", None, &input),
            Family::Mcp
        );
        assert_eq!(family("Frobnicate", None, &input), Family::Other);
        assert_eq!(
            family(
                "google_web_search",
                Some(ToolKind::Fetch),
                &json!({"query": "x"})
            ),
            Family::WebSearch
        );
        assert_eq!(
            family(
                "web_fetch",
                Some(ToolKind::Fetch),
                &json!({"prompt": "read https://a.b/c"})
            ),
            Family::WebFetch
        );
    }

    #[test]
    fn fields_are_read_where_each_agent_puts_them() {
        assert_eq!(
            command(&json!({"command": ["git", "commit", "-m", "a b"]})).as_deref(),
            Some("git commit -m 'a b'")
        );
        assert_eq!(
            paths(&json!({"paths": ["a", "b"], "file_path": "c"})),
            ["c", "a", "b"]
        );
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: b.txt\n+z\n*** End Patch";
        assert_eq!(paths(&json!({"command": patch})), ["src/a.rs", "b.txt"]);
        assert_eq!(
            urls(&json!({"prompt": "compare https://a.example/x and http://b.example."})),
            ["https://a.example/x", "http://b.example"]
        );
    }
}
