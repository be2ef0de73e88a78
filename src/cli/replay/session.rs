//! A recorded session, line by line: tool calls, stops and any other event (the format is in
//! the module documentation of `replay`), each line read with a bound on its length.

use std::io::{BufRead, Read as _};

use anyhow::{Context as _, Result};
use hookhost::StopReason;
use serde::Deserialize;
use serde_json::{Value, json};

/// One line of a session.
pub(super) enum Line {
    Call(CallLine),
    Stop(StopLine),
    Event(EventLine),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CallLine {
    pub(super) tool: String,
    pub(super) input: Value,
    #[serde(default)]
    pub(super) result: String,
    #[serde(default)]
    pub(super) is_error: bool,
    #[serde(default)]
    pub(super) tool_iterations: Option<usize>,
    #[serde(default)]
    pub(super) session_id: Option<String>,
}

/// Any other event: its name, optional session and tool call, and its payload.
pub(super) struct EventLine {
    pub(super) event: String,
    pub(super) session_id: Option<String>,
    pub(super) tool: Option<(String, Value)>,
    pub(super) payload: serde_json::Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StopLine {
    pub(super) stop: StopReason,
    #[serde(default)]
    pub(super) total_tokens: u64,
}

impl Line {
    pub(super) fn parse(text: &str) -> Result<Line, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
        let object = value.as_object().ok_or("not a JSON object")?;
        if object.contains_key("event") {
            return EventLine::parse(value).map(Line::Event);
        }
        let parsed = if object.contains_key("stop") {
            serde_json::from_value(value).map(Line::Stop)
        } else if object.contains_key("tool") {
            serde_json::from_value(value).map(Line::Call)
        } else {
            return Err("neither a tool call ({\"tool\": ..., \"input\": ...}), a stop ({\"stop\": ...}) nor an event ({\"event\": ...})".to_string());
        };
        parsed.map_err(|e| e.to_string())
    }
}

impl EventLine {
    pub(super) fn parse(value: Value) -> Result<EventLine, String> {
        let Value::Object(mut object) = value else {
            return Err("not a JSON object".to_string());
        };
        let event = match object.remove("event") {
            Some(Value::String(name)) if !name.trim().is_empty() => name,
            _ => return Err("`event` must be a non-empty string".to_string()),
        };
        if let Some(meant) = hookhost::event::catalog::lookalike(&event) {
            return Err(format!(
                "unknown event {event:?}; did you mean {:?}?",
                meant.name
            ));
        }
        let session_id = match object.remove("session_id") {
            None => None,
            Some(Value::String(id)) => Some(id),
            Some(_) => return Err("`session_id` must be a string".to_string()),
        };
        let tool = match (object.remove("tool"), object.remove("input")) {
            (Some(Value::String(tool)), input) => Some((tool, input.unwrap_or(json!({})))),
            (None, None) => None,
            (None, Some(_)) => return Err("`input` without `tool`".to_string()),
            (Some(_), _) => return Err("`tool` must be a string".to_string()),
        };
        Ok(EventLine {
            event,
            session_id,
            tool,
            payload: object,
        })
    }
}

/// The longest line of a session hookhost reads.
pub(super) const LINE_MAX_BYTES: usize = 16 << 20;

/// Reads one line of at most [`LINE_MAX_BYTES`]; `Ok(None)` at the end. A line that is too long
/// or not UTF-8 is an `Ok(Some(Err(..)))`, so that `--keep-going` can skip it.
pub(super) fn read_line(
    reader: &mut impl BufRead,
    read_bytes: &mut u64,
) -> Result<Option<Result<String, String>>> {
    let mut bytes = Vec::new();
    let read = reader
        .by_ref()
        .take(LINE_MAX_BYTES as u64 + 1)
        .read_until(b'\n', &mut bytes)
        .context("cannot read the session")?;
    *read_bytes += read as u64;
    if read == 0 {
        return Ok(None);
    }
    if bytes.len() > LINE_MAX_BYTES && !bytes.ends_with(b"\n") {
        // Skip the rest of the line.
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let more = reader
                .by_ref()
                .take(1 << 20)
                .read_until(b'\n', &mut rest)
                .context("cannot read the session")?;
            *read_bytes += more as u64;
            if more == 0 || rest.ends_with(b"\n") {
                break;
            }
        }
        return Ok(Some(Err(format!(
            "the line is longer than {LINE_MAX_BYTES} bytes"
        ))));
    }
    Ok(Some(String::from_utf8(bytes).map_err(|error| {
        format!(
            "the line is not UTF-8 (invalid byte at offset {})",
            error.utf8_error().valid_up_to()
        )
    })))
}
