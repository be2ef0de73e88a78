//! Tool names no row can list: MCP tools, named by each agent after the server and the tool.
//!
//! | agent | an MCP tool is named | server | tool |
//! |---|---|---|---|
//! | Claude Code, Codex CLI | `mcp__github__get_issue` | up to the next `__` | the rest |
//! | Gemini CLI | `mcp_github_get_issue` | up to the next `_` (Gemini's server names have none) | the rest |
//! | Cursor (preToolUse) | `MCP:get_issue` | not given | the rest |
//! | Copilot CLI | `github-mcp-server-get_issue` | up to the last `-` (a guess: both may hold `-`) | the rest |
//!
//! Copilot's spelling is its sanitised server and tool names joined by `-`, cut to 64
//! characters; no agent's built-in tool has a `-` in its name, so a name with one that no row
//! lists is read as an MCP tool. Codex's other namespaced tools (`dynamic__ns__tool`) are
//! `other`.

use crate::table::rows;

/// An MCP tool's server and name, as the agent's tool name spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct McpName<'a> {
    /// The server, when the name says it (Cursor's `MCP:<tool>` does not).
    pub server: Option<&'a str>,
    /// The tool's name on its server.
    pub tool: &'a str,
}

/// The MCP server and tool `name` spells, if it is an MCP tool's name by one of the agents'
/// patterns and no row of the table.
pub fn mcp_name(name: &str) -> Option<McpName<'_>> {
    if rows(name).next().is_some() {
        return None;
    }
    if let Some(rest) = name.strip_prefix("mcp__") {
        return Some(server_and_tool(rest, rest.split_once("__")));
    }
    if let Some(rest) = name.strip_prefix("mcp_") {
        return Some(server_and_tool(rest, rest.split_once('_')));
    }
    if let Some(tool) = name.strip_prefix("MCP:") {
        return (!tool.is_empty()).then_some(McpName { server: None, tool });
    }
    let copilot = name.contains('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if copilot {
        return Some(server_and_tool(name, name.rsplit_once('-')));
    }
    None
}

fn server_and_tool<'a>(whole: &'a str, split: Option<(&'a str, &'a str)>) -> McpName<'a> {
    match split {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => McpName {
            server: Some(server),
            tool,
        },
        _ => McpName {
            server: None,
            tool: whole,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::type_complexity)] // a table of cases
    fn each_agents_mcp_spelling_splits_into_server_and_tool() {
        #[rustfmt::skip]
        let cases: [(&str, Option<(Option<&str>, &str)>); 10] = [
            ("mcp__github__get_issue", Some((Some("github"), "get_issue"))),
            ("mcp__plugin_ctx_context-mode__ctx_search", Some((Some("plugin_ctx_context-mode"), "ctx_search"))),
            ("mcp_github_get_issue", Some((Some("github"), "get_issue"))),
            ("MCP:database_query", Some((None, "database_query"))),
            ("github-mcp-server-get_issue", Some((Some("github-mcp-server"), "get_issue"))),
            ("playwright-browser_navigate", Some((Some("playwright"), "browser_navigate"))),
            ("dynamic__codex_app__automation_update", None),
            ("Bash", None),
            ("MCP:", None),
            ("some tool", None),
        ];
        for (name, expected) in cases {
            assert_eq!(
                mcp_name(name).map(|mcp| (mcp.server, mcp.tool)),
                expected,
                "{name}"
            );
        }
    }
}
