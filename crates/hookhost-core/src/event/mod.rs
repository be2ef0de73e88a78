//! The events an agent fires: what an event is made of, and the table of built-in events.
//!
//! An [`Event`] is a name (built-in, such as `PreToolUse`, or custom, such as `llm:pre_request`),
//! an optional session id, an optional tool call, and the event's own payload fields in the
//! order the agent gave them. The [`catalog`] says, per event, what a hook may answer. How an
//! event is written for a hook (forgeflare's JSON, Claude Code's JSON, WIT records) is the
//! business of the protocols, at the edge.

pub mod catalog;
mod owned;
mod stop;

use std::borrow::Cow;

use serde_json::Value;

pub use catalog::{Answers, EventSpec, MatchOn};
pub use owned::OwnedEvent;
pub use stop::{StopReason, UnknownStopReason, cap_result};

/// Results longer than this many bytes are cut before a PostToolUse hook sees them (R3).
pub const RESULT_CAP_BYTES: usize = 5120;
const RESULT_HALF_BYTES: usize = RESULT_CAP_BYTES / 2;

/// One tool call as the agent describes it to its hooks.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// The tool's name, matched against `match_tool` (exactly) or `matcher`.
    pub tool: &'a str,
    /// The tool's input, passed to hooks as it is.
    pub input: &'a Value,
    /// The inner loop's batch counter (R3: per API response cycle, not per tool).
    pub tool_iterations: usize,
}

/// When in an event a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Phase {
    /// The hook answers: it may block, ask, warn, rewrite, add context (what the event allows).
    #[default]
    Guard,
    /// The hook runs after the guards, sees their outcome, and its answer is ignored; it fails
    /// open. Every async hook is an observer.
    Observe,
}

impl Phase {
    /// `guard` or `observe`, as hooks.toml and the JSON spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Guard => "guard",
            Phase::Observe => "observe",
        }
    }
}

/// One event, as the agent fires it.
///
/// Built-in events have constructors that set their documented payload fields
/// ([`Event::pre_tool_use`], [`Event::session_start`], ...); any event, custom ones included,
/// can be built with [`Event::new`] and [`Event::with_field`] or [`Event::with_payload`].
///
/// ```
/// use hookhost::Event;
/// let started = Event::new("started")
///     .with_session("260215-173319")
///     .with_field("mode", "building")
///     .with_env("FRESHER_MODE", "building");
/// assert_eq!(started.name(), "started");
/// assert_eq!(started.field("mode"), Some(&serde_json::json!("building")));
/// ```
#[derive(Debug, Clone)]
pub struct Event<'a> {
    name: Cow<'a, str>,
    session_id: Option<Cow<'a, str>>,
    call: Option<ToolCall<'a>>,
    fields: Vec<(Cow<'a, str>, Cow<'a, Value>)>,
    env: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

impl<'a> Event<'a> {
    /// An event named `name` with no payload: a built-in event or a custom one.
    pub fn new(name: impl Into<Cow<'a, str>>) -> Event<'a> {
        Event {
            name: name.into(),
            session_id: None,
            call: None,
            fields: Vec::new(),
            env: Vec::new(),
        }
    }

    /// `SessionStart`; `source` is `startup`, `resume`, `clear` or `compact`.
    pub fn session_start(source: &str) -> Event<'a> {
        Event::new("SessionStart").with_field("source", source)
    }

    /// `SessionEnd`; `reason` is `clear`, `logout`, `prompt_input_exit` or `other`.
    pub fn session_end(reason: &str) -> Event<'a> {
        Event::new("SessionEnd").with_field("reason", reason)
    }

    /// `UserPromptSubmit`, with the prompt's text.
    pub fn user_prompt_submit(prompt: &str) -> Event<'a> {
        Event::new("UserPromptSubmit").with_field("prompt", prompt)
    }

    /// `PreToolUse`: before `call` runs.
    pub fn pre_tool_use(call: ToolCall<'a>) -> Event<'a> {
        Event::new("PreToolUse").with_tool(call)
    }

    /// `PermissionRequest`: the agent would ask its user to allow `call`.
    pub fn permission_request(call: ToolCall<'a>) -> Event<'a> {
        Event::new("PermissionRequest").with_tool(call)
    }

    /// `PostToolUse`: `call` ran and produced `result`. Results over 5120 bytes reach hooks as
    /// their first and last 2560 bytes around a marker (R3); the agent keeps the whole result.
    pub fn post_tool_use(call: ToolCall<'a>, result: &str, is_error: bool) -> Event<'a> {
        Event::new("PostToolUse")
            .with_tool(call)
            .with_field("result", cap_result(result).into_owned())
            .with_field("is_error", is_error)
    }

    /// `PostToolUseFailure`: `call` failed with `error`.
    pub fn post_tool_use_failure(call: ToolCall<'a>, error: &str) -> Event<'a> {
        Event::new("PostToolUseFailure")
            .with_tool(call)
            .with_field("error", error)
    }

    /// `Notification`, with its text and kind (`permission_prompt`, `idle_prompt`, ...).
    pub fn notification(message: &str, notification_type: &str) -> Event<'a> {
        Event::new("Notification")
            .with_field("message", message)
            .with_field("notification_type", notification_type)
    }

    /// `Stop`, as forgeflare fires it: why the run ended, the batch counter and the tokens used.
    pub fn stop(reason: StopReason, tool_iterations: usize, total_tokens: u64) -> Event<'a> {
        Event::stop_with_reason(reason.as_str(), tool_iterations, total_tokens)
    }

    /// [`Event::stop`] with the reason as a string (a facade's callers pass one).
    pub(crate) fn stop_with_reason(
        reason: &str,
        tool_iterations: usize,
        total_tokens: u64,
    ) -> Event<'a> {
        Event::new("Stop")
            .with_field("reason", reason)
            .with_field("tool_iterations", tool_iterations)
            .with_field("total_tokens", total_tokens)
    }

    /// `SubagentStart`.
    pub fn subagent_start(agent_id: &str, agent_type: &str) -> Event<'a> {
        Event::new("SubagentStart")
            .with_field("agent_id", agent_id)
            .with_field("agent_type", agent_type)
    }

    /// `SubagentStop`.
    pub fn subagent_stop(agent_id: &str, agent_type: &str) -> Event<'a> {
        Event::new("SubagentStop")
            .with_field("agent_id", agent_id)
            .with_field("agent_type", agent_type)
    }

    /// `PreCompact`; `trigger` is `manual` or `auto`.
    pub fn pre_compact(trigger: &str) -> Event<'a> {
        Event::new("PreCompact").with_field("trigger", trigger)
    }

    /// The same event in session `id` (hooks see it as `session_id`).
    pub fn with_session(mut self, id: impl Into<Cow<'a, str>>) -> Event<'a> {
        self.session_id = Some(id.into());
        self
    }

    /// The same event about a tool call: `matcher`s compare against its tool's name.
    pub fn with_tool(mut self, call: ToolCall<'a>) -> Event<'a> {
        self.call = Some(call);
        self
    }

    /// Adds (or replaces) a payload field; fields keep the order they were added in.
    pub fn with_field(
        mut self,
        name: impl Into<Cow<'a, str>>,
        value: impl Into<Value>,
    ) -> Event<'a> {
        self.set_field(name.into(), Cow::Owned(value.into()));
        self
    }

    /// Adds every field of a JSON object (a custom event's payload). Anything but an object is
    /// added as one field named `payload`.
    pub fn with_payload(mut self, payload: Value) -> Event<'a> {
        match payload {
            Value::Object(object) => {
                for (name, value) in object {
                    self.set_field(Cow::Owned(name), Cow::Owned(value));
                }
            }
            other => self.set_field(Cow::Borrowed("payload"), Cow::Owned(other)),
        }
        self
    }

    /// Adds a variable to the environment of the command hooks this event runs (for example
    /// Fresher's `FRESHER_ITERATION`), on top of the runner's ([`crate::RunnerOptions::env`]).
    pub fn with_env(
        mut self,
        name: impl Into<Cow<'a, str>>,
        value: impl Into<Cow<'a, str>>,
    ) -> Event<'a> {
        self.env.push((name.into(), value.into()));
        self
    }

    fn set_field(&mut self, name: Cow<'a, str>, value: Cow<'a, Value>) {
        match self
            .fields
            .iter_mut()
            .find(|(existing, _)| *existing == name)
        {
            Some(slot) => slot.1 = value,
            None => self.fields.push((name, value)),
        }
    }

    /// The event's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The session id, when the agent gave one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The tool call the event is about, if any.
    pub fn tool_call(&self) -> Option<ToolCall<'a>> {
        self.call
    }

    /// A payload field.
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields
            .iter()
            .find(|(existing, _)| existing == name)
            .map(|(_, value)| value.as_ref())
    }

    /// The payload fields, in order.
    pub fn fields(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.fields
            .iter()
            .map(|(name, value)| (name.as_ref(), value.as_ref()))
    }

    /// The variables this event adds to command hooks' environment.
    pub fn env(&self) -> impl Iterator<Item = (&str, &str)> {
        self.env
            .iter()
            .map(|(name, value)| (name.as_ref(), value.as_ref()))
    }

    /// What the catalog says about this event ([`catalog::CUSTOM`] for a custom one).
    pub fn spec(&self) -> &'static EventSpec {
        catalog::spec(&self.name)
    }

    /// What a hook's `matcher` compares against: the tool's name, or the payload field the
    /// catalog names (SessionStart's `source`, ...). `None` when there is nothing to compare.
    pub(crate) fn matcher_subject(&self, spec: &EventSpec) -> Option<&str> {
        match spec.match_on {
            MatchOn::Tool => self.call.map(|call| call.tool),
            MatchOn::Field(name) => self.field(name).and_then(Value::as_str),
            MatchOn::Nothing => None,
        }
    }

    /// A copy that owns everything, for hooks that run in the background.
    pub(crate) fn to_owned_event(&self) -> OwnedEvent {
        OwnedEvent {
            name: self.name.to_string(),
            session_id: self.session_id.as_deref().map(str::to_string),
            call: self.call.map(|call| {
                (
                    call.tool.to_string(),
                    call.input.clone(),
                    call.tool_iterations,
                )
            }),
            fields: self
                .fields
                .iter()
                .map(|(name, value)| (name.to_string(), value.as_ref().clone()))
                .collect(),
            env: self
                .env
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stop_reasons_round_trip_through_spec_strings() {
        let strings: Vec<&str> = StopReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(
            strings,
            [
                "end_turn",
                "iteration_limit",
                "api_error",
                "continuation_cap",
                "block_limit_consecutive",
                "block_limit_total",
                "convergence_signal"
            ]
        );
        for reason in StopReason::ALL {
            assert_eq!(reason.as_str().parse::<StopReason>(), Ok(reason));
            assert_eq!(
                serde_json::to_value(reason).unwrap(),
                json!(reason.as_str())
            );
        }
        assert!("EndTurn".parse::<StopReason>().is_err());
    }

    #[test]
    fn result_cap_boundaries() {
        let exact = "x".repeat(RESULT_CAP_BYTES);
        assert_eq!(cap_result(&exact), exact.as_str());

        let long = format!("{}{}", "a".repeat(6000), "b".repeat(4000));
        let capped = cap_result(&long);
        assert_eq!(
            capped,
            format!(
                "{}\n... (truncated for hook, full result: 10000 bytes)\n{}",
                "a".repeat(2560),
                "b".repeat(2560)
            )
        );
    }

    #[test]
    fn result_cap_never_splits_a_character() {
        // 'é' is two bytes: byte 2560 falls inside a character at both cuts.
        let long = format!("a{}", "é".repeat(4000));
        let capped = cap_result(&long);
        let (head, rest) = capped.split_once("\n... (truncated").unwrap();
        assert_eq!(head.len(), 2559, "head cut moves back to a boundary");
        let tail = rest.split_once("bytes)\n").unwrap().1;
        assert!(tail.chars().all(|c| c == 'é'));
        assert!(rest.contains(&format!("full result: {} bytes", long.len())));
        // floor_char_boundary(len - 2560) moves the tail's start back, so it keeps 2560 bytes.
        assert_eq!(tail.len(), 2560);
    }
}
