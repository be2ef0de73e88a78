//! Typed views of the inputs of forgeflare's tools. Unknown fields are ignored, so a view
//! keeps working when an agent adds fields.

use serde::Deserialize;

/// `Bash`: run a shell command.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct BashInput {
    /// The command line.
    pub command: String,
    /// What the model says the command is for.
    #[serde(default)]
    pub description: Option<String>,
}

/// `Read`: read a file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ReadInput {
    /// The file, absolute or relative to the workspace root.
    pub file_path: String,
}

/// `Edit`: replace text in a file (or create it, when `old_str` is empty).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct EditInput {
    /// The file, absolute or relative to the workspace root.
    pub file_path: String,
    /// The text to replace.
    #[serde(default)]
    pub old_str: String,
    /// The replacement.
    #[serde(default)]
    pub new_str: String,
    /// Replace every occurrence instead of exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

/// `Glob`: list files matching a pattern.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GlobInput {
    /// The pattern.
    pub pattern: String,
    /// Where to search.
    #[serde(default)]
    pub path: Option<String>,
}

/// `Grep`: search file contents.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GrepInput {
    /// The regular expression.
    pub pattern: String,
    /// Where to search.
    #[serde(default)]
    pub path: Option<String>,
    /// Only files of this type.
    #[serde(default)]
    pub file_type: Option<String>,
    /// Case sensitivity, when given.
    #[serde(default)]
    pub case_sensitive: Option<bool>,
}
