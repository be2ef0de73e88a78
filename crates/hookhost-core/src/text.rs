//! Text from places nobody reviewed (a cloned repository's hooks.toml, a hook's output, an
//! agent's event) on its way into a message that a person or an agent reads.
//!
//! A raw newline in a quoted key could forge a located problem line; a terminal escape could
//! clear the screen under `hookhost check` and print "all hooks OK". Every message that quotes
//! such text goes through `quote` (or `line` for one line of a hook's output), which
//! escapes control characters and cuts what is long.

use std::borrow::Cow;

/// Characters of untrusted text a message quotes; the rest is cut, with a marker.
pub(crate) const QUOTE_MAX_CHARS: usize = 120;
/// Characters of one forwarded line of a hook's output.
pub(crate) const LINE_MAX_CHARS: usize = 4096;

/// `text` in double quotes, with control characters, quotes and backslashes escaped as in
/// Rust (`\n`, `\u{1b}`), cut after [`QUOTE_MAX_CHARS`] characters.
pub fn quote(text: &str) -> String {
    let (kept, cut) = cut(text, QUOTE_MAX_CHARS);
    let mut quoted = format!("{kept:?}");
    if cut > 0 {
        quoted.push_str(&format!("… ({cut} more characters)"));
    }
    quoted
}

/// One line of a hook's output, safe to print after `[hook NAME] `: control characters other
/// than tab escaped, cut after [`LINE_MAX_CHARS`] characters.
pub fn line(text: &str) -> Cow<'_, str> {
    let (kept, cut) = cut(text, LINE_MAX_CHARS);
    if cut == 0 && !kept.chars().any(is_unsafe) {
        return Cow::Borrowed(kept);
    }
    let mut out = String::with_capacity(kept.len() + 16);
    for c in kept.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if cut > 0 {
        out.push_str(&format!("… ({cut} more characters)"));
    }
    Cow::Owned(out)
}

/// A name (a hook's or a key's, from hooks.toml) safe to print inside a message or a
/// `[hook NAME]` prefix: control characters escaped, cut after [`QUOTE_MAX_CHARS`] characters.
pub fn name(text: &str) -> Cow<'_, str> {
    let (kept, cut) = cut(text, QUOTE_MAX_CHARS);
    match line(kept) {
        Cow::Borrowed(clean) if cut == 0 => Cow::Borrowed(clean),
        escaped if cut == 0 => escaped,
        escaped => Cow::Owned(format!("{escaped}… ({cut} more characters)")),
    }
}

/// A multi-line text (a library's error) on one line: newlines become `; `, other control
/// characters are escaped.
pub fn one_line(text: &str) -> String {
    let joined: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    line(&joined.join("; ")).into_owned()
}

/// An error and its causes on one line.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn is_unsafe(c: char) -> bool {
    c != '\t' && (c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202e}'))
}

fn cut(text: &str, max_chars: usize) -> (&str, usize) {
    match text.char_indices().nth(max_chars) {
        None => (text, 0),
        Some((at, _)) => (&text[..at], text[at..].chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_escape_what_could_forge_or_repaint() {
        let cases = [
            ("plain", "\"plain\""),
            (
                "evil\n  hooks.toml:9:9: ok",
                "\"evil\\n  hooks.toml:9:9: ok\"",
            ),
            ("\u{1b}[2J all hooks OK", "\"\\u{1b}[2J all hooks OK\""),
            ("tab\there", "\"tab\\there\""),
            ("quote\"", "\"quote\\\"\""),
        ];
        for (input, expected) in cases {
            assert_eq!(quote(input), expected);
        }
        let long = "x".repeat(QUOTE_MAX_CHARS + 5);
        assert!(quote(&long).ends_with("… (5 more characters)"));
    }

    #[test]
    fn lines_keep_tabs_and_escape_the_rest() {
        assert_eq!(line("ok\tfine"), "ok\tfine");
        assert_eq!(line("\u{1b}[31mred"), "\\u{1b}[31mred");
        assert_eq!(line("a\rb"), "a\\rb");
        assert!(matches!(line("clean"), Cow::Borrowed(_)));
        assert_eq!(one_line("first\nsecond\n\n"), "first; second");
    }
}
