//! The program behind a hook: `command` (with its protocol, environment and working directory)
//! or `wasm` (with its grants, configuration and pin).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;

use toml::Spanned;
use toml::de::DeValue;

use super::fields::{HookTable, Problems, to_json};
use super::{CommandSpec, Grants, HookSource, MAX_MEMORY_MB_LIMIT, WasmSpec};
use crate::protocol::Protocol;
use crate::protocol::exit_code::{ExitCodes, ExitMeaning};

/// Keys that only mean something for one kind of hook.
pub(super) const COMMAND_ONLY_KEYS: &[&str] = &["cwd", "protocol", "exit_codes"];
pub(super) const WASM_ONLY_KEYS: &[&str] =
    &["read", "write", "max_memory_mb", "fuel", "config", "sha256"];

pub(super) fn parse_source(
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
                "a hook needs exactly one of `command` (run with bash -c), `wasm` (a component file) or `policy` (one of hookhost's catalogue: `hookhost policies`); this one has none".to_string(),
            );
            None
        }
        (None, Some(_)) => {
            hook.reject_keys(COMMAND_ONLY_KEYS, "command", sink);
            let (path, path_span) = hook.string("wasm", sink)?;
            if let Err(message) = check_wasm_source(&path) {
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
            let protocol = parse_protocol(hook, sink);
            let exit_codes = parse_exit_codes(hook, protocol, sink);
            Some(HookSource::Command(CommandSpec {
                command,
                protocol: protocol?,
                exit_codes: exit_codes?,
                env: env?,
                cwd,
            }))
        }
    }
}

pub(super) fn parse_grants(hook: &HookTable<'_, '_>, sink: &mut Problems<'_>) -> Option<Grants> {
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
                format!(
                    "`{}` is not a valid environment variable name",
                    crate::text::name(name)
                ),
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
                        "env variable `{}` must be a string, found {}",
                        crate::text::name(name),
                        other.type_str()
                    ),
                );
                ok = false;
            }
        }
    }
    ok.then_some(env)
}

/// `protocol = "forgeflare" | "claude" | "exit-code" | "copilot" | "gemini" | "codex" | "cursor"`
/// (command hooks).
fn parse_protocol(hook: &HookTable<'_, '_>, sink: &mut Problems<'_>) -> Option<Protocol> {
    let Some((name, span)) = hook.string("protocol", sink) else {
        return hook
            .field("protocol")
            .is_none()
            .then_some(Protocol::Forgeflare);
    };
    match Protocol::from_name(&name) {
        Some(protocol) => Some(protocol),
        None => {
            let names: Vec<&str> = Protocol::ALL.iter().map(|(_, name)| *name).collect();
            hook.problem(
                sink,
                &span,
                format!(
                    "unknown protocol {}; a command hook speaks {} (the default), {} or {}",
                    crate::text::quote(&name),
                    names[0],
                    names[1..names.len() - 1].join(", "),
                    names[names.len() - 1]
                ),
            );
            None
        }
    }
}

/// `exit_codes = { 1 = "block" }` (exit-code protocol): what each exit status means.
fn parse_exit_codes(
    hook: &HookTable<'_, '_>,
    protocol: Option<Protocol>,
    sink: &mut Problems<'_>,
) -> Option<ExitCodes> {
    let Some((value, key_span)) = hook.field("exit_codes") else {
        return Some(ExitCodes::default());
    };
    if protocol.is_some_and(|protocol| protocol != Protocol::ExitCode) {
        hook.problem(
            sink,
            &key_span,
            "`exit_codes` applies only to `protocol = \"exit-code\"` hooks".to_string(),
        );
        return None;
    }
    let DeValue::Table(table) = value.get_ref() else {
        hook.problem(
            sink,
            &value.span(),
            format!(
                "`exit_codes` must be a table of exit status to meaning, like exit_codes = {{ 1 = \"block\" }}; found {}",
                value.get_ref().type_str()
            ),
        );
        return None;
    };
    let meanings: Vec<&str> = ExitMeaning::ALL.iter().map(|(_, name)| *name).collect();
    let mut overrides = BTreeMap::new();
    let mut ok = true;
    for (key, meaning) in table.iter() {
        let code = key
            .get_ref()
            .parse::<i32>()
            .ok()
            .filter(|code| (0..=255).contains(code));
        let meaning_name = meaning.get_ref().as_str();
        match (code, meaning_name.and_then(ExitMeaning::from_name)) {
            (Some(code), Some(meaning)) => {
                overrides.insert(code, meaning);
            }
            (None, _) => {
                hook.problem(
                    sink,
                    &key.span(),
                    format!(
                        "`exit_codes` key `{}` is not an exit status (0 to 255)",
                        crate::text::name(key.get_ref())
                    ),
                );
                ok = false;
            }
            (Some(_), None) => {
                hook.problem(
                    sink,
                    &meaning.span(),
                    format!("an exit status means one of {}", meanings.join(", ")),
                );
                ok = false;
            }
        }
    }
    ok.then(|| ExitCodes::new(overrides))
}

/// An `oci://` reference's syntax. (Without the `wasm` feature a wasm hook is refused when it
/// is prepared, whatever its source.)
fn check_wasm_source(path: &str) -> Result<(), String> {
    // The catalogue's own form: written only by `policy = "NAME"`, where its options are
    // checked.
    if let Some(name) = path.strip_prefix(crate::source::POLICY_SCHEME) {
        return Err(format!(
            "`{path}` names a policy of hookhost's catalogue: write `policy = \"{name}\"` instead of `wasm`"
        ));
    }
    #[cfg(feature = "wasm")]
    return crate::source::check_wasm_source(path);
    #[cfg(not(feature = "wasm"))]
    {
        let _ = path;
        Ok(())
    }
}
