//! Every event of an agent's lifecycle, and the rich verdict a hook may give.
//!
//! [`Hook::handle`](crate::Hook::handle) receives every event the hook is configured for as an
//! [`Event`]: its name (`SessionStart`, `UserPromptSubmit`, `PreToolUse`, a custom one such as
//! `llm:pre_request`), the tool call for tool events, and the event's own payload. It answers a
//! [`Verdict`]: allow, approve, warn, ask or block, and optionally a rewritten tool input,
//! context for the model, a request to stop the run, a signal, a message for the user. Which
//! event takes which answer is in hookhost's docs/events.md ("Events").
//!
//! Parsing is lazy: a hook that does not look at the tool input or the payload never parses
//! them, so a trivial guard costs almost nothing.
//!
//! (Over 400 lines: the event, the verdict and the default routing between them are one
//! contract, read together.)
//!
//! ```
//! use hook_sdk::{Event, Hook, Verdict};
//!
//! pub struct SessionNotes;
//!
//! impl Hook for SessionNotes {
//!     fn handle(event: &Event) -> Verdict {
//!         match event.name() {
//!             "SessionStart" => Verdict::allow().with_context("The tests live in tests/."),
//!             _ => hook_sdk::dispatch::<Self>(event),
//!         }
//!     }
//! }
//!
//! let start = Event::new("SessionStart").with_session("260215-173319");
//! assert_eq!(SessionNotes::handle(&start).context.as_deref(), Some("The tests live in tests/."));
//! ```

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Blocked, Guard, Hook, ObserveEvent, Post, PostEvent, StopEvent, StopReason, ToolCall};

/// When in an event the hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Phase {
    /// The hook answers.
    #[default]
    Guard,
    /// The hook runs after the guards and sees their outcome; its answer is ignored.
    Observe,
}

/// What the guards of an event decided, as an observer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    /// `allow`, `approve`, `warn`, `ask` or `block`.
    pub decision: &'static str,
    /// The hook that decided, unless everything was allowed.
    pub by: Option<String>,
    /// Its reason.
    pub reason: Option<String>,
}

/// One event, as the hook sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    name: String,
    phase: Phase,
    session_id: Option<String>,
    cwd: String,
    tool: Option<(String, String, u64)>,
    payload: String,
    observed: Option<Observed>,
}

impl Event {
    /// An event named `name`, in `/workspace`, with no payload: for tests (and the glue).
    pub fn new(name: impl Into<String>) -> Event {
        Event {
            name: name.into(),
            phase: Phase::Guard,
            session_id: None,
            cwd: "/workspace".to_string(),
            tool: None,
            payload: "{}".to_string(),
            observed: None,
        }
    }

    /// The same event in session `id`.
    pub fn with_session(mut self, id: impl Into<String>) -> Event {
        self.session_id = Some(id.into());
        self
    }

    /// The same event in working directory `cwd`.
    pub fn with_cwd(mut self, cwd: impl Into<String>) -> Event {
        self.cwd = cwd.into();
        self
    }

    /// The same event about `call`.
    pub fn with_tool(mut self, call: &ToolCall) -> Event {
        self.tool = Some((
            call.tool.clone(),
            call.input.to_string(),
            call.tool_iterations,
        ));
        self
    }

    /// The same event with a payload field set.
    pub fn with_field(mut self, name: &str, value: impl Into<Value>) -> Event {
        let mut payload = self.payload();
        if let Value::Object(object) = &mut payload {
            object.insert(name.to_string(), value.into());
        }
        self.payload = payload.to_string();
        self
    }

    /// The same event, seen by an observer after the guards decided `observed`.
    pub fn observing(mut self, observed: Observed) -> Event {
        self.phase = Phase::Observe;
        self.observed = Some(observed);
        self
    }

    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn from_parts(
        name: String,
        phase: Phase,
        session_id: Option<String>,
        cwd: String,
        tool: Option<(String, String, u64)>,
        payload: String,
        observed: Option<Observed>,
    ) -> Event {
        Event {
            name,
            phase,
            session_id,
            cwd,
            tool,
            payload,
            observed,
        }
    }

    /// The event's name: `PreToolUse`, `SessionStart`, `started`, `llm:pre_request`, ...
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Guard or observer.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The agent's session id, when it gives one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The agent's working directory (absolute): the workspace root.
    pub fn cwd(&self) -> &str {
        &self.cwd
    }

    /// The tool's name, for tool events, without parsing the input.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool.as_ref().map(|(tool, _, _)| tool.as_str())
    }

    /// The tool call, for tool events (its input parsed; input that is not JSON arrives as a
    /// string).
    pub fn tool_call(&self) -> Option<ToolCall> {
        self.tool
            .as_ref()
            .map(|(tool, input, tool_iterations)| ToolCall {
                tool: tool.clone(),
                input: serde_json::from_str(input).unwrap_or_else(|_| Value::String(input.clone())),
                tool_iterations: *tool_iterations,
                cwd: self.cwd.clone(),
            })
    }

    /// The tool call this event is about, whatever the agent: [`Event::tool_call`] on tool
    /// events. Cursor's specialised events carry no tool name: on `beforeShellExecution`,
    /// `beforeReadFile`, `afterFileEdit`, ... it is a call named after the event, with the
    /// payload as its input (so `tool_use()?.shell()` is the command of a
    /// `beforeShellExecution`); on `beforeMCPExecution` and `afterMCPExecution` the MCP tool
    /// as Cursor's preToolUse names it, `MCP:<tool>`. `None` on events about no tool.
    pub fn tool_use(&self) -> Option<ToolCall> {
        let Some(named) = hookhost_tools::event_tool_name(&self.name, self.tool_name()) else {
            return self.tool_call();
        };
        let named = named.into_owned();
        Some(match self.tool_call() {
            Some(call) => ToolCall {
                tool: named,
                ..call
            },
            None => ToolCall {
                tool: named,
                input: self.payload(),
                tool_iterations: 1,
                cwd: self.cwd.clone(),
            },
        })
    }

    /// The event's own fields as a JSON object (`{}` when none).
    pub fn payload(&self) -> Value {
        serde_json::from_str(&self.payload).unwrap_or_else(|_| Value::Object(Default::default()))
    }

    /// The payload as your own type.
    pub fn payload_as<T: DeserializeOwned>(&self) -> Option<T> {
        serde_json::from_str(&self.payload).ok()
    }

    /// A payload field.
    pub fn field(&self, name: &str) -> Option<Value> {
        match self.payload() {
            Value::Object(mut object) => object.remove(name),
            _ => None,
        }
    }

    /// A payload field that is a string.
    pub fn str_field(&self, name: &str) -> Option<String> {
        self.field(name)
            .and_then(|value| value.as_str().map(str::to_string))
    }

    /// For an observer: what the guards decided.
    pub fn observed(&self) -> Option<&Observed> {
        self.observed.as_ref()
    }
}

/// A hook's decision, from "no objection" to "stop it".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Answer {
    /// No objection.
    #[default]
    Allow,
    /// Explicit permission: an agent with permission prompts may skip its prompt.
    Approve,
    /// Go on, and surface the reason.
    Warn(String),
    /// Defer to the agent's user.
    Ask(String),
    /// Stop what the event is about.
    Block(String),
}

/// A hook's whole answer to an event. Build it with the constructors and `with_*` methods.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// The decision.
    pub answer: Answer,
    /// The tool input rewritten (PreToolUse, PermissionRequest).
    pub updated_input: Option<Value>,
    /// Context for the model (SessionStart, UserPromptSubmit, PostToolUse, ...).
    pub context: Option<String>,
    /// End the agent's run, with this reason.
    pub stop: Option<String>,
    /// A named signal (PostToolUse).
    pub signal: Option<(String, String)>,
    /// A message for the agent's user.
    pub message: Option<String>,
}

impl Verdict {
    /// No objection.
    pub fn allow() -> Verdict {
        Verdict::default()
    }

    /// Explicit permission.
    pub fn approve() -> Verdict {
        Verdict::of(Answer::Approve)
    }

    /// Go on, surfacing `reason` (Ralph's WARN).
    pub fn warn(reason: impl Into<String>) -> Verdict {
        Verdict::of(Answer::Warn(reason.into()))
    }

    /// Defer to the user.
    pub fn ask(reason: impl Into<String>) -> Verdict {
        Verdict::of(Answer::Ask(reason.into()))
    }

    /// Block, with `reason`.
    pub fn block(reason: impl Into<String>) -> Verdict {
        Verdict::of(Answer::Block(reason.into()))
    }

    /// No objection, and a signal.
    pub fn signal(name: impl Into<String>, reason: impl Into<String>) -> Verdict {
        Verdict {
            signal: Some((name.into(), reason.into())),
            ..Verdict::default()
        }
    }

    fn of(answer: Answer) -> Verdict {
        Verdict {
            answer,
            ..Verdict::default()
        }
    }

    /// Adds context for the model.
    pub fn with_context(mut self, context: impl Into<String>) -> Verdict {
        self.context = Some(context.into());
        self
    }

    /// Rewrites the tool input: the tool runs with `input`.
    pub fn with_updated_input(mut self, input: Value) -> Verdict {
        self.updated_input = Some(input);
        self
    }

    /// Asks the agent to end its run.
    pub fn with_stop(mut self, reason: impl Into<String>) -> Verdict {
        self.stop = Some(reason.into());
        self
    }

    /// Adds a message for the agent's user.
    pub fn with_message(mut self, message: impl Into<String>) -> Verdict {
        self.message = Some(message.into());
        self
    }
}

impl From<Guard> for Verdict {
    fn from(guard: Guard) -> Verdict {
        match guard {
            Guard::Allow => Verdict::allow(),
            Guard::Block(reason) => Verdict::block(reason),
        }
    }
}

impl From<Post> for Verdict {
    fn from(post: Post) -> Verdict {
        match post {
            Post::Continue => Verdict::allow(),
            Post::Signal { name, reason } => Verdict::signal(name, reason),
        }
    }
}

/// The default routing of [`Hook::handle`]: forgeflare's three events go to `guard`, `observe`,
/// `post` and `stop`; every other event is allowed. Call it from your own `handle` for the
/// events you do not handle yourself.
pub fn dispatch<H: Hook + ?Sized>(event: &Event) -> Verdict {
    match (event.name(), event.phase(), event.tool_call()) {
        ("PreToolUse", Phase::Guard, Some(call)) => H::guard(&call).into(),
        ("PreToolUse", Phase::Observe, Some(call)) => {
            let blocked = event
                .observed()
                .filter(|observed| observed.decision == "block")
                .map(|observed| Blocked {
                    by: observed.by.clone().unwrap_or_default(),
                    reason: observed.reason.clone().unwrap_or_default(),
                });
            H::observe(&ObserveEvent { call, blocked });
            Verdict::allow()
        }
        ("PostToolUse", _, Some(call)) => {
            let post = PostEvent {
                call,
                result: event.str_field("result").unwrap_or_default(),
                is_error: event
                    .field("is_error")
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false),
            };
            H::post(&post).into()
        }
        ("Stop", _, _) => {
            if let Some(reason) = event
                .str_field("reason")
                .and_then(|reason| StopReason::parse(&reason))
            {
                let number = |name: &str| event.field(name).and_then(|v| v.as_u64()).unwrap_or(0);
                H::stop(&StopEvent {
                    reason,
                    tool_iterations: number("tool_iterations"),
                    total_tokens: number("total_tokens"),
                    cwd: event.cwd().to_string(),
                });
            }
            Verdict::allow()
        }
        _ => Verdict::allow(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Forgeflare;
    impl Hook for Forgeflare {
        fn guard(call: &ToolCall) -> Guard {
            match call.bash() {
                Some(bash) if bash.command.contains("rm -rf") => Guard::block("no"),
                _ => Guard::Allow,
            }
        }
        fn post(event: &PostEvent) -> Post {
            if event.result.contains("ok") {
                Post::signal("green", "tests pass")
            } else {
                Post::Continue
            }
        }
    }

    #[test]
    fn forgeflare_methods_serve_their_events_and_others_are_allowed() {
        let rm = ToolCall::bash_command("rm -rf /");
        let pre = Event::new("PreToolUse").with_tool(&rm);
        assert_eq!(Forgeflare::handle(&pre), Verdict::block("no"));
        let post = Event::new("PostToolUse")
            .with_tool(&ToolCall::bash_command("cargo test"))
            .with_field("result", "test result: ok")
            .with_field("is_error", false);
        assert_eq!(
            Forgeflare::handle(&post),
            Verdict::signal("green", "tests pass")
        );
        let start = Event::new("SessionStart").with_session("260215-173319");
        assert_eq!(Forgeflare::handle(&start), Verdict::allow());
        let observer = Event::new("PreToolUse").with_tool(&rm).observing(Observed {
            decision: "block",
            by: Some("g".into()),
            reason: Some("no".into()),
        });
        assert_eq!(Forgeflare::handle(&observer), Verdict::allow());
    }

    #[test]
    fn payload_is_parsed_only_on_demand() {
        let event = Event::new("UserPromptSubmit").with_field("prompt", "hi");
        assert_eq!(event.str_field("prompt").as_deref(), Some("hi"));
        assert_eq!(event.field("missing"), None);
        assert_eq!(event.tool_call(), None);
    }
}
