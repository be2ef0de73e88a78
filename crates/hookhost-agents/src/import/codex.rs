//! Codex CLI's hooks: `.codex/hooks.json`, or `[hooks]` in `.codex/config.toml` (the same
//! shape: event → matcher groups → handlers); `timeout` in seconds (600 by default). The
//! per-hook trust Codex keeps in the user's `config.toml` (`[hooks.state]`, by hash) and the
//! managed hooks of `requirements.toml` are reported, never silently dropped.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{
    Found, Hook, ImportState, Matcher, SettingsFile, check_matcher, is_hookhost, seconds_to_ms,
};
use crate::dialect::codex::{EVENTS, TOOL_ALIASES};
use crate::matcher::ToolMatcher;

/// Codex's default hook timeout, in seconds.
const DEFAULT_TIMEOUT_S: f64 = 600.0;
/// SessionEnd and Interrupt run during teardown: 1 s by default, at most 3 s.
const TEARDOWN_EVENTS: &[&str] = &["SessionEnd", "Interrupt"];
const TEARDOWN_DEFAULT_S: f64 = 1.0;
const TEARDOWN_MAX_S: f64 = 3.0;

/// Keys of `[hooks]` that are not events.
const NOT_EVENTS: &[&str] = &["state", "managed_dir", "windows_managed_dir"];

/// The trust Codex recorded per hook (`[hooks.state]` of the user's `config.toml`), keyed
/// `"<source path>:<event in snake_case>:<group>:<handler>"`.
#[derive(Debug, Default)]
pub(crate) struct TrustState {
    /// Where it was read, for notes; `None`: Codex's config was not found.
    pub(crate) file: Option<String>,
    /// The `[hooks.state]` table.
    pub(crate) entries: serde_json::Map<String, Value>,
}

impl TrustState {
    /// `[hooks.state]` of `$CODEX_HOME/config.toml` (`~/.codex/config.toml` by default).
    pub(crate) fn load() -> TrustState {
        let home = std::env::var_os("CODEX_HOME")
            .filter(|home| !home.is_empty())
            .map(std::path::PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|home| !home.is_empty())
                    .map(|home| std::path::PathBuf::from(home).join(".codex"))
            });
        let Some(path) = home.map(|home| home.join("config.toml")) else {
            return TrustState::default();
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            return TrustState::default();
        };
        let entries = toml::from_str::<toml::Value>(&text)
            .ok()
            .and_then(|config| serde_json::to_value(config).ok())
            .and_then(|config| config.pointer("/hooks/state").cloned())
            .and_then(|state| state.as_object().cloned())
            .unwrap_or_default();
        TrustState {
            file: Some(path.display().to_string()),
            entries,
        }
    }
}

/// Which of Codex's files this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CodexFile {
    /// `hooks.json` or `[hooks]` in `config.toml`: hooks that run once trusted.
    Layer,
    /// `requirements.toml`: hooks the organisation manages, trusted by policy.
    Requirements {
        /// The hooks.toml being written is the organisation's managed file.
        into_managed: bool,
    },
}

/// `event` in Codex's trust keys: `PreToolUse` → `pre_tool_use`.
fn snake(event: &str) -> String {
    let mut out = String::with_capacity(event.len() + 4);
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The files of a project in `dir` that hold Codex's hooks (they need not exist), and the
/// machine's managed requirements ([`super::codex_requirements`]), reported along with a
/// project's Codex hooks, or alone when Codex's were `asked` for.
pub(super) fn settings(dir: &Path, asked: bool) -> Vec<PathBuf> {
    let mut paths = vec![
        dir.join(".codex/hooks.json"),
        dir.join(".codex/config.toml"),
    ];
    if asked || paths.iter().any(|path| path.is_file()) {
        paths.push(super::codex_requirements());
    }
    paths
}

/// The hooks of one of [`settings`]' files: the requirements file's go into the organisation's
/// file when that is the output; trust is Codex's, read once per import.
pub(super) fn import(json: &Value, file: &SettingsFile<'_>, state: &mut ImportState) -> Found {
    let kind = if file.path == super::codex_requirements() {
        CodexFile::Requirements {
            into_managed: super::is_managed_output(file.output),
        }
    } else {
        CodexFile::Layer
    };
    let trust = state.codex.get_or_insert_with(TrustState::load);
    let absolute = std::path::absolute(file.path).unwrap_or(file.path.to_path_buf());
    hooks(
        json,
        file.label,
        &absolute.display().to_string(),
        kind,
        trust,
    )
}

/// The hooks of one Codex file (`json`: the whole document); `source` is its absolute path, as
/// Codex keys its trust.
pub(super) fn hooks(
    json: &Value,
    file: &str,
    source: &str,
    kind: CodexFile,
    state: &TrustState,
) -> Found {
    let mut found = Found::default();
    let features = json.get("features");
    let off = ["hooks", "codex_hooks"]
        .iter()
        .any(|key| features.and_then(|f| f.get(key)) == Some(&Value::Bool(false)));
    if off {
        found.note(
            file,
            "[features] turns hooks off, so Codex ran none of these; imported with enabled = false",
        );
    }
    if let CodexFile::Requirements { .. } = kind
        && json.get("allow_managed_hooks_only") == Some(&Value::Bool(true))
    {
        found.note(file, "allow_managed_hooks_only = true is not carried over: its hookhost equivalent is managed_only = true in the organisation's /etc/hookhost/hooks.toml");
    }
    let Some(events) = json.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    let mut trusted_note = false;
    for (event, groups) in events {
        if NOT_EVENTS.contains(&event.as_str()) {
            continue;
        }
        let Some(spec) = EVENTS.iter().find(|spec| spec.agent == event.as_str()) else {
            found.note(file, format!("not imported: unknown Codex CLI event {event:?} (Codex reads none of its hooks)"));
            continue;
        };
        let Some(groups) = groups.as_array() else {
            found.note(
                file,
                format!("hooks.{event} is not a list of matcher groups; not imported"),
            );
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let pattern = group.get("matcher").and_then(Value::as_str).map(str::trim);
            let mut origin = format!("{file}: {event}");
            if let Some(pattern) = pattern.filter(|p| !p.is_empty()) {
                origin.push_str(&format!(" matcher {pattern:?}"));
            }
            let matcher = match matcher(spec.agent, pattern, &origin, &mut found) {
                Ok(matcher) => matcher,
                Err(problem) => {
                    found.note(
                        &origin,
                        format!("not imported: {problem}; Codex skips the whole group"),
                    );
                    continue;
                }
            };
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (h, handler) in handlers.into_iter().flatten().enumerate() {
                let origin = format!("{origin} (group {}, hook {})", g + 1, h + 1);
                let Some(mut hook) = handler_hook(handler, spec.agent, &origin, &mut found) else {
                    continue;
                };
                hook.matcher = matcher.clone();
                hook.enabled &= !off;
                match kind {
                    CodexFile::Requirements {
                        into_managed: false,
                    } => {
                        found.note(&origin, "not imported: a managed hook of requirements.toml, which Codex runs over every project and its user cannot disable; a project's hooks.toml cannot hold it that way. Import it into the organisation's /etc/hookhost/hooks.toml (--output /etc/hookhost/hooks.toml)");
                        continue;
                    }
                    CodexFile::Requirements { into_managed: true } => {}
                    CodexFile::Layer => {
                        let key = format!("{source}:{}:{g}:{h}", snake(spec.agent));
                        let entry = state.entries.get(&key);
                        if entry.and_then(|e| e.get("enabled")) == Some(&Value::Bool(false)) {
                            found.note(
                                &origin,
                                "disabled in Codex (/hooks); imported with enabled = false",
                            );
                            hook.enabled = false;
                        } else if state.file.is_some()
                            && entry.and_then(|e| e.get("trusted_hash")).is_none()
                        {
                            found.note(&origin, "not trusted in Codex (/hooks), which skipped it; under hookhost it runs as [projects] allows");
                        }
                        trusted_note = true;
                    }
                }
                found.hooks.push(hook);
            }
        }
    }
    if trusted_note {
        found.note(file, "Codex's per-hook trust (the hash of each definition, trusted in /hooks) is not carried over: hookhost runs a project's hooks as the user's [projects] policy allows (under \"approve\", once `hookhost allow` pins the hooks file and the scripts it runs by SHA-256)");
    }
    found
}

/// Codex's matcher on `event`, in hooks.toml's terms (`Err`: one Codex refuses).
fn matcher(
    event: &str,
    pattern: Option<&str>,
    origin: &str,
    found: &mut Found,
) -> Result<Option<Matcher>, String> {
    let Some(pattern) = pattern.filter(|p| !p.is_empty() && *p != "*") else {
        return Ok(None);
    };
    let tool = matches!(event, "PreToolUse" | "PermissionRequest" | "PostToolUse");
    match event {
        // Codex ignores a matcher on these.
        "UserPromptSubmit" | "Stop" | "SessionEnd" | "Interrupt" => return Ok(None),
        "PostCompact" => {
            found.note(origin, "the matcher on the compaction's trigger is not carried over (PostCompact is a custom event in hookhost, whose matcher compares a tool): the hook runs on every PostCompact");
            return Ok(None);
        }
        _ => {}
    }
    // Codex: letters, digits, `_` and `|` are exact names; anything else an unanchored regex.
    let exact = pattern
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|');
    if exact {
        let mut names: Vec<&str> = pattern.split('|').filter(|n| !n.is_empty()).collect();
        if tool {
            for (tool_name, aliases) in TOOL_ALIASES {
                if !names.contains(tool_name) && names.iter().any(|n| aliases.contains(n)) {
                    names.push(tool_name);
                    found.note(
                        origin,
                        format!(
                            "the matcher also names {tool_name}, the tool Codex reaches through {}",
                            aliases.join(" and ")
                        ),
                    );
                }
            }
        }
        return Ok(Some(Matcher::Claude(names.join("|"))));
    }
    let compiled = ToolMatcher::regex(pattern)?;
    if let (true, ToolMatcher::Regex(regex)) = (tool, &compiled) {
        for (tool_name, aliases) in TOOL_ALIASES {
            if !regex.is_match(tool_name) && aliases.iter().any(|alias| regex.is_match(alias)) {
                found.note(
                    origin,
                    format!(
                        "the matcher also reaches {tool_name}, as in Codex, where it matches {}",
                        aliases.join(" or ")
                    ),
                );
                let widened = Matcher::Regex(format!("(?:{pattern})|^{tool_name}$"));
                check_matcher(&widened)?;
                return Ok(Some(widened));
            }
        }
    }
    Ok(Some(Matcher::Regex(pattern.to_string())))
}

fn handler_hook(handler: &Value, event: &str, origin: &str, found: &mut Found) -> Option<Hook> {
    let kind = handler
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    if kind != "command" {
        found.note(origin, format!("not imported: a `{kind}` hook (Codex skips it too; hookhost runs commands and wasm components)"));
        return None;
    }
    let Some(command) = handler
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
    else {
        found.note(origin, "not imported: no `command` (Codex skips it too)");
        return None;
    };
    if is_hookhost(command) {
        found.note(origin, "skipped: it runs hookhost itself");
        return None;
    }
    let skipped = handler.get("async") == Some(&Value::Bool(true));
    if skipped {
        found.note(
            origin,
            "async: Codex skips async hooks, so it never ran; imported with enabled = false",
        );
    }
    let teardown = TEARDOWN_EVENTS.contains(&event);
    let mut seconds = handler
        .get("timeout")
        .or_else(|| handler.get("timeoutSec"))
        .and_then(Value::as_f64)
        .unwrap_or(if teardown {
            TEARDOWN_DEFAULT_S
        } else {
            DEFAULT_TIMEOUT_S
        })
        .max(1.0);
    if teardown && seconds > TEARDOWN_MAX_S {
        found.note(
            origin,
            format!("timeout of {seconds} s is capped at 3 s, as Codex caps it on {event}"),
        );
        seconds = TEARDOWN_MAX_S;
    }
    Some(Hook {
        origin: origin.to_string(),
        event: event.to_string(),
        timeout_ms: seconds_to_ms(seconds, found, origin),
        command: command.to_string(),
        protocol: "codex",
        enabled: !skipped,
        ..Hook::default()
    })
}
