//! Walks the spanned TOML tree by hand instead of deriving `Deserialize`: serde stops at the
//! first error, and hookhost must report every problem of a file with its line and column.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::time::Duration;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::fields::{HookTable, Problems, edit_distance, to_json};
use super::trust::parse_trust;

use super::{
    CommandSpec, ConfigProblem, DEFAULT_STOP_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, Grants, HookSource,
    HookSpec, Location, MAX_MEMORY_MB_LIMIT, OnFailure, Role, TrustSpec, WasmSpec,
};

/// The longest `timeout_ms` accepted: an hour is already far more than any hook should take,
/// and a bound keeps deadline arithmetic from overflowing.
const MAX_TIMEOUT_MS: u64 = 3_600_000;

const EVENTS: &[&str] = &["PreToolUse", "PostToolUse", "Stop"];
const HOOK_KEYS: &[&str] = &[
    "event",
    "phase",
    "match_tool",
    "command",
    "wasm",
    "timeout_ms",
    "name",
    "enabled",
    "on_failure",
    "env",
    "cwd",
    "read",
    "write",
    "max_memory_mb",
    "fuel",
    "config",
    "sha256",
];
/// Keys that only mean something for one kind of hook.
const COMMAND_ONLY_KEYS: &[&str] = &["cwd"];
const WASM_ONLY_KEYS: &[&str] = &["read", "write", "max_memory_mb", "fuel", "config", "sha256"];
pub(super) fn parse_file(text: &str) -> Result<(Vec<HookSpec>, TrustSpec), Vec<ConfigProblem>> {
    let mut sink = Problems {
        text,
        list: Vec::new(),
    };
    let (doc, syntax_errors) = DeTable::parse_recoverable(text);
    if !syntax_errors.is_empty() {
        for error in syntax_errors {
            let span = error.span().unwrap_or(0..0);
            sink.push(
                &span,
                None,
                format!("TOML syntax error: {}", error.message()),
            );
        }
        return Err(sink.finish());
    }

    let mut hooks = Vec::new();
    let mut trust = TrustSpec::default();
    for (key, value) in doc.get_ref().iter() {
        match key.get_ref().as_ref() {
            "trust" => trust = parse_trust(value, &mut sink),
            "hooks" => match value.get_ref() {
                DeValue::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        if let Some(hook) = parse_hook(index, item, &mut sink) {
                            hooks.push(hook);
                        }
                    }
                }
                other => sink.push(
                    &value.span(),
                    None,
                    format!(
                        "`hooks` must be an array of tables (write each hook as a `[[hooks]]` \
                         table), found {}",
                        other.type_str()
                    ),
                ),
            },
            other => sink.push(
                &key.span(),
                None,
                format!(
                    "unknown top-level key `{other}`; hooks.toml holds only `[[hooks]]` tables"
                ),
            ),
        }
    }

    if sink.list.is_empty() {
        Ok((hooks, trust))
    } else {
        Err(sink.finish())
    }
}

fn parse_hook(
    index: usize,
    item: &Spanned<DeValue<'_>>,
    sink: &mut Problems<'_>,
) -> Option<HookSpec> {
    let DeValue::Table(table) = item.get_ref() else {
        sink.push(
            &item.span(),
            Some((index, None)),
            format!(
                "a hook must be a table, found {}",
                item.get_ref().type_str()
            ),
        );
        return None;
    };
    let errors_before = sink.list.len();
    let mut hook = HookTable {
        index,
        name: None,
        table,
    };
    // The name comes first so that every later problem can mention it.
    let explicit_name = hook.string("name", sink).map(|(name, _)| name);
    let command = hook.string("command", sink);
    // Default name: the command (as forgeflare names hooks), or the wasm file.
    let wasm_path = match hook.field("wasm").map(|(value, _)| value.get_ref()) {
        Some(DeValue::String(path)) => Some(path.to_string()),
        _ => None,
    };
    hook.name = explicit_name
        .clone()
        .or_else(|| command.as_ref().map(|(c, _)| c.clone()))
        .or(wasm_path);

    for (key, _) in table.iter() {
        let key_name = key.get_ref().as_ref();
        if !HOOK_KEYS.contains(&key_name) {
            hook.problem(sink, &key.span(), unknown_key_message(key_name));
        }
    }

    let role = parse_role(&hook, item, sink);
    let match_tool = hook.string("match_tool", sink).map(|(tool, _)| tool);
    let timeout = parse_timeout(&hook, role, sink);
    let enabled = hook.bool("enabled", sink).unwrap_or(true);
    let on_failure = parse_on_failure(&hook, role, sink);
    let source = parse_source(&hook, command, item, sink);

    if sink.list.len() != errors_before {
        return None;
    }
    let location = Location::of_offset(sink.text, item.span().start);
    match (hook.name.clone(), role, timeout, source) {
        (Some(name), Some(role), Some(timeout), Some(source)) => Some(HookSpec {
            index,
            name,
            role,
            match_tool,
            timeout,
            enabled,
            on_failure,
            source,
            location,
        }),
        // Every path that leaves a field unset records a problem; should one ever not, the
        // hook must still not vanish silently.
        _ => {
            hook.problem(
                sink,
                &item.span(),
                "this hook could not be read (an internal error in hookhost; please report it)"
                    .to_string(),
            );
            None
        }
    }
}

fn unknown_key_message(key: &str) -> String {
    let close = HOOK_KEYS
        .iter()
        .find(|known| edit_distance(known, key) <= 2)
        .map(|known| format!("; did you mean `{known}`?"))
        .unwrap_or_default();
    format!(
        "unknown key `{key}`{close} (a hook takes: {})",
        HOOK_KEYS.join(", ")
    )
}

fn parse_role(
    hook: &HookTable<'_, '_>,
    item: &Spanned<DeValue<'_>>,
    sink: &mut Problems<'_>,
) -> Option<Role> {
    let Some((event, event_span)) = hook.string("event", sink) else {
        if hook.field("event").is_none() {
            hook.problem(
                sink,
                &item.span(),
                format!("missing `event`; set it to one of {}", EVENTS.join(", ")),
            );
        }
        return None;
    };
    let phase = hook.string("phase", sink);
    match (event.as_str(), phase) {
        ("PreToolUse", None) => Some(Role::Guard),
        ("PreToolUse", Some((phase, span))) => match phase.as_str() {
            "guard" => Some(Role::Guard),
            "observe" => Some(Role::Observe),
            other => {
                hook.problem(
                    sink,
                    &span,
                    format!("unknown phase \"{other}\"; a PreToolUse hook's phase is \"guard\" (the default) or \"observe\""),
                );
                None
            }
        },
        ("PostToolUse" | "Stop", Some((_, span))) => {
            hook.problem(
                sink,
                &span,
                format!(
                    "`phase` applies only to PreToolUse hooks; remove it from this {event} hook"
                ),
            );
            None
        }
        ("PostToolUse", None) => Some(Role::Post),
        ("Stop", None) => Some(Role::Stop),
        (other, _) => {
            let hint = EVENTS
                .iter()
                .find(|known| known.eq_ignore_ascii_case(other) || edit_distance(known, other) <= 2)
                .map(|known| format!("; did you mean \"{known}\"?"))
                .unwrap_or_default();
            hook.problem(
                sink,
                &event_span,
                format!(
                    "unknown event \"{other}\"{hint} (events: {})",
                    EVENTS.join(", ")
                ),
            );
            None
        }
    }
}

fn parse_timeout(
    hook: &HookTable<'_, '_>,
    role: Option<Role>,
    sink: &mut Problems<'_>,
) -> Option<Duration> {
    let Some((value, _)) = hook.field("timeout_ms") else {
        let default = if role == Some(Role::Stop) {
            DEFAULT_STOP_TIMEOUT_MS
        } else {
            DEFAULT_TIMEOUT_MS
        };
        return Some(Duration::from_millis(default));
    };
    let parsed = match value.get_ref() {
        DeValue::Integer(int) => i128::from_str_radix(int.as_str(), int.radix()).ok(),
        _ => None,
    };
    match parsed {
        Some(ms) if ms > 0 && ms <= i128::from(MAX_TIMEOUT_MS) => {
            Some(Duration::from_millis(ms as u64))
        }
        Some(ms) => {
            hook.problem(
                sink,
                &value.span(),
                format!("`timeout_ms` must be between 1 and {MAX_TIMEOUT_MS}, found {ms}; omit it for the default ({DEFAULT_TIMEOUT_MS}, Stop hooks {DEFAULT_STOP_TIMEOUT_MS})"),
            );
            None
        }
        None => {
            hook.problem(
                sink,
                &value.span(),
                format!(
                    "`timeout_ms` must be a whole number of milliseconds, found {}",
                    value.get_ref().type_str()
                ),
            );
            None
        }
    }
}

fn parse_on_failure(
    hook: &HookTable<'_, '_>,
    role: Option<Role>,
    sink: &mut Problems<'_>,
) -> OnFailure {
    let Some((value, span)) = hook.string("on_failure", sink) else {
        return OnFailure::Block;
    };
    if role.is_some_and(|role| role != Role::Guard) {
        hook.problem(
            sink,
            &span,
            "`on_failure` applies only to PreToolUse guard hooks; observe, PostToolUse and Stop hooks always fail open".to_string(),
        );
    }
    match value.as_str() {
        "block" => OnFailure::Block,
        "allow" => OnFailure::Allow,
        other => {
            hook.problem(
                sink,
                &span,
                format!("unknown on_failure \"{other}\"; use \"block\" (fail closed, the default) or \"allow\" (advisory guard)"),
            );
            OnFailure::Block
        }
    }
}

fn parse_source(
    hook: &HookTable<'_, '_>,
    command: Option<(String, Range<usize>)>,
    item: &Spanned<DeValue<'_>>,
    sink: &mut Problems<'_>,
) -> Option<HookSource> {
    let wasm = hook.field("wasm");
    match (hook.field("command"), wasm) {
        (Some(_), Some((_, wasm_key))) => {
            hook.problem(
                sink,
                &wasm_key,
                "a hook has exactly one of `command` or `wasm`; this one has both".to_string(),
            );
            None
        }
        (None, None) => {
            hook.problem(
                sink,
                &item.span(),
                "a hook needs exactly one of `command` (run with bash -c) or `wasm` (a component file); this one has neither".to_string(),
            );
            None
        }
        (None, Some(_)) => {
            hook.reject_keys(COMMAND_ONLY_KEYS, "command", sink);
            let (path, path_span) = hook.string("wasm", sink)?;
            if let Err(message) = crate::oci::check_wasm_source(&path) {
                hook.problem(sink, &path_span, message);
            }
            let grants = parse_grants(hook, sink);
            let sha256 = hook.string("sha256", sink).map(|(digest, _)| digest);
            if let Some(digest) = &sha256
                && (digest.len() != 64 || !digest.chars().all(|c| c.is_ascii_hexdigit()))
                && let Some((value, _)) = hook.field("sha256")
            {
                hook.problem(sink, &value.span(), "`sha256` must be 64 hex digits (the SHA-256 of the .wasm file, as `sha256sum` prints it)".to_string());
            }
            let config = match hook.field("config") {
                None => Some(serde_json::Value::Object(Default::default())),
                Some((value, _)) => match value.get_ref() {
                    DeValue::Table(_) => Some(to_json(value.get_ref())),
                    other => {
                        hook.problem(
                            sink,
                            &value.span(),
                            format!("`config` must be a table (write it as `[hooks.config]` under the hook), found {}", other.type_str()),
                        );
                        None
                    }
                },
            };
            Some(HookSource::Wasm(WasmSpec {
                path: PathBuf::from(path),
                grants: grants?,
                config: config?,
                sha256,
            }))
        }
        (Some(_), None) => {
            hook.reject_keys(WASM_ONLY_KEYS, "wasm", sink);
            let (command, _) = command?;
            let env = parse_env_table(hook, false, sink);
            let cwd = hook.string("cwd", sink).map(|(cwd, _)| PathBuf::from(cwd));
            Some(HookSource::Command(CommandSpec {
                command,
                env: env?,
                cwd,
            }))
        }
    }
}

fn parse_grants(hook: &HookTable<'_, '_>, sink: &mut Problems<'_>) -> Option<Grants> {
    let mut grants = Grants::default();
    let mut ok = true;
    grants.read = hook
        .string_list("read", sink)?
        .into_iter()
        .map(PathBuf::from)
        .collect();
    grants.write = hook
        .string_list("write", sink)?
        .into_iter()
        .map(PathBuf::from)
        .collect();
    match hook.field("env").map(|(value, _)| value.get_ref()) {
        None => {}
        Some(DeValue::Array(_)) => grants.env_inherit = hook.string_list("env", sink)?,
        Some(_) => grants.env_set = parse_env_table(hook, true, sink)?,
    }
    if let Some(mb) = hook.integer("max_memory_mb", 1, i128::from(MAX_MEMORY_MB_LIMIT), sink) {
        grants.max_memory_mb = mb as u32;
    } else {
        ok &= hook.field("max_memory_mb").is_none();
    }
    grants.fuel = hook
        .integer("fuel", 1, i128::from(u64::MAX), sink)
        .map(|n| n as u64);
    ok &= grants.fuel.is_some() || hook.field("fuel").is_none();
    ok.then_some(grants)
}

/// `env = { NAME = "value" }`. `wasm` says whether the hook is a wasm hook, which may also
/// take a list of host variable names; a command hook already inherits the whole environment.
fn parse_env_table(
    hook: &HookTable<'_, '_>,
    wasm: bool,
    sink: &mut Problems<'_>,
) -> Option<BTreeMap<String, String>> {
    let mut env = BTreeMap::new();
    let Some((value, _)) = hook.field("env") else {
        return Some(env);
    };
    let DeValue::Table(table) = value.get_ref() else {
        let message = if wasm {
            format!(
                "`env` of a wasm hook must be a list of host variables to pass through, like env = [\"HOME\"], or a table of values, like env = {{ LEVEL = \"strict\" }}; found {}",
                value.get_ref().type_str()
            )
        } else {
            format!(
                "`env` of a command hook must be a table of extra variables, like env = {{ LEVEL = \"strict\" }}; found {} (command hooks already inherit the host environment)",
                value.get_ref().type_str()
            )
        };
        hook.problem(sink, &value.span(), message);
        return None;
    };
    let mut ok = true;
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        if name.is_empty() || name.contains(['=', '\0']) {
            hook.problem(
                sink,
                &key.span(),
                format!("`{name}` is not a valid environment variable name"),
            );
            ok = false;
            continue;
        }
        match value.get_ref() {
            DeValue::String(s) if !s.contains('\0') => {
                env.insert(name.to_string(), s.to_string());
            }
            other => {
                hook.problem(
                    sink,
                    &value.span(),
                    format!(
                        "env variable `{name}` must be a string, found {}",
                        other.type_str()
                    ),
                );
                ok = false;
            }
        }
    }
    ok.then_some(env)
}
