//! The JSON init writes: small values with their keys in the order written, rendered in the
//! file's own style (its indent unit and line ending), and compared with what a file holds
//! regardless of key order.

use super::parse::{Kind, Node};

/// A JSON value init writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Json {
    Str(String),
    /// A number, `true`, `false` or `null`, as written.
    Literal(String),
    Array(Vec<Json>),
    /// Members in the order they are written.
    Object(Vec<(String, Json)>),
}

/// How a file is laid out: what one level of indentation is, and its line ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Style {
    pub(crate) unit: String,
    pub(crate) newline: &'static str,
}

impl Default for Style {
    /// Two spaces and `\n`: what the agents write themselves (`JSON.stringify(s, null, 2)`).
    fn default() -> Style {
        Style {
            unit: "  ".to_string(),
            newline: "\n",
        }
    }
}

impl Style {
    /// The style of `text`: the indentation of its first indented line, and `\r\n` if it has
    /// one.
    pub(crate) fn of(text: &str) -> Style {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let unit = text
            .lines()
            .skip(1)
            .map(|line| {
                let rest = line.trim_start_matches([' ', '\t']);
                &line[..line.len() - rest.len()]
            })
            .find(|indent| !indent.is_empty())
            .map_or_else(|| "  ".to_string(), str::to_string);
        Style { unit, newline }
    }
}

impl Json {
    pub(crate) fn str(text: impl Into<String>) -> Json {
        Json::Str(text.into())
    }

    /// Written across lines, each nested line starting with `indent` and one `unit` per
    /// level, as `JSON.stringify(value, null, unit)` does (empty arrays and objects stay
    /// `[]` and `{}`).
    pub(crate) fn pretty(&self, style: &Style, indent: &str) -> String {
        let mut out = String::new();
        self.write_pretty(style, indent, &mut out);
        out
    }

    fn write_pretty(&self, style: &Style, indent: &str, out: &mut String) {
        let inner = format!("{indent}{}", style.unit);
        match self {
            Json::Array(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "" } else { "," });
                    out.push_str(style.newline);
                    out.push_str(&inner);
                    item.write_pretty(style, &inner, out);
                }
                out.push_str(style.newline);
                out.push_str(indent);
                out.push(']');
            }
            Json::Object(members) if !members.is_empty() => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    out.push_str(if i == 0 { "" } else { "," });
                    out.push_str(style.newline);
                    out.push_str(&inner);
                    write_string(key, out);
                    out.push_str(": ");
                    value.write_pretty(style, &inner, out);
                }
                out.push_str(style.newline);
                out.push_str(indent);
                out.push('}');
            }
            other => other.write_inline(out),
        }
    }

    /// On one line: `{"a": 1, "b": [2, 3]}`.
    pub(crate) fn inline(&self) -> String {
        let mut out = String::new();
        self.write_inline(&mut out);
        out
    }

    fn write_inline(&self, out: &mut String) {
        match self {
            Json::Str(text) => write_string(text, out),
            Json::Literal(text) => out.push_str(text),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "" } else { ", " });
                    item.write_inline(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    out.push_str(if i == 0 { "" } else { ", " });
                    write_string(key, out);
                    out.push_str(": ");
                    value.write_inline(out);
                }
                out.push('}');
            }
        }
    }

    /// Whether `node` holds this value: the same members in any order, the same items in
    /// the same order, the same strings, and literals written alike (`60` is not `60.0`).
    pub(crate) fn matches(&self, node: &Node) -> bool {
        match (self, &node.kind) {
            (Json::Str(a), Kind::Str(b)) => a == b,
            (Json::Literal(a), Kind::Literal(b)) => a == b,
            (Json::Array(a), Kind::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.matches(b))
            }
            (Json::Object(a), Kind::Object(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(key, value)| {
                        b.iter().any(|m| &m.key == key && value.matches(&m.value))
                    })
            }
            _ => false,
        }
    }
}

/// `text` as a JSON string: quotes, backslashes and control characters escaped, the rest
/// (non-ASCII included) as it is, as `JSON.stringify` writes it.
pub(crate) fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn sample() -> Json {
        Json::Object(vec![
            ("matcher".into(), Json::str("*")),
            (
                "hooks".into(),
                Json::Array(vec![Json::Object(vec![
                    ("type".into(), Json::str("command")),
                    ("command".into(), Json::str("say \"hi\"")),
                    ("timeout".into(), Json::Literal("60".into())),
                ])]),
            ),
            ("empty".into(), Json::Array(vec![])),
        ])
    }

    #[test]
    fn pretty_is_json_stringify() {
        let style = Style::default();
        assert_eq!(
            sample().pretty(&style, "  "),
            "{\n    \"matcher\": \"*\",\n    \"hooks\": [\n      {\n        \"type\": \"command\",\n        \"command\": \"say \\\"hi\\\"\",\n        \"timeout\": 60\n      }\n    ],\n    \"empty\": []\n  }"
        );
        assert_eq!(
            sample().inline(),
            r#"{"matcher": "*", "hooks": [{"type": "command", "command": "say \"hi\"", "timeout": 60}], "empty": []}"#
        );
    }

    #[test]
    fn matches_ignores_key_order_only() {
        let value = sample();
        let same = parse(
            r#"{"hooks": [{"timeout": 60, "command": "say \"hi\"", "type": "command"}], "empty": [], "matcher": "*"}"#,
            false,
        )
        .unwrap();
        assert!(value.matches(&same));
        for other in [
            r#"{"hooks": [{"timeout": 60.0, "command": "say \"hi\"", "type": "command"}], "empty": [], "matcher": "*"}"#,
            r#"{"hooks": [{"timeout": 60, "command": "say \"hi\"", "type": "command"}], "empty": [], "matcher": "*", "x": 1}"#,
            r#"{"hooks": [], "empty": [], "matcher": "*"}"#,
        ] {
            assert!(!value.matches(&parse(other, false).unwrap()), "{other}");
        }
    }

    #[test]
    fn style_of_a_file() {
        assert_eq!(Style::of("{\n    \"a\": 1\n}").unit, "    ");
        assert_eq!(Style::of("{\r\n\t\"a\": 1\r\n}").unit, "\t");
        assert_eq!(Style::of("{\r\n\t\"a\": 1\r\n}").newline, "\r\n");
        assert_eq!(Style::of("{\"a\": 1}"), Style::default());
    }
}
