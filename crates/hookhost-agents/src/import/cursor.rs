//! Cursor's `.cursor/hooks.json`: `{"version": 1, "hooks": {event: [entry]}}`, a flat list of
//! entries per camelCase event; `matcher` on the entry, an unanchored regex; `timeout` in
//! seconds (60 by default); `failClosed`; `loop_limit` on stop and subagentStop.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{
    Found, Hook, ImportState, Matcher, SettingsFile, check_matcher, is_hookhost, seconds_to_ms,
    version_one,
};
use crate::dialect::BlockAs;
use crate::dialect::cursor::{EVENTS, FIXED_MATCH};
use crate::matcher::ToolMatcher;

/// Cursor's default hook timeout, in seconds.
const DEFAULT_TIMEOUT_S: f64 = 60.0;

/// Cursor's events whose matcher compares what hookhost's matcher compares on the event they
/// map to: the tool's name, or the subagent's type.
const MATCHED: &[&str] = &[
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "subagentStart",
    "subagentStop",
];

/// The files of a project in `dir` that hold Cursor's hooks (they need not exist).
pub(super) fn settings(dir: &Path, _asked: bool) -> Vec<PathBuf> {
    vec![dir.join(".cursor/hooks.json")]
}

/// The hooks of one of [`settings`]' files.
pub(super) fn import(json: &Value, file: &SettingsFile<'_>, _state: &mut ImportState) -> Found {
    hooks(json, file.label)
}

pub(super) fn hooks(json: &Value, file: &str) -> Found {
    let mut found = Found::default();
    if !version_one(json, file, "Cursor", &mut found) {
        return found;
    }
    let Some(events) = json.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    // Cursor rejects the whole file for one event it does not know: none of its hooks ran.
    let unknown: Vec<&str> = events
        .keys()
        .map(String::as_str)
        .filter(|event| !EVENTS.iter().any(|spec| spec.agent == *event))
        .collect();
    if !unknown.is_empty() {
        found.note(
            file,
            format!(
                "not imported: Cursor rejects the whole file for the unknown event{} {}, so none of its hooks ran",
                if unknown.len() == 1 { "" } else { "s" },
                unknown.join(", ")
            ),
        );
        return found;
    }
    for (event, entries) in events {
        // Every event is known: the unknown ones refused the whole file above.
        let Some(spec) = EVENTS.iter().find(|spec| spec.agent == event.as_str()) else {
            continue;
        };
        for (h, entry) in entries.as_array().into_iter().flatten().enumerate() {
            let origin = format!("{file}: {event} (hook {})", h + 1);
            if let Some(hook) = entry_hook(entry, spec, &origin, &mut found) {
                found.hooks.push(hook);
            }
        }
    }
    found
}

fn entry_hook(
    entry: &Value,
    spec: &crate::dialect::AgentEventSpec,
    origin: &str,
    found: &mut Found,
) -> Option<Hook> {
    let event = spec.agent;
    let kind = entry
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
    let Some(command) = entry.get("command").and_then(Value::as_str) else {
        found.note(origin, "not imported: no `command`");
        return None;
    };
    if is_hookhost(command) {
        found.note(origin, "skipped: it runs hookhost itself");
        return None;
    }
    let mut enabled = true;
    let pattern = entry
        .get("matcher")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "*");
    let matcher = match pattern {
        None => None,
        Some(pattern) if MATCHED.contains(&event) => {
            let matcher = Matcher::Regex(pattern.to_string());
            if let Err(problem) = check_matcher(&matcher) {
                found.note(origin, format!("not imported: {problem}"));
                return None;
            }
            Some(matcher)
        }
        Some(pattern) => match FIXED_MATCH.iter().find(|(e, _)| *e == event) {
            Some((_, word)) => {
                // Cursor compares the matcher with a fixed word: it always or never matches.
                let matches = match ToolMatcher::regex(pattern) {
                    Ok(regex) => regex.matches(Some(*word)),
                    Err(problem) => {
                        found.note(origin, format!("not imported: {problem}"));
                        return None;
                    }
                };
                if !matches {
                    found.note(origin, format!("the matcher {pattern:?} never matches {word:?}, what Cursor compares it with on {event}, so the hook never ran; imported with enabled = false"));
                    enabled = false;
                }
                None
            }
            None => {
                found.note(origin, format!("the matcher {pattern:?} is not carried over (hookhost's matcher on {event} does not compare what Cursor's does): the hook now runs on every {event}, and its script still decides"));
                None
            }
        },
    };
    let fail_closed = entry.get("failClosed") == Some(&Value::Bool(true));
    // Only where hookhost's event can block too (not SubagentStart).
    let gate = spec.block == BlockAs::Permission
        && crate::event::catalog::spec(spec.hookhost)
            .answers
            .allows(crate::event::Answers::BLOCK);
    if fail_closed && !gate {
        found.note(
            origin,
            format!("failClosed is not carried over: {event} has no action a failure could block"),
        );
    }
    if let Some(limit) = entry.get("loop_limit") {
        found.note(origin, format!("loop_limit {limit} is Cursor's own: set it on the entry that runs hookhost, where Cursor applies it to hookhost's follow-ups"));
    }
    let seconds = entry
        .get("timeout")
        .and_then(Value::as_f64)
        .unwrap_or(DEFAULT_TIMEOUT_S);
    Some(Hook {
        origin: origin.to_string(),
        event: spec.hookhost.to_string(),
        matcher,
        timeout_ms: seconds_to_ms(seconds, found, origin),
        command: command.to_string(),
        protocol: "cursor",
        fail_closed: fail_closed && gate,
        enabled,
        ..Hook::default()
    })
}
