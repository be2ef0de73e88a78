//! The specifier of a `Bash(...)` rule and how it matches one command, as Claude Code 2.1.332
//! matches it (its `Syt`, `X7`, `uXt` and `rne` functions; the permissions page, "Bash" and
//! "Wildcard patterns"):
//!
//! - **prefix**, the legacy form `Bash(npm run test:*)`: the command is `npm run test` or starts
//!   with `npm run test ` (a word boundary: not `npm run testing`). A `*` before the `:*` is
//!   literal;
//! - **wildcard**, any unescaped `*` elsewhere: `*` matches any run of characters, spaces
//!   included, anchored at both ends; `\*` is a literal star. A single trailing ` *` also
//!   matches nothing at all (`Bash(ls *)` matches `ls` and `ls -la`, not `lsof`). A `/**/`
//!   matches `/` too;
//! - **exact**, anything else: the command is exactly the text.
//!
//! Runs of spaces and tabs count as one space for prefix and wildcard rules (not for exact
//! ones); matching is case-sensitive.

use std::borrow::Cow;

/// A parsed `Bash(...)` specifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pattern {
    Exact(String),
    Prefix(String),
    /// The pattern as written, and compiled (once, at load).
    Wildcard(String, Box<Compiled>),
}

/// A wildcard pattern's pieces, and those of `xargs PATTERN`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Compiled {
    plain: Pieces,
    xargs: Pieces,
}

impl Pattern {
    /// Reads a specifier (already unescaped from the rule's parentheses).
    pub(crate) fn new(text: &str) -> Pattern {
        if let Some(prefix) = text.strip_suffix(":*").filter(|prefix| !prefix.is_empty()) {
            return Pattern::Prefix(squeeze(prefix).into_owned());
        }
        if has_unescaped_star(text) {
            let compiled = Compiled {
                plain: Pieces::new(text),
                xargs: Pieces::new(&format!("xargs {text}")),
            };
            return Pattern::Wildcard(text.to_string(), Box::new(compiled));
        }
        Pattern::Exact(text.to_string())
    }

    /// The same pattern, lower-cased (PowerShell rules are case-blind).
    pub(crate) fn lowercase(&self) -> Pattern {
        match self {
            Pattern::Exact(text) => Pattern::Exact(text.to_lowercase()),
            Pattern::Prefix(text) => Pattern::Prefix(text.to_lowercase()),
            Pattern::Wildcard(text, _) => Pattern::new(&text.to_lowercase()),
        }
    }

    /// Whether `command` (one candidate spelling of one simple command) matches.
    pub(crate) fn matches(&self, command: &str) -> bool {
        self.matches_squeezed(command, &squeeze(command))
    }

    /// [`Pattern::matches`], with the command's `squeezed` spelling already worked out.
    pub(crate) fn matches_squeezed(&self, command: &str, squeezed: &str) -> bool {
        match self {
            Pattern::Exact(exact) => exact == command,
            Pattern::Prefix(prefix) => {
                let bounded = |command: &str| {
                    command
                        .strip_prefix(prefix.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
                };
                bounded(squeezed) || squeezed.strip_prefix("xargs ").is_some_and(bounded)
            }
            Pattern::Wildcard(_, compiled) => compiled.plain.matches_squeezed(squeezed),
        }
    }

    /// Whether the pattern can also match through a leading bare `xargs` (`Bash(grep *)` holds
    /// for `xargs grep x`): always for deny and ask, for allow only with a trailing `*`. The
    /// command is given `squeezed`.
    pub(crate) fn through_xargs(&self, squeezed: &str, allow: bool) -> bool {
        match self {
            Pattern::Wildcard(pattern, compiled) if !allow || ends_with_star(pattern) => {
                compiled.xargs.matches_squeezed(squeezed)
            }
            _ => false,
        }
    }

    /// The text before the first wildcard (what a command must start with).
    pub(crate) fn literal_start(&self) -> &str {
        match self {
            Pattern::Exact(text) | Pattern::Prefix(text) => text,
            Pattern::Wildcard(pattern, _) => {
                let end = pattern.find(['*', '\\']).unwrap_or(pattern.len());
                &pattern[..end]
            }
        }
    }
}

fn has_unescaped_star(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| bytes[i] == b'*' && escaped_by(bytes, i).is_multiple_of(2))
}

fn ends_with_star(pattern: &str) -> bool {
    let bytes = pattern.trim_end().as_bytes();
    bytes.last() == Some(&b'*') && escaped_by(bytes, bytes.len() - 1).is_multiple_of(2)
}

/// How many backslashes stand right before `i`.
fn escaped_by(bytes: &[u8], i: usize) -> usize {
    bytes[..i].iter().rev().take_while(|b| **b == b'\\').count()
}

/// Runs of two or more spaces or tabs, and every tab, as one space.
pub(crate) fn squeeze(text: &str) -> Cow<'_, str> {
    if !text.contains('\t') && !text.contains("  ") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for c in text.chars() {
        if c == ' ' || c == '\t' {
            if !blank {
                out.push(' ');
            }
            blank = true;
        } else {
            blank = false;
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A literal piece of a wildcard pattern; `overlap` lets it begin on the last character of
/// the piece before (the `/` a `/**/` shares).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    text: String,
    overlap: bool,
}

/// Claude Code's wildcard match of a Bash pattern against a command (compiling the pattern:
/// rules compile theirs once, in [`Pattern::new`]).
#[cfg(test)]
pub(crate) fn wildcard(pattern: &str, command: &str) -> bool {
    Pieces::new(pattern).matches(command)
}

/// A wildcard pattern, squeezed: the literal text a command must start with, and its pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pieces {
    start: String,
    pieces: Vec<Piece>,
}

impl Pieces {
    fn new(pattern: &str) -> Pieces {
        let pattern = squeeze(pattern.trim());
        let start = pattern[..pattern.find(['*', '\\']).unwrap_or(pattern.len())]
            .trim_end()
            .to_string();
        Pieces {
            start,
            pieces: pieces(&pattern),
        }
    }

    #[cfg(test)]
    fn matches(&self, command: &str) -> bool {
        self.matches_squeezed(&squeeze(command))
    }

    fn matches_squeezed(&self, command: &str) -> bool {
        if command.contains('\0') {
            return false;
        }
        if !command.starts_with(&self.start) {
            return false;
        }
        let pieces = &self.pieces;
        // One trailing wildcard after a space: the space may also be the end (`ls *` matches `ls`).
        if let [first, last] = pieces.as_slice()
            && last.text.is_empty()
            && first.text.strip_suffix(' ') == Some(command)
        {
            return true;
        }
        let last = pieces.len() - 1;
        let mut at: usize = 0;
        for (i, piece) in pieces.iter().enumerate() {
            let from = if piece.overlap {
                at.saturating_sub(1)
            } else {
                at
            };
            if i == 0 {
                if !command.starts_with(&piece.text)
                    || (i == last && command.len() != piece.text.len())
                {
                    return false;
                }
                at = piece.text.len();
            } else if i == last {
                let Some(begin) = command.len().checked_sub(piece.text.len()) else {
                    return false;
                };
                return begin >= from
                    && command.is_char_boundary(begin)
                    && command[begin..] == piece.text;
            } else {
                match command.get(from..).and_then(|rest| rest.find(&piece.text)) {
                    Some(found) => at = from + found + piece.text.len(),
                    None => return false,
                }
            }
        }
        true
    }
}

/// The literal pieces between wildcards: `\*` and `\\` are literal characters, a `/**/` (or
/// several) joins two segments by a wildcard whose slashes may be one.
fn pieces(pattern: &str) -> Vec<Piece> {
    // Unescaped stars become STAR, escapes are resolved.
    const STAR: char = '\u{0}';
    let mut chars = Vec::new();
    let mut iter = pattern.chars().peekable();
    while let Some(c) = iter.next() {
        match (c, iter.peek()) {
            ('\\', Some('*')) | ('\\', Some('\\')) => chars.push(iter.next().unwrap_or(c)),
            ('*', _) => chars.push(STAR),
            _ => chars.push(c),
        }
    }
    let text: String = chars.into_iter().collect();
    let segments = split_globstar_dirs(&text, STAR);
    let count = segments.len();
    let mut pieces = Vec::new();
    for (i, segment) in segments.iter().enumerate() {
        let segment = format!(
            "{}{segment}{}",
            if i > 0 { "/" } else { "" },
            if i + 1 < count { "/" } else { "" }
        );
        for (j, part) in segment.split(STAR).enumerate() {
            pieces.push(Piece {
                text: part.to_string(),
                overlap: i > 0 && j == 0,
            });
        }
    }
    pieces
}

/// Splits at every `/**/` run (`/` followed by one or more `**/`).
fn split_globstar_dirs(text: &str, star: char) -> Vec<String> {
    let globstar: String = [star, star, '/'].iter().collect();
    let mut segments = Vec::new();
    let mut rest = text;
    while let Some(slash) = rest
        .char_indices()
        .find(|(i, c)| *c == '/' && rest[i + 1..].starts_with(&globstar))
        .map(|(i, _)| i)
    {
        segments.push(rest[..slash].to_string());
        rest = &rest[slash + 1..];
        while let Some(after) = rest.strip_prefix(&globstar) {
            rest = after;
        }
    }
    segments.push(rest.to_string());
    segments
}

#[cfg(test)]
mod tests {
    use super::{Pattern, wildcard};

    #[test]
    fn wildcards_match_as_claude_codes_do() {
        for (pattern, command, expected) in [
            ("ls *", "ls", true),
            ("ls *", "ls -la", true),
            ("ls *", "lsof", false),
            ("ls*", "lsof", true),
            ("git * main", "git checkout main", true),
            ("git * main", "git main", false),
            ("* install", "npm install", true),
            ("* install", "install", false),
            ("npm *", "npm  run   build", true),
            ("echo \\*", "echo *", true),
            ("echo \\*", "echo x", false),
            ("cat src/**/a.ts", "cat src/a.ts", true),
            ("cat src/**/a.ts", "cat src/x/y/a.ts", true),
            ("git push *", "git push origin main", true),
            ("Git *", "git status", false),
        ] {
            assert_eq!(
                wildcard(pattern, command),
                expected,
                "{pattern} ~ {command}"
            );
        }
    }

    #[test]
    fn prefixes_stop_at_a_word_boundary() {
        let prefix = Pattern::new("npm run test:*");
        assert!(prefix.matches("npm run test"));
        assert!(prefix.matches("npm run test -- --watch"));
        assert!(!prefix.matches("npm run testing"));
        assert!(prefix.matches("xargs npm run test"));
        assert_eq!(
            Pattern::new("git * main:*"),
            Pattern::Prefix("git * main".into())
        );
        assert!(matches!(Pattern::new("git:* push"), Pattern::Wildcard(..)));
    }
}
