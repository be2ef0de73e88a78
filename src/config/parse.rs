//! Walks the spanned TOML tree by hand instead of deriving `Deserialize`: serde stops at the
//! first error, and hookhost must report every problem of a file with its line and column.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::time::Duration;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{
    CommandSpec, ConfigProblem, DEFAULT_STOP_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, Grants, HookSource,
    HookSpec, KeySource, KeySpec, Location, MAX_MEMORY_MB_LIMIT, OnFailure, Role, TrustSpec,
    WasmSpec,
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

/// `[trust]`: `require_signed`, and `[[trust.keys]]` entries with `id`, `key` or `file`, and
/// `revoked`.
fn parse_trust(value: &Spanned<DeValue<'_>>, sink: &mut Problems<'_>) -> TrustSpec {
    let mut trust = TrustSpec::default();
    let DeValue::Table(table) = value.get_ref() else {
        sink.push(
            &value.span(),
            None,
            "`trust` must be a table: write it as `[trust]`".to_string(),
        );
        return trust;
    };
    for (key, value) in table.iter() {
        match (key.get_ref().as_ref(), value.get_ref()) {
            ("require_signed", DeValue::Boolean(b)) => trust.require_signed = *b,
            ("require_signed", other) => sink.push(
                &value.span(),
                None,
                format!("`trust.require_signed` must be true or false, found {}", other.type_str()),
            ),
            ("keys", DeValue::Array(items)) => {
                for item in items.iter() {
                    if let Some(key) = parse_key(item, sink) {
                        trust.keys.push(key);
                    }
                }
            }
            ("keys", _) => sink.push(
                &value.span(),
                None,
                "`trust.keys` must be a list of tables: write each key as `[[trust.keys]]`".to_string(),
            ),
            (other, _) => sink.push(
                &key.span(),
                None,
                format!("unknown key `trust.{other}`; [trust] takes `require_signed` and `[[trust.keys]]`"),
            ),
        }
    }
    let mut seen = std::collections::HashSet::new();
    for key in &trust.keys {
        if !seen.insert(key.id.clone()) {
            sink.list.push(ConfigProblem {
                location: key.location,
                hook: None,
                message: format!(
                    "trust key id \"{}\" is used twice; give each key its own id",
                    key.id
                ),
            });
        }
    }
    trust
}

fn parse_key(item: &Spanned<DeValue<'_>>, sink: &mut Problems<'_>) -> Option<KeySpec> {
    let location = Location::of_offset(sink.text, item.span().start);
    let DeValue::Table(table) = item.get_ref() else {
        sink.push(
            &item.span(),
            None,
            "each `[[trust.keys]]` entry must be a table".to_string(),
        );
        return None;
    };
    let (mut id, mut inline, mut file, mut revoked) = (None, None, None, false);
    let mut ok = true;
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        match (name, value.get_ref()) {
            ("id" | "key" | "file", DeValue::String(s)) if !s.trim().is_empty() => match name {
                "id" => id = Some(s.to_string()),
                "key" => inline = Some(s.trim().to_string()),
                _ => file = Some(PathBuf::from(s.as_ref())),
            },
            ("id" | "key" | "file", _) => {
                sink.push(
                    &value.span(),
                    None,
                    format!("`{name}` of a trust key must be a non-empty string"),
                );
                ok = false;
            }
            ("revoked", DeValue::Boolean(b)) => revoked = *b,
            ("revoked", _) => {
                sink.push(
                    &value.span(),
                    None,
                    "`revoked` must be true or false".to_string(),
                );
                ok = false;
            }
            (other, _) => {
                sink.push(&key.span(), None, format!("unknown key `{other}` in a trust key; it takes id, key or file, and revoked"));
                ok = false;
            }
        }
    }
    let Some(id) = id else {
        sink.push(
            &item.span(),
            None,
            "a trust key needs an `id` (the name messages use for it)".to_string(),
        );
        return None;
    };
    let source = match (inline, file) {
        (Some(key), None) => KeySource::Inline(key),
        (None, Some(path)) => KeySource::File(path),
        _ => {
            sink.push(
                &item.span(),
                None,
                format!("trust key \"{id}\" needs exactly one of `key` (a minisign public key) or `file` (a .pub file)"),
            );
            return None;
        }
    };
    ok.then_some(KeySpec {
        id,
        source,
        revoked,
        location,
    })
}

/// Problems collected while walking one file.
struct Problems<'t> {
    text: &'t str,
    list: Vec<ConfigProblem>,
}

impl Problems<'_> {
    fn push(
        &mut self,
        span: &Range<usize>,
        hook: Option<(usize, Option<String>)>,
        message: String,
    ) {
        self.list.push(ConfigProblem {
            location: Location::of_offset(self.text, span.start),
            hook,
            message,
        });
    }

    fn finish(mut self) -> Vec<ConfigProblem> {
        // Keys of a table are visited in map order, not file order.
        self.list.sort_by_key(|p| p.location);
        self.list
    }
}

/// The fields of one `[[hooks]]` table, each with the span of its value.
struct HookTable<'a, 'i> {
    index: usize,
    name: Option<String>,
    table: &'a DeTable<'i>,
}

type Field<'a, 'i> = Option<(&'a Spanned<DeValue<'i>>, Range<usize>)>;

impl<'a, 'i> HookTable<'a, 'i> {
    fn field(&self, key: &str) -> Field<'a, 'i> {
        self.table
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == key)
            .map(|(k, v)| (v, k.span()))
    }

    fn hook_ref(&self) -> Option<(usize, Option<String>)> {
        Some((self.index, self.name.clone()))
    }

    fn problem(&self, sink: &mut Problems<'_>, span: &Range<usize>, message: String) {
        sink.push(span, self.hook_ref(), message);
    }

    /// A non-empty string field.
    fn string(&self, key: &str, sink: &mut Problems<'_>) -> Option<(String, Range<usize>)> {
        let (value, _) = self.field(key)?;
        match value.get_ref() {
            DeValue::String(s) if !s.trim().is_empty() => Some((s.to_string(), value.span())),
            DeValue::String(_) => {
                self.problem(sink, &value.span(), format!("`{key}` must not be empty"));
                None
            }
            other => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be a string, found {}", other.type_str()),
                );
                None
            }
        }
    }

    /// A list of non-empty strings; absent is an empty list, a problem is `None`.
    fn string_list(&self, key: &str, sink: &mut Problems<'_>) -> Option<Vec<String>> {
        let Some((value, _)) = self.field(key) else {
            return Some(Vec::new());
        };
        let DeValue::Array(items) = value.get_ref() else {
            self.problem(
                sink,
                &value.span(),
                format!(
                    "`{key}` must be a list of strings, like {key} = [\"...\"]; found {}",
                    value.get_ref().type_str()
                ),
            );
            return None;
        };
        let mut out = Vec::new();
        for item in items.iter() {
            match item.get_ref() {
                DeValue::String(s) if !s.trim().is_empty() => out.push(s.to_string()),
                other => {
                    self.problem(
                        sink,
                        &item.span(),
                        format!(
                            "every entry of `{key}` must be a non-empty string, found {}",
                            if other.is_str() {
                                "an empty string"
                            } else {
                                other.type_str()
                            }
                        ),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// An integer within `min..=max`.
    fn integer(&self, key: &str, min: i128, max: i128, sink: &mut Problems<'_>) -> Option<i128> {
        let (value, _) = self.field(key)?;
        let parsed = match value.get_ref() {
            DeValue::Integer(int) => i128::from_str_radix(int.as_str(), int.radix()).ok(),
            _ => None,
        };
        match parsed {
            Some(n) if (min..=max).contains(&n) => Some(n),
            Some(n) => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be between {min} and {max}, found {n}"),
                );
                None
            }
            None => {
                self.problem(
                    sink,
                    &value.span(),
                    format!(
                        "`{key}` must be a whole number, found {}",
                        value.get_ref().type_str()
                    ),
                );
                None
            }
        }
    }

    /// Reports each of `keys` present on a hook of the other kind.
    fn reject_keys(&self, keys: &[&str], owner: &str, sink: &mut Problems<'_>) {
        for key in keys {
            if let Some((_, key_span)) = self.field(key) {
                let other = if owner == "wasm" { "command" } else { "wasm" };
                self.problem(
                    sink,
                    &key_span,
                    format!(
                        "`{key}` applies only to {owner} hooks; remove it from this {other} hook"
                    ),
                );
            }
        }
    }

    fn bool(&self, key: &str, sink: &mut Problems<'_>) -> Option<bool> {
        let (value, _) = self.field(key)?;
        match value.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            other => {
                self.problem(
                    sink,
                    &value.span(),
                    format!("`{key}` must be true or false, found {}", other.type_str()),
                );
                None
            }
        }
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
            let (path, _) = hook.string("wasm", sink)?;
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

/// A TOML value as JSON (datetimes become strings).
fn to_json(value: &DeValue<'_>) -> serde_json::Value {
    use serde_json::Value;
    match value {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(int) => i64::from_str_radix(int.as_str(), int.radix())
            .map(Value::from)
            .or_else(|_| u64::from_str_radix(int.as_str(), int.radix()).map(Value::from))
            .unwrap_or(Value::Null),
        DeValue::Float(float) => float
            .as_str()
            .replace('_', "")
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(datetime) => Value::String(datetime.to_string()),
        DeValue::Array(items) => {
            Value::Array(items.iter().map(|item| to_json(item.get_ref())).collect())
        }
        DeValue::Table(table) => Value::Object(
            table
                .iter()
                .map(|(key, value)| (key.get_ref().to_string(), to_json(value.get_ref())))
                .collect(),
        ),
    }
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

/// Levenshtein distance, for "did you mean" hints on short identifiers.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}
