//! An agent's JSON read as the agent itself writes and reads it, so that nothing a model can
//! put into a tool call makes hookhost unable to answer.
//!
//! The agents are JavaScript (Claude Code, Copilot CLI, Gemini CLI, Cursor) or Rust (Codex):
//! their JSON can carry what serde_json refuses by default. A lone UTF-16 surrogate escape
//! (`"\ud800"`) is valid to `JSON.parse` and to `JSON.stringify`, and a model can produce one;
//! it is read here as U+FFFD, the replacement character. Nesting deeper than serde_json's 128
//! levels (an MCP tool's arguments) is read up to [`MAX_DEPTH`] levels; deeper input is refused
//! with a message, and on a gate event a refused input blocks.
//!
//! [`event_name_in`] finds the event's name in bytes that cannot be read at all (too large, not
//! UTF-8, not JSON), so that even then a tool call is refused in the agent's own format.

use std::borrow::Cow;

use serde::Deserialize as _;
use serde_json::Value;

/// The deepest nesting of arrays and objects read: well past what agents and models write,
/// and shallow enough that reading, copying and dropping a value never nears a thread's stack.
pub const MAX_DEPTH: usize = 512;

/// Why a text is not read.
#[derive(Debug, thiserror::Error)]
pub enum JsonProblem {
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("it nests arrays and objects more than {MAX_DEPTH} levels deep")]
    TooDeep,
    /// Not JSON.
    #[error(transparent)]
    Syntax(#[from] serde_json::Error),
}

/// Reads `text` as the agents' own JSON readers do: lone surrogate escapes as U+FFFD, nesting
/// up to [`MAX_DEPTH`].
pub fn parse(text: &str) -> Result<Value, JsonProblem> {
    let text = repaired(text)?;
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    // The depth was bounded by the scan above; serde_json's own limit (128) is lower.
    deserializer.disable_recursion_limit();
    let value = Value::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// `text` with every lone surrogate escape replaced by `\ufffd`, after checking that no array
/// or object nests deeper than [`MAX_DEPTH`] (outside strings). Borrowed when nothing changes.
fn repaired(text: &str) -> Result<Cow<'_, str>, JsonProblem> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    // Everything before `copied` is in `out` (when it is used).
    let mut copied = 0;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if !in_string {
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(JsonProblem::TooDeep);
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' if bytes.get(i + 1) == Some(&b'u') => {
                let Some(unit) = hex4(bytes, i + 2) else {
                    // Malformed: serde_json says where.
                    i += 2;
                    continue;
                };
                let paired = match unit {
                    0xD800..=0xDBFF => {
                        let next = (bytes.get(i + 6) == Some(&b'\\')
                            && bytes.get(i + 7) == Some(&b'u'))
                        .then(|| hex4(bytes, i + 8))
                        .flatten();
                        matches!(next, Some(0xDC00..=0xDFFF))
                    }
                    0xDC00..=0xDFFF => false,
                    _ => {
                        i += 6;
                        continue;
                    }
                };
                if paired {
                    i += 12;
                    continue;
                }
                let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                out.push_str(&text[copied..i]);
                out.push_str("\\ufffd");
                i += 6;
                copied = i;
            }
            // Any other escape is two bytes; the escaped byte never ends the string.
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    Ok(match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied.min(text.len())..]);
            Cow::Owned(out)
        }
    })
}

/// The code unit of the four hex digits at `at`, if there are four.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let digits = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// The value of the first `"hook_event_name"` key in `bytes`, found without reading them as
/// JSON (they may be cut, not UTF-8, or not JSON): what a refusal needs to be given in the
/// agent's own format. Inside a JSON string a quote is escaped, so a bare `"hook_event_name"`
/// is a key.
pub fn event_name_in(bytes: &[u8]) -> Option<String> {
    const KEY: &[u8] = b"\"hook_event_name\"";
    let at = bytes.windows(KEY.len()).position(|window| window == KEY)?;
    let rest = &bytes[at + KEY.len()..];
    let rest = skip_space(rest).strip_prefix(b":")?;
    let rest = skip_space(rest).strip_prefix(b"\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    if rest[end] != b'"' || end == 0 || end > 64 {
        return None;
    }
    let name = std::str::from_utf8(&rest[..end]).ok()?;
    name.chars()
        .all(|c| c.is_ascii_graphic())
        .then(|| name.to_string())
}

fn skip_space(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn what_javascript_reads_is_read() {
        #[rustfmt::skip]
        let cases: [(&str, &str, Value); 8] = [
            ("plain", r#"{"a":"b"}"#, serde_json::json!({"a": "b"})),
            ("lone high surrogate", r#"{"c":"x\ud800y"}"#, serde_json::json!({"c": "x\u{fffd}y"})),
            ("lone low surrogate", r#"["\udc00"]"#, serde_json::json!(["\u{fffd}"])),
            ("high then non-low", r#"["\ud83d\u0041"]"#, serde_json::json!(["\u{fffd}A"])),
            ("high at the end", r#"["\ud83d"]"#, serde_json::json!(["\u{fffd}"])),
            ("a real pair stays", r#"["\ud83d\ude00"]"#, serde_json::json!(["😀"])),
            ("an escaped backslash is not an escape", r#"["\\ud800"]"#, serde_json::json!(["\\ud800"])),
            ("brackets in strings do not nest", r#"{"s":"[[[[{{{{"}"#, serde_json::json!({"s": "[[[[{{{{"})),
        ];
        for (name, text, expected) in cases {
            assert_eq!(
                parse(text).unwrap_or_else(|e| panic!("{name}: {e}")),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn nesting_is_read_up_to_the_bound_and_refused_past_it() {
        assert!(
            serde_json::from_str::<Value>(&nested(200)).is_err(),
            "serde's own limit"
        );
        let deepest = parse(&nested(MAX_DEPTH)).unwrap();
        drop(deepest);
        let error = parse(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "it nests arrays and objects more than 512 levels deep"
        );
        // 100,000 levels: refused by the scan, before any recursion.
        assert!(matches!(parse(&nested(100_000)), Err(JsonProblem::TooDeep)));
    }

    /// Regression (fuzzing, `protocol`: fuzz/corpus/protocol/regression-float-read-back-exactly):
    /// serde_json's default float reader can miss by a unit in the last place, so a number of
    /// a tool's input reached hooks, and went back to the agent in a rewrite, changed; the
    /// agents' own readers (JSON.parse, Rust's `str::parse`) are exact.
    #[test]
    fn numbers_are_read_exactly() {
        #[rustfmt::skip]
        let numbers = ["9.682155468370647e+189", "0.1", "2.2250738585072014e-308", "5e-324",
            "1.7976931348623157e308", "8.98846567431158e307", "123456789012345680000"];
        for text in numbers {
            let expected: f64 = text.parse().unwrap();
            let read = parse(&format!("{{\"n\":{text}}}")).unwrap();
            assert_eq!(
                read["n"].as_f64().map(f64::to_bits),
                Some(expected.to_bits()),
                "{text}"
            );
        }
    }

    #[test]
    fn what_is_not_json_is_still_refused() {
        for text in ["{\"a\":\"\0\"}", "{", "[1,]", "\"\\u12\"", "{}{}"] {
            assert!(parse(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn the_event_name_is_found_in_bytes_that_are_not_json() {
        #[rustfmt::skip]
        let cases: [(&[u8], Option<&str>); 7] = [
            (br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_input":{"#, Some("PreToolUse")),
            (b"{\"hook_event_name\" :\n \"Stop\", \"x\":\"\xff\xfe\"}", Some("Stop")),
            (br#"{"hook_event_name":"Pre\"ToolUse"}"#, None),
            (br#"{"hook_event_name":""}"#, None),
            (br#"{"hook_event_name":42}"#, None),
            (br#"{"tool_input":{"command":"echo \"hook_event_name\": \"Stop\""}}"#, None),
            (b"", None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(
                event_name_in(bytes).as_deref(),
                expected,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
