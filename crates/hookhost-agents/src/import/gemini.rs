//! Gemini CLI's `.gemini/settings.json`: event → groups (`matcher`, `sequential`) → handlers
//! with a `name`; `timeout` in milliseconds (60000 by default); `hooksConfig.enabled` and
//! `hooksConfig.disabled` (names or commands).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Found, Hook, ImportState, Matcher, SettingsFile, clamp_ms, env_pairs, is_hookhost};
use crate::matcher::ToolMatcher;
use crate::{AgentFormat, resolve_name};

/// Gemini's events whose matcher is a regular expression over the tool's name (unanchored;
/// an invalid one is compared as an exact name).
const TOOL_EVENTS: &[&str] = &["BeforeTool", "AfterTool"];
/// Gemini's events whose matcher is compared for equality with a field hookhost compares too.
const FIELD_EVENTS: &[&str] = &["SessionStart", "SessionEnd", "PreCompress", "Notification"];

/// Gemini CLI's default hook timeout.
const DEFAULT_TIMEOUT_MS: f64 = 60_000.0;

/// The files of a project in `dir` that hold Gemini CLI's hooks (they need not exist).
pub(super) fn settings(dir: &Path, _asked: bool) -> Vec<PathBuf> {
    vec![dir.join(".gemini/settings.json")]
}

/// The hooks of one of [`settings`]' files.
pub(super) fn import(json: &Value, file: &SettingsFile<'_>, _state: &mut ImportState) -> Found {
    hooks(json, file.label)
}

pub(super) fn hooks(json: &Value, file: &str) -> Found {
    let mut found = Found::default();
    let config = json.get("hooksConfig");
    let all_off = config.and_then(|c| c.get("enabled")) == Some(&Value::Bool(false));
    if all_off {
        found.note(file, "hooksConfig.enabled is false, so these hooks were off in Gemini CLI; imported with enabled = false");
    }
    let off: Vec<&str> = config
        .and_then(|c| c.get("disabled"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let Some(events) = json.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    let mut names: Vec<String> = Vec::new();
    for (event, groups) in events {
        let Some(groups) = groups.as_array() else {
            found.note(
                file,
                format!("hooks.{event} is not a list of hook groups (an older setting?); ignored"),
            );
            continue;
        };
        let name = match resolve_name(AgentFormat::Gemini, event) {
            Ok(name) => name,
            Err(error) => {
                found.note(file, format!("{error}; its hooks are not imported"));
                continue;
            }
        };
        for (g, group) in groups.iter().enumerate() {
            let pattern = group.get("matcher").and_then(Value::as_str).map(str::trim);
            let origin = format!(
                "{file}: {event}{} (group {})",
                pattern
                    .filter(|p| !p.is_empty())
                    .map(|p| format!(" matcher {p:?}"))
                    .unwrap_or_default(),
                g + 1
            );
            let matcher = match pattern {
                None | Some("" | "*") => None,
                Some(p) if TOOL_EVENTS.contains(&event.as_str()) => match ToolMatcher::regex(p) {
                    Ok(_) => Some(Matcher::Regex(p.to_string())),
                    Err(_) => {
                        found.note(&origin, format!("{p:?} is not a regular expression hookhost reads; compared as an exact tool name, as Gemini CLI does with one it cannot compile"));
                        Some(Matcher::Exact(p.to_string()))
                    }
                },
                Some(p) if FIELD_EVENTS.contains(&event.as_str()) => {
                    Some(Matcher::Exact(p.to_string()))
                }
                Some(p) => {
                    found.note(&origin, format!("the matcher {p:?} is left out: Gemini CLI compares it with nothing hookhost has on {event}"));
                    None
                }
            };
            for (h, handler) in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let origin = format!("{origin}, hook {}", h + 1);
                let kind = handler
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("command");
                let Some(command) = handler
                    .get("command")
                    .and_then(Value::as_str)
                    .filter(|_| kind == "command")
                else {
                    found.note(
                        &origin,
                        format!("not imported: a `{kind}` hook without a command"),
                    );
                    continue;
                };
                if is_hookhost(command) {
                    found.note(&origin, "skipped: it runs hookhost itself");
                    continue;
                }
                let given = handler.get("name").and_then(Value::as_str);
                let enabled =
                    !all_off && !given.is_some_and(|n| off.contains(&n)) && !off.contains(&command);
                let hook_name = given.map(|given| {
                    let mut unique = given.to_string();
                    let mut n = 1;
                    while names.contains(&unique) {
                        n += 1;
                        unique = format!("{given} ({n})");
                    }
                    names.push(unique.clone());
                    unique
                });
                let ms = handler
                    .get("timeout")
                    .and_then(Value::as_f64)
                    .unwrap_or(DEFAULT_TIMEOUT_MS);
                let timeout_ms = clamp_ms(ms, &mut found, &origin);
                let env = env_pairs(handler, &mut found, &origin);
                found.hooks.push(Hook {
                    name: hook_name,
                    event: name.clone(),
                    matcher: matcher.clone(),
                    timeout_ms,
                    command: command.to_string(),
                    protocol: "gemini",
                    env,
                    enabled,
                    origin,
                    ..Hook::default()
                });
            }
        }
    }
    found
}
