//! A JSON parser that keeps where everything is: each value's byte span, each object
//! member's span from its key to its value, so that an edit can splice text in and out and
//! leave every other byte of the file alone. Comments (`//`, `/* */`) are skipped where the
//! agent reads them (Gemini CLI); trailing commas are an error for every agent.
//!
//! Longer than the house's ~400 lines: one recursive-descent parser and its table of error
//! cases; split, neither half would read on its own.

use std::ops::Range;

/// A JSON value and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// From its first byte to one past its last.
    pub(crate) span: Range<usize>,
    pub(crate) kind: Kind,
}

/// What a value is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    /// A string, unescaped.
    Str(String),
    /// A number, `true`, `false` or `null`, as written.
    Literal(String),
}

/// One `"key": value` of an object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Member {
    pub(crate) key: String,
    /// From the key's opening quote to the end of the value.
    pub(crate) span: Range<usize>,
    pub(crate) value: Node,
}

impl Node {
    /// The member `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(text) => Some(text),
            _ => None,
        }
    }

    /// `object`, `array`, `string`, or the literal, for messages.
    pub(crate) fn describe(&self) -> &str {
        match &self.kind {
            Kind::Object(_) => "an object",
            Kind::Array(_) => "an array",
            Kind::Str(_) => "a string",
            Kind::Literal(text) => text,
        }
    }
}

/// A syntax error: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// Byte offset.
    pub(crate) at: usize,
    pub(crate) message: String,
}

/// Nesting deeper than this is refused (no settings file comes close).
const MAX_DEPTH: usize = 128;

/// Parses `text` as one JSON value (with comments where `comments`).
pub(crate) fn parse(text: &str, comments: bool) -> Result<Node, SyntaxError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        at: 0,
        comments,
    };
    parser.skip()?;
    let node = parser.value(0)?;
    parser.skip()?;
    if parser.at < parser.bytes.len() {
        return Err(parser.error("unexpected text after the JSON value"));
    }
    Ok(node)
}

/// 1-based line and column (in characters) of byte `at`.
pub(crate) fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    comments: bool,
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            at: self.at,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Skips whitespace and, where allowed, comments.
    fn skip(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(b'/') if self.bytes.get(self.at + 1) == Some(&b'/') => {
                    if !self.comments {
                        return Err(self.error(
                            "a comment: this agent reads plain JSON, without comments; remove it",
                        ));
                    }
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
                Some(b'/') if self.bytes.get(self.at + 1) == Some(&b'*') => {
                    if !self.comments {
                        return Err(self.error(
                            "a comment: this agent reads plain JSON, without comments; remove it",
                        ));
                    }
                    let start = self.at;
                    match self.text[self.at + 2..].find("*/") {
                        Some(end) => self.at += 2 + end + 2,
                        None => {
                            self.at = start;
                            return Err(self.error("a comment that is never closed (`*/`)"));
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let start = self.at;
        let kind = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Kind::Str(self.string()?),
            Some(b't') => self.word("true")?,
            Some(b'f') => self.word("false")?,
            Some(b'n') => self.word("null")?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return Err(self.error("expected a JSON value")),
            None => return Err(self.error("unexpected end of the file: expected a JSON value")),
        };
        Ok(Node {
            span: start..self.at,
            kind,
        })
    }

    fn object(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.at += 1;
        let mut members: Vec<Member> = Vec::new();
        self.skip()?;
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Kind::Object(members));
        }
        loop {
            self.skip()?;
            if self.peek() != Some(b'"') {
                let message = if self.peek() == Some(b'}') {
                    "a trailing comma before `}`: remove it"
                } else {
                    "expected a key in double quotes"
                };
                return Err(self.error(message));
            }
            let key_start = self.at;
            let key = self.string()?;
            if members.iter().any(|m| m.key == key) {
                self.at = key_start;
                return Err(self.error(format!("the key {key:?} twice in one object: keep one")));
            }
            self.skip()?;
            if self.peek() != Some(b':') {
                return Err(self.error("expected `:` after the key"));
            }
            self.at += 1;
            self.skip()?;
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                span: key_start..value.span.end,
                value,
            });
            self.skip()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Kind::Object(members));
                }
                _ => return Err(self.error("expected `,` or `}` after the value")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip()?;
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Kind::Array(items));
        }
        loop {
            self.skip()?;
            if self.peek() == Some(b']') {
                return Err(self.error("a trailing comma before `]`: remove it"));
            }
            items.push(self.value(depth + 1)?);
            self.skip()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Kind::Array(items));
                }
                _ => return Err(self.error("expected `,` or `]` after the value")),
            }
        }
    }

    fn word(&mut self, word: &str) -> Result<Kind, SyntaxError> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(Kind::Literal(word.to_string()))
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    fn number(&mut self) -> Result<Kind, SyntaxError> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.at += 1;
            }
            p.at > from
        };
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        if self.peek() == Some(b'0') {
            self.at += 1;
        } else if !digits(self) {
            return Err(self.error("expected digits"));
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !digits(self) {
                return Err(self.error("expected digits after `.`"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(self.error("expected digits in the exponent"));
            }
        }
        Ok(Kind::Literal(self.text[start..self.at].to_string()))
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.at;
        self.at += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.text[self.at..].chars().next() else {
                self.at = start;
                return Err(self.error("a string that is never closed"));
            };
            match c {
                '"' => {
                    self.at += 1;
                    return Ok(out);
                }
                '\\' => {
                    self.at += 1;
                    let escaped = self.peek();
                    self.at += 1;
                    match escaped {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => out.push(self.unicode_escape()?),
                        _ => {
                            self.at -= 2;
                            return Err(self.error("an unknown escape in a string"));
                        }
                    }
                }
                c if (c as u32) < 0x20 => {
                    return Err(self.error(
                        "a control character (a line break?) inside a string: write it as \\n",
                    ));
                }
                c => {
                    out.push(c);
                    self.at += c.len_utf8();
                }
            }
        }
    }

    /// The four hex digits after `\u` (and a low surrogate's after a high one).
    fn unicode_escape(&mut self) -> Result<char, SyntaxError> {
        let hex = |p: &mut Self| -> Result<u32, SyntaxError> {
            let digits = p.text.get(p.at..p.at + 4).unwrap_or("");
            let value = u32::from_str_radix(digits, 16)
                .ok()
                .filter(|_| digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_hexdigit()))
                .ok_or_else(|| p.error("expected four hex digits after \\u"))?;
            p.at += 4;
            Ok(value)
        };
        let high = hex(self)?;
        if (0xD800..0xDC00).contains(&high) && self.text[self.at..].starts_with("\\u") {
            self.at += 2;
            let low = hex(self)?;
            let code = 0x10000 + ((high - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
            return Ok(char::from_u32(code).unwrap_or('\u{FFFD}'));
        }
        // A lone surrogate is valid JSON text but no character: kept as the replacement
        // character (only compared, never written back).
        Ok(char::from_u32(high).unwrap_or('\u{FFFD}'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_members_and_values() {
        let text = r#" {"a": [1, {"b": "x\"y"}], "c": null} "#;
        let root = parse(text, false).unwrap();
        assert_eq!(
            &text[root.span.clone()],
            r#"{"a": [1, {"b": "x\"y"}], "c": null}"#
        );
        let Kind::Object(members) = &root.kind else {
            panic!()
        };
        assert_eq!(&text[members[0].span.clone()], r#""a": [1, {"b": "x\"y"}]"#);
        assert_eq!(members[1].key, "c");
        let inner = root.get("a").unwrap();
        let Kind::Array(items) = &inner.kind else {
            panic!()
        };
        assert_eq!(items[1].get("b").unwrap().as_str(), Some("x\"y"));
    }

    #[test]
    fn errors_say_where_and_what() {
        // (text, comments allowed, line, column, message start)
        let cases: &[(&str, bool, usize, usize, &str)] = &[
            (
                "{\n  \"a\": 1,\n}",
                false,
                3,
                1,
                "a trailing comma before `}`",
            ),
            ("[1, 2,]", false, 1, 7, "a trailing comma before `]`"),
            (
                "{\n  // note\n  \"a\": 1\n}",
                false,
                2,
                3,
                "a comment: this agent reads plain JSON",
            ),
            (
                "{\n  \"a\": 1 /* x\n}",
                true,
                2,
                10,
                "a comment that is never closed",
            ),
            ("{\"a\": 1} x", false, 1, 10, "unexpected text after"),
            ("{\"a\" 1}", false, 1, 6, "expected `:`"),
            ("{\"a\": 1, \"a\": 2}", false, 1, 10, "the key \"a\" twice"),
            ("{\"é\": tru}", false, 1, 7, "expected a JSON value"),
            ("", false, 1, 1, "unexpected end of the file"),
            ("{\"a\": \"x", false, 1, 7, "a string that is never closed"),
        ];
        for (text, comments, line, column, message) in cases {
            let error = parse(text, *comments).expect_err(text);
            assert_eq!(
                line_column(text, error.at),
                (*line, *column),
                "{text:?}: {error:?}"
            );
            assert!(
                error.message.starts_with(message),
                "{text:?}: {}",
                error.message
            );
        }
    }

    #[test]
    fn comments_where_allowed() {
        let text = "// settings\n{ /* hooks */ \"a\": [1, // one\n 2] }\n";
        let root = parse(text, true).unwrap();
        assert_eq!(root.get("a").unwrap().describe(), "an array");
    }

    #[test]
    fn unicode_escapes() {
        let root = parse(r#"["\u00e9\ud83d\ude00"]"#, false).unwrap();
        let Kind::Array(items) = &root.kind else {
            panic!()
        };
        assert_eq!(items[0].as_str(), Some("é😀"));
    }
}
