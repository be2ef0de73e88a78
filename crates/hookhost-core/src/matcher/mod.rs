//! Which hooks an event reaches: the `event` a hook is declared for (a name, a list, a glob)
//! and what its `match_tool` or `matcher` says about the tool (or the payload field the event
//! catalog names, such as SessionStart's `source`).
//!
//! | hooks.toml | matches | semantics |
//! |---|---|---|
//! | `match_tool = "Bash"` | `Bash` only | forgeflare's: exact, never a prefix |
//! | `matcher = "Edit\|Write"` | `Edit`, `Write` | Claude Code's: only letters, digits, `_`, `-`, space, `,` and `\|` is an exact name or a list of names |
//! | `matcher = "Notebook.*"` | `NotebookEdit`, `MyNotebookX` | Claude Code's: any other character makes a regular expression, **unanchored** |
//! | `matcher = "*"` or `""` | everything | Claude Code's |
//! | `matcher = { glob = "mcp__*" }` | `mcp__memory__read`, not `xmcp__a` | a glob over the whole name (`*`, `?`, `[a-z]`, `[!x]`) |
//! | `matcher = { regex = "^mcp__" }` | as written | a regular expression, unanchored unless anchored |
//! | `matcher = "@shell\|WebFetch"` | every agent's shell tool, and `WebFetch` | hookhost's: `@kind` is a tool kind of hookhost-tools, other names exact (`kinds`) |

mod kinds;

use std::fmt;

pub use kinds::Alternative;

use crate::event::catalog::{self, EventSpec};

/// The events a hook is declared for.
#[derive(Debug, Clone)]
pub struct EventPattern {
    alternatives: Vec<EventName>,
}

#[derive(Debug, Clone)]
enum EventName {
    Exact(String),
    Glob(Glob),
}

impl EventPattern {
    /// Parses `event = "..."` or `event = ["...", ...]`: every item is a name, a glob
    /// (`tool:*`) or a comma-separated list of them (`session:start,session:end`).
    pub fn parse<'s>(items: impl IntoIterator<Item = &'s str>) -> Result<EventPattern, String> {
        let mut alternatives = Vec::new();
        for item in items {
            for part in item.split(',') {
                let part = part.trim();
                if part.is_empty() {
                    return Err(format!(
                        "{} has an empty event name; separate names with single commas",
                        crate::text::quote(item)
                    ));
                }
                if part.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return Err(format!(
                        "event name {} contains whitespace or a control character",
                        crate::text::quote(part)
                    ));
                }
                if Glob::is_pattern(part) {
                    alternatives.push(EventName::Glob(Glob::new(part)?));
                } else if let Some(meant) = catalog::lookalike(part) {
                    return Err(format!(
                        "unknown event {}; did you mean \"{}\"? (event names are case-sensitive; a custom event must not look like a built-in one, or a typo would silently switch the hook off)",
                        crate::text::quote(part),
                        meant.name
                    ));
                } else {
                    alternatives.push(EventName::Exact(part.to_string()));
                }
            }
        }
        if alternatives.is_empty() {
            return Err("`event` must name at least one event".to_string());
        }
        Ok(EventPattern { alternatives })
    }

    /// A pattern for exactly one event.
    pub fn exact(name: &str) -> EventPattern {
        EventPattern {
            alternatives: vec![EventName::Exact(name.to_string())],
        }
    }

    /// True when the event named `name` reaches this hook. Code-Forge-style patterns also match
    /// `{name}:{tool}` (`tool:pre_execute:bash`, `tool:*:write`) when the event has a tool.
    pub fn matches(&self, name: &str, tool: Option<&str>) -> bool {
        self.alternatives
            .iter()
            .any(|alternative| match alternative {
                EventName::Exact(exact) => {
                    exact == name
                        || tool.is_some_and(|tool| {
                            exact.len() == name.len() + 1 + tool.len()
                                && exact.starts_with(name)
                                && exact[name.len()..].starts_with(':')
                                && exact.ends_with(tool)
                        })
                }
                EventName::Glob(glob) => {
                    glob.matches(name)
                        || tool.is_some_and(|tool| glob.matches(&format!("{name}:{tool}")))
                }
            })
    }

    /// The one event this pattern names, when it names exactly one without a glob.
    pub fn single(&self) -> Option<&str> {
        match self.alternatives.as_slice() {
            [EventName::Exact(name)] => Some(name),
            _ => None,
        }
    }

    /// The built-in events this pattern can reach.
    pub fn builtins(&self) -> Vec<&'static EventSpec> {
        catalog::BUILTIN
            .iter()
            .filter(|spec| self.matches(spec.name, None))
            .collect()
    }

    /// True when the pattern can reach a custom event.
    pub fn reaches_custom(&self) -> bool {
        self.alternatives
            .iter()
            .any(|alternative| match alternative {
                EventName::Exact(name) => catalog::builtin(name).is_none(),
                EventName::Glob(_) => true,
            })
    }

    /// The built-in events every event this pattern can reach has in common, when it can reach
    /// nothing else: the specs validation checks answers, phases and timeouts against.
    pub fn specs(&self) -> Vec<&'static EventSpec> {
        let mut specs = self.builtins();
        if self.reaches_custom() {
            specs.push(&catalog::CUSTOM);
        }
        specs
    }
}

impl fmt::Display for EventPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, alternative) in self.alternatives.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match alternative {
                EventName::Exact(name) => f.write_str(name)?,
                EventName::Glob(glob) => f.write_str(&glob.source)?,
            }
        }
        Ok(())
    }
}

/// What a hook says about the tool (or matched field) it fires for.
#[derive(Debug, Clone, Default)]
pub enum ToolMatcher {
    /// Every tool (no matcher, `matcher = "*"` or `""`).
    #[default]
    Any,
    /// `match_tool = "Bash"`: exactly this name.
    Exact(String),
    /// Claude Code's exact list: `matcher = "Edit|Write"`.
    List(Vec<String>),
    /// A regular expression, unanchored.
    Regex(regex::Regex),
    /// A glob over the whole name.
    Glob(Glob),
    /// `matcher = "@shell|WebFetch"`: tool kinds (every agent's tool of the kind) and exact
    /// names.
    Vocabulary(Vec<Alternative>),
}

impl ToolMatcher {
    /// `matcher = "..."` with Claude Code's semantics.
    pub fn claude(pattern: &str) -> Result<ToolMatcher, String> {
        let pattern_trimmed = pattern.trim();
        if pattern_trimmed.is_empty() || pattern_trimmed == "*" {
            return Ok(ToolMatcher::Any);
        }
        if kinds::is_vocabulary(pattern) {
            return kinds::parse(pattern).map(ToolMatcher::Vocabulary);
        }
        let exact = pattern
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|'));
        if !exact {
            return ToolMatcher::regex(pattern);
        }
        let names: Vec<String> = pattern
            .split(['|', ','])
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect();
        Ok(match names.as_slice() {
            [] => ToolMatcher::Any,
            [one] => ToolMatcher::Exact(one.clone()),
            _ => ToolMatcher::List(names),
        })
    }

    /// `matcher = { regex = "..." }` (and Claude Code's regex form).
    pub fn regex(pattern: &str) -> Result<ToolMatcher, String> {
        regex::RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .build()
            .map(ToolMatcher::Regex)
            .map_err(|error| {
                format!(
                    "{} is not a valid regular expression: {} (hookhost uses Rust's regex syntax: no look-around, no backreferences)",
                    crate::text::quote(pattern),
                    crate::text::one_line(&error.to_string())
                )
            })
    }

    /// `matcher = { glob = "..." }`.
    pub fn glob(pattern: &str) -> Result<ToolMatcher, String> {
        Glob::new(pattern).map(ToolMatcher::Glob)
    }

    /// True when a hook with this matcher fires for `subject` (the tool's name, or the field
    /// the event catalog names). An event without a subject reaches only hooks without one.
    pub fn matches(&self, subject: Option<&str>) -> bool {
        let Some(subject) = subject else {
            return matches!(self, ToolMatcher::Any);
        };
        match self {
            ToolMatcher::Any => true,
            ToolMatcher::Exact(name) => name == subject,
            ToolMatcher::List(names) => names.iter().any(|name| name == subject),
            ToolMatcher::Regex(regex) => regex.is_match(subject),
            ToolMatcher::Glob(glob) => glob.matches(subject),
            ToolMatcher::Vocabulary(alternatives) => {
                alternatives.iter().any(|alt| alt.matches(subject))
            }
        }
    }

    /// True for a matcher that matches everything.
    pub fn is_any(&self) -> bool {
        matches!(self, ToolMatcher::Any)
    }
}

impl fmt::Display for ToolMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolMatcher::Any => f.write_str("*"),
            ToolMatcher::Exact(name) => f.write_str(name),
            ToolMatcher::List(names) => f.write_str(&names.join("|")),
            ToolMatcher::Regex(regex) => write!(f, "/{}/", regex.as_str()),
            ToolMatcher::Glob(glob) => write!(f, "glob:{}", glob.source),
            ToolMatcher::Vocabulary(alternatives) => {
                let written: Vec<String> = alternatives.iter().map(ToString::to_string).collect();
                f.write_str(&written.join("|"))
            }
        }
    }
}

/// A glob over a whole name: `*` (any run of characters), `?` (one character), `[abc]`,
/// `[a-z]`, `[!x]`. No path semantics: `*` also matches `:` and `/`.
#[derive(Debug, Clone)]
pub struct Glob {
    source: String,
    tokens: Vec<Token>,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Char(char),
    Any,
    Star,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Glob {
    /// True when `text` contains a glob metacharacter.
    pub fn is_pattern(text: &str) -> bool {
        text.contains(['*', '?', '['])
    }

    /// Compiles a glob.
    pub fn new(source: &str) -> Result<Glob, String> {
        let mut tokens = Vec::new();
        let mut chars = source.chars().peekable();
        while let Some(c) = chars.next() {
            tokens.push(match c {
                '*' => {
                    while chars.peek() == Some(&'*') {
                        chars.next();
                    }
                    Token::Star
                }
                '?' => Token::Any,
                '[' => {
                    let negated = chars.next_if(|&c| c == '!' || c == '^').is_some();
                    let mut ranges = Vec::new();
                    let mut closed = false;
                    while let Some(c) = chars.next() {
                        if c == ']' && !ranges.is_empty() {
                            closed = true;
                            break;
                        }
                        if chars.peek() == Some(&'-') {
                            chars.next();
                            match chars.next() {
                                Some(']') => {
                                    ranges.push((c, c));
                                    ranges.push(('-', '-'));
                                    closed = true;
                                    break;
                                }
                                Some(end) => ranges.push((c, end)),
                                None => break,
                            }
                        } else {
                            ranges.push((c, c));
                        }
                    }
                    if !closed {
                        return Err(format!(
                            "glob {} has a `[` without its `]`",
                            crate::text::quote(source)
                        ));
                    }
                    Token::Class { negated, ranges }
                }
                other => Token::Char(other),
            });
        }
        Ok(Glob {
            source: source.to_string(),
            tokens,
        })
    }

    /// True when the whole of `text` matches. Linear backtracking over the last `*`, so the
    /// cost is bounded by the product of the lengths, never exponential.
    pub fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let (mut t, mut p) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while t < text.len() {
            match self.tokens.get(p) {
                Some(Token::Star) => {
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                Some(token) if token.matches(text[t]) => {
                    t += 1;
                    p += 1;
                    continue;
                }
                _ => {}
            }
            match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            }
        }
        self.tokens[p..].iter().all(|token| *token == Token::Star)
    }
}

impl Token {
    fn matches(&self, c: char) -> bool {
        match self {
            Token::Char(expected) => *expected == c,
            Token::Any => true,
            Token::Star => false,
            Token::Class { negated, ranges } => {
                ranges.iter().any(|&(low, high)| low <= c && c <= high) != *negated
            }
        }
    }
}

#[cfg(test)]
mod tests;
