//! Copilot CLI's `.github/hooks/*.json`: `{"version": 1, "hooks": {event: [handler]}}`, a flat
//! list of handlers per camelCase event; `matcher` on the handler, an anchored regex;
//! `timeoutSec` in seconds (30 by default).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{
    Found, Hook, ImportState, Matcher, SettingsFile, check_matcher, env_pairs, is_hookhost,
    seconds_to_ms, shell_join, version_one,
};
use crate::dialect::copilot::event as copilot_event;

/// Copilot's events whose `matcher` it compares, and with what (all of which hookhost compares
/// too: the tool's name, SubagentStart's `agent_type` (copied from `agentName`), `trigger`,
/// `notification_type`).
const MATCHED: &[&str] = &[
    "preToolUse",
    "postToolUse",
    "permissionRequest",
    "subagentStart",
    "preCompact",
    "notification",
];

/// Copilot CLI's default `timeoutSec`.
const DEFAULT_TIMEOUT_S: f64 = 30.0;

/// The files of a project in `dir` that hold Copilot CLI's hooks (they need not exist).
pub(super) fn settings(dir: &Path, _asked: bool) -> Vec<PathBuf> {
    // Every `.json` of `.github/hooks`, by name.
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir.join(".github/hooks"))
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
}

/// The hooks of one of [`settings`]' files.
pub(super) fn import(json: &Value, file: &SettingsFile<'_>, _state: &mut ImportState) -> Found {
    hooks(json, file.label)
}

pub(super) fn hooks(json: &Value, file: &str) -> Found {
    let mut found = Found::default();
    if !version_one(json, file, "Copilot CLI", &mut found) {
        return found;
    }
    let disabled = json.get("disableAllHooks") == Some(&Value::Bool(true));
    if disabled {
        found.note(file, "disableAllHooks is true, so these hooks were off in Copilot CLI; imported with enabled = false");
    }
    let Some(events) = json.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, handlers) in events {
        let Some(spec) = copilot_event(event) else {
            found.note(
                file,
                format!("not imported: unknown Copilot CLI event {event:?}"),
            );
            continue;
        };
        if event != spec.agent {
            found.note(file, format!("{event}: not imported: under this PascalCase name Copilot CLI sends Claude Code's snake_case input but reads Copilot's flat answers, a mix no hookhost protocol speaks; register the script under {} (camelCase input) and import again", spec.agent));
            continue;
        }
        for (h, handler) in handlers.as_array().into_iter().flatten().enumerate() {
            let origin = format!("{file}: {event} (hook {})", h + 1);
            if let Some(hook) =
                handler_hook(handler, spec.agent, spec.hookhost, &origin, &mut found)
            {
                found.hooks.push(Hook {
                    enabled: !disabled,
                    ..hook
                });
            }
        }
    }
    found
}

fn handler_hook(
    handler: &Value,
    event: &str,
    name: &str,
    origin: &str,
    found: &mut Found,
) -> Option<Hook> {
    let kind = handler
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    if kind != "command" {
        found.note(
            origin,
            format!("not imported: a `{kind}` hook (hookhost runs commands and wasm components)"),
        );
        return None;
    }
    let text = |key: &str| handler.get(key).and_then(Value::as_str);
    let command = match (
        text("bash"),
        text("command"),
        text("exec"),
        text("powershell"),
    ) {
        (Some(bash), ..) => bash.to_string(),
        (None, Some(command), ..) => command.to_string(),
        (None, None, Some(exec), _) => shell_join(
            exec,
            handler
                .get("args")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice),
        ),
        (None, None, None, Some(_)) => {
            found.note(
                origin,
                "not imported: only a `powershell` command (hookhost runs commands with bash)",
            );
            return None;
        }
        (None, None, None, None) => {
            found.note(origin, "not imported: no `bash`, `command` or `exec`");
            return None;
        }
    };
    if is_hookhost(&command) {
        found.note(origin, "skipped: it runs hookhost itself");
        return None;
    }
    let matcher = match handler
        .get("matcher")
        .and_then(Value::as_str)
        .map(str::trim)
    {
        None | Some("") => None,
        Some(pattern) if MATCHED.contains(&event) => {
            Some(Matcher::Regex(format!("^(?:{pattern})$")))
        }
        Some(pattern) => {
            found.note(
                origin,
                format!(
                    "the matcher {pattern:?} is left out: Copilot CLI matches nothing on {event}"
                ),
            );
            None
        }
    };
    if let Some(Err(problem)) = matcher.as_ref().map(check_matcher) {
        found.note(origin, format!("not imported: {problem}"));
        return None;
    }
    let seconds = handler
        .get("timeoutSec")
        .or_else(|| handler.get("timeout"))
        .and_then(Value::as_f64)
        .unwrap_or(DEFAULT_TIMEOUT_S);
    Some(Hook {
        origin: origin.to_string(),
        event: name.to_string(),
        matcher,
        timeout_ms: seconds_to_ms(seconds, found, origin),
        command,
        protocol: "copilot",
        cwd: handler
            .get("cwd")
            .and_then(Value::as_str)
            .map(str::to_string),
        env: env_pairs(handler, found, origin),
        enabled: true,
        ..Hook::default()
    })
}
