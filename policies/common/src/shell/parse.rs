//! The command level of the parser: lists (`;`, `&&`, `||`, `&`, newlines), pipelines,
//! subshells and groups, simple commands with their assignments and redirections, heredocs,
//! and the reserved words of compound commands (skipped, so `if x; then rm -rf /; fi` runs
//! `x` and `rm -rf /`). Words themselves are read in `word.rs`.
//!
//! (Over 400 lines: the command grammar reads best in one place; the word grammar is
//! `word.rs`.)

use super::{Command, Input, Redirect, RedirectOp, Script, Word};

/// Deeper nesting than this (substitutions within substitutions) is read as text, not parsed:
/// the guest's stack is small and no real command line nests this far.
pub(super) const MAX_DEPTH: usize = 24;

/// Parses `src` as bash would, without expanding anything. Never fails: unreadable text
/// (an unclosed quote) ends the script and sets [`Script::incomplete`].
pub fn parse(src: &str) -> Script {
    parse_at(src, 0)
}

/// Parses `src` found `depth` levels down (a backtick substitution's text).
pub(super) fn parse_at(src: &str, depth: usize) -> Script {
    let mut parser = Parser {
        chars: src.chars().collect(),
        pos: 0,
        depth,
        pending: Vec::new(),
        bodies: Vec::new(),
        incomplete: false,
    };
    let mut script = Script::default();
    parser.body(&mut script.commands, false);
    if !parser.pending.is_empty() {
        parser.incomplete = true;
    }
    let bodies = std::mem::take(&mut parser.bodies);
    fill_heredocs(&mut script, &bodies);
    script.incomplete = parser.incomplete;
    script
}

/// Heredoc bodies are read after the command that names them; until then the command's stdin
/// holds the body's slot, as `Input::Heredoc("\0N")`.
fn fill_heredocs(script: &mut Script, bodies: &[String]) {
    for command in &mut script.commands {
        if let Input::Heredoc(slot) = &command.stdin
            && let Some(index) = slot
                .strip_prefix('\0')
                .and_then(|n| n.parse::<usize>().ok())
        {
            command.stdin = Input::Heredoc(bodies.get(index).cloned().unwrap_or_default());
        }
        let words = command
            .assignments
            .iter_mut()
            .chain(command.words.iter_mut())
            .chain(command.redirects.iter_mut().map(|r| &mut r.target));
        for word in words {
            for inner in &mut word.substitutions {
                fill_heredocs(inner, bodies);
            }
        }
    }
}

struct Pending {
    slot: usize,
    delimiter: String,
    strip_tabs: bool,
}

pub(super) struct Parser {
    pub(super) chars: Vec<char>,
    pub(super) pos: usize,
    pub(super) depth: usize,
    pending: Vec<Pending>,
    bodies: Vec<String>,
    pub(super) incomplete: bool,
}

/// Words that open or close compound commands; at the start of a command they are dropped.
const SKIPPED_RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac",
    "coproc",
];
/// Words that start a command whose own words are not a command (`for x in a b`).
const HEADER_RESERVED: &[&str] = &["for", "select", "case", "function"];

impl Parser {
    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    /// A nested parser's view: the same text, one level deeper.
    pub(super) fn nested_body(&mut self, close: bool) -> Script {
        let mut script = Script::default();
        if self.depth >= MAX_DEPTH {
            self.skip_balanced();
            return script;
        }
        self.depth += 1;
        self.body(&mut script.commands, close);
        self.depth -= 1;
        script
    }

    /// Skips to the `)` closing the current level, counting parentheses only.
    fn skip_balanced(&mut self) {
        let mut open = 1usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '(' => open += 1,
                ')' => {
                    open -= 1;
                    if open == 0 {
                        return;
                    }
                }
                '\\' => self.pos += 1,
                _ => {}
            }
        }
        self.incomplete = true;
    }

    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\r') => self.pos += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    /// A list of pipelines, up to the end (or, with `close`, the `)` that ends a subshell or
    /// substitution, which is consumed).
    pub(super) fn body(&mut self, commands: &mut Vec<Command>, close: bool) {
        loop {
            self.skip_blanks();
            match self.peek() {
                None => {
                    if close {
                        self.incomplete = true;
                    }
                    return;
                }
                Some(')') => {
                    self.pos += 1;
                    if close {
                        return;
                    }
                    // A `case` pattern's `)` at the top level: a separator.
                }
                Some('#') => self.skip_comment(),
                Some('\n') => {
                    self.pos += 1;
                    self.read_heredocs();
                }
                Some(';' | '&' | '|') => self.pos += 1,
                Some(_) => self.pipeline(commands),
            }
        }
    }

    fn skip_comment(&mut self) {
        while let Some(c) = self.peek() {
            if c == '\n' {
                return;
            }
            self.pos += 1;
        }
    }

    fn pipeline(&mut self, commands: &mut Vec<Command>) {
        let mut upstream = None;
        loop {
            let start = commands.len();
            self.element(commands, upstream.take());
            self.skip_blanks();
            let is_pipe = self.peek() == Some('|') && self.peek_at(1) != Some('|');
            if !is_pipe {
                return;
            }
            self.pos += if self.peek_at(1) == Some('&') { 2 } else { 1 };
            // A pipe may be followed by newlines before the next command.
            while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
                self.pos += 1;
            }
            upstream = Some(start..commands.len());
        }
    }

    fn element(&mut self, commands: &mut Vec<Command>, upstream: Option<std::ops::Range<usize>>) {
        self.skip_blanks();
        let start = commands.len();
        if self.peek() == Some('(') && self.peek_at(1) == Some('(') {
            // `(( arithmetic ))`: no command runs (substitutions inside are not looked at).
            self.pos += 2;
            self.skip_balanced();
            if self.peek() == Some(')') {
                self.pos += 1;
            }
        } else if self.peek() == Some('(') {
            self.pos += 1;
            let inner = self.nested_body(true);
            commands.extend(inner.commands);
            // Redirections after the subshell apply to each of its commands.
            let mut trailing = Command::default();
            self.simple_into(&mut trailing);
            for command in &mut commands[start..] {
                command.redirects.extend(trailing.redirects.iter().cloned());
                if matches!(command.stdin, Input::Inherited) && trailing.stdin != Input::Inherited {
                    command.stdin = trailing.stdin.clone();
                }
            }
            if !trailing.words.is_empty() {
                commands.push(trailing);
            }
        } else {
            let mut command = Command::default();
            self.simple_into(&mut command);
            drop_reserved(&mut command);
            if !command.words.is_empty()
                || !command.redirects.is_empty()
                || !command.assignments.is_empty()
            {
                commands.push(command);
            }
        }
        if let Some(range) = upstream {
            for command in &mut commands[start..] {
                if matches!(command.stdin, Input::Inherited) {
                    command.stdin = Input::Pipe(range.clone());
                }
            }
        }
    }

    /// Reads one simple command's words and redirections into `command`.
    fn simple_into(&mut self, command: &mut Command) {
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else { return };
            match c {
                '\n' | ';' | '|' | ')' => return,
                '&' if self.peek_at(1) != Some('>') => return,
                '#' => {
                    self.skip_comment();
                    return;
                }
                '(' => {
                    // `name() { ...; }`: a function definition; its body is read as commands.
                    let mut offset = 1;
                    while matches!(self.peek_at(offset), Some(' ' | '\t')) {
                        offset += 1;
                    }
                    if self.peek_at(offset) == Some(')') {
                        self.pos += offset + 1;
                        command.words.clear();
                    } else {
                        // Stray `(` (a `case` pattern): skip it.
                        self.pos += 1;
                    }
                    return;
                }
                _ => {
                    if self.redirect(command) {
                        continue;
                    }
                    let word = self.word();
                    if word.text.is_empty() && !word.quoted && word.substitutions.is_empty() {
                        // Nothing consumed: an unexpected character; step over it.
                        self.pos += 1;
                        continue;
                    }
                    if command.words.is_empty() && is_assignment(&word) {
                        command.assignments.push(word);
                    } else {
                        command.words.push(word);
                    }
                }
            }
        }
    }

    /// Reads a redirection at the current position, if there is one.
    fn redirect(&mut self, command: &mut Command) -> bool {
        let start = self.pos;
        let mut fd = None;
        let mut digits = String::new();
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            digits.push(c);
            self.pos += 1;
        }
        if !digits.is_empty() {
            fd = digits.parse().ok();
        }
        let rest: String = self.chars[self.pos..].iter().take(3).collect();
        let (op, len, both) = if rest.starts_with("&>>") {
            (RedirectOp::Append, 3, true)
        } else if rest.starts_with("&>") {
            (RedirectOp::Write, 2, true)
        } else if rest.starts_with("<<<") {
            (RedirectOp::HereString, 3, false)
        } else if rest.starts_with("<<-") {
            (RedirectOp::Heredoc, 3, false)
        } else if rest.starts_with("<<") {
            (RedirectOp::Heredoc, 2, false)
        } else if rest.starts_with("<(") || rest.starts_with(">(") {
            self.pos = start;
            return false;
        } else if rest.starts_with(">>") {
            (RedirectOp::Append, 2, false)
        } else if rest.starts_with(">|") {
            (RedirectOp::Write, 2, false)
        } else if rest.starts_with(">&") || rest.starts_with("<&") {
            (RedirectOp::Dup, 2, false)
        } else if rest.starts_with("<>") {
            (RedirectOp::ReadWrite, 2, false)
        } else if rest.starts_with('>') {
            (RedirectOp::Write, 1, false)
        } else if rest.starts_with('<') {
            (RedirectOp::Read, 1, false)
        } else {
            self.pos = start;
            return false;
        };
        if fd.is_some() && !digits.is_empty() && both {
            self.pos = start;
            return false;
        }
        let strip_tabs = rest.starts_with("<<-");
        self.pos += len;
        self.skip_blanks();
        let target = self.word();
        let stdin_fd = fd.is_none() || fd == Some(0);
        match op {
            RedirectOp::Heredoc => {
                let slot = self.bodies.len();
                self.bodies.push(String::new());
                self.pending.push(Pending {
                    slot,
                    delimiter: target.text.clone(),
                    strip_tabs,
                });
                if stdin_fd {
                    command.stdin = Input::Heredoc(format!("\0{slot}"));
                }
            }
            RedirectOp::HereString if stdin_fd => {
                command.stdin = Input::HereString(target.text.clone());
            }
            RedirectOp::Read if stdin_fd => command.stdin = Input::File(target.text.clone()),
            _ => {}
        }
        command.redirects.push(Redirect { fd, op, target });
        true
    }

    /// After a newline: the bodies of the heredocs named on the line just ended.
    fn read_heredocs(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            let mut closed = false;
            while self.pos < self.chars.len() {
                let end = self.chars[self.pos..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(self.chars.len(), |n| self.pos + n);
                let line: String = self.chars[self.pos..end].iter().collect();
                self.pos = (end + 1).min(self.chars.len());
                let line = if pending.strip_tabs {
                    line.trim_start_matches('\t').to_string()
                } else {
                    line
                };
                if line.trim_end_matches('\r') == pending.delimiter {
                    closed = true;
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if !closed {
                self.incomplete = true;
            }
            self.bodies[pending.slot] = body;
        }
    }
}

fn is_assignment(word: &Word) -> bool {
    match word.text.split_once('=') {
        Some((name, _)) => {
            let name = name.strip_suffix('+').unwrap_or(name);
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn drop_reserved(command: &mut Command) {
    loop {
        let Some(first) = command.words.first() else {
            return;
        };
        if first.quoted {
            return;
        }
        if HEADER_RESERVED.contains(&first.text.as_str()) {
            command.words.clear();
            return;
        }
        if SKIPPED_RESERVED.contains(&first.text.as_str()) {
            command.words.remove(0);
            // Assignments may follow a reserved word (`then X=1 cmd`).
            while command.words.first().is_some_and(is_assignment) {
                let word = command.words.remove(0);
                command.assignments.push(word);
            }
        } else {
            return;
        }
    }
}
