//! Agents that run hookhost as their hook command: Claude Code, Copilot CLI, Gemini CLI, Codex
//! CLI and Cursor.
//!
//! Each of them runs a shell command per hook, with the event as JSON on stdin, and reads the
//! command's exit status and output back. `hookhost agent-hook --format FORMAT` is that command;
//! this module is its library half, so that a Rust agent (or a test) can use it too:
//!
//! ```text
//! agent's stdin JSON ──parse_event──▶ AgentEvent ──event()──▶ HookRunner::fire ──▶ Outcome
//!                                                                                     │
//! agent reads stdout + exit status ◀──────────────── AgentReply ◀──render_outcome─────┘
//! ```
//!
//! What each agent's JSON looks like (its event names, what it reads from an answer on each
//! event) is its dialect, in `hookhost_core::dialect`: the renderers here and the agents'
//! command-hook protocols both read those tables. What an agent cannot read on an
//! event is never silently lost: a rewrite it cannot apply blocks, and anything else is said on
//! stderr.
//!
//! [`sdk`] answers the Claude Agent SDK's in-process hook callbacks the same way.
//!
//! [`import`] turns the agents' own hook settings into a hooks.toml.
//!
//! This crate is the agents' edge above the loading layer (`hookhost-load`): it builds a runner
//! for the agent's project and fires the agent's event through it. Embedders reach it as
//! `hookhost::agent`; the daemon (`hookhost-serve`) and the CLI's `agent-hook` are its callers.

mod answer;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod import;
pub mod json;
mod plan;
mod read;
mod reply;
pub mod sdk;
#[cfg(test)]
pub(crate) mod test_support;

// What the moved modules name by their old paths (`crate::dialect`, `crate::runner`, ...): the
// core's modules and the loading layer's.
#[cfg(test)]
use hookhost_core::{Config, Verdict, native};
use hookhost_core::{config, dialect, event, matcher, outcome, text, verdict};
use hookhost_load::{load, runner};

use std::path::PathBuf;

use serde_json::Value;

use crate::event::{Event, ToolCall};
use crate::outcome::Outcome;

pub use crate::dialect::{AgentEventSpec, AgentFormat, BlockAs, ContextAs};
pub use answer::project_dir_env;
pub use answer::{AgentCall, Caller, EVENT_MAX_BYTES, Prepared, answer, unreadable};
pub use plan::Plan;
pub use read::AgentError;
pub use read::resolve_name;
#[doc(hidden)]
pub use read::type_name;
pub(crate) use read::{from_snake, given_name};
pub use reply::{AgentReply, config_failure_reply, input_failure_reply};

/// An agent's event, translated into hookhost's terms, owning its data.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentEvent {
    /// The agent it came from.
    pub format: AgentFormat,
    /// hookhost's name for the event (a built-in one, or the agent's own for a custom event).
    pub name: String,
    /// The session id, when the agent gave one.
    pub session_id: Option<String>,
    /// The agent's working directory, when it gave one: hooks run there and the layered
    /// configuration is discovered from it.
    pub cwd: Option<PathBuf>,
    /// The tool call: the agent's tool name and its input (Copilot's `toolArgs` parsed).
    pub tool: Option<(String, Value)>,
    /// The rest of the payload, in snake_case (the tool's result as `result`).
    pub fields: Vec<(String, Value)>,
}

impl AgentEvent {
    /// The event, as the runner fires it. Command hooks also get `HOOKHOST_AGENT`.
    pub fn event(&self) -> Event<'_> {
        let mut event =
            Event::new(self.name.as_str()).with_env("HOOKHOST_AGENT", self.format.as_str());
        if let Some(id) = &self.session_id {
            event = event.with_session(id.as_str());
        }
        if let Some((tool, input)) = &self.tool {
            event = event.with_tool(ToolCall {
                tool,
                input,
                tool_iterations: 0,
            });
        }
        for (name, value) in &self.fields {
            event = event.with_field(name.as_str(), value.clone());
        }
        event
    }

    /// What the agent reads on this event.
    pub fn spec(&self) -> &'static AgentEventSpec {
        self.format.spec(&self.name)
    }
}

/// Reads an agent's event from its stdin text. `event` is `--event`: it names the event
/// when the payload does not (Copilot's camelCase payloads), and wins when both do.
pub fn parse_event(
    format: AgentFormat,
    stdin: &str,
    event: Option<&str>,
) -> Result<AgentEvent, AgentError> {
    let agent = format.agent();
    let value = json::parse(stdin).map_err(|problem| match problem {
        json::JsonProblem::Syntax(source) => AgentError::Json { agent, source },
        json::JsonProblem::TooDeep => AgentError::TooDeep { agent },
    })?;
    let Value::Object(object) = value else {
        return Err(AgentError::NotAnObject {
            agent,
            found: type_name(&value),
        });
    };
    parse_as(format, object, event)
}

/// hookhost's name for the event of `stdin` (or `--event`), as far as it can be told even when
/// the event cannot be read (cut, not UTF-8, not JSON): a broken event about a tool call must
/// still be refused.
pub fn event_name(format: AgentFormat, stdin: &[u8], event: Option<&str>) -> Option<String> {
    let from_payload;
    let given = match event {
        Some(given) => given,
        None => {
            from_payload = json::event_name_in(stdin)?;
            &from_payload
        }
    };
    match format {
        AgentFormat::Copilot => copilot::event(given).map(|spec| spec.hookhost.to_string()),
        _ => resolve_name(format, given).ok(),
    }
}

/// The agent's answer for `outcome`: exit 0 with JSON where the agent reads JSON, never JSON
/// and exit 2 together.
pub fn render_outcome(event: &AgentEvent, outcome: &Outcome) -> AgentReply {
    let spec = event.spec();
    let original = event.tool.as_ref().map(|(_, input)| input);
    let mut plan = Plan::new(spec, original, outcome);
    let mut reply = render_as(event.format, spec, &mut plan);
    let diagnostics = plan.diagnostics(event.format.agent(), spec.agent, outcome);
    // Claude Code reads the whole of stderr as the reason of an exit-2 block.
    let stderr_is_reason = event.format == AgentFormat::Claude && reply.exit_code == 2;
    if !diagnostics.is_empty() && !stderr_is_reason {
        reply.stderr.push_str(&(diagnostics.join("\n") + "\n"));
    }
    reply
}

/// `parse_as` and `render_as`: each agent's reader and writer, `agent::NAME::{parse, render}`,
/// from the agents' table (`dialect::for_each_agent!`).
macro_rules! agent_adapters {
    ($($(#[$doc:meta])* $variant:ident $module:ident,)*) => {
        fn parse_as(
            format: AgentFormat,
            object: serde_json::Map<String, Value>,
            event: Option<&str>,
        ) -> Result<AgentEvent, AgentError> {
            match format {
                $(AgentFormat::$variant => $module::parse(object, event),)*
            }
        }

        fn render_as(format: AgentFormat, spec: &AgentEventSpec, plan: &mut Plan) -> AgentReply {
            match format {
                $(AgentFormat::$variant => $module::render(spec, plan),)*
            }
        }
    };
}
crate::dialect::for_each_agent!(agent_adapters);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::catalog;

    #[test]
    fn formats_round_trip_through_their_names() {
        for (format, name) in AgentFormat::ALL {
            assert_eq!(AgentFormat::from_name(name), Some(format));
            assert_eq!(format.as_str(), name);
        }
        assert_eq!(AgentFormat::from_name("Claude"), None);
    }

    #[test]
    fn every_table_names_each_event_once_on_each_side() {
        let mut lookalikes = Vec::new();
        for (format, _) in AgentFormat::ALL {
            let events = format.events();
            for (i, spec) in events.iter().enumerate() {
                for other in &events[i + 1..] {
                    assert_ne!(spec.agent, other.agent, "{format}: {} twice", spec.agent);
                    assert_ne!(
                        spec.hookhost, other.hookhost,
                        "{format}: {} twice",
                        spec.hookhost
                    );
                }
                if catalog::lookalike(spec.hookhost).is_some() {
                    lookalikes.push(spec.hookhost);
                }
            }
        }
        // Every agent's event can be configured: none is refused as a misspelt built-in one
        // (Claude Code's `Setup` is two edits from `Stop`, and is exempt by name).
        assert_eq!(lookalikes, Vec::<&str>::new());
    }

    /// docs/agents.md has a row per Codex and Cursor event, and says "-" exactly where the
    /// agent's table says it reads nothing.
    #[test]
    fn the_docs_tables_are_the_dialects() {
        let docs = include_str!("../../../docs/agents.md");
        for format in [AgentFormat::Codex, AgentFormat::Cursor] {
            for spec in format.events() {
                let row = docs
                    .lines()
                    .find(|line| line.starts_with(&format!("| `{}` | ", spec.agent)))
                    .unwrap_or_else(|| {
                        panic!("{format}: no row for {} in docs/agents.md", spec.agent)
                    });
                let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
                assert!(cells[1].starts_with(spec.hookhost), "{row}");
                let says = |cell: &str| !cell.starts_with('-');
                let mut expected = vec![
                    ("a block", spec.block != BlockAs::Nothing, cells[2]),
                    ("ask", spec.ask, cells[3]),
                    ("approve", spec.approve, cells[4]),
                    ("rewrite", spec.rewrite, cells[5]),
                    ("context", spec.context != ContextAs::Nothing, cells[6]),
                ];
                match format {
                    AgentFormat::Codex => {
                        expected.push(("stop", spec.stop, cells[7]));
                        expected.push(("message", spec.message, cells[8]));
                    }
                    _ => {
                        assert!(!spec.stop, "{row}");
                        expected.push(("message", spec.message, cells[7]));
                    }
                }
                for (what, reads, cell) in expected {
                    assert_eq!(says(cell), reads, "{format} {}: {what}: {row}", spec.agent);
                }
            }
        }
    }

    #[test]
    fn input_errors_say_what_is_wrong() {
        #[rustfmt::skip]
        let cases = [
            (AgentFormat::Claude, "nope", None, "the Claude Code event on stdin is not JSON"),
            (AgentFormat::Claude, "[1]", None, "the Claude Code event on stdin is a JSON array, not an object"),
            (AgentFormat::Claude, "{}", None, "the Claude Code event names no event"),
            (AgentFormat::Copilot, r#"{"toolName":"bash"}"#, None, "pass --event preToolUse"),
            (AgentFormat::Copilot, r#"{"toolName":"bash"}"#, Some("preTool"), "unknown Copilot CLI event \"preTool\": did you mean preToolUse?"),
            (AgentFormat::Claude, r#"{"hook_event_name":"PreToolUSE"}"#, None, "did you mean PreToolUse?"),
            (AgentFormat::Claude, r#"{"hook_event_name":"PreToolUse","tool_name":7}"#, None, "`tool_name` must be a string, found number"),
            (AgentFormat::Gemini, r#"{"hook_event_name":"BeforeTool","cwd":[]}"#, None, "`cwd` must be a string, found array"),
        ];
        for (format, stdin, event, expected) in cases {
            let error = parse_event(format, stdin, event).unwrap_err().to_string();
            assert!(error.contains(expected), "{format} {stdin}: {error}");
        }
    }

    #[test]
    fn what_cannot_run_denies_tool_calls_and_warns_elsewhere() {
        let error = crate::Config::parse(
            "[[hooks]]\nevent = \"PreToolUse\"\ncomand = \"x\"\n",
            "hooks.toml",
        )
        .unwrap_err();
        let pre = config_failure_reply(AgentFormat::Claude, Some("PreToolUse"), &error);
        let json: Value = serde_json::from_str(&pre.stdout).unwrap();
        assert_eq!(json["hookSpecificOutput"]["permissionDecision"], "deny");
        let reason = json["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(
            reason.starts_with(
                "hook failed: hooks.toml could not be loaded: hooks.toml:1:1: hook #1: "
            ),
            "{reason}"
        );
        assert!(reason.ends_with("(tool blocked by default)"), "{reason}");
        assert_eq!(pre.exit_code, 0);
        let copilot = config_failure_reply(AgentFormat::Copilot, Some("PermissionRequest"), &error);
        assert!(
            copilot.stdout.contains(r#""behavior":"deny""#),
            "{copilot:?}"
        );
        let stop = config_failure_reply(AgentFormat::Gemini, Some("Stop"), &error);
        assert!(
            stop.stdout.contains("no hook ran: could not be loaded"),
            "{stop:?}"
        );
        assert!(!stop.stdout.contains("deny"), "{stop:?}");
        let input = input_failure_reply(AgentFormat::Gemini, Some("PreToolUse"), "not JSON");
        assert_eq!(
            input.stdout,
            r#"{"decision":"deny","reason":"blocked by hookhost agent-hook: not JSON"}"#
        );
        // No event to answer in: exit 2, every agent's refusal (exit 1 would let a tool run).
        let unknown = input_failure_reply(AgentFormat::Claude, None, "not JSON");
        assert_eq!((unknown.exit_code, unknown.stdout.as_str()), (2, ""));
    }
}
