//! The event as JSON in: the event model's documented shape (docs/events.md), read into an
//! [`OwnedEvent`] with errors that name the key at fault.
//!
//! ```json
//! {"event": "PreToolUse", "session_id": "s1", "cwd": "/repo", "tool": "Bash",
//!  "input": {"command": "ls"}, "tool_iterations": 3, "env": {"AGENT_STEP": "7"},
//!  "permission_mode": "default"}
//! ```
//!
//! `event` names the event (built-in or custom); `session_id`, `cwd`, `tool`, `input`,
//! `tool_iterations` (with a tool: the call's batch counter; without one, a payload field, as
//! forgeflare's Stop carries it) and `env` (variables for the command hooks this event runs,
//! as [`crate::Event::with_env`] adds them) are hookhost's; every other key is one of the
//! event's own fields, kept in the order given. The keys hookhost itself writes for hooks
//! (`phase`, and what observers are told the guards decided) are refused as fields.

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::event::{Event, OwnedEvent, catalog};

/// An event read from JSON, and the working directory it names, if any.
#[derive(Debug, Clone)]
pub struct EventJson {
    event: OwnedEvent,
    cwd: Option<String>,
}

/// Why an event's JSON was refused: what is wrong, with the key at fault.
#[derive(Debug, thiserror::Error)]
pub enum EventJsonError {
    /// Not JSON, or not a JSON object (serde's message says where: line and column).
    #[error("the event is not a JSON object")]
    Json {
        /// The parser's error, with its line and column.
        #[source]
        source: serde_json::Error,
    },
    /// A key is missing, has the wrong type, or is not allowed here.
    #[error("the event's `{key}` {problem}")]
    Key {
        /// The key, as the JSON spells it (`env.NAME` inside `env`).
        key: String,
        /// What is wrong with it, and how to fix it.
        problem: String,
    },
    /// The event's name looks like a misspelt built-in event: such an event would reach no
    /// hook at all.
    #[error(
        "unknown event {}: did you mean {}? (a custom event's name must not look like a built-in one; names with `:`, `_`, `.`, `-` or `/` are always custom)",
        crate::text::quote(given),
        crate::text::quote(meant)
    )]
    UnknownEvent {
        /// The name as given.
        given: String,
        /// The built-in event it resembles.
        meant: &'static str,
    },
    /// The event names a working directory other than the runner's: its hooks would run in,
    /// and be told, the wrong directory.
    #[error(
        "the event's `cwd` {} is not the runner's directory {}: hooks run in the runner's directory; load a runner for {} (its options' cwd), or leave `cwd` out",
        crate::text::quote(given),
        crate::text::quote(runner),
        crate::text::quote(given)
    )]
    Cwd {
        /// The event's `cwd`.
        given: String,
        /// The runner's.
        runner: String,
    },
}

/// Keys hookhost writes into a hook's JSON itself: an event field of that name would be
/// written twice.
const RESERVED: &[&str] = &[
    "phase",
    "blocked",
    "blocked_by",
    "block_reason",
    "decision",
    "decided_by",
    "decision_reason",
];

impl EventJson {
    /// Reads an event from its JSON (see the module documentation for the shape).
    pub fn parse(json: &[u8]) -> Result<EventJson, EventJsonError> {
        let Entries(entries) =
            serde_json::from_slice(json).map_err(|source| EventJsonError::Json { source })?;
        let has_tool = entries.iter().any(|(key, _)| key == "tool");
        let mut name = None;
        let mut session_id = None;
        let mut cwd = None;
        let mut tool = None;
        let mut input = None;
        let mut tool_iterations = 0;
        let mut env = Vec::new();
        let mut fields = Vec::new();
        for (key, value) in entries {
            match key.as_str() {
                "event" => name = Some(string(&key, value)?),
                "session_id" if value.is_null() => {}
                "session_id" => session_id = Some(string(&key, value)?),
                "cwd" => cwd = Some(string(&key, value)?),
                "tool" => tool = Some(string(&key, value)?),
                "input" => input = Some(value),
                "tool_iterations" if has_tool => tool_iterations = count(&key, &value)?,
                "env" => env = variables(value)?,
                reserved if RESERVED.contains(&reserved) => {
                    return Err(key_error(
                        &key,
                        "is hookhost's to write into a hook's JSON (the hook's phase, what the guards decided); rename the field",
                    ));
                }
                _ => fields.push((key, value)),
            }
        }
        let name = match name {
            Some(name) if !name.trim().is_empty() => name,
            Some(_) => return Err(key_error("event", "is empty: name the event")),
            None => {
                return Err(key_error(
                    "event",
                    "is missing: name the event, as in {\"event\": \"PreToolUse\", \"tool\": \"Bash\", \"input\": {...}}",
                ));
            }
        };
        if let Some(meant) = catalog::lookalike(&name) {
            return Err(EventJsonError::UnknownEvent {
                given: name,
                meant: meant.name,
            });
        }
        let spec = catalog::spec(&name);
        let call = match (tool, input) {
            (Some(tool), input) => {
                if !spec.is_custom() && !spec.has_tool() {
                    return Err(key_error(
                        "tool",
                        &format!(
                            "is not expected: a {name} event is not about a tool call; leave `tool` and `input` out"
                        ),
                    ));
                }
                Some((
                    tool,
                    input.unwrap_or_else(|| Value::Object(Default::default())),
                    tool_iterations,
                ))
            }
            (None, Some(_)) => {
                return Err(key_error(
                    "input",
                    "is given without `tool`: name the tool whose input it is",
                ));
            }
            (None, None) if !spec.is_custom() && spec.has_tool() => {
                return Err(key_error(
                    "tool",
                    &format!(
                        "is missing: a {name} event is about a tool call; give `tool` (the tool's name) and `input`"
                    ),
                ));
            }
            (None, None) => None,
        };
        if name == "PostToolUse" {
            // R3, as `Event::post_tool_use` does: a hook sees a long result cut.
            for (key, value) in &mut fields {
                if key == "result"
                    && let Value::String(result) = value
                    && let std::borrow::Cow::Owned(capped) = crate::event::cap_result(result)
                {
                    *result = capped;
                }
            }
        }
        Ok(EventJson {
            event: OwnedEvent::from_parts(name, session_id, call, fields, env),
            cwd,
        })
    }

    /// The event, borrowed.
    pub fn event(&self) -> Event<'_> {
        self.event.view()
    }

    /// The event, owned.
    pub fn into_event(self) -> OwnedEvent {
        self.event
    }

    /// The working directory the event names, if it names one.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// Checks that the event's `cwd`, if it has one, is `runner_cwd` (compared lexically:
    /// `/repo/./x/..` is `/repo`). Hooks run in, and are told, the runner's directory.
    pub fn check_cwd(&self, runner_cwd: &Path) -> Result<(), EventJsonError> {
        match &self.cwd {
            Some(given)
                if crate::dirs::lexical(Path::new(given)) != crate::dirs::lexical(runner_cwd) =>
            {
                Err(EventJsonError::Cwd {
                    given: given.clone(),
                    runner: runner_cwd.display().to_string(),
                })
            }
            _ => Ok(()),
        }
    }
}

fn key_error(key: &str, problem: &str) -> EventJsonError {
    EventJsonError::Key {
        key: key.to_string(),
        problem: problem.to_string(),
    }
}

fn wrong_type(key: &str, expected: &str, value: &Value) -> EventJsonError {
    key_error(
        key,
        &format!(
            "must be {expected}, found {}",
            crate::agent::type_name(value)
        ),
    )
}

fn string(key: &str, value: Value) -> Result<String, EventJsonError> {
    match value {
        Value::String(text) => Ok(text),
        other => Err(wrong_type(key, "a string", &other)),
    }
}

fn count(key: &str, value: &Value) -> Result<usize, EventJsonError> {
    value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| match value {
            Value::Number(_) => key_error(key, "must be a whole number of 0 or more"),
            other => wrong_type(key, "a whole number", other),
        })
}

fn variables(value: Value) -> Result<Vec<(String, String)>, EventJsonError> {
    let Value::Object(object) = value else {
        return Err(wrong_type(
            "env",
            "an object of strings ({\"NAME\": \"value\"})",
            &value,
        ));
    };
    object
        .into_iter()
        .map(|(name, value)| match value {
            Value::String(text) if !name.is_empty() && !name.contains(['=', '\0']) => {
                Ok((name, text))
            }
            Value::String(_) => Err(key_error(
                &format!("env.{name}"),
                "is not a variable name (empty, or with `=` or a NUL byte)",
            )),
            other => Err(wrong_type(&format!("env.{name}"), "a string", &other)),
        })
        .collect()
}

/// A JSON object's entries in the order written, a key given twice refused (a map would keep
/// one of the two silently).
struct Entries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Entries, D::Error> {
        deserializer.deserialize_map(EntriesVisitor)
    }
}

struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Entries;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object such as {\"event\": \"PreToolUse\", ...}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
        let mut entries: Vec<(String, Value)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            if entries.iter().any(|(seen, _)| *seen == key) {
                return Err(serde::de::Error::custom(format!(
                    "the key `{key}` appears twice"
                )));
            }
            entries.push((key, value));
        }
        Ok(Entries(entries))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::text::error_chain;

    fn error(json: &str) -> String {
        error_chain(&EventJson::parse(json.as_bytes()).unwrap_err())
    }

    #[test]
    fn reads_the_documented_shape() {
        let parsed = EventJson::parse(
            br#"{"event":"PreToolUse","session_id":"s1","cwd":"/repo","tool":"Bash","input":{"command":"ls"},"tool_iterations":3,"env":{"STEP":"7"},"zeta":1,"alpha":2}"#,
        )
        .unwrap();
        let event = parsed.event();
        assert_eq!(event.name(), "PreToolUse");
        assert_eq!(event.session_id(), Some("s1"));
        let call = event.tool_call().unwrap();
        assert_eq!(
            (call.tool, call.input, call.tool_iterations),
            ("Bash", &json!({"command": "ls"}), 3)
        );
        assert_eq!(event.env().collect::<Vec<_>>(), [("STEP", "7")]);
        // The agent's order, not the alphabet's.
        let fields: Vec<&str> = event.fields().map(|(name, _)| name).collect();
        assert_eq!(fields, ["zeta", "alpha"]);
        assert_eq!(parsed.cwd(), Some("/repo"));
    }

    #[test]
    fn stop_keeps_tool_iterations_as_a_field_and_custom_events_take_anything() {
        let stop = EventJson::parse(
            br#"{"event":"Stop","reason":"end_turn","tool_iterations":7,"total_tokens":45000}"#,
        )
        .unwrap();
        assert_eq!(stop.event().field("tool_iterations"), Some(&json!(7)));
        assert!(stop.event().tool_call().is_none());
        let custom =
            EventJson::parse(br#"{"event":"TeammateIdle","teammate_name":"t","session_id":null}"#)
                .unwrap();
        assert_eq!(custom.event().session_id(), None);
        assert_eq!(custom.event().field("teammate_name"), Some(&json!("t")));
    }

    #[test]
    fn a_long_post_tool_use_result_is_cut_for_hooks() {
        let long = "x".repeat(6000);
        let json = json!({"event": "PostToolUse", "tool": "Bash", "input": {}, "result": long});
        let parsed = EventJson::parse(json.to_string().as_bytes()).unwrap();
        let result = parsed
            .event()
            .field("result")
            .unwrap()
            .as_str()
            .unwrap()
            .to_string();
        assert!(result.contains("(truncated for hook, full result: 6000 bytes)"));
    }

    #[test]
    fn errors_name_the_key_and_the_fix() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, &str)] = &[
            ("not json", "{", "the event is not a JSON object: EOF while parsing an object at line 1 column 1"),
            ("an array", "[1]", "the event is not a JSON object: invalid type: sequence, expected a JSON object such as {\"event\": \"PreToolUse\", ...} at line 1 column 0"),
            ("no event", r#"{"tool":"Bash"}"#, "the event's `event` is missing: name the event, as in {\"event\": \"PreToolUse\", \"tool\": \"Bash\", \"input\": {...}}"),
            ("event not a string", r#"{"event":3}"#, "the event's `event` must be a string, found number"),
            ("empty event", r#"{"event":" "}"#, "the event's `event` is empty: name the event"),
            ("tool event without tool", r#"{"event":"PreToolUse","input":{}}"#, "the event's `input` is given without `tool`: name the tool whose input it is"),
            ("tool event with nothing", r#"{"event":"PostToolUse"}"#, "the event's `tool` is missing: a PostToolUse event is about a tool call; give `tool` (the tool's name) and `input`"),
            ("tool on a session event", r#"{"event":"SessionStart","tool":"Bash"}"#, "the event's `tool` is not expected: a SessionStart event is not about a tool call; leave `tool` and `input` out"),
            ("tool not a string", r#"{"event":"PreToolUse","tool":{}}"#, "the event's `tool` must be a string, found object"),
            ("negative iterations", r#"{"event":"PreToolUse","tool":"B","tool_iterations":-1}"#, "the event's `tool_iterations` must be a whole number of 0 or more"),
            ("env not an object", r#"{"event":"Stop","env":["A"]}"#, "the event's `env` must be an object of strings ({\"NAME\": \"value\"}), found array"),
            ("env value", r#"{"event":"Stop","env":{"A":1}}"#, "the event's `env.A` must be a string, found number"),
            ("env name", r#"{"event":"Stop","env":{"A=B":"1"}}"#, "the event's `env.A=B` is not a variable name (empty, or with `=` or a NUL byte)"),
            ("reserved", r#"{"event":"Stop","phase":"guard"}"#, "the event's `phase` is hookhost's to write into a hook's JSON (the hook's phase, what the guards decided); rename the field"),
            ("twice", r#"{"event":"Stop","a":1,"a":2}"#, "the event is not a JSON object: the key `a` appears twice at line 1 column 28"),
            ("lookalike", r#"{"event":"PreToolUSE"}"#, "unknown event \"PreToolUSE\": did you mean \"PreToolUse\"? (a custom event's name must not look like a built-in one; names with `:`, `_`, `.`, `-` or `/` are always custom)"),
        ];
        for (name, json, expected) in cases {
            assert_eq!(&error(json), expected, "case {name}");
        }
    }

    #[test]
    fn cwd_must_be_the_runners() {
        let parsed = EventJson::parse(br#"{"event":"Stop","cwd":"/repo/./sub/.."}"#).unwrap();
        parsed.check_cwd(Path::new("/repo")).unwrap();
        assert_eq!(
            parsed
                .check_cwd(Path::new("/other"))
                .unwrap_err()
                .to_string(),
            "the event's `cwd` \"/repo/./sub/..\" is not the runner's directory \"/other\": hooks run in the runner's directory; load a runner for \"/repo/./sub/..\" (its options' cwd), or leave `cwd` out"
        );
        let without = EventJson::parse(br#"{"event":"Stop"}"#).unwrap();
        without.check_cwd(Path::new("/anywhere")).unwrap();
    }
}
