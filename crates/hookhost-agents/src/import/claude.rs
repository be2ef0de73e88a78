//! Claude Code's `.claude/settings.json` and `settings.local.json`: event → matcher groups →
//! handlers; timeouts in seconds (600 by default).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{
    Found, Hook, ImportState, Matcher, SettingsFile, check_matcher, is_hookhost, seconds_to_ms,
    shell_join,
};
use crate::event::{MatchOn, catalog};
use crate::{AgentFormat, resolve_name};

/// Claude Code events outside hookhost's catalog that carry `tool_name`: a matcher on them
/// still compares the tool.
const TOOL_EVENTS: &[&str] = &["PermissionDenied"];

/// Claude Code's default timeout for a command hook on `event`, in seconds.
fn default_timeout(event: &str) -> f64 {
    match event {
        "UserPromptSubmit" | "PreModelSwitch" | "PostModelSwitch" => 30.0,
        "MessageDisplay" => 10.0,
        // SessionEnd hooks share a budget of 1.5 s.
        "SessionEnd" => 1.5,
        _ => 600.0,
    }
}

/// The files of a project in `dir` that hold Claude Code's hooks (they need not exist).
pub(super) fn settings(dir: &Path, _asked: bool) -> Vec<PathBuf> {
    vec![
        dir.join(".claude/settings.json"),
        dir.join(".claude/settings.local.json"),
    ]
}

/// The hooks of one of [`settings`]' files.
pub(super) fn import(json: &Value, file: &SettingsFile<'_>, _state: &mut ImportState) -> Found {
    hooks(json, file.label)
}

pub(super) fn hooks(json: &Value, file: &str) -> Found {
    let mut found = Found::default();
    let disabled = json.get("disableAllHooks") == Some(&Value::Bool(true));
    if disabled {
        found.note(file, "disableAllHooks is true, so these hooks were off in Claude Code; imported with enabled = false");
    }
    let Some(events) = json.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, groups) in events {
        let name = match resolve_name(AgentFormat::Claude, event) {
            Ok(name) => name,
            Err(error) => {
                found.note(file, format!("{error}; its hooks are not imported"));
                continue;
            }
        };
        let spec = catalog::spec(&name);
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let pattern = group.get("matcher").and_then(Value::as_str).map(str::trim);
            let mut origin = format!("{file}: {event}");
            if let Some(pattern) = pattern.filter(|p| !p.is_empty()) {
                origin.push_str(&format!(" matcher {pattern:?}"));
            }
            let matcher = match pattern {
                None | Some("" | "*") => None,
                // Claude Code ignores a matcher on these too.
                Some(_) if spec.match_on == MatchOn::Nothing => None,
                Some(pattern) if spec.is_custom() && !TOOL_EVENTS.contains(&name.as_str()) => {
                    found.note(&origin, format!("the matcher is not carried over (hookhost compares a matcher on {name}, a custom event, with a tool, and it has none): the hook fires on every {name}"));
                    let _ = pattern;
                    None
                }
                Some(pattern) => Some(Matcher::Claude(pattern.to_string())),
            };
            if let Some(Err(problem)) = matcher.as_ref().map(check_matcher) {
                found.note(&origin, format!("not imported: {problem}"));
                continue;
            }
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (h, handler) in handlers.into_iter().flatten().enumerate() {
                let origin = format!("{origin} (group {}, hook {})", g + 1, h + 1);
                if let Some(hook) = handler_hook(handler, &name, &origin, &mut found) {
                    found.hooks.push(Hook {
                        matcher: matcher.clone(),
                        enabled: !disabled,
                        ..hook
                    });
                }
            }
        }
    }
    found
}

fn handler_hook(handler: &Value, event: &str, origin: &str, found: &mut Found) -> Option<Hook> {
    let kind = handler
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    if kind != "command" {
        found.note(origin, format!("not imported: a `{kind}` hook (hookhost runs commands and wasm components; write it as one of those)"));
        return None;
    }
    let Some(command) = handler.get("command").and_then(Value::as_str) else {
        found.note(origin, "not imported: no `command`");
        return None;
    };
    if is_hookhost(command) {
        found.note(origin, "skipped: it runs hookhost itself");
        return None;
    }
    if handler.get("shell").and_then(Value::as_str) == Some("powershell") {
        found.note(
            origin,
            "not imported: a PowerShell hook (hookhost runs commands with bash)",
        );
        return None;
    }
    if handler.get("asyncRewake") == Some(&Value::Bool(true)) {
        found.note(origin, "not imported: `asyncRewake` (a background hook that wakes the agent) has no equivalent in hookhost");
        return None;
    }
    let command = match handler.get("args").and_then(Value::as_array) {
        Some(args) => shell_join(command, args),
        None => command.to_string(),
    };
    if let Some(condition) = handler.get("if").and_then(Value::as_str) {
        found.note(origin, format!("the condition `if: {condition}` is not carried over: the hook now runs on every call its matcher reaches (its script still decides)"));
    }
    let background = handler.get("async") == Some(&Value::Bool(true));
    if background {
        found.note(origin, "async: runs in the background as in Claude Code, but its context is not delivered on the next turn");
    }
    let seconds = handler
        .get("timeout")
        .and_then(Value::as_f64)
        .unwrap_or_else(|| default_timeout(event));
    Some(Hook {
        origin: origin.to_string(),
        event: event.to_string(),
        timeout_ms: seconds_to_ms(seconds, found, origin),
        command,
        protocol: "claude",
        background,
        enabled: true,
        ..Hook::default()
    })
}
