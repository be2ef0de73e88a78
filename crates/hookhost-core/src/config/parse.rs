//! Walks the spanned TOML tree by hand instead of deriving `Deserialize`: serde stops at the
//! first error, and hookhost must report every problem of a file with its line and column.
//!
//! The rule for what is an error and what is a warning: anything that could switch a hook off
//! or change what it does without the author noticing (a typo in a key, an event, a phase, an
//! unknown top-level table that looks like hooks) is an error, and the guards fail closed;
//! what is odd but changes nothing (a `phase` on an event whose hooks have no phases, a matcher
//! on an event that always fires, an unknown top-level key that cannot hold hooks) is a warning.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::fields::{HookTable, Problems, close_to};
use super::log::parse_log;
use super::projects::{ProjectsSpec, parse_disable, parse_projects};
use super::rules::{PermissionRule, parse_rules};
use super::source::parse_source;
use super::telemetry::parse_telemetry;
use super::trust::parse_trust;
use super::when::{
    mode_named, parse_events, parse_matcher, parse_mode, parse_on_failure, parse_phase,
    parse_timeout,
};
use super::{ConfigProblem, HookSpec, Layer, Location, LogSpec, Mode, TelemetrySpec, TrustSpec};

const HOOK_KEYS: &[&str] = &[
    "event",
    "phase",
    "match_tool",
    "matcher",
    "command",
    "wasm",
    "policy",
    "protocol",
    "exit_codes",
    "timeout_ms",
    "name",
    "enabled",
    "on_failure",
    "async",
    "env",
    "cwd",
    "read",
    "write",
    "max_memory_mb",
    "fuel",
    "config",
    "sha256",
    "mode",
];

/// What a valid file holds.
pub(super) struct Parsed {
    pub(super) hooks: Vec<HookSpec>,
    pub(super) trust: TrustSpec,
    pub(super) projects: Option<ProjectsSpec>,
    pub(super) disable: Vec<String>,
    pub(super) disable_at: Location,
    pub(super) warnings: Vec<ConfigProblem>,
    pub(super) log: Option<LogSpec>,
    pub(super) telemetry: Option<TelemetrySpec>,
    pub(super) managed_only: Option<bool>,
    pub(super) managed_only_at: Location,
    pub(super) rules: Vec<PermissionRule>,
}

pub(super) fn parse_file(text: &str) -> Result<Parsed, Vec<ConfigProblem>> {
    let mut sink = Problems::new(text);
    let (doc, syntax_errors) = DeTable::parse_recoverable(text);
    if !syntax_errors.is_empty() {
        for error in syntax_errors {
            let span = error.span().unwrap_or(0..0);
            sink.push(
                &span,
                None,
                format!(
                    "TOML syntax error: {}",
                    crate::text::one_line(error.message())
                ),
            );
        }
        return Err(sink.finish());
    }

    // The file's `mode` is every hook's default, wherever the key stands.
    let mut file_mode = Mode::Enforce;
    if let Some((key, value)) = doc
        .get_ref()
        .iter()
        .find(|(key, _)| key.get_ref() == "mode")
    {
        match value.get_ref() {
            DeValue::String(name) => match mode_named(name) {
                Ok(mode) => file_mode = mode,
                Err(message) => sink.push(&value.span(), None, message),
            },
            other => sink.push(
                &key.span(),
                None,
                format!(
                    "`mode` must be a string (\"enforce\", \"monitor\" or \"warn\"), found {}",
                    other.type_str()
                ),
            ),
        }
    }
    let mut hooks = Vec::new();
    let mut trust = TrustSpec::default();
    let mut projects = None;
    let mut disable = Vec::new();
    let mut disable_at = Location::default();
    let mut log = None;
    let mut telemetry = None;
    let mut telemetry_at = 0..0;
    let mut managed_only = None;
    let mut managed_only_at = Location::default();
    let mut rules = Vec::new();
    for (key, value) in doc.get_ref().iter() {
        match key.get_ref().as_ref() {
            "managed_only" => {
                managed_only_at = sink.lines.locate(key.span().start);
                match value.get_ref() {
                    DeValue::Boolean(only) => managed_only = Some(*only),
                    other => sink.push(
                        &value.span(),
                        None,
                        format!(
                            "`managed_only` must be true or false, found {}",
                            other.type_str()
                        ),
                    ),
                }
            }
            "trust" => trust = parse_trust(value, &mut sink),
            "rules" => rules.extend(parse_rules(text, value, file_mode, &mut sink)),
            "mode" => {}
            "log" => log = parse_log(value, &mut sink),
            "telemetry" => {
                telemetry = parse_telemetry(value, &mut sink);
                telemetry_at = key.span();
                without_telemetry_feature(&key.span(), &mut sink);
            }
            "projects" => projects = parse_projects(value, &mut sink),
            "disable" => {
                disable_at = sink.lines.locate(key.span().start);
                disable = parse_disable(value, &mut sink);
            }
            "hooks" => match value.get_ref() {
                DeValue::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        if let Some(hook) = parse_hook(index, item, file_mode, &mut sink) {
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
            other => unknown_top_level(other, &key.span(), value, &mut sink),
        }
    }

    if telemetry.as_ref().is_some_and(|spec| spec.spool) && log.is_none() {
        sink.push(
            &telemetry_at,
            None,
            "`telemetry.spool = true` keeps records in the decision log until `hookhost log \
             --export` sends them: add a [log] table with a `path` to this file"
                .to_string(),
        );
    }
    if sink.is_empty() {
        Ok(Parsed {
            hooks,
            trust,
            projects,
            disable,
            disable_at,
            warnings: sink.finish_warnings(),
            log,
            telemetry,
            managed_only,
            managed_only_at,
            rules,
        })
    } else {
        Err(sink.finish())
    }
}

/// Without the `telemetry` feature a `[telemetry]` table is a configuration error: records the
/// user asked to see elsewhere must not silently stay home.
fn without_telemetry_feature(span: &Range<usize>, sink: &mut Problems<'_>) {
    if !cfg!(feature = "telemetry") {
        sink.push(
            span,
            None,
            "`[telemetry]` (decision records exported over OTLP) needs hookhost's `telemetry` \
             cargo feature, which this build of hookhost leaves out: turn it on where the agent \
             depends on hookhost (`features = [\"telemetry\"]`), or remove the `[telemetry]` \
             table"
                .to_string(),
        );
    }
}

/// An unknown top-level key is an error when it could hold hooks the author expects to run (a
/// name close to `hooks`, or tables with hook keys): those hooks would silently never run.
/// Anything else is a warning.
fn unknown_top_level(
    key: &str,
    span: &Range<usize>,
    value: &Spanned<DeValue<'_>>,
    sink: &mut Problems<'_>,
) {
    let looks_like_hook = |value: &DeValue<'_>| match value {
        DeValue::Table(table) => table.iter().any(|(k, _)| {
            matches!(
                k.get_ref().as_ref(),
                "event" | "command" | "wasm" | "policy"
            )
        }),
        _ => false,
    };
    let holds_hooks = match value.get_ref() {
        DeValue::Array(items) => items.iter().any(|item| looks_like_hook(item.get_ref())),
        other => looks_like_hook(other),
    };
    if holds_hooks || close_to(&["hooks"], key).is_some() {
        sink.push(
            span,
            None,
            format!(
                "unknown top-level key `{}`; hooks must be `[[hooks]]` tables, so the hooks under this key would never run",
                crate::text::name(key)
            ),
        );
    } else {
        sink.warn(
            span,
            None,
            format!(
                "unknown top-level key `{}` is ignored (hooks.toml holds `[[hooks]]` tables, `[[rules]]`, `[trust]`, `mode`, `[log]`, `[telemetry]`, `[projects]` in the user's own file or the organisation's, and `managed_only` in the organisation's)",
                crate::text::name(key)
            ),
        );
    }
}

fn parse_hook(
    index: usize,
    item: &Spanned<DeValue<'_>>,
    file_mode: Mode,
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
    let errors_before = sink.len();
    let mut hook = HookTable {
        index,
        name: None,
        table,
    };
    // The name comes first so that every later problem can mention it.
    let explicit_name = hook.string("name", sink).map(|(name, _)| name);
    let command = parse_command(&hook, sink);
    // Default name: the command (as forgeflare names hooks), or the wasm file.
    let wasm_path = match hook.field("wasm").map(|(value, _)| value.get_ref()) {
        Some(DeValue::String(path)) => Some(path.to_string()),
        _ => None,
    };
    let policy_name = match hook.field("policy").map(|(value, _)| value.get_ref()) {
        Some(DeValue::String(name)) => Some(name.to_string()),
        _ => None,
    };
    hook.name = explicit_name
        .clone()
        .or_else(|| command.as_ref().map(|(c, _)| c.clone()))
        .or(wasm_path)
        .or(policy_name);

    for (key, _) in table.iter() {
        let key_name = key.get_ref().as_ref();
        if !HOOK_KEYS.contains(&key_name) {
            hook.problem(sink, &key.span(), unknown_key_message(key_name));
        }
    }

    let events = parse_events(&hook, item, sink);
    let background = hook.bool("async", sink).unwrap_or(false);
    let (phase, phase_written) = parse_phase(&hook, events.as_ref(), background, sink);
    let (matcher, match_tool) = parse_matcher(&hook, events.as_ref(), sink);
    let timeout = parse_timeout(&hook, sink);
    let enabled = hook.bool("enabled", sink).unwrap_or(true);
    let on_failure = parse_on_failure(&hook, events.as_ref(), phase, background, sink);
    let mode = parse_mode(&hook, file_mode, sink);
    let source = match hook.field("policy") {
        Some(_) => super::policy::parse_policy(&hook, sink),
        None => parse_source(&hook, command, item, sink),
    };

    if sink.len() != errors_before {
        return None;
    }
    let location = sink.lines.locate(item.span().start);
    match (hook.name.clone(), events, timeout, source, matcher) {
        (Some(name), Some(events), Some(timeout), Some(source), Some(matcher)) => Some(HookSpec {
            index,
            layer: Layer::Project,
            name,
            events,
            phase,
            phase_written,
            matcher,
            match_tool,
            timeout,
            enabled,
            on_failure,
            background,
            mode,
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
    let close = close_to(HOOK_KEYS, key)
        .map(|known| format!("; did you mean `{known}`?"))
        .unwrap_or_default();
    format!(
        "unknown key `{}`{close} (a hook takes: {}; forgeflare ignores unknown keys, hookhost refuses them so that a typo never switches a hook off: remove or rename it)",
        crate::text::name(key),
        HOOK_KEYS.join(", ")
    )
}

/// `command`, with a message for an empty one that says what it would have done.
fn parse_command(
    hook: &HookTable<'_, '_>,
    sink: &mut Problems<'_>,
) -> Option<(String, Range<usize>)> {
    if let Some((value, _)) = hook.field("command")
        && let DeValue::String(text) = value.get_ref()
        && text.trim().is_empty()
    {
        hook.problem(
            sink,
            &value.span(),
            "`command` must not be empty: `bash -c \"\"` answers nothing, which reads as invalid JSON, so a guard would block every call; give it a command or remove the hook".to_string(),
        );
        return None;
    }
    hook.string("command", sink)
}
