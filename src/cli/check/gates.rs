//! Whether each agent will run the hooks this project configures for it. The agents run a
//! repository's hooks only once the user has trusted it, and say nothing when they skip them
//! (`copilot -p`, `codex exec`), so a project whose agent settings call hookhost can be
//! unguarded without a sign. `hookhost check` reads each agent's own trust records, as the
//! versions tests/agents_e2e pins read them, and says for each settings file whether the agent
//! runs it and, if not, exactly what to do:
//!
//! | agent | the project's hooks | run when |
//! |---|---|---|
//! | Claude Code | `.claude/settings.json`, `.claude/settings.local.json` | always under `claude -p`; an interactive session asks once to trust the folder |
//! | Copilot CLI | `.github/hooks/*.json` | the folder (or one above it) is in `trustedFolders` of `~/.copilot/config.json`; or, for one `copilot -p`, `--trust-folder`, `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true` or `COPILOT_ALLOW_ALL=true` |
//! | Gemini CLI | `.gemini/settings.json` | folder trust is off, or `~/.gemini/trustedFolders.json` trusts the folder (its longest matching rule), or `GEMINI_CLI_TRUST_WORKSPACE=true` |
//! | Codex CLI | `.codex/hooks.json`, `[hooks]` of `.codex/config.toml` | the project is trusted (`[projects."PATH"] trust_level = "trusted"` in `~/.codex/config.toml`) and each hook is, by the hash of its definition (`[hooks.state."FILE:event:group:hook"] trusted_hash`), which `/hooks` records |

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// One agent settings file of the project, and whether its agent runs it.
#[derive(Debug)]
pub(super) struct Gate {
    /// The agent's name.
    pub agent: &'static str,
    /// The settings file, relative to the project.
    pub file: String,
    /// Whether the agent runs the file's hooks.
    pub open: bool,
    /// Why, and when closed, what to do.
    pub detail: String,
}

/// The gates of the agent settings files found in `cwd`.
pub(super) fn gates(cwd: &Path) -> Vec<Gate> {
    let mut gates = Vec::new();
    for file in [".claude/settings.json", ".claude/settings.local.json"] {
        if has_hooks(&read_json(&cwd.join(file))) {
            gates.push(claude(cwd, file));
        }
    }
    let mut copilot_files: Vec<String> = std::fs::read_dir(cwd.join(".github/hooks"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .map(|name| format!(".github/hooks/{name}"))
        .collect();
    copilot_files.sort();
    for file in copilot_files {
        if has_hooks(&read_json(&cwd.join(&file))) {
            gates.push(copilot(cwd, file));
        }
    }
    if has_hooks(&read_json(&cwd.join(".gemini/settings.json"))) {
        gates.push(gemini(cwd));
    }
    gates.extend(codex(cwd));
    gates
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

fn env_is(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|set| set == value)
}

/// A JSON file, with `//` comment lines dropped (Copilot writes one above its config); `Null`
/// when missing or unreadable.
fn read_json(path: &Path) -> Value {
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

fn has_hooks(settings: &Value) -> bool {
    settings["hooks"].as_object().is_some_and(|hooks| {
        hooks
            .values()
            .any(|entries| entries.as_array().is_some_and(|e| !e.is_empty()))
    })
}

fn shown(path: &Path) -> String {
    match home().and_then(|home| path.strip_prefix(home).ok().map(Path::to_path_buf)) {
        Some(relative) => format!("~/{}", relative.display()),
        None => path.display().to_string(),
    }
}

fn claude(cwd: &Path, file: &str) -> Gate {
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(|dir| PathBuf::from(dir).join(".claude.json"))
        .or_else(|| home().map(|home| home.join(".claude.json")));
    let accepted = config.as_deref().map(read_json).is_some_and(|state| {
        state["projects"][cwd.to_string_lossy().as_ref()]["hasTrustDialogAccepted"] == true
    });
    let detail = if accepted {
        "its workspace trust was accepted for this folder".to_string()
    } else {
        "`claude -p` runs them as they are; an interactive `claude` first asks once whether you trust this folder".to_string()
    };
    Gate {
        agent: "Claude Code",
        file: file.to_string(),
        open: true,
        detail,
    }
}

fn copilot(cwd: &Path, file: String) -> Gate {
    let config = std::env::var_os("COPILOT_HOME")
        .map(PathBuf::from)
        .or_else(|| home().map(|home| home.join(".copilot")))
        .map(|dir| dir.join("config.json"));
    let trusted = config.as_deref().map(read_json).and_then(|config| {
        config["trustedFolders"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|folder| cwd.starts_with(folder))
            .map(str::to_string)
    });
    let (open, detail) = match (trusted, config) {
        (Some(folder), Some(config)) => (
            true,
            format!("{folder} is a trusted folder ({})", shown(&config)),
        ),
        _ if env_is("COPILOT_ALLOW_ALL", "true") => (true, "COPILOT_ALLOW_ALL=true trusts the folder for this environment's runs".to_string()),
        _ if env_is("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS", "true") => (true, "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true loads a repository's hooks in this environment's `copilot -p` runs (an interactive session still asks to trust the folder)".to_string()),
        (_, config) => (
            false,
            format!(
                "{} is not a trusted folder, and Copilot CLI skips a repository's hooks in an untrusted one (`copilot -p` without a word). Start `copilot` here once and trust the folder (it is remembered in trustedFolders of {}); or for a `copilot -p` run pass --trust-folder, or set GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true (repository hooks only) or COPILOT_ALLOW_ALL=true (every tool too)",
                cwd.display(),
                config.as_deref().map_or("~/.copilot/config.json".to_string(), shown)
            ),
        ),
    };
    Gate {
        agent: "Copilot CLI",
        file,
        open,
        detail,
    }
}

fn gemini(cwd: &Path) -> Gate {
    let gemini_home = std::env::var_os("GEMINI_CLI_HOME")
        .map(PathBuf::from)
        .or_else(home)
        .map(|home| home.join(".gemini"));
    let folders = std::env::var_os("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .map(PathBuf::from)
        .or_else(|| {
            gemini_home
                .as_ref()
                .map(|dir| dir.join("trustedFolders.json"))
        });
    let settings = gemini_home.map(|dir| read_json(&dir.join("settings.json")));
    let enabled = settings
        .as_ref()
        .and_then(|settings| settings["security"]["folderTrust"]["enabled"].as_bool())
        .unwrap_or(true);
    let rule = folders.as_deref().map(read_json).and_then(|rules| {
        // Gemini's reading: the longest rule whose folder holds the project decides.
        rules
            .as_object()?
            .iter()
            .filter_map(|(path, level)| {
                let level = level.as_str()?;
                let folder = match level {
                    "TRUST_PARENT" => Path::new(path).parent()?.to_path_buf(),
                    _ => PathBuf::from(path),
                };
                cwd.starts_with(&folder)
                    .then(|| (path.len(), level.to_string()))
            })
            .max()
    });
    let file = folders
        .as_deref()
        .map_or("~/.gemini/trustedFolders.json".to_string(), shown);
    let (open, detail) = if env_is("GEMINI_CLI_TRUST_WORKSPACE", "false") {
        (
            false,
            "GEMINI_CLI_TRUST_WORKSPACE=false distrusts every folder in this environment"
                .to_string(),
        )
    } else if env_is("GEMINI_CLI_TRUST_WORKSPACE", "true") {
        (
            true,
            "GEMINI_CLI_TRUST_WORKSPACE=true trusts the folder for this environment's runs"
                .to_string(),
        )
    } else if !enabled {
        (
            true,
            "folder trust is off (security.folderTrust.enabled = false)".to_string(),
        )
    } else {
        match rule.as_ref().map(|(_, level)| level.as_str()) {
            Some("TRUST_FOLDER" | "TRUST_PARENT") => {
                (true, format!("the folder is trusted ({file})"))
            }
            found => (
                false,
                format!(
                    "{} ({file}), and Gemini CLI runs no project hooks in an untrusted folder (`gemini -p` stops with an error). Start `gemini` here once and trust the folder (it is remembered in {file}); or for one run pass --skip-trust, or set GEMINI_CLI_TRUST_WORKSPACE=true",
                    if found == Some("DO_NOT_TRUST") {
                        "the folder is marked DO_NOT_TRUST"
                    } else {
                        "the folder is not trusted"
                    },
                ),
            ),
        }
    };
    Gate {
        agent: "Gemini CLI",
        file: ".gemini/settings.json".to_string(),
        open,
        detail,
    }
}

/// Codex's events whose matcher is part of a hook's identity; elsewhere Codex drops it.
const CODEX_MATCHED: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "SessionStart",
    "SubagentStart",
    "SubagentStop",
];

fn codex(cwd: &Path) -> Vec<Gate> {
    let mut files = Vec::new();
    let json_file = cwd.join(".codex/hooks.json");
    let json = read_json(&json_file);
    if has_hooks(&json) {
        files.push((".codex/hooks.json", json_file, json));
    }
    let toml_file = cwd.join(".codex/config.toml");
    let toml = std::fs::read_to_string(&toml_file)
        .ok()
        .and_then(|text| toml::from_str::<toml::Value>(&text).ok())
        .and_then(|value| serde_json::to_value(value).ok())
        .unwrap_or(Value::Null);
    if has_hooks(&toml) {
        files.push((".codex/config.toml", toml_file, toml));
    }
    if files.is_empty() {
        return Vec::new();
    }
    let config_file = std::env::var_os("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| home().map(|home| home.join(".codex")))
        .map(|dir| dir.join("config.toml"));
    let config = config_file
        .as_deref()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| toml::from_str::<toml::Value>(&text).ok())
        .and_then(|value| serde_json::to_value(value).ok())
        .unwrap_or(Value::Null);
    let shown_config = config_file
        .as_deref()
        .map_or("~/.codex/config.toml".to_string(), shown);
    // The project is the folder with `.git` at or above the cwd, else the cwd itself.
    let root = cwd
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd);
    let trusted_project = [root, cwd]
        .iter()
        .any(|dir| config["projects"][dir.to_string_lossy().as_ref()]["trust_level"] == "trusted");
    files
        .into_iter()
        .map(|(file, path, settings)| {
            let untrusted: Vec<String> = codex_handlers(&path, &settings)
                .into_iter()
                .filter(|(key, hash)| {
                    config["hooks"]["state"][key.as_str()]["trusted_hash"] != hash.as_str()
                })
                .map(|(key, _)| key)
                .collect();
            let (open, detail) = if !trusted_project {
                (false, format!("the project {} is not trusted, and Codex CLI reads no `.codex/` of an untrusted project (`codex exec` without a word). Trust it: start `codex` here and accept, or add [projects.\"{}\"] trust_level = \"trusted\" to {shown_config}; then trust each hook in `/hooks`", root.display(), root.display()))
            } else if !untrusted.is_empty() {
                (false, format!("Codex CLI runs a project's hook only once it is trusted by the hash of its definition, and skips the others without a word; not trusted (or changed since): {}. Start `codex` here, open `/hooks` and trust them (recorded as trusted_hash in [hooks.state] of {shown_config})", untrusted.join(", ")))
            } else {
                (true, format!("the project and each of its hooks are trusted ({shown_config})"))
            };
            Gate {
                agent: "Codex CLI",
                file: file.to_string(),
                open,
                detail,
            }
        })
        .collect()
}

/// Each command handler of a Codex hooks file: its trust key (`FILE:event:group:hook`, the
/// event in snake_case) and the hash Codex trusts it by.
fn codex_handlers(path: &Path, settings: &Value) -> Vec<(String, String)> {
    let mut handlers = Vec::new();
    let Some(events) = settings["hooks"].as_object() else {
        return handlers;
    };
    for (event, groups) in events {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, handler) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                if handler["type"] != "command" {
                    continue;
                }
                let key = format!("{}:{}:{g}:{h}", path.display(), snake(event));
                handlers.push((key, codex_hash(event, group, handler)));
            }
        }
    }
    handlers
}

/// `PreToolUse` → `pre_tool_use`.
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The hash Codex trusts a command handler by (`codex-rs/hooks`, `command_hook_hash`): SHA-256
/// of the canonical JSON (keys sorted, compact) of the event's snake_case name, the group's
/// matcher where the event has one, and the one handler normalised (its timeout, 600 s by
/// default and at least 1; `async`; the status message when set).
fn codex_hash(event: &str, group: &Value, handler: &Value) -> String {
    let mut normalised = serde_json::Map::new();
    normalised.insert("type".into(), "command".into());
    normalised.insert("command".into(), handler["command"].clone());
    let timeout = handler["timeout"]
        .as_u64()
        .or_else(|| handler["timeoutSec"].as_u64())
        .unwrap_or(600)
        .max(1);
    normalised.insert("timeout".into(), timeout.into());
    normalised.insert(
        "async".into(),
        handler["async"].as_bool().unwrap_or(false).into(),
    );
    if let Some(message) = handler["statusMessage"].as_str() {
        normalised.insert("statusMessage".into(), message.into());
    }
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), snake(event).into());
    if let Some(matcher) = group["matcher"].as_str()
        && CODEX_MATCHED.contains(&event)
    {
        identity.insert("matcher".into(), matcher.into());
    }
    identity.insert(
        "hooks".into(),
        Value::Array(vec![Value::Object(normalised)]),
    );
    let canonical = canonical(&Value::Object(identity));
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// Compact JSON with every object's keys sorted, whatever order the map keeps.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|key| format!("{}:{}", Value::from(key.as_str()), canonical(&map[key])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The hash Codex CLI 0.169.0's app-server (`hooks/list`) gave this handler.
    #[test]
    fn codex_hashes_a_handler_as_codex_does() {
        let group =
            json!({"hooks": [{"type": "command", "command": "/tmp/ae/loghook.sh PreToolUse"}]});
        assert_eq!(
            codex_hash("PreToolUse", &group, &group["hooks"][0]),
            "sha256:2ab3c17b614be17911e5bbd78a5cb7478a2f08ca136585a4ab7593ab41af2db0"
        );
        let stop = json!({"hooks": [{"type": "command", "command": "/tmp/ae/loghook.sh Stop"}]});
        assert_eq!(
            codex_hash("Stop", &stop, &stop["hooks"][0]),
            "sha256:98687302ab75c2e6c68fb90a03667b88f638dcefcc5ae2320f63ea363c3f6acb"
        );
        let keyed = codex_handlers(
            Path::new("/p/.codex/hooks.json"),
            &json!({"hooks": {"Stop": [stop]}}),
        );
        assert_eq!(keyed[0].0, "/p/.codex/hooks.json:stop:0:0");
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        assert_eq!(
            canonical(&json!({"b": [{"d": 1, "c": "é"}], "a": null})),
            r#"{"a":null,"b":[{"c":"é","d":1}]}"#
        );
    }
}
