//! The tool calls a policy sees, through hookhost's one vocabulary of tools: hookhost-tools'
//! table (the one hook-sdk's `call.kind()`, `shell()`, `paths()`, `contents()` and `urls()`
//! read) says what each agent's tool does and where its fields are. This module adds only what
//! a policy needs beyond the table: the paths an MCP tool's input seems to name (no table can
//! list an MCP server's fields), and a patch's added lines as the text it writes.

use serde_json::Value;

pub use hookhost_tools::ToolKind;

/// A tool call seen through the vocabulary.
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

    /// What the tool does (hookhost-tools' `kind`).
    pub fn kind(&self) -> ToolKind {
        hookhost_tools::kind(self.name)
    }

    /// The command line of a shell tool (an argv such as Codex's `["bash", "-lc", "..."]`
    /// joined as a shell would read it).
    pub fn shell(&self) -> Option<String> {
        if self.kind() != ToolKind::Shell {
            return None;
        }
        hookhost_tools::view(self.name, self.input)
            .command
            .map(|command| command.into_owned())
    }

    /// The files the call reads, writes or lists (empty for shell calls: parse [`Tool::shell`]).
    /// For MCP tools, every string of the input that looks like a path.
    pub fn paths(&self) -> Vec<String> {
        match self.kind() {
            ToolKind::Shell | ToolKind::Fetch | ToolKind::Other => Vec::new(),
            ToolKind::Mcp => {
                let mut out = Vec::new();
                strings_like_paths(self.input, &mut out);
                out
            }
            _ => owned(hookhost_tools::view(self.name, self.input).paths),
        }
    }

    /// The text the call writes: new file contents, replacement strings, a patch's added lines
    /// (its removed lines are not written).
    pub fn contents(&self) -> Vec<String> {
        if !self.kind().changes_files() {
            return Vec::new();
        }
        hookhost_tools::view(self.name, self.input)
            .contents
            .into_iter()
            .map(|text| {
                if text.contains("*** Begin Patch") {
                    added_lines(&text)
                } else {
                    text.into_owned()
                }
            })
            .collect()
    }

    /// The URLs the call fetches (a fetch tool's `url`/`urls`, or the URLs written in its
    /// prompt, as Gemini's `web_fetch` takes them).
    pub fn urls(&self) -> Vec<String> {
        if self.kind() != ToolKind::Fetch {
            return Vec::new();
        }
        owned(hookhost_tools::view(self.name, self.input).urls)
    }
}

fn owned(items: Vec<std::borrow::Cow<'_, str>>) -> Vec<String> {
    items.into_iter().map(|item| item.into_owned()).collect()
}

fn added_lines(patch: &str) -> String {
    patch
        .lines()
        .filter_map(|line| line.strip_prefix('+').filter(|_| !line.starts_with("+++")))
        .collect::<Vec<_>>()
        .join("\n")
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
