//! hookhost-rules: Claude Code's permission rules, read and matched for every agent (the
//! crate's README follows).
#![doc = include_str!("../README.md")]
//!
//! # In this crate
//!
//! - [`Rule::parse`]: one rule's text, checked, with the column of any mistake ([`RuleError`]);
//! - [`Rules`]: located rules with their actions and reasons, and [`Rules::evaluate`], which
//!   answers a [`Call`] with the [`Verdict`] of the first rule that holds (deny, then ask, then
//!   allow);
//! - [`family`]: the one function that says which of Claude Code's tools an agent's tool
//!   stands for, from `hookhost-tools`' kinds.
//!
//! ```text
//! rule text ──Rule::parse──▶ Rule ──Rules::add(action, reason, origin)──▶ Rules
//! tool call (name, input, kind, cwd, home) ──Rules::evaluate──▶ Verdict (action, rule, reason)
//!        │ tools::family: which Claude Code tool it is; its command, paths, URLs
//!        ├─ shell: the command split into simple commands, wrappers stripped, patterns matched
//!        ├─ path: gitignore patterns under their anchor (//, ~/, /, ./)
//!        ├─ domain: the URL's host against domain:HOST patterns
//!        └─ mcp: mcp__server__tool names
//! ```

mod domain;
mod glob;
mod mcp;
mod parse;
mod path;
mod rule;
mod rules;
mod shell;
mod spec;
mod subject;
mod tools;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use parse::RuleError;
pub use rule::Rule;
pub use rules::{Rules, Verdict};
pub use tools::{Family, ToolKind, family};

/// What a rule does when it holds, and so where it stands: a deny beats an ask beats an allow,
/// whatever the order the rules were written in and however specific each is (Claude Code's
/// precedence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// The call does not run: hookhost's `block`.
    Deny,
    /// The user is asked: hookhost's `ask`.
    Ask,
    /// The call runs without asking: hookhost's `approve` (an explicit grant, which the merge
    /// ranks above a hook's plain `allow` and below its `warn`).
    Allow,
}

impl Action {
    /// Every action, in the order they are evaluated.
    pub const ALL: [Action; 3] = [Action::Deny, Action::Ask, Action::Allow];

    /// The name hooks.toml gives it: `deny`, `ask`, `allow`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Deny => "deny",
            Action::Ask => "ask",
            Action::Allow => "allow",
        }
    }

    /// The verdict it becomes in hookhost's merge (block > ask > warn > approve > allow).
    pub fn answer(self) -> &'static str {
        match self {
            Action::Deny => "block",
            Action::Ask => "ask",
            Action::Allow => "approve",
        }
    }
}

/// One tool call, as hookhost sees it before the tool runs.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The agent's own name for the tool (`Bash`, `bash`, `run_shell_command`, `Shell`, ...).
    pub tool: &'a str,
    /// The tool's input, as the agent gave it.
    pub input: &'a Value,
    /// What the tool does, when the caller knows it; `None` reads the name through
    /// `hookhost-tools`' table ([`family`]).
    pub kind: Option<ToolKind>,
    /// The agent's working directory: where `./path` and `path` rules are anchored and
    /// relative paths in the input are resolved. Absolute.
    pub cwd: &'a Path,
    /// The user's home directory, for `~/path` rules and `~/` in the input; `None`: such rules
    /// do not match.
    pub home: Option<&'a Path>,
}

/// Where a rule was written, for messages and the decision log; and the directory its
/// `/path` patterns are anchored at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file (hooks.toml).
    pub file: PathBuf,
    /// 1-based line of the rule's string.
    pub line: u32,
    /// 1-based column (in characters) of the rule's string.
    pub column: u32,
    /// The directory `/path` patterns are relative to. Claude Code anchors them at the project
    /// root for a project's `.claude/settings.json` (not at `.claude/`) and at the file's own
    /// directory otherwise; hookhost's loader passes the project directory for a project's
    /// `.forgeflare/hooks.toml` and the file's directory for the user's and managed files.
    pub dir: PathBuf,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}
