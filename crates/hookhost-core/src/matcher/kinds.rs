//! Matchers by what a tool does: `matcher = "@shell"`, `"@write|@edit"`, `"@shell|WebFetch"`.
//!
//! A `@kind` names one of hookhost-tools' kinds (shell, read, write, edit, search, fetch, mcp,
//! other) and holds for every agent's tool of that kind: `@shell` is Claude Code's `Bash`,
//! Copilot CLI's `bash`, Gemini CLI's `run_shell_command`, Cursor's `Shell`. `@` can begin no
//! tool name any agent uses, and Claude Code's exact-name lists never contained one (a pattern
//! with `@` was an unanchored regex no tool name matched), so the spelling cannot collide with
//! a name and no matcher written before it changes meaning.

use std::fmt;

use hookhost_tools::ToolKind;

use super::ToolMatcher;
use crate::event::catalog::within_two_edits;

/// One alternative of a vocabulary matcher: a kind, or an agent's own tool name (exact).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Alternative {
    /// `@shell`: every tool of that kind.
    Kind(ToolKind),
    /// `WebFetch`: exactly that name.
    Name(String),
}

impl Alternative {
    /// True when the tool named `tool` is this kind, or has this name.
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            Alternative::Kind(kind) => hookhost_tools::kind(tool) == *kind,
            Alternative::Name(name) => name == tool,
        }
    }
}

impl fmt::Display for Alternative {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Alternative::Kind(kind) => write!(f, "@{kind}"),
            Alternative::Name(name) => f.write_str(name),
        }
    }
}

impl ToolMatcher {
    /// [`ToolMatcher::matches`] on the event named `event`: a vocabulary matcher also sees the
    /// tool an event without a tool name stands for (Cursor's `beforeShellExecution` is its
    /// shell), as `hookhost_tools::event_tool_name` says; every other matcher is unchanged.
    pub fn matches_on(&self, subject: Option<&str>, event: &str) -> bool {
        match (self, subject) {
            (ToolMatcher::Vocabulary(_), None) => hookhost_tools::event_tool_name(event, None)
                .is_some_and(|tool| self.matches(Some(&tool))),
            _ => self.matches(subject),
        }
    }

    /// True for a matcher that names tool kinds (`@shell`): it compares tools, never a payload
    /// field such as SessionStart's `source`.
    pub fn names_kinds(&self) -> bool {
        matches!(self, ToolMatcher::Vocabulary(alternatives)
            if alternatives.iter().any(|alt| matches!(alt, Alternative::Kind(_))))
    }
}

/// True when `pattern` is written as a vocabulary matcher: one of its `|`- or `,`-separated
/// alternatives begins with `@`.
pub fn is_vocabulary(pattern: &str) -> bool {
    pattern
        .split(['|', ','])
        .any(|part| part.trim_start().starts_with('@'))
}

/// Reads a vocabulary matcher: each alternative a `@kind` or an exact tool name (letters,
/// digits, `_`, `-`, `:`, `.`). An unknown kind gets the kind it was probably meant to be.
pub fn parse(pattern: &str) -> Result<Vec<Alternative>, String> {
    let mut alternatives = Vec::new();
    for part in pattern.split(['|', ',']).map(str::trim) {
        if part.is_empty() {
            continue;
        }
        let alternative = match part.strip_prefix('@') {
            Some(word) => Alternative::Kind(kind_named(word)?),
            None if part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')) =>
            {
                Alternative::Name(part.to_string())
            }
            None => {
                return Err(format!(
                    "{} mixes tool kinds with {}, which is not a tool name: a matcher with `@kind`s lists kinds and exact names only (\"@shell|WebFetch\"); for a pattern, write a separate hook with {{ regex = \"...\" }} or {{ glob = \"...\" }}",
                    crate::text::quote(pattern),
                    crate::text::quote(part)
                ));
            }
        };
        if !alternatives.contains(&alternative) {
            alternatives.push(alternative);
        }
    }
    Ok(alternatives)
}

fn kind_named(word: &str) -> Result<ToolKind, String> {
    if let Ok(kind) = word.parse::<ToolKind>() {
        return Ok(kind);
    }
    let kinds: Vec<String> = ToolKind::ALL.iter().map(|k| format!("@{k}")).collect();
    let known = hookhost_tools::kind(word);
    let hint = if known != ToolKind::Other {
        format!(
            "; `{word}` is a tool's name, whose kind is `@{known}`: did you mean `@{known}` (every agent's tool of that kind) or `{word}` (that name only)?"
        )
    } else if let Some(kind) = ToolKind::ALL.iter().find(|kind| {
        within_two_edits(&word.to_ascii_lowercase(), kind.as_str())
            || (word.len() >= 3 && kind.as_str().starts_with(&word.to_ascii_lowercase()))
    }) {
        format!("; did you mean `@{kind}`?")
    } else {
        String::new()
    };
    Err(format!(
        "unknown tool kind `@{}` (the kinds are {}){hint}",
        crate::text::line(word),
        kinds.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_names_read_and_mistakes_are_named() {
        assert_eq!(
            parse("@shell|WebFetch").unwrap(),
            [
                Alternative::Kind(ToolKind::Shell),
                Alternative::Name("WebFetch".into())
            ]
        );
        assert_eq!(
            parse("@write, @edit").unwrap(),
            [
                Alternative::Kind(ToolKind::Write),
                Alternative::Kind(ToolKind::Edit)
            ]
        );
        #[rustfmt::skip]
        let errors = [
            ("@shel", "unknown tool kind `@shel` (the kinds are @shell, @read, @write, @edit, @search, @fetch, @mcp, @other); did you mean `@shell`?"),
            ("@SHELL", "did you mean `@shell`?"),
            ("@bash", "`bash` is a tool's name, whose kind is `@shell`: did you mean `@shell`"),
            ("@frobnicate", "the kinds are @shell"),
            ("@shell|Notebook.*", "which is not a tool name"),
        ];
        for (pattern, expected) in errors {
            let error = parse(pattern).unwrap_err();
            assert!(error.contains(expected), "{pattern}: {error}");
        }
        assert!(!is_vocabulary("Edit|Write"));
        assert!(is_vocabulary("Edit| @write"));
    }
}
