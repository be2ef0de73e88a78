//! What every agent's settings entries are read with alike: timeouts in hookhost's bounds,
//! exec forms as one command line, the file's version, an entry that runs hookhost itself, a
//! matcher hookhost can load, a handler's environment.

use serde_json::Value;

use super::{Found, MAX_TIMEOUT_MS, Matcher};
use crate::matcher::ToolMatcher;

/// A timeout in seconds (the agent's unit) as `timeout_ms`, capped at hookhost's maximum.
pub(crate) fn seconds_to_ms(seconds: f64, found: &mut Found, origin: &str) -> u64 {
    let ms = (seconds * 1000.0).round();
    clamp_ms(ms, found, origin)
}

/// A timeout in milliseconds, within hookhost's bounds.
pub(crate) fn clamp_ms(ms: f64, found: &mut Found, origin: &str) -> u64 {
    if ms.is_nan() || ms < 1.0 {
        found.note(
            origin,
            format!("timeout of {ms} ms is not positive; using 1 ms"),
        );
        return 1;
    }
    if ms > MAX_TIMEOUT_MS as f64 {
        found.note(
            origin,
            format!("timeout of {ms} ms is capped at hookhost's maximum, {MAX_TIMEOUT_MS} ms"),
        );
        return MAX_TIMEOUT_MS;
    }
    ms as u64
}

/// `program arg...` as one shell command line (exec forms, `args` arrays).
pub(crate) fn shell_join(program: &str, args: &[Value]) -> String {
    let mut words = vec![shell_word(program)];
    words.extend(args.iter().map(|arg| match arg {
        Value::String(text) => shell_word(text),
        other => shell_word(&other.to_string()),
    }));
    words.join(" ")
}

fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+-,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// True when the file says `"version": 1`; else notes that `agent` rejects the whole file.
pub(crate) fn version_one(json: &Value, file: &str, agent: &str, found: &mut Found) -> bool {
    if json.get("version").is_some_and(|version| version == 1) {
        return true;
    }
    found.note(
        file,
        format!(
            "not imported: `version` is {}, not 1, so {agent} rejects the whole file",
            json.get("version")
                .map_or("missing".to_string(), Value::to_string)
        ),
    );
    false
}

/// True for a settings entry that runs hookhost itself (`hookhost agent-hook`, or
/// `hookhost-client`, under any directory, behind `VAR=value`: `hookhost init`'s own test):
/// importing it would make every event run hookhost twice, the second time from inside itself.
pub(crate) fn is_hookhost(command: &str) -> bool {
    command.contains("hookhost agent-hook") || hookhost_init::is_hookhost_command(command)
}

/// Checks that a matcher loads in hookhost (Rust's regex syntax is not JavaScript's).
pub(crate) fn check_matcher(matcher: &Matcher) -> Result<(), String> {
    match matcher {
        Matcher::Claude(m) => ToolMatcher::claude(m).map(|_| ()),
        Matcher::Regex(m) => ToolMatcher::regex(m).map(|_| ()),
        Matcher::Exact(_) => Ok(()),
    }
}

/// The environment of a handler (`env`), as pairs; values that are not strings are noted.
pub(crate) fn env_pairs(handler: &Value, found: &mut Found, origin: &str) -> Vec<(String, String)> {
    let Some(env) = handler.get("env").and_then(Value::as_object) else {
        return Vec::new();
    };
    env.iter()
        .filter_map(|(key, value)| match value {
            Value::String(text) => {
                if text.contains('$') {
                    found.note(
                        origin,
                        format!("env {key} = {text:?} is passed literally (hookhost does not expand variables in `env`)"),
                    );
                }
                Some((key.clone(), text.clone()))
            }
            other => {
                found.note(origin, format!("env {key} is not a string ({other}); left out"));
                None
            }
        })
        .collect()
}
