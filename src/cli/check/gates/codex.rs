//! Codex CLI's gates: a trusted project, and each hook trusted by the hash of its definition,
//! computed here as Codex computes it.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::files::{Gate, has_hooks, home, read_json, shown};

/// Codex's events whose matcher is part of a hook's identity; elsewhere Codex drops it.
const CODEX_MATCHED: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "SessionStart",
    "SubagentStart",
    "SubagentStop",
];

pub(super) fn gates(cwd: &Path) -> Vec<Gate> {
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
