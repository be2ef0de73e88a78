//! The vocabulary: what a tool does ([`ToolKind`]), and whose tool it is ([`Agent`]).

use std::fmt;
use std::str::FromStr;

/// What a tool does, whatever the agent calls it: the one word a policy is written against.
///
/// A policy that asks `kind == Shell` sees Claude Code's `Bash`, Copilot CLI's `bash`, Gemini
/// CLI's `run_shell_command`, Codex CLI's `Bash` and Cursor's `Shell` alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolKind {
    /// Runs a command line in a shell (or types into one that runs).
    Shell,
    /// Reads files (or lists a directory's entries by name, for the tools that read them).
    Read,
    /// Creates, overwrites or deletes a whole file.
    Write,
    /// Changes part of a file: a replacement, an insertion, a patch, a notebook cell.
    Edit,
    /// Finds files by name or by content.
    Search,
    /// Reaches the network: fetches a URL, searches the web.
    Fetch,
    /// Calls a tool of an MCP server, or reads its resources.
    Mcp,
    /// Anything else (subagents, to-do lists, questions to the user) and every tool no row of
    /// the table names.
    Other,
}

impl ToolKind {
    /// Every kind, in the order of its declaration.
    pub const ALL: [ToolKind; 8] = [
        ToolKind::Shell,
        ToolKind::Read,
        ToolKind::Write,
        ToolKind::Edit,
        ToolKind::Search,
        ToolKind::Fetch,
        ToolKind::Mcp,
        ToolKind::Other,
    ];

    /// `shell`, `read`, `write`, `edit`, `search`, `fetch`, `mcp` or `other`: the spelling of
    /// hooks.toml, the SDKs and the decision log.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Shell => "shell",
            ToolKind::Read => "read",
            ToolKind::Write => "write",
            ToolKind::Edit => "edit",
            ToolKind::Search => "search",
            ToolKind::Fetch => "fetch",
            ToolKind::Mcp => "mcp",
            ToolKind::Other => "other",
        }
    }

    /// True for the kinds that change files: write and edit.
    pub fn changes_files(self) -> bool {
        matches!(self, ToolKind::Write | ToolKind::Edit)
    }
}

impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that is not one of the kinds, as [`ToolKind::from_str`] refuses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown tool kind {:?}: the kinds are ", self.0)?;
        for (i, kind) in ToolKind::ALL.iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            write!(f, "{separator}{kind}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownKind {}

impl FromStr for ToolKind {
    type Err = UnknownKind;

    /// The kind spelled `text`, exactly as [`ToolKind::as_str`] spells it (lowercase).
    fn from_str(text: &str) -> Result<ToolKind, UnknownKind> {
        ToolKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| UnknownKind(text.to_string()))
    }
}

/// The agent a row of the table describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agent {
    /// Anthropic's Claude Code.
    Claude,
    /// GitHub Copilot CLI.
    Copilot,
    /// Google's Gemini CLI.
    Gemini,
    /// OpenAI's Codex CLI.
    Codex,
    /// Cursor.
    Cursor,
    /// forgeflare, the agent hookhost's forgeflare facade serves.
    Forgeflare,
}

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 6] = [
        Agent::Claude,
        Agent::Copilot,
        Agent::Gemini,
        Agent::Codex,
        Agent::Cursor,
        Agent::Forgeflare,
    ];

    /// `claude`, `copilot`, `gemini`, `codex`, `cursor` or `forgeflare` (`agent-hook
    /// --format`'s spelling).
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Copilot => "copilot",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
            Agent::Cursor => "cursor",
            Agent::Forgeflare => "forgeflare",
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_back_as_they_are_spelled_and_other_words_are_refused() {
        for kind in ToolKind::ALL {
            assert_eq!(kind.as_str().parse::<ToolKind>(), Ok(kind));
        }
        assert_eq!(
            "Shell".parse::<ToolKind>().unwrap_err().to_string(),
            "unknown tool kind \"Shell\": the kinds are shell, read, write, edit, search, fetch, mcp, other"
        );
    }
}
