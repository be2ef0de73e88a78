//! The table: one row per (agent, tool name), saying what the tool does and where its
//! interesting fields are. Everything else in this crate reads it; the Python and JavaScript
//! SDKs carry a generated copy of it (`sdk_tables`).
//!
//! A field location is a small path into the tool's input:
//!
//! | location | reads |
//! |---|---|
//! | `file_path` | the field `file_path` |
//! | `ws.url` | the field `url` of the object `ws` |
//! | `edits.new_string` | `new_string` of every element of the array `edits` |
//! | `` (empty) | the input itself, when it is a string (Copilot's raw `apply_patch` text) |
//! | `patch:command` | the files an `apply_patch` text in `command` names (`*** Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:`) |
//! | `urls:prompt` | the `http://` and `https://` URLs written in the text `prompt` |
//!
//! At the end of a path a string is taken as it is and an array gives each of its strings
//! (Copilot's `paths` is either). A command given as an array of strings is an argv: the view
//! joins it with shell quoting.

use crate::kind::Agent::{self, Claude, Codex, Copilot, Cursor, Forgeflare, Gemini};
use crate::kind::ToolKind::{self, Edit, Fetch, Mcp, Other, Read, Search, Shell, Write};

/// Where a row's name comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The agent's tool name, as its tool events carry it.
    Tool,
    /// One of Cursor's specialised events, which carry no tool name: the event's name stands
    /// for the tool and its payload for the input (`beforeShellExecution` with `command`).
    Event,
}

/// One row: an agent's tool, what it does, and where its fields are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSpec {
    /// Whose tool.
    pub agent: Agent,
    /// The agent's own name for it (or, for [`Source::Event`], the event's).
    pub name: &'static str,
    /// What it does.
    pub kind: ToolKind,
    /// A tool name or an event name.
    pub source: Source,
    /// Where the command line is: the first location that has one wins.
    pub command: &'static [&'static str],
    /// Where the files and directories it touches are.
    pub paths: &'static [&'static str],
    /// Where the text it writes is: whole contents, new strings, patch bodies.
    pub contents: &'static [&'static str],
    /// Where the URLs (or domains) it reaches are.
    pub urls: &'static [&'static str],
    /// Where its search patterns or queries are.
    pub patterns: &'static [&'static str],
}

impl ToolSpec {
    const fn tool(agent: Agent, name: &'static str, kind: ToolKind) -> ToolSpec {
        ToolSpec {
            agent,
            name,
            kind,
            source: Source::Tool,
            command: &[],
            paths: &[],
            contents: &[],
            urls: &[],
            patterns: &[],
        }
    }

    const fn event(name: &'static str, kind: ToolKind) -> ToolSpec {
        ToolSpec {
            source: Source::Event,
            ..ToolSpec::tool(Cursor, name, kind)
        }
    }

    const fn command(self, command: &'static [&'static str]) -> ToolSpec {
        ToolSpec { command, ..self }
    }

    const fn paths(self, paths: &'static [&'static str]) -> ToolSpec {
        ToolSpec { paths, ..self }
    }

    const fn contents(self, contents: &'static [&'static str]) -> ToolSpec {
        ToolSpec { contents, ..self }
    }

    const fn urls(self, urls: &'static [&'static str]) -> ToolSpec {
        ToolSpec { urls, ..self }
    }

    const fn patterns(self, patterns: &'static [&'static str]) -> ToolSpec {
        ToolSpec { patterns, ..self }
    }
}

impl Agent {
    /// The release each of this agent's rows was checked against, and in what.
    pub fn checked_against(self) -> &'static str {
        match self {
            Claude => {
                "Claude Code 2.1.332 (@anthropic-ai/claude-code: sdk-tools.d.ts, and the tool definitions of its linux-x64 executable)"
            }
            Copilot => {
                "Copilot CLI 1.0.63 (@github/copilot: app.js, the tool schemas of prebuilds/linux-x64/runtime.node, copilot-sdk/types.d.ts; the last 1.0.x that ships its JavaScript, later ones up to 1.0.102 ship one executable)"
            }
            Gemini => {
                "Gemini CLI 0.61.0 (@google/gemini-cli-core: dist/src/tools/definitions, tool-names.js, mcp-tool.js, hooks/hookEventHandler.js)"
            }
            Codex => {
                "Codex CLI 0.169.0 (@openai/codex: codex-rs HookToolName and the handlers' pre_tool_use_payload; the npm package ships only binaries)"
            }
            Cursor => {
                "Cursor hooks, cursor.com/docs/hooks as hookhost's src/dialect/cursor.rs reads it (closed source: payloads of cursor_version 1.7 to 2.4)"
            }
            Forgeflare => {
                "forgeflare's src/tools/mod.rs after its tool-name-compliance rename (Read, Glob, Bash, Edit, Grep)"
            }
        }
    }
}

/// Every row. Rows that share a name share a kind (a test holds it), and the view of a tool
/// reads the locations of all of them: `Edit` is Claude Code's `old_string`/`new_string` and
/// forgeflare's `old_str`/`new_str` at once.
#[rustfmt::skip]
pub static TOOLS: &[ToolSpec] = &[
    // Claude Code.
    ToolSpec::tool(Claude, "Bash", Shell).command(&["command"]),
    ToolSpec::tool(Claude, "PowerShell", Shell).command(&["command"]),
    ToolSpec::tool(Claude, "Monitor", Shell).command(&["command"]).urls(&["ws.url"]),
    ToolSpec::tool(Claude, "Read", Read).paths(&["file_path"]),
    ToolSpec::tool(Claude, "Write", Write).paths(&["file_path"]).contents(&["content"]),
    ToolSpec::tool(Claude, "Edit", Edit).paths(&["file_path"]).contents(&["new_string"]),
    // Before 2.1 (2.1 still reads the name in permission rules).
    ToolSpec::tool(Claude, "MultiEdit", Edit).paths(&["file_path"]).contents(&["edits.new_string"]),
    ToolSpec::tool(Claude, "NotebookEdit", Edit).paths(&["notebook_path"]).contents(&["new_source"]),
    ToolSpec::tool(Claude, "Glob", Search).paths(&["path"]).patterns(&["pattern"]),
    ToolSpec::tool(Claude, "Grep", Search).paths(&["path"]).patterns(&["pattern"]),
    // Before 2.1.
    ToolSpec::tool(Claude, "LS", Search).paths(&["path"]),
    ToolSpec::tool(Claude, "WebFetch", Fetch).urls(&["url"]),
    ToolSpec::tool(Claude, "WebSearch", Fetch).urls(&["allowed_domains"]).patterns(&["query"]),
    ToolSpec::tool(Claude, "ListMcpResourcesTool", Mcp),
    ToolSpec::tool(Claude, "ReadMcpResourceTool", Mcp).urls(&["uri"]),
    ToolSpec::tool(Claude, "Agent", Other),
    ToolSpec::tool(Claude, "Task", Other),
    ToolSpec::tool(Claude, "TodoWrite", Other),
    // Copilot CLI.
    ToolSpec::tool(Copilot, "bash", Shell).command(&["command"]),
    ToolSpec::tool(Copilot, "powershell", Shell).command(&["command"]),
    // Text typed into a shell that runs: a command too.
    ToolSpec::tool(Copilot, "write_bash", Shell).command(&["input"]),
    ToolSpec::tool(Copilot, "write_powershell", Shell).command(&["input"]),
    ToolSpec::tool(Copilot, "view", Read).paths(&["path"]),
    ToolSpec::tool(Copilot, "create", Write).paths(&["path"]).contents(&["file_text"]),
    ToolSpec::tool(Copilot, "edit", Edit).paths(&["path"]).contents(&["new_str"]),
    ToolSpec::tool(Copilot, "str_replace", Edit).paths(&["path"]).contents(&["new_str"]),
    ToolSpec::tool(Copilot, "insert", Edit).paths(&["path"]).contents(&["new_str"]),
    // The multiplexed editor of earlier models (its `command` is view, create, str_replace or
    // insert): an edit, views included.
    ToolSpec::tool(Copilot, "str_replace_editor", Edit).paths(&["path"]).contents(&["file_text", "new_str"]),
    // A freeform tool: its input is the patch text itself.
    ToolSpec::tool(Copilot, "apply_patch", Edit).paths(&["patch:", "patch:input"]).contents(&["", "input"]),
    ToolSpec::tool(Copilot, "grep", Search).paths(&["paths"]).patterns(&["pattern"]),
    ToolSpec::tool(Copilot, "rg", Search).paths(&["paths"]).patterns(&["pattern"]),
    ToolSpec::tool(Copilot, "glob", Search).paths(&["paths"]).patterns(&["pattern"]),
    ToolSpec::tool(Copilot, "web_fetch", Fetch).urls(&["url"]),
    ToolSpec::tool(Copilot, "web_search", Fetch).patterns(&["query"]),
    ToolSpec::tool(Copilot, "task", Other),
    // Gemini CLI.
    ToolSpec::tool(Gemini, "run_shell_command", Shell).command(&["command"]),
    // `absolute_path`, `path`, `paths`: the parameters of earlier releases.
    ToolSpec::tool(Gemini, "read_file", Read).paths(&["file_path", "absolute_path"]),
    ToolSpec::tool(Gemini, "read_many_files", Read).paths(&["include", "paths"]),
    ToolSpec::tool(Gemini, "write_file", Write).paths(&["file_path"]).contents(&["content"]),
    ToolSpec::tool(Gemini, "replace", Edit).paths(&["file_path"]).contents(&["new_string"]),
    ToolSpec::tool(Gemini, "glob", Search).paths(&["dir_path", "path"]).patterns(&["pattern"]),
    ToolSpec::tool(Gemini, "grep_search", Search).paths(&["dir_path", "path"]).patterns(&["pattern"]),
    // Its name before 0.61 (still accepted as an alias).
    ToolSpec::tool(Gemini, "search_file_content", Search).paths(&["dir_path", "path"]).patterns(&["pattern"]),
    ToolSpec::tool(Gemini, "list_directory", Search).paths(&["dir_path", "path"]),
    // The URLs are written in the prompt (up to 20).
    ToolSpec::tool(Gemini, "web_fetch", Fetch).urls(&["urls:prompt"]),
    ToolSpec::tool(Gemini, "google_web_search", Fetch).patterns(&["query"]),
    ToolSpec::tool(Gemini, "read_mcp_resource", Mcp).urls(&["uri"]),
    ToolSpec::tool(Gemini, "list_mcp_resources", Mcp),
    ToolSpec::tool(Gemini, "invoke_agent", Other),
    ToolSpec::tool(Gemini, "write_todos", Other),
    // Codex CLI: every shell-like tool reaches hooks as `Bash`, its command a string.
    ToolSpec::tool(Codex, "Bash", Shell).command(&["command"]),
    // The model-facing names, for embedders that fire them as they are (`command` may be an argv).
    ToolSpec::tool(Codex, "shell", Shell).command(&["command"]),
    ToolSpec::tool(Codex, "local_shell", Shell).command(&["command"]),
    ToolSpec::tool(Codex, "shell_command", Shell).command(&["command"]),
    ToolSpec::tool(Codex, "exec_command", Shell).command(&["cmd", "command"]),
    ToolSpec::tool(Codex, "apply_patch", Edit).paths(&["patch:command"]).contents(&["command"]),
    ToolSpec::tool(Codex, "spawn_agent", Other),
    // Cursor's preToolUse (`MCP:<tool>` is a name pattern, not a row).
    ToolSpec::tool(Cursor, "Shell", Shell).command(&["command"]),
    ToolSpec::tool(Cursor, "Read", Read).paths(&["file_path", "path", "target_file"]),
    ToolSpec::tool(Cursor, "Write", Write).paths(&["file_path", "path"]).contents(&["contents", "content"]),
    ToolSpec::tool(Cursor, "StrReplace", Edit).paths(&["file_path", "path"]).contents(&["new_string"]),
    ToolSpec::tool(Cursor, "Delete", Write).paths(&["file_path", "path", "target_file"]),
    ToolSpec::tool(Cursor, "Grep", Search).paths(&["path"]).patterns(&["pattern"]),
    ToolSpec::tool(Cursor, "Task", Other),
    // Cursor's specialised events: no tool name, the fields in the payload.
    ToolSpec::event("beforeShellExecution", Shell).command(&["command"]),
    ToolSpec::event("afterShellExecution", Shell).command(&["command"]),
    ToolSpec::event("beforeReadFile", Read).paths(&["file_path"]),
    ToolSpec::event("beforeTabFileRead", Read).paths(&["file_path"]),
    ToolSpec::event("afterFileEdit", Edit).paths(&["file_path"]).contents(&["edits.new_string"]),
    ToolSpec::event("afterTabFileEdit", Edit).paths(&["file_path"]).contents(&["edits.new_string"]),
    // forgeflare.
    ToolSpec::tool(Forgeflare, "Bash", Shell).command(&["command"]),
    ToolSpec::tool(Forgeflare, "Read", Read).paths(&["path", "file_path"]),
    ToolSpec::tool(Forgeflare, "Edit", Edit).paths(&["path", "file_path"]).contents(&["new_str"]),
    ToolSpec::tool(Forgeflare, "Glob", Search).paths(&["path"]),
    ToolSpec::tool(Forgeflare, "Grep", Search).paths(&["path"]).patterns(&["pattern"]),
];

/// Cursor's MCP events: their tool is viewed as `MCP:<tool>`, the name Cursor's preToolUse
/// gives the same call.
pub const MCP_EVENTS: &[&str] = &["beforeMCPExecution", "afterMCPExecution"];

/// The rows named `name`, of every agent.
pub fn rows(name: &str) -> impl Iterator<Item = &'static ToolSpec> + '_ {
    TOOLS.iter().filter(move |spec| spec.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_that_share_a_name_share_a_kind_and_no_agent_names_a_tool_twice() {
        for (i, spec) in TOOLS.iter().enumerate() {
            for other in &TOOLS[i + 1..] {
                if other.name == spec.name {
                    assert_eq!(
                        other.kind, spec.kind,
                        "{} of {} and of {}",
                        spec.name, spec.agent, other.agent
                    );
                    assert_ne!(
                        other.agent, spec.agent,
                        "{} twice for {}",
                        spec.name, spec.agent
                    );
                }
            }
        }
    }

    #[test]
    fn every_location_is_well_formed() {
        for spec in TOOLS {
            for location in [
                spec.command,
                spec.paths,
                spec.contents,
                spec.urls,
                spec.patterns,
            ]
            .concat()
            {
                let path = location
                    .strip_prefix("patch:")
                    .or_else(|| location.strip_prefix("urls:"))
                    .unwrap_or(location);
                assert!(
                    path.split('.').all(|key| !key.is_empty()
                        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
                        || path.is_empty(),
                    "{}: {location:?}",
                    spec.name
                );
            }
            // A tool whose kind runs commands says where the command is, and only those do.
            assert_eq!(
                spec.kind == Shell,
                !spec.command.is_empty(),
                "{}",
                spec.name
            );
        }
    }
}
