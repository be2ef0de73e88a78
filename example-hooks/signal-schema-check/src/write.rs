//! Which file a tool call writes, and what the file will hold afterwards.

use hook_sdk::ToolCall;
use serde_json::Value;

use crate::Config;

/// A file a tool call is about to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// The path as the tool was given it (relative to the workspace root, or absolute).
    pub path: String,
    /// What the tool does to it.
    pub change: Change,
}

/// What a tool does to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Writes the whole file.
    Create(String),
    /// Replaces `old` with `new`: once, or everywhere when `all`.
    Edit {
        /// The text replaced.
        old: String,
        /// Its replacement.
        new: String,
        /// Every occurrence, not just the first.
        all: bool,
    },
}

impl Change {
    /// The file's content after the change; `None` when an edit's old text is not in the file
    /// (the tool fails and writes nothing). An edit reads the file (a `read` grant).
    pub fn apply(&self, absolute: &str) -> std::io::Result<Option<String>> {
        match self {
            Change::Create(content) => Ok(Some(content.clone())),
            Change::Edit { old, new, all } => {
                let current = std::fs::read_to_string(absolute)?;
                Ok(current.contains(old.as_str()).then(|| match all {
                    true => current.replace(old.as_str(), new),
                    false => current.replacen(old.as_str(), new, 1),
                }))
            }
        }
    }
}

/// The file `call` writes, when its tool is one of the configured write tools. Field names
/// follow forgeflare (`file_path`, `old_str`), Claude Code (`old_string`) and Copilot
/// (`filePath`, `oldString`).
pub fn file_write(call: &ToolCall, config: &Config) -> Option<FileWrite> {
    let text = |names: &[&str]| {
        names
            .iter()
            .find_map(|name| call.input.get(name).and_then(Value::as_str))
            .map(str::to_string)
    };
    let path = text(&["file_path", "filePath", "path"])?;
    let is = |tools: &[String]| tools.contains(&call.tool);
    let change = if is(&config.create_tools) {
        Change::Create(text(&["content"])?)
    } else if is(&config.edit_tools) {
        let old = text(&["old_str", "old_string", "oldString"]).unwrap_or_default();
        let new = text(&["new_str", "new_string", "newString"]).unwrap_or_default();
        match old.is_empty() {
            // forgeflare's Edit creates the file when the old text is empty.
            true => Change::Create(new),
            false => Change::Edit {
                old,
                new,
                all: ["replace_all", "replaceAll"]
                    .iter()
                    .any(|name| call.input.get(name).and_then(Value::as_bool) == Some(true)),
            },
        }
    } else {
        return None;
    };
    Some(FileWrite { path, change })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn write_tools_and_their_spellings() {
        let config = Config::default();
        let create = |path: &str, content: &str| {
            Some(FileWrite {
                path: path.to_string(),
                change: Change::Create(content.to_string()),
            })
        };
        #[rustfmt::skip]
        let cases: &[(&str, ToolCall, Option<FileWrite>)] = &[
            ("Write", ToolCall::new("Write", json!({"file_path": "a", "content": "x"})), create("a", "x")),
            ("create_file", ToolCall::new("create_file", json!({"filePath": "a", "content": "x"})), create("a", "x")),
            ("Write without content", ToolCall::new("Write", json!({"file_path": "a"})), None),
            ("Write without a path", ToolCall::new("Write", json!({"content": "x"})), None),
            ("Edit creating", ToolCall::edit_file("a", "", "x"), create("a", "x")),
            ("Edit", ToolCall::edit_file("a", "o", "n"), Some(FileWrite { path: "a".into(), change: Change::Edit { old: "o".into(), new: "n".into(), all: false } })),
            ("Claude's Edit, all", ToolCall::new("Edit", json!({"file_path": "a", "old_string": "o", "new_string": "n", "replace_all": true})), Some(FileWrite { path: "a".into(), change: Change::Edit { old: "o".into(), new: "n".into(), all: true } })),
            ("Copilot's replace", ToolCall::new("replace_string_in_file", json!({"filePath": "a", "oldString": "o", "newString": "n"})), Some(FileWrite { path: "a".into(), change: Change::Edit { old: "o".into(), new: "n".into(), all: false } })),
            ("Read", ToolCall::read_file("a"), None),
            ("Bash", ToolCall::bash_command("echo > a"), None),
        ];
        for (name, call, expected) in cases {
            assert_eq!(file_write(call, &config), *expected, "{name}");
        }
    }

    #[test]
    fn edits_apply_like_the_tool() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "a a a").unwrap();
        let file = file.to_string_lossy().into_owned();
        let edit = |old: &str, new: &str, all| Change::Edit {
            old: old.into(),
            new: new.into(),
            all,
        };
        assert_eq!(
            edit("a", "b", false).apply(&file).unwrap().unwrap(),
            "b a a"
        );
        assert_eq!(edit("a", "b", true).apply(&file).unwrap().unwrap(), "b b b");
        assert_eq!(edit("c", "b", true).apply(&file).unwrap(), None);
        assert!(edit("a", "b", true).apply("/no/such/file").is_err());
    }
}
