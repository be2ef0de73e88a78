//! Which of Claude Code's tools an agent's tool stands for, and where its command, paths and
//! URLs are: the one seam between rules written in Claude Code's names and the tools of every
//! agent. What a tool does, and where each agent's tool keeps its fields, is `hookhost-tools`'
//! table (the one hooks, matchers and the SDKs read); this module maps its kinds onto Claude
//! Code's tool families, and reads an input by the common field names only for a tool no row
//! of the table names (a caller's own tool, given a kind).

use std::borrow::Cow;

use serde_json::Value;

pub use hookhost_tools::ToolKind;

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

/// The family of the tool named `tool`: its kind (the caller's, else `hookhost-tools`' table),
/// a shell named like PowerShell being [`Family::PowerShell`] and a fetch tool without a URL
/// a web search.
pub fn family(tool: &str, kind: Option<ToolKind>, input: &Value) -> Family {
    match kind.unwrap_or_else(|| hookhost_tools::kind(tool)) {
        ToolKind::Shell if tool.to_ascii_lowercase().contains("powershell") => Family::PowerShell,
        ToolKind::Shell => Family::Bash,
        ToolKind::Read => Family::Read,
        ToolKind::Search => Family::Search,
        ToolKind::Edit => Family::Edit,
        ToolKind::Write => Family::Write,
        ToolKind::Fetch if urls(tool, input).is_empty() && !has_url_field(input) => {
            Family::WebSearch
        }
        ToolKind::Fetch => Family::WebFetch,
        ToolKind::Mcp => Family::Mcp,
        ToolKind::Other => Family::Other,
    }
}

fn has_url_field(input: &Value) -> bool {
    ["url", "urls"].iter().any(|key| input.get(key).is_some())
}

/// The command line a shell tool runs, where the table says the tool keeps it; for a tool no
/// row names, `command` (a string, or an argv joined with shell quoting), `cmd` or `input`.
pub(crate) fn command<'a>(tool: &'a str, input: &'a Value) -> Option<Cow<'a, str>> {
    hookhost_tools::view(tool, input)
        .command
        .or_else(|| unlisted_command(input))
}

fn unlisted_command(input: &Value) -> Option<Cow<'_, str>> {
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

/// The files and directories a file tool touches, where the table says the tool keeps them
/// (a patch's files included); for a tool no row names, the common path fields and the files
/// a patch in the input names.
pub(crate) fn paths(tool: &str, input: &Value) -> Vec<String> {
    let listed = hookhost_tools::view(tool, input).paths;
    if hookhost_tools::rows(tool).next().is_some() {
        return listed.into_iter().map(Cow::into_owned).collect();
    }
    unlisted_paths(input)
}

fn unlisted_paths(input: &Value) -> Vec<String> {
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

/// The URLs a fetch tool reaches, where the table says the tool keeps them (Gemini CLI's
/// `web_fetch`: the URLs written in its `prompt`); for a tool no row names, `url`, `urls`, or
/// the URLs of a `prompt`.
pub(crate) fn urls(tool: &str, input: &Value) -> Vec<String> {
    if hookhost_tools::rows(tool).next().is_some() {
        let view = hookhost_tools::view(tool, input);
        return view.urls.into_iter().map(Cow::into_owned).collect();
    }
    unlisted_urls(input)
}

fn unlisted_urls(input: &Value) -> Vec<String> {
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
            command(
                "MyShell",
                &json!({"command": ["git", "commit", "-m", "a b"]})
            )
            .as_deref(),
            Some("git commit -m 'a b'")
        );
        assert_eq!(
            paths("MyReader", &json!({"paths": ["a", "b"], "file_path": "c"})),
            ["c", "a", "b"]
        );
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: b.txt\n+z\n*** End Patch";
        assert_eq!(
            paths("apply_patch", &json!({"command": patch})),
            ["src/a.rs", "b.txt"]
        );
        assert_eq!(
            paths("read_file", &json!({"absolute_path": "/p/.env"})),
            ["/p/.env"]
        );
        assert_eq!(
            urls(
                "web_fetch",
                &json!({"prompt": "compare https://a.example/x and http://b.example."})
            ),
            ["https://a.example/x", "http://b.example"]
        );
    }
}
