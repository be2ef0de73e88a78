//! When a hook runs and how it ends: `event` (a name, a list, a glob), `phase`, the tool
//! matcher (`matcher` or forgeflare's `match_tool`), `timeout_ms` and `on_failure`, each
//! checked against what the event catalog says the event takes.

use std::time::Duration;

use toml::Spanned;
use toml::de::DeValue;

use super::fields::{HookTable, Problems, close_to};
use super::{Mode, OnFailure};
use crate::event::{Answers, MatchOn, Phase, catalog};
use crate::matcher::{EventPattern, ToolMatcher};
use crate::text::quote;

/// The longest `timeout_ms` accepted: an hour is already far more than any hook should take,
/// and a bound keeps deadline arithmetic from overflowing.
const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// `event = "Name"`, `event = "a,b"`, `event = "tool:*"` or `event = ["A", "B"]`.
pub(super) fn parse_events(
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
pub(super) fn parse_phase(
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
pub(super) fn parse_matcher(
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
    if matcher.names_kinds()
        && let Some(field) = events.and_then(|events| {
            events.specs().iter().find_map(|spec| match spec.match_on {
                MatchOn::Field(field) => Some((spec.name, field)),
                _ => None,
            })
        })
    {
        hook.problem(
            sink,
            &span,
            format!(
                "a `@kind` matcher compares tools, but {}'s matcher compares `{}`; name the values (\"startup|resume\") or declare the hook for tool events",
                field.0, field.1
            ),
        );
        return (None, None);
    }
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

pub(super) fn parse_timeout(
    hook: &HookTable<'_, '_>,
    sink: &mut Problems<'_>,
) -> Option<Option<Duration>> {
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

pub(super) fn parse_on_failure(
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

/// `mode = "enforce" | "monitor" | "warn"` on a hook; `default` is the file's.
pub(super) fn parse_mode(hook: &HookTable<'_, '_>, default: Mode, sink: &mut Problems<'_>) -> Mode {
    let Some((value, span)) = hook.string("mode", sink) else {
        return default;
    };
    mode_named(&value).unwrap_or_else(|message| {
        hook.problem(sink, &span, message);
        default
    })
}

/// The mode spelled `value`, or a message that says what the modes are.
pub(super) fn mode_named(value: &str) -> Result<Mode, String> {
    Mode::from_name(value).ok_or_else(|| {
        let names: Vec<&str> = Mode::ALL.iter().map(|(_, name)| *name).collect();
        let meant = close_to(&names, value)
            .map(|name| format!("did you mean \"{name}\"? "))
            .unwrap_or_default();
        format!(
            "unknown mode {}; {meant}a hook's mode is \"enforce\" (the default), \"monitor\" \
             (run it and report what it would have done, enforcing nothing) or \"warn\" (its \
             blocks become warnings)",
            quote(value)
        )
    })
}
