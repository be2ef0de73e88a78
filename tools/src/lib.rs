#![doc = include_str!("../README.md")]
//!
//! # In this crate
//!
//! - [`ToolKind`], the vocabulary, and [`Agent`];
//! - [`TOOLS`], the table: a [`ToolSpec`] per agent's tool;
//! - [`kind`] and [`view`], which read it: the kind of a tool name, and the canonical fields
//!   of a call ([`ToolView`]), borrowed from its input;
//! - [`event_tool_name`], for Cursor's events that carry no tool name;
//! - [`sdk_tables`], the table as the Python and JavaScript SDKs carry it.

mod kind;
mod locate;
mod names;
pub mod sdk_tables;
mod table;

use std::borrow::Cow;

use serde_json::Value;

pub use kind::{Agent, ToolKind, UnknownKind};
pub use locate::{patch_paths, shell_join, urls_in};
pub use names::{McpName, mcp_name};
pub use table::{MCP_EVENTS, Source, TOOLS, ToolSpec, rows};

/// What the tool named `tool` does: its row's kind, [`ToolKind::Mcp`] for a name in one of
/// the agents' MCP spellings, [`ToolKind::Other`] for anything else. Names are compared
/// exactly (`Bash` is a shell, `BASH` is not a name any agent uses).
pub fn kind(tool: &str) -> ToolKind {
    match rows(tool).next() {
        Some(spec) => spec.kind,
        None if mcp_name(tool).is_some() => ToolKind::Mcp,
        None => ToolKind::Other,
    }
}

/// A tool call seen through the vocabulary: its kind and its fields under one name each,
/// whatever the agent called them. Borrowed from the call's name and input (only an argv
/// command, joined, is owned).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolView<'a> {
    /// The agent's own name for the tool, as given.
    pub tool: &'a str,
    /// What it does.
    pub kind: ToolKind,
    /// The command line a shell tool runs (an argv joined with shell quoting).
    pub command: Option<Cow<'a, str>>,
    /// The files and directories it reads, writes or searches, as the input gives them
    /// (relative or absolute; a patch's files included).
    pub paths: Vec<Cow<'a, str>>,
    /// The text it writes: a file's whole content, the new side of a replacement, a patch.
    pub contents: Vec<Cow<'a, str>>,
    /// The URLs (or domains) it reaches.
    pub urls: Vec<Cow<'a, str>>,
    /// Its search patterns, globs or queries.
    pub patterns: Vec<Cow<'a, str>>,
    /// For an MCP tool named after its server, the server and the tool.
    pub mcp: Option<McpName<'a>>,
}

/// The call of `tool` with `input`, through the table: the locations of every row named
/// `tool` are read (a field that is absent or not a string is skipped; nothing fails). An
/// input given as a JSON string must be parsed first (hookhost parses Copilot's `toolArgs` and
/// Cursor's MCP `tool_input` before hooks see them); a string that is the whole input is read
/// only where a row says so (Copilot's freeform `apply_patch`).
pub fn view<'a>(tool: &'a str, input: &'a Value) -> ToolView<'a> {
    let mut view = ToolView {
        tool,
        kind: kind(tool),
        command: None,
        paths: Vec::new(),
        contents: Vec::new(),
        urls: Vec::new(),
        patterns: Vec::new(),
        mcp: mcp_name(tool),
    };
    for spec in rows(tool) {
        if view.command.is_none() {
            view.command = spec
                .command
                .iter()
                .find_map(|location| locate::command(input, location));
        }
        for (locations, found) in [
            (spec.paths, &mut view.paths),
            (spec.contents, &mut view.contents),
            (spec.urls, &mut view.urls),
            (spec.patterns, &mut view.patterns),
        ] {
            let mut all = Vec::new();
            for location in locations {
                locate::strings(input, location, &mut all);
            }
            for value in all {
                if !found.contains(&value) {
                    found.push(value);
                }
            }
        }
    }
    view
}

/// The tool name under which an event that is not a tool event is viewed, or `None`: Cursor's
/// specialised events carry no tool name, so `beforeShellExecution` (a [`Source::Event`] row)
/// stands for its own tool, its payload for the input; `beforeMCPExecution` and
/// `afterMCPExecution` carry the MCP tool's bare name, viewed as `MCP:<tool>` as Cursor's
/// preToolUse names it.
pub fn event_tool_name<'a>(event: &'a str, tool: Option<&'a str>) -> Option<Cow<'a, str>> {
    if MCP_EVENTS.contains(&event) {
        return tool.map(|tool| Cow::Owned(format!("MCP:{tool}")));
    }
    TOOLS
        .iter()
        .any(|spec| spec.source == Source::Event && spec.name == event)
        .then_some(Cow::Borrowed(event))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unknown_tools_are_other_with_their_own_name() {
        let input = json!({"command": "rm -rf /"});
        let view = view("MyTool", &input);
        assert_eq!(
            (view.tool, view.kind, view.command),
            ("MyTool", ToolKind::Other, None)
        );
    }

    #[test]
    fn cursors_events_stand_for_their_tools() {
        assert_eq!(
            event_tool_name("beforeShellExecution", None).as_deref(),
            Some("beforeShellExecution")
        );
        assert_eq!(
            event_tool_name("beforeMCPExecution", Some("query")).as_deref(),
            Some("MCP:query")
        );
        assert_eq!(event_tool_name("PreToolUse", Some("Bash")), None);
        assert_eq!(kind("MCP:query"), ToolKind::Mcp);
    }
}
