//! Reading an agent's event: its name (given by `--event` or the payload, resolved through the
//! agent's table, a misspelt built-in event refused), and a snake_case payload split into
//! hookhost's session, working directory, tool call and fields.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::AgentEvent;
use crate::dialect::AgentFormat;
use crate::event::catalog;

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
    /// stdin nests deeper than hookhost reads.
    #[error(
        "the {agent} event on stdin nests arrays and objects more than {} levels deep",
        super::json::MAX_DEPTH
    )]
    TooDeep {
        /// The agent.
        agent: &'static str,
    },
    /// A field that carries JSON as a string (Copilot's `toolArgs`, Cursor's MCP `tool_input`)
    /// cannot be read: the tool's input cannot be examined, so a gate refuses it.
    #[error("the {agent} event's `{field}` is not readable JSON")]
    EmbeddedJson {
        /// The agent.
        agent: &'static str,
        /// The field, as the agent spells it.
        field: &'static str,
        /// Why.
        #[source]
        source: super::json::JsonProblem,
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

/// The JSON type of `value`, for messages (the embedders' event readers say it too).
#[doc(hidden)]
pub fn type_name(value: &Value) -> &'static str {
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
/// hook at all). Policy test files name events as the agent does, and are read with it.
pub fn resolve_name(format: AgentFormat, given: &str) -> Result<String, AgentError> {
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
