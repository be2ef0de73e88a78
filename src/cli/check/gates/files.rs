//! What the gates read: the agents' settings and trust files, and how a path is shown.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One agent settings file of the project, and whether its agent runs it.
#[derive(Debug)]
pub(crate) struct Gate {
    /// The agent's name.
    pub agent: &'static str,
    /// The settings file, relative to the project.
    pub file: String,
    /// Whether the agent runs the file's hooks.
    pub open: bool,
    /// Why, and when closed, what to do.
    pub detail: String,
}

pub(super) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

pub(super) fn env_is(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|set| set == value)
}

/// A JSON file, with `//` comment lines dropped (Copilot writes one above its config); `Null`
/// when missing or unreadable.
pub(super) fn read_json(path: &Path) -> Value {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Value::Null;
    };
    let text: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

pub(super) fn has_hooks(settings: &Value) -> bool {
    settings["hooks"].as_object().is_some_and(|hooks| {
        hooks
            .values()
            .any(|entries| entries.as_array().is_some_and(|e| !e.is_empty()))
    })
}

pub(super) fn shown(path: &Path) -> String {
    match home().and_then(|home| path.strip_prefix(home).ok().map(Path::to_path_buf)) {
        Some(relative) => format!("~/{}", relative.display()),
        None => path.display().to_string(),
    }
}
