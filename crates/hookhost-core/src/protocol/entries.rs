//! The stdin object a protocol writes, each key at most once.
//!
//! A protocol writes the keys it derives from the event first (`hook_event_name`, `tool_name`,
//! `tool_input`, forgeflare's `event` and `input`, Copilot's `toolArgs`, ...), then the event's
//! other fields under their own names. A field can carry one of those names (a custom event's
//! payload, an embedder's `with_field`): written again, the object would hold the key twice,
//! and JSON readers differ on which one counts (most keep the last, so a guard would read the
//! field, not the tool call the agent runs; found by fuzzing, `protocol`). The first entry of a
//! key is the one kept: the event's own structure wins over a field of the same name.

use serde::Serialize;
use serde::ser::{SerializeMap as _, Serializer as _};
use serde_json::ser::{CompactFormatter, Compound};

/// One stdin object being written: what [`super::to_json`] hands a protocol's `write`.
pub(crate) struct Entries<'a, 'b> {
    map: Compound<'a, &'b mut Vec<u8>, CompactFormatter>,
    /// The keys written (or reserved) so far: an object has a few dozen at most.
    keys: Vec<String>,
}

impl<'a, 'b> Entries<'a, 'b> {
    /// Opens the object.
    pub(super) fn open(
        serializer: &'a mut serde_json::Serializer<&'b mut Vec<u8>>,
    ) -> serde_json::Result<Entries<'a, 'b>> {
        Ok(Entries {
            map: serializer.serialize_map(None)?,
            keys: Vec::new(),
        })
    }

    /// Writes `key: value`, unless `key` was written (or reserved) already.
    pub(crate) fn serialize_entry<V>(&mut self, key: &str, value: &V) -> serde_json::Result<()>
    where
        V: Serialize + ?Sized,
    {
        if self.claim(key) {
            self.map.serialize_entry(key, value)?;
        }
        Ok(())
    }

    /// Writes the event's session under `key`, or, for an event without one, keeps `key` from
    /// being written at all: a payload field of that name must not stand for a session the
    /// event does not have (a reader takes the key for the session, and refuses one that is not
    /// a string; found by fuzzing, `protocol`).
    pub(crate) fn session(&mut self, key: &str, id: Option<&str>) -> serde_json::Result<()> {
        match id {
            Some(id) => self.serialize_entry(key, id),
            None => {
                self.claim(key);
                Ok(())
            }
        }
    }

    /// Marks `key` as taken; false when it was already.
    fn claim(&mut self, key: &str) -> bool {
        if self.keys.iter().any(|taken| taken == key) {
            return false;
        }
        self.keys.push(key.to_owned());
        true
    }

    /// Closes the object.
    pub(super) fn close(self) -> serde_json::Result<()> {
        self.map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::Protocol;
    use super::super::test_support::view;
    use crate::{Event, ToolCall};

    /// The keys of one JSON object as written, in order, duplicates kept (serde_json's `Value`
    /// would keep only the last of two).
    fn keys(text: &str) -> Vec<String> {
        struct Keys(Vec<String>);
        impl<'de> serde::Deserialize<'de> for Keys {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Visit;
                impl<'de> serde::de::Visitor<'de> for Visit {
                    type Value = Keys;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<Keys, A::Error> {
                        let mut keys = Vec::new();
                        while let Some((key, _)) = map.next_entry::<String, Value>()? {
                            keys.push(key);
                        }
                        Ok(Keys(keys))
                    }
                }
                d.deserialize_map(Visit)
            }
        }
        serde_json::from_str::<Keys>(text).unwrap().0
    }

    /// Regression (fuzzing, `protocol`): an event whose fields carry the names a protocol
    /// writes for the event itself (`hook_event_name`, `tool_input`, forgeflare's `event`,
    /// Copilot's `toolArgs`, ...) is written with each key once, and the key keeps what the
    /// protocol derived from the event, not the field's value.
    #[test]
    fn a_field_named_like_a_written_key_does_not_write_it_twice() {
        let input = json!({"command": "rm -rf /"});
        let fields = [
            "hook_event_name",
            "hookEventName",
            "tool_name",
            "tool_input",
            "toolName",
            "toolArgs",
            "event",
            "input",
            "tool",
            "phase",
            "session_id",
            "sessionId",
            "conversation_id",
            "cwd",
            "workspace_roots",
            "timestamp",
        ];
        let mut event = Event::new("PreToolUse")
            .with_session("s1")
            .with_tool(ToolCall {
                tool: "Bash",
                input: &input,
                tool_iterations: 1,
            });
        for name in fields {
            event = event.with_field(name, json!("from a field"));
        }
        for (protocol, spelling) in Protocol::ALL {
            let text = String::from_utf8(protocol.stdin(&view(&event))).unwrap();
            let mut written = keys(&text);
            let all = written.len();
            written.sort();
            written.dedup();
            assert_eq!(
                written.len(),
                all,
                "{spelling}: a key written twice in {text}"
            );
            let object: Value = serde_json::from_str(&text).unwrap();
            let key = match spelling {
                "forgeflare" | "exit-code" => "input",
                "copilot" => "toolArgs",
                _ => "tool_input",
            };
            assert!(
                object
                    .get(key)
                    .is_some_and(|value| value != &json!("from a field")),
                "{spelling}: the tool's input is the field's, not the call's: {text}"
            );
        }
    }
}

#[cfg(test)]
mod tests_session {
    use serde_json::{Value, json};

    use super::super::Protocol;
    use super::super::test_support::view;
    use crate::Event;

    /// Regression (fuzzing, `protocol`: fuzz/corpus/protocol/regression-session-field): a
    /// payload field named like a protocol's session key (`session_id`, Copilot's `sessionId`,
    /// Cursor's `conversation_id`) stood for the session of an event that has none (a number
    /// there made Claude Code's reader refuse the whole stdin), or for another one.
    #[test]
    fn only_the_events_session_is_written_under_the_session_key() {
        let fields = [
            ("session_id", json!(-7)),
            ("sessionId", json!("from a field")),
            ("conversation_id", json!("from a field")),
        ];
        for session in [None, Some("s1")] {
            let mut event = Event::new("UserPromptSubmit");
            if let Some(id) = session {
                event = event.with_session(id);
            }
            for (name, value) in &fields {
                event = event.with_field(*name, value.clone());
            }
            for (protocol, key) in [
                (Protocol::Claude, "session_id"),
                (Protocol::Gemini, "session_id"),
                (Protocol::Codex, "session_id"),
                (Protocol::Forgeflare, "session_id"),
                (Protocol::Copilot, "sessionId"),
                (Protocol::Cursor, "conversation_id"),
            ] {
                let text = String::from_utf8(protocol.stdin(&view(&event))).unwrap();
                let object: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(
                    object.get(key),
                    session.map(|id| json!(id)).as_ref(),
                    "{protocol}: {text}"
                );
            }
        }
    }
}
