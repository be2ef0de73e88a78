//! [`OwnedEvent`]: an event that owns its data, for a caller that cannot keep the borrowed
//! parts of an [`Event`] alive across the call (a language boundary, a daemon's request).

use std::borrow::Cow;

use serde_json::Value;

use super::{Event, ToolCall};

/// An [`Event`] that owns its data, so that a background hook can outlive the agent's call.
#[derive(Debug, Clone)]
pub struct OwnedEvent {
    pub(super) name: String,
    pub(super) session_id: Option<String>,
    pub(super) call: Option<(String, Value, usize)>,
    pub(super) fields: Vec<(String, Value)>,
    pub(super) env: Vec<(String, String)>,
}

impl OwnedEvent {
    /// An event from its parts, as read from JSON at a language boundary (`embed`): the tool
    /// call is its tool's name, input and batch counter.
    pub fn from_parts(
        name: String,
        session_id: Option<String>,
        call: Option<(String, Value, usize)>,
        fields: Vec<(String, Value)>,
        env: Vec<(String, String)>,
    ) -> OwnedEvent {
        OwnedEvent {
            name,
            session_id,
            call,
            fields,
            env,
        }
    }

    /// The event's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The event, borrowed from this copy.
    pub fn view(&self) -> Event<'_> {
        Event {
            name: Cow::Borrowed(&self.name),
            session_id: self.session_id.as_deref().map(Cow::Borrowed),
            call: self
                .call
                .as_ref()
                .map(|(tool, input, tool_iterations)| ToolCall {
                    tool,
                    input,
                    tool_iterations: *tool_iterations,
                }),
            fields: self
                .fields
                .iter()
                .map(|(name, value)| (Cow::Borrowed(name.as_str()), Cow::Borrowed(value)))
                .collect(),
            env: self
                .env
                .iter()
                .map(|(name, value)| (Cow::Borrowed(name.as_str()), Cow::Borrowed(value.as_str())))
                .collect(),
        }
    }
}
