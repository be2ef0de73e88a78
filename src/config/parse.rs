//! Walks the spanned TOML tree by hand instead of deriving `Deserialize`: serde stops at the
//! first error, and hookhost must report every problem of a file with its line and column.
//!
//! The rule for what is an error and what is a warning: anything that could switch a hook off
//! or change what it does without the author noticing (a typo in a key, an event, a phase, an
//! unknown top-level table that looks like hooks) is an error, and the guards fail closed;
//! what is odd but changes nothing (a `phase` on an event whose hooks have no phases, a matcher
//! on an event that always fires, an unknown top-level key that cannot hold hooks) is a warning.

use std::ops::Range;
use std::time::Duration;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::fields::{HookTable, Problems, close_to};
use super::projects::{ProjectsSpec, parse_disable, parse_projects};
use super::source::parse_source;
use super::trust::parse_trust;
use super::{ConfigProblem, HookSpec, Layer, Location, OnFailure, TrustSpec};
use crate::event::{Answers, MatchOn, Phase, catalog};
use crate::matcher::{EventPattern, ToolMatcher};
use crate::text::quote;

/// The longest `timeout_ms` accepted: an hour is already far more than any hook should take,
/// and a bound keeps deadline arithmetic from overflowing.
const MAX_TIMEOUT_MS: u64 = 3_600_000;

const HOOK_KEYS: &[&str] = &[
    "event",
    "phase",
    "match_tool",
    "matcher",
    "command",
    "wasm",
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
];

/// What a valid file holds.
pub(super) struct Parsed {
    pub(super) hooks: Vec<HookSpec>,
    pub(super) trust: TrustSpec,
    pub(super) projects: Option<ProjectsSpec>,
    pub(super) disable: Vec<String>,
    pub(super) disable_at: Location,
    pub(super) warnings: Vec<ConfigProblem>,
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

    let mut hooks = Vec::new();
    let mut trust = TrustSpec::default();
    let mut projects = None;
    let mut disable = Vec::new();
    let mut disable_at = Location::default();
    for (key, value) in doc.get_ref().iter() {
        match key.get_ref().as_ref() {
            "trust" => trust = parse_trust(value, &mut sink),
            "projects" => projects = parse_projects(value, &mut sink),
            "disable" => {
                disable_at = sink.lines.locate(key.span().start);
                disable = parse_disable(value, &mut sink);
            }
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
            other => unknown_top_level(other, &key.span(), value, &mut sink),
        }
    }

    if sink.is_empty() {
        Ok(Parsed {
            hooks,
            trust,
            projects,
            disable,
            disable_at,
            warnings: sink.finish_warnings(),
        })
    } else {
        Err(sink.finish())
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
        DeValue::Table(table) => table
            .iter()
            .any(|(k, _)| matches!(k.get_ref().as_ref(), "event" | "command" | "wasm")),
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
                "unknown top-level key `{}` is ignored (hooks.toml holds `[[hooks]]` tables, `[trust]`, and `[projects]` in the user's own file)",
                crate::text::name(key)
            ),
        );
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

    let events = parse_events(&hook, item, sink);
    let background = hook.bool("async", sink).unwrap_or(false);
    let (phase, phase_written) = parse_phase(&hook, events.as_ref(), background, sink);
    let (matcher, match_tool) = parse_matcher(&hook, events.as_ref(), sink);
    let timeout = parse_timeout(&hook, sink);
    let enabled = hook.bool("enabled", sink).unwrap_or(true);
    let on_failure = parse_on_failure(&hook, events.as_ref(), phase, background, sink);
    let source = parse_source(&hook, command, item, sink);

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

/// `event = "Name"`, `event = "a,b"`, `event = "tool:*"` or `event = ["A", "B"]`.
fn parse_events(
    hook: &HookTable<'_, '_>,
    item: &Spanned<DeValue<'_>>,
    sink: &mut Problems<'_>,
) -> Option<EventPattern> {
    let builtins: Vec<&str> = catalog::BUILTIN.iter().map(|spec| spec.name).collect();
    let Some((value, _)) = hook.field("event") else {
        hook.problem(
            sink,
            &item.span(),
            format!(
                "missing `event`; set it to one of {}, or to a custom event's name",
                builtins.join(", ")
            ),
        );
        return None;
    };
    let items: Vec<&str> = match value.get_ref() {
        DeValue::String(name) => vec![name.as_ref()],
        DeValue::Array(items) => {
            let names: Vec<&str> = items
                .iter()
                .filter_map(|item| item.get_ref().as_str())
                .collect();
            if names.len() != items.len() || names.is_empty() {
                hook.problem(
                    sink,
                    &value.span(),
                    "`event` must be a name or a non-empty list of names, like event = [\"SessionStart\", \"SessionEnd\"]".to_string(),
                );
                return None;
            }
            names
        }
        other => {
            hook.problem(
                sink,
                &value.span(),
                format!(
                    "`event` must be a string or a list of strings, found {}",
                    other.type_str()
                ),
            );
            return None;
        }
    };
    match EventPattern::parse(items) {
        Ok(pattern) => Some(pattern),
        Err(message) => {
            hook.problem(
                sink,
                &value.span(),
                format!("{message} (built-in events: {})", builtins.join(", ")),
            );
            None
        }
    }
}

/// `phase`, and the phase the hook runs in. `async = true` makes an observer. On events whose
/// hooks have no phases (PostToolUse, Stop, ...) `phase` is ignored, as seed 000 says.
fn parse_phase(
    hook: &HookTable<'_, '_>,
    events: Option<&EventPattern>,
    background: bool,
    sink: &mut Problems<'_>,
) -> (Phase, Option<Phase>) {
    let Some((phase, span)) = hook.string("phase", sink) else {
        let phase = if background {
            Phase::Observe
        } else {
            Phase::Guard
        };
        return (phase, None);
    };
    let written = match phase.as_str() {
        "guard" => Phase::Guard,
        "observe" => Phase::Observe,
        other => {
            let hint = close_to(&["guard", "observe"], other)
                .map(|known| format!("did you mean \"{known}\"? "))
                .unwrap_or_default();
            hook.problem(
                sink,
                &span,
                format!(
                    "unknown phase {}; {hint}a hook's phase is \"guard\" (the default) or \"observe\"",
                    quote(other)
                ),
            );
            return (Phase::Guard, None);
        }
    };
    if background && written == Phase::Guard {
        hook.problem(
            sink,
            &span,
            "an `async = true` hook runs in the background and cannot decide anything: it is an observer; remove `phase = \"guard\"` or `async`".to_string(),
        );
    }
    let Some(events) = events else {
        return (written, Some(written));
    };
    if !events.specs().iter().any(|spec| spec.gate) {
        sink.warn(
            &span,
            hook.hook_ref(),
            format!(
                "`phase` is ignored on {} hooks (seed 000: phases apply to events that gate an action, such as PreToolUse); for a background observer use `async = true`",
                events
            ),
        );
        let phase = if background {
            Phase::Observe
        } else {
            Phase::Guard
        };
        return (phase, Some(written));
    }
    let phase = if background { Phase::Observe } else { written };
    (phase, Some(written))
}

/// `match_tool` (forgeflare's exact name) or `matcher` (Claude Code's semantics, or a table
/// `{ glob = "..." }` / `{ regex = "..." }`); at most one of them.
fn parse_matcher(
    hook: &HookTable<'_, '_>,
    events: Option<&EventPattern>,
    sink: &mut Problems<'_>,
) -> (Option<ToolMatcher>, Option<String>) {
    let match_tool = hook.string("match_tool", sink);
    let matcher_field = hook.field("matcher");
    let (matcher, span) = match (&match_tool, matcher_field) {
        (Some(_), Some((_, key_span))) => {
            hook.problem(
                sink,
                &key_span,
                "a hook takes `match_tool` (an exact tool name) or `matcher` (a pattern), not both"
                    .to_string(),
            );
            return (None, None);
        }
        (Some((tool, span)), None) => (Ok(ToolMatcher::Exact(tool.clone())), span.clone()),
        (None, None) => return (Some(ToolMatcher::Any), None),
        (None, Some((value, _))) => (matcher_value(value.get_ref()), value.span()),
    };
    let matcher = match matcher {
        Ok(matcher) => matcher,
        Err(message) => {
            hook.problem(sink, &span, message);
            return (None, None);
        }
    };
    if !matcher.is_any()
        && let Some(events) = events
    {
        let specs = events.specs();
        let compared: Vec<MatchOn> = specs
            .iter()
            .map(|spec| spec.match_on)
            .filter(|on| *on != MatchOn::Nothing)
            .fold(Vec::new(), |mut seen, on| {
                if !seen.contains(&on) {
                    seen.push(on);
                }
                seen
            });
        if compared.is_empty() {
            sink.warn(
                &span,
                hook.hook_ref(),
                format!("the matcher is ignored: {events} hooks always fire (the event has nothing to match)"),
            );
        } else if compared.len() > 1 {
            let what: Vec<String> = specs
                .iter()
                .map(|spec| {
                    let on = match spec.match_on {
                        MatchOn::Tool => "the tool's name".to_string(),
                        MatchOn::Field(field) => format!("`{field}`"),
                        MatchOn::Nothing => "nothing".to_string(),
                    };
                    format!(
                        "{} ({on})",
                        if spec.is_custom() {
                            "custom events"
                        } else {
                            spec.name
                        }
                    )
                })
                .collect();
            sink.warn(
                &span,
                hook.hook_ref(),
                format!(
                    "the matcher compares different things on these events: {}; the hook fires only where it matches each one (write separate hooks, or no matcher)",
                    what.join(", ")
                ),
            );
        }
    }
    (Some(matcher), match_tool.map(|(tool, _)| tool))
}

fn matcher_value(value: &DeValue<'_>) -> Result<ToolMatcher, String> {
    match value {
        DeValue::String(pattern) => ToolMatcher::claude(pattern),
        DeValue::Table(table) => {
            let entries: Vec<_> = table.iter().collect();
            match entries.as_slice() {
                [(kind, pattern)] => match (kind.get_ref().as_ref(), pattern.get_ref().as_str()) {
                    ("glob", Some(pattern)) => ToolMatcher::glob(pattern),
                    ("regex", Some(pattern)) => ToolMatcher::regex(pattern),
                    ("exact", Some(name)) => Ok(ToolMatcher::Exact(name.to_string())),
                    _ => Err(MATCHER_FORMS.to_string()),
                },
                _ => Err(MATCHER_FORMS.to_string()),
            }
        }
        other => Err(format!("{MATCHER_FORMS}; found {}", other.type_str())),
    }
}

const MATCHER_FORMS: &str = "`matcher` is a string (Claude Code's semantics: \"Bash\", \"Edit|Write\", \"Notebook.*\", \"*\") or one of { glob = \"mcp__*\" }, { regex = \"^mcp__\" }, { exact = \"Bash\" }";

fn parse_timeout(hook: &HookTable<'_, '_>, sink: &mut Problems<'_>) -> Option<Option<Duration>> {
    let Some((value, _)) = hook.field("timeout_ms") else {
        return Some(None);
    };
    let parsed = match value.get_ref() {
        DeValue::Integer(int) => i128::from_str_radix(int.as_str(), int.radix()).ok(),
        _ => None,
    };
    match parsed {
        Some(ms) if ms > 0 && ms <= i128::from(MAX_TIMEOUT_MS) => {
            Some(Some(Duration::from_millis(ms as u64)))
        }
        // forgeflare takes any u64; a longer budget switches nothing off, so it is capped with a
        // warning rather than refused.
        Some(ms) if ms > 0 && ms <= i128::from(u64::MAX) => {
            sink.warn(
                &value.span(),
                hook.hook_ref(),
                format!("`timeout_ms` = {ms} is capped at {MAX_TIMEOUT_MS} (an hour)"),
            );
            Some(Some(Duration::from_millis(MAX_TIMEOUT_MS)))
        }
        Some(ms) => {
            hook.problem(
                sink,
                &value.span(),
                format!(
                    "`timeout_ms` must be between 1 and {MAX_TIMEOUT_MS}, found {ms}{}; omit it for the event's default (5000, Stop hooks 3000)",
                    if ms == 0 { " (0 would time every call out at once, and a guard would block everything)" } else { "" }
                ),
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
    events: Option<&EventPattern>,
    phase: Phase,
    background: bool,
    sink: &mut Problems<'_>,
) -> Option<OnFailure> {
    let (value, span) = hook.string("on_failure", sink)?;
    let can_block = events.is_none_or(|events| {
        events
            .specs()
            .iter()
            .any(|spec| spec.answers.allows(Answers::BLOCK))
    });
    if background || phase == Phase::Observe || !can_block {
        hook.problem(
            sink,
            &span,
            "`on_failure` applies only to guard hooks of events that can block; observers, async hooks and hooks of events that cannot block always fail open".to_string(),
        );
    }
    match value.as_str() {
        "block" => Some(OnFailure::Block),
        "allow" => Some(OnFailure::Allow),
        other => {
            hook.problem(
                sink,
                &span,
                format!(
                    "unknown on_failure {}; use \"block\" (fail closed) or \"allow\" (advisory guard)",
                    quote(other)
                ),
            );
            None
        }
    }
}
