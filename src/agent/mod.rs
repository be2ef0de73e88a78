//! Agents that run hookhost as their hook command: Claude Code, Copilot CLI and Gemini CLI.
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
//! event) is its dialect, in [`crate::dialect`]: the renderers here and the `copilot` /
//! `gemini` command-hook protocols both read those tables. What an agent cannot read on an
//! event is never silently lost: a rewrite it cannot apply blocks, and anything else is said on
//! stderr.
//!
//! [`import`] turns the agents' own hook settings into a hooks.toml.

pub mod claude;
pub mod copilot;
pub mod gemini;
pub mod import;
mod plan;

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::config::ConfigError;
use crate::event::{Event, ToolCall, catalog};
use crate::outcome::{Block, Decision, Notice, Outcome};
use crate::verdict::HookFailure;

pub use crate::dialect::{AgentEventSpec, AgentFormat, BlockAs, ContextAs};
pub use plan::Plan;

/// Why the agent's event could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// stdin is not JSON.
    #[error("the {agent} event on stdin is not JSON")]
    Json {
        /// The agent.
        agent: &'static str,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// stdin is JSON, but not an object.
    #[error("the {agent} event on stdin is a JSON {found}, not an object")]
    NotAnObject {
        /// The agent.
        agent: &'static str,
        /// What it is instead.
        found: &'static str,
    },
    /// Neither the payload nor `--event` names the event.
    #[error("the {agent} event names no event: {hint}")]
    NoEventName {
        /// The agent.
        agent: &'static str,
        /// How to name it.
        hint: &'static str,
    },
    /// The event's name is not one of the agent's, or looks like a misspelt built-in one.
    #[error("unknown {agent} event {name}: {hint}")]
    UnknownEvent {
        /// The agent.
        agent: &'static str,
        /// The name as given.
        name: String,
        /// The names the agent has, or the one it probably meant.
        hint: String,
    },
    /// A field has the wrong type.
    #[error("the {agent} event's `{field}` must be {expected}, found {found}")]
    Field {
        /// The agent.
        agent: &'static str,
        /// The field, as the agent spells it.
        field: &'static str,
        /// Its type.
        expected: &'static str,
        /// What it is instead.
        found: &'static str,
    },
}

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

/// What `agent-hook` answers the agent: stdout, stderr and the exit status.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentReply {
    /// The answer the agent parses (JSON, or empty for "no objection").
    pub stdout: String,
    /// Diagnostics: what the agent cannot read on this event, hookhost's warnings, failed hooks.
    /// With exit status 2, the reason the agent reads.
    pub stderr: String,
    /// 0, or 2 where the agent reads a block (or Copilot's postToolUseFailure context) only from
    /// the exit status; 1 when the event could not be read and is not a tool call.
    pub exit_code: u8,
}

impl AgentReply {
    /// Exit 0 with `out` as the JSON answer; nothing at all when it is empty (no objection).
    fn json(out: serde_json::Map<String, serde_json::Value>) -> AgentReply {
        AgentReply {
            stdout: if out.is_empty() {
                String::new()
            } else {
                serde_json::Value::Object(out).to_string()
            },
            stderr: String::new(),
            exit_code: 0,
        }
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
    let value: Value =
        serde_json::from_str(stdin).map_err(|source| AgentError::Json { agent, source })?;
    let Value::Object(object) = value else {
        return Err(AgentError::NotAnObject {
            agent,
            found: type_name(&value),
        });
    };
    match format {
        AgentFormat::Claude => claude::parse(object, event),
        AgentFormat::Copilot => copilot::parse(object, event),
        AgentFormat::Gemini => gemini::parse(object, event),
    }
}

/// hookhost's name for the event of `stdin` (or `--event`), as far as it can be told even when
/// the event cannot be read: a broken event about a tool call must still be refused.
pub fn event_name(format: AgentFormat, stdin: &str, event: Option<&str>) -> Option<String> {
    let from_payload;
    let given = match event {
        Some(given) => given,
        None => {
            let value: Value = serde_json::from_str(stdin).ok()?;
            from_payload = value.get("hook_event_name")?.as_str()?.to_string();
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
    let mut reply = match event.format {
        AgentFormat::Claude => claude::render(spec, &mut plan),
        AgentFormat::Copilot => copilot::render(spec, &mut plan),
        AgentFormat::Gemini => gemini::render(spec, &mut plan),
    };
    let diagnostics = plan.diagnostics(event.format.agent(), spec.agent, outcome);
    // Claude Code reads the whole of stderr as the reason of an exit-2 block.
    let stderr_is_reason = event.format == AgentFormat::Claude && reply.exit_code == 2;
    if !diagnostics.is_empty() && !stderr_is_reason {
        reply.stderr.push_str(&(diagnostics.join("\n") + "\n"));
    }
    reply
}

/// The answer when the configuration does not load: on a tool call (PreToolUse,
/// PermissionRequest) a deny naming the problem (`hook failed: FILE could not be loaded: ...`),
/// never a silent allow; elsewhere a message for the user, and stderr. `event` is hookhost's
/// name for the event, when it is known.
pub fn config_failure_reply(
    format: AgentFormat,
    event: Option<&str>,
    error: &ConfigError,
) -> AgentReply {
    let by = error.path().display().to_string();
    let failure = HookFailure::Config {
        reason: error.one_line(),
    };
    let problem = failure.to_string();
    unrunnable(format, event, Block::failed(&by, failure), &by, &problem)
}

/// The answer when the agent's event cannot be read: as [`config_failure_reply`], with
/// `blocked by hookhost agent-hook: PROBLEM` on a tool call. When nothing says which event it
/// was, exit status 1: the agents' "non-blocking error", the only answer that means the same
/// on every event.
pub fn input_failure_reply(format: AgentFormat, event: Option<&str>, problem: &str) -> AgentReply {
    const BY: &str = "hookhost agent-hook";
    unrunnable(
        format,
        event,
        Block::decided(BY, problem.to_string()),
        BY,
        problem,
    )
}

fn unrunnable(
    format: AgentFormat,
    event: Option<&str>,
    block: Block,
    by: &str,
    problem: &str,
) -> AgentReply {
    let Some(name) = event else {
        return AgentReply {
            stdout: String::new(),
            stderr: format!("hookhost: {by}: {problem}\n"),
            exit_code: 1,
        };
    };
    let mut outcome = Outcome::new(name);
    let spec = catalog::spec(name);
    if !spec.is_custom() && spec.has_tool() && spec.gate {
        outcome.decision = Decision::Block(block);
    } else {
        outcome.notices.push(Notice {
            by: by.to_string(),
            reason: format!("no hook ran: {problem}"),
        });
    }
    let agent_event = AgentEvent {
        format,
        name: name.to_string(),
        session_id: None,
        cwd: None,
        tool: None,
        fields: Vec::new(),
    };
    let mut reply = render_outcome(&agent_event, &outcome);
    if reply.exit_code == 0 && !reply.stderr.contains(problem) {
        reply
            .stderr
            .push_str(&format!("hookhost: {by}: {problem}\n"));
    }
    reply
}

/// The JSON type of `value`, for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// hookhost's name for the event the agent calls `given`: the table's, else `given` itself
/// (a custom event), unless it looks like a misspelt built-in event (such a name would run no
/// hook at all).
pub(crate) fn resolve_name(format: AgentFormat, given: &str) -> Result<String, AgentError> {
    if let Some(spec) = format
        .events()
        .iter()
        .find(|spec| spec.agent == given || spec.hookhost == given)
    {
        return Ok(spec.hookhost.to_string());
    }
    match catalog::lookalike(given) {
        None => Ok(given.to_string()),
        Some(meant) => Err(AgentError::UnknownEvent {
            agent: format.agent(),
            name: crate::text::quote(given),
            hint: format!(
                "did you mean {}? (a misspelt event would run no hook)",
                format
                    .events()
                    .iter()
                    .find(|spec| spec.hookhost == meant.name)
                    .map_or(meant.name, |spec| spec.agent)
            ),
        }),
    }
}

/// The event's name: `--event`, else the payload's `hook_event_name`.
pub(crate) fn given_name<'a>(
    format: AgentFormat,
    object: &'a Map<String, Value>,
    event: Option<&'a str>,
    hint: &'static str,
) -> Result<&'a str, AgentError> {
    if let Some(event) = event {
        return Ok(event);
    }
    match object.get("hook_event_name") {
        Some(Value::String(name)) => Ok(name),
        None | Some(Value::Null) => Err(AgentError::NoEventName {
            agent: format.agent(),
            hint,
        }),
        Some(other) => Err(AgentError::Field {
            agent: format.agent(),
            field: "hook_event_name",
            expected: "a string",
            found: type_name(other),
        }),
    }
}

/// Builds an [`AgentEvent`] from a snake_case payload (Claude's, Gemini's, and Copilot's
/// once its keys are converted): `session_id`, `cwd`, `tool_name` + `tool_input` are taken
/// out; `hook_event_name` is dropped; the tool's result (`tool_response`, `tool_result`)
/// becomes `result`; everything else is payload.
pub(crate) fn from_snake(
    format: AgentFormat,
    name: String,
    mut object: Map<String, Value>,
) -> Result<AgentEvent, AgentError> {
    let agent = format.agent();
    let string = |object: &mut Map<String, Value>, field: &'static str| match object.remove(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(AgentError::Field {
            agent,
            field,
            expected: "a string",
            found: type_name(&other),
        }),
    };
    object.remove("hook_event_name");
    let session_id = string(&mut object, "session_id")?;
    let cwd = string(&mut object, "cwd")?.map(PathBuf::from);
    let tool = string(&mut object, "tool_name")?.map(|tool| {
        let input = object
            .remove("tool_input")
            .unwrap_or(Value::Object(Map::new()));
        (tool, input)
    });
    let mut fields = Vec::with_capacity(object.len());
    for (key, value) in object {
        let key = match key.as_str() {
            "tool_response" | "tool_result" => "result".to_string(),
            _ => key,
        };
        fields.push((key, value));
    }
    Ok(AgentEvent {
        format,
        name,
        session_id,
        cwd,
        tool,
        fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // hooks.toml refuses Claude Code's `Setup` as a misspelt `Stop` (two edits away): no
        // hook can be configured for it, and `import` says so.
        assert_eq!(lookalikes, ["Setup"]);
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
        let unknown = input_failure_reply(AgentFormat::Claude, None, "not JSON");
        assert_eq!((unknown.exit_code, unknown.stdout.as_str()), (1, ""));
    }
}

/// Outcomes and replies for the formats' table-driven tests.
#[cfg(test)]
pub(crate) mod tests_support {
    use std::time::Duration;

    use serde_json::Value;

    use super::{AgentEvent, AgentFormat, AgentReply, render_outcome};
    use crate::event::Phase;
    use crate::outcome::merge::merge;
    use crate::outcome::{HookReport, Outcome};
    use crate::verdict::Verdict;

    /// The outcome of `verdicts`, by hook name, merged as the runner merges them.
    pub(crate) fn outcome(event: &str, verdicts: &[(&str, Verdict)]) -> Outcome {
        let mut outcome = Outcome::new(event);
        for (index, (hook, verdict)) in verdicts.iter().enumerate() {
            merge(&mut outcome, hook, verdict);
            outcome.reports.push(HookReport {
                name: hook.to_string(),
                index,
                event: event.to_string(),
                phase: Phase::Guard,
                kind: "native",
                background: false,
                duration: Duration::ZERO,
                result: Ok(verdict.clone()),
                stderr: String::new(),
                stderr_truncated: false,
            });
        }
        outcome
    }

    /// What `format` answers for `outcome` on `event` (hookhost's name), about a tool call with
    /// `input` when given.
    pub(crate) fn reply(
        format: AgentFormat,
        event: &str,
        input: Option<&Value>,
        outcome: &Outcome,
    ) -> AgentReply {
        let event = AgentEvent {
            format,
            name: event.to_string(),
            session_id: None,
            cwd: None,
            tool: input.map(|input| ("Bash".to_string(), input.clone())),
            fields: Vec::new(),
        };
        render_outcome(&event, outcome)
    }

    /// Asserts `got` is `expected`: stdout compared as JSON (key order aside), stderr and the
    /// exit status as they are.
    pub(crate) fn assert_reply(name: &str, got: &AgentReply, expected: (&str, &str, u8)) {
        if expected.2 == 2 {
            assert_eq!(
                (got.stdout.as_str(), got.stderr.as_str(), got.exit_code),
                expected,
                "{name}"
            );
            return;
        }
        let json = |text: &str| -> Option<Value> {
            (!text.is_empty()).then(|| {
                serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}: {text}"))
            })
        };
        assert_eq!(
            json(&got.stdout),
            json(expected.0),
            "{name}: stdout {}",
            got.stdout
        );
        assert_eq!(
            (got.stderr.as_str(), got.exit_code),
            (expected.1, expected.2),
            "{name}"
        );
    }
}
