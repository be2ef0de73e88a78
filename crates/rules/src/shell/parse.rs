//! A command line read as bash reads it, far enough to know its simple commands: quotes,
//! escapes, `&&`, `||`, `;`, `|`, `|&`, `&` and newlines between commands; command and process
//! substitutions, subshells and `{ ...; }` groups, whose commands are kept as nested; here
//! documents skipped; redirections taken out of the command's text (Claude Code matches rules
//! against a command without its redirections: tree-sitter-bash's `redirected_statement`).
//!
//! It is not a shell: anything it does not follow (an unclosed quote, an unbalanced
//! parenthesis) marks the script broken, and a broken or otherwise unusual script can never be
//! approved by an allow rule, while deny and ask rules also search its text.
//!
//! Longer than 400 lines: one recursive reader whose cases (words, quotes, substitutions,
//! redirections, here documents) call each other; split, they would share all of its state.

use std::cell::OnceCell;

use super::{Command, Script, Word};

/// Claude Code reads no further than this (2.1.332: 10,000 characters; a longer command
/// always asks).
pub(crate) const MAX_LEN: usize = 10_000;

/// Reads `text`.
pub(crate) fn parse(text: &str) -> Script {
    let whole = text.trim().to_string();
    if whole.len() > MAX_LEN {
        return Script {
            whole,
            commands: Vec::new(),
            nested: Vec::new(),
            plain: false,
            broken: true,
            spelled: OnceCell::new(),
        };
    }
    let mut reader = Reader {
        src: whole.chars().collect(),
        i: 0,
        nested: Vec::new(),
        broken: false,
        plain: true,
        heredocs: Vec::new(),
    };
    let commands = reader.list(End::Eof);
    Script {
        whole,
        commands,
        nested: reader.nested,
        plain: reader.plain && !reader.broken,
        broken: reader.broken,
        spelled: OnceCell::new(),
    }
}

/// What ends the list being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    Paren,
    Brace,
}

struct Reader {
    src: Vec<char>,
    i: usize,
    /// Commands inside substitutions, subshells and groups.
    nested: Vec<Command>,
    broken: bool,
    /// Every element of the top-level list so far is a plain simple command.
    plain: bool,
    /// Here documents whose bodies start after the next newline: (delimiter, strip tabs).
    heredocs: Vec<(String, bool)>,
}

/// A simple command being read.
#[derive(Default)]
struct Builder {
    words: Vec<Word>,
    /// Spans (in chars) of runs of words not interrupted by a redirection.
    runs: Vec<(usize, usize)>,
    /// Whether the last run continues with the next word.
    open: bool,
    start: Option<usize>,
    end: usize,
    plain: bool,
    redirected: bool,
}

const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "for", "case", "esac",
    "select", "function", "!", "[[", "]]", "time", "coproc", "in", "{", "}",
];

impl Reader {
    fn peek(&self) -> Option<char> {
        self.src.get(self.i).copied()
    }

    fn at(&self, offset: usize) -> Option<char> {
        self.src.get(self.i + offset).copied()
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.src[from..to].iter().collect()
    }

    /// A list of commands, up to `end`: the simple commands of this level.
    fn list(&mut self, end: End) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut current = Builder {
            plain: true,
            ..Builder::default()
        };
        loop {
            self.blanks();
            let Some(c) = self.peek() else {
                if end != End::Eof {
                    self.broken = true;
                }
                self.finish(&mut current, &mut commands, end);
                break;
            };
            match c {
                ')' if end == End::Paren => {
                    self.i += 1;
                    self.finish(&mut current, &mut commands, end);
                    break;
                }
                ')' => {
                    // A `case` pattern, or a stray parenthesis: a separator here.
                    self.i += 1;
                    current.plain = false;
                    self.unusual(end);
                    self.finish(&mut current, &mut commands, end);
                }
                '#' if current.start.is_none() || self.src[self.i - 1].is_whitespace() => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\n' => {
                    self.i += 1;
                    self.finish(&mut current, &mut commands, end);
                    self.heredoc_bodies();
                }
                ';' | '|' => {
                    self.i += 1;
                    if matches!(
                        (c, self.peek()),
                        (';', Some(';' | '&')) | ('|', Some('|' | '&'))
                    ) {
                        self.i += 1;
                        if c == ';' && self.peek() == Some('&') {
                            self.i += 1;
                        }
                    }
                    self.finish(&mut current, &mut commands, end);
                }
                '&' if self.at(1) == Some('>') => self.redirection(&mut current, end),
                '&' => {
                    self.i += if self.at(1) == Some('&') { 2 } else { 1 };
                    self.finish(&mut current, &mut commands, end);
                }
                '(' if current.start.is_none() => {
                    self.i += 1;
                    if self.peek() == Some('(') {
                        self.skip_balanced('(', ')');
                    } else {
                        let inner = self.list(End::Paren);
                        self.nested.extend(inner);
                    }
                    self.unusual(end);
                }
                '(' => {
                    // `name()`: a function definition; anything else is not bash.
                    if self.at(1) == Some(')') {
                        self.i += 2;
                    } else {
                        self.i += 1;
                        self.broken = true;
                    }
                    current.plain = false;
                    self.unusual(end);
                }
                '<' | '>' if self.at(1) == Some('(') => {
                    let start = self.i;
                    self.i += 2;
                    let inner = self.list(End::Paren);
                    self.nested.extend(inner);
                    let raw = self.text(start, self.i);
                    current.push(
                        Word {
                            value: raw.clone(),
                            raw,
                            expands: true,
                        },
                        start,
                        self.i,
                    );
                    current.plain = false;
                }
                '<' | '>' => self.redirection(&mut current, end),
                c if c.is_ascii_digit() && self.fd_redirection() => {
                    self.redirection(&mut current, end)
                }
                _ => {
                    let start = self.i;
                    let word = self.word();
                    if current.start.is_none() && word.raw == "{" {
                        let inner = self.list(End::Brace);
                        self.nested.extend(inner);
                        self.unusual(end);
                        continue;
                    }
                    if current.start.is_none() && word.raw == "}" && end == End::Brace {
                        self.finish(&mut current, &mut commands, end);
                        break;
                    }
                    if current.start.is_none() && RESERVED.contains(&word.raw.as_str()) {
                        current.plain = false;
                    }
                    current.push(word, start, self.i);
                }
            }
        }
        commands
    }

    /// Whether the digits here are a redirection's file descriptor (`2>`, `10<&0`).
    fn fd_redirection(&self) -> bool {
        let mut j = self.i;
        while self.src.get(j).is_some_and(char::is_ascii_digit) {
            j += 1;
        }
        let before_ok = self.i == 0
            || self.src[self.i - 1].is_whitespace()
            || ";&|(".contains(self.src[self.i - 1]);
        before_ok && matches!(self.src.get(j), Some('<' | '>'))
    }

    /// The top-level list has something other than a simple command.
    fn unusual(&mut self, end: End) {
        if end == End::Eof {
            self.plain = false;
        }
    }

    fn finish(&mut self, current: &mut Builder, commands: &mut Vec<Command>, end: End) {
        let built = std::mem::replace(
            current,
            Builder {
                plain: true,
                ..Builder::default()
            },
        );
        if built.words.is_empty() {
            if built.redirected {
                self.unusual(end);
            }
            return;
        }
        if !built.plain {
            self.unusual(end);
        }
        let text = built
            .runs
            .iter()
            .map(|(from, to)| self.text(*from, *to))
            .collect::<Vec<_>>()
            .join(" ");
        let full = self.text(built.start.unwrap_or(0), built.end);
        commands.push(Command {
            text,
            full,
            words: built.words,
            plain: built.plain,
            stripped: OnceCell::new(),
        });
    }

    /// Spaces, tabs and escaped newlines.
    fn blanks(&mut self) {
        loop {
            match (self.peek(), self.at(1)) {
                (Some(' ' | '\t'), _) => self.i += 1,
                (Some('\\'), Some('\n')) => self.i += 2,
                _ => return,
            }
        }
    }

    /// A redirection: its operator and target leave the command's text; one that writes
    /// anywhere but `/dev/null` or reads a here document makes the command not plain.
    fn redirection(&mut self, current: &mut Builder, end: End) {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let op = [
            "&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ">", "<",
        ]
        .into_iter()
        .find(|op| op.chars().enumerate().all(|(k, c)| self.at(k) == Some(c)))
        .unwrap_or_default();
        self.i += op.chars().count();
        self.blanks();
        current.redirected = true;
        if self.peek().is_none_or(|c| "\n;&|<>()".contains(c)) {
            self.broken = true;
            current.gap(start);
            return;
        }
        let target = self.word();
        current.gap(start);
        current.resume(self.i);
        let harmless = match op {
            ">&" | "<&" => target.value.chars().all(|c| c.is_ascii_digit()) || target.value == "-",
            "<<" | "<<-" => {
                self.heredocs.push((target.value.clone(), op == "<<-"));
                false
            }
            _ => target.value == "/dev/null" && !target.expands,
        };
        if !harmless {
            current.plain = false;
            self.unusual(end);
        }
    }

    /// After a newline: the bodies of the here documents opened on the line before.
    fn heredoc_bodies(&mut self) {
        for (delimiter, strip_tabs) in std::mem::take(&mut self.heredocs) {
            loop {
                let start = self.i;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let line = self.text(start, self.i);
                if self.peek() == Some('\n') {
                    self.i += 1;
                }
                let line = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line == delimiter || self.peek().is_none() {
                    break;
                }
            }
        }
    }

    /// Up to the `close` that balances the `open` just passed (arithmetic, `${...}`).
    fn skip_balanced(&mut self, open: char, close: char) {
        let mut depth = 1;
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                '\\' => self.i += 1,
                '\'' => self.skip_until('\''),
                c if c == open => depth += 1,
                c if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
        self.broken = true;
    }

    fn skip_until(&mut self, stop: char) {
        while let Some(c) = self.peek() {
            self.i += 1;
            if c == stop {
                return;
            }
        }
        self.broken = true;
    }

    /// One word: its text as written, its value with quotes and escapes removed, and whether
    /// anything in it expands (parameters, substitutions, arithmetic).
    fn word(&mut self) -> Word {
        let start = self.i;
        let mut value = String::new();
        let mut expands = false;
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
                '\\' => {
                    match self.at(1) {
                        Some('\n') => {}
                        Some(next) => value.push(next),
                        None => {
                            value.push('\\');
                            self.broken = true;
                        }
                    }
                    self.i += 2;
                }
                '\'' => {
                    self.i += 1;
                    while let Some(c) = self.peek() {
                        self.i += 1;
                        if c == '\'' {
                            break;
                        }
                        value.push(c);
                        if self.peek().is_none() {
                            self.broken = true;
                        }
                    }
                }
                '"' => {
                    self.i += 1;
                    expands |= self.double_quoted(&mut value);
                }
                '$' => expands |= self.dollar(&mut value),
                '`' => {
                    self.backquoted();
                    expands = true;
                }
                _ => {
                    value.push(c);
                    self.i += 1;
                }
            }
        }
        self.i = self.i.min(self.src.len());
        Word {
            raw: self.text(start, self.i),
            value,
            expands,
        }
    }

    /// Inside `"..."`, the opening quote passed; true if something in it expands.
    fn double_quoted(&mut self, value: &mut String) -> bool {
        let mut expands = false;
        loop {
            match self.peek() {
                None => {
                    self.broken = true;
                    return expands;
                }
                Some('"') => {
                    self.i += 1;
                    return expands;
                }
                Some('\\') if self.at(1).is_some_and(|c| "$`\"\\\n".contains(c)) => {
                    if self.at(1) != Some('\n') {
                        value.push(self.at(1).unwrap_or_default());
                    }
                    self.i += 2;
                }
                Some('$') => expands |= self.dollar(value),
                Some('`') => {
                    self.backquoted();
                    expands = true;
                }
                Some(c) => {
                    value.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// At a `$`: an expansion (true), or ANSI-C/locale quoting or a lone `$` (false).
    fn dollar(&mut self, value: &mut String) -> bool {
        let start = self.i;
        match self.at(1) {
            Some('\'') => {
                self.i += 2;
                while let Some(c) = self.peek() {
                    self.i += 1;
                    match c {
                        '\'' => return false,
                        '\\' => self.ansi_c_escape(value),
                        c => value.push(c),
                    }
                }
                self.broken = true;
                false
            }
            Some('"') => {
                self.i += 2;
                self.double_quoted(value)
            }
            Some('(') if self.at(2) == Some('(') => {
                self.i += 3;
                self.skip_balanced('(', ')');
                if self.peek() == Some(')') {
                    self.i += 1;
                }
                value.push_str(&self.text(start, self.i));
                true
            }
            Some('(') => {
                self.i += 2;
                let inner = self.list(End::Paren);
                self.nested.extend(inner);
                value.push_str(&self.text(start, self.i));
                true
            }
            Some('{') => {
                self.i += 2;
                self.skip_balanced('{', '}');
                value.push_str(&self.text(start, self.i));
                true
            }
            Some(c) if c.is_ascii_alphanumeric() || "_@*#?$!-".contains(c) => {
                self.i += 2;
                if c.is_ascii_alphabetic() || c == '_' {
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        self.i += 1;
                    }
                }
                value.push_str(&self.text(start, self.i));
                true
            }
            _ => {
                value.push('$');
                self.i += 1;
                false
            }
        }
    }

    /// After a backslash in `$'...'`: the character it stands for, as bash decodes it.
    fn ansi_c_escape(&mut self, value: &mut String) {
        let Some(next) = self.peek() else {
            return;
        };
        self.i += 1;
        let simple = match next {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            _ => None,
        };
        if let Some(c) = simple {
            value.push(c);
            return;
        }
        let (radix, max) = match next {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => {
                self.i -= 1;
                (8, 3)
            }
            other => {
                value.push(other);
                return;
            }
        };
        let mut digits = String::new();
        while digits.len() < max && self.peek().is_some_and(|d| d.is_digit(radix)) {
            digits.extend(self.peek());
            self.i += 1;
        }
        match u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(char::from_u32)
        {
            Some(decoded) => value.push(decoded),
            None => value.push(next),
        }
    }

    /// At a backquote: the command substitution up to the closing one, read as a script of its
    /// own (`\`` and `\\` unescaped, as bash does).
    fn backquoted(&mut self) {
        self.i += 1;
        let mut inner = String::new();
        loop {
            match self.peek() {
                None => {
                    self.broken = true;
                    break;
                }
                Some('`') => {
                    self.i += 1;
                    break;
                }
                Some('\\') if self.at(1).is_some_and(|c| "`\\$".contains(c)) => {
                    inner.push(self.at(1).unwrap_or_default());
                    self.i += 2;
                }
                Some(c) => {
                    inner.push(c);
                    self.i += 1;
                }
            }
        }
        let script = parse(&inner);
        self.broken |= script.broken;
        self.nested.extend(script.commands);
        self.nested.extend(script.nested);
    }
}

impl Builder {
    fn push(&mut self, word: Word, from: usize, to: usize) {
        if word.expands {
            self.plain = false;
        }
        if self.start.is_none() {
            self.start = Some(from);
        }
        match self.runs.last_mut() {
            Some((_, end)) if self.open => *end = to,
            _ => self.runs.push((from, to)),
        }
        self.open = true;
        self.end = to;
        self.words.push(word);
    }

    /// A redirection starts at `at`: the current run of words ends before it.
    fn gap(&mut self, at: usize) {
        if self.start.is_none() {
            self.start = Some(at);
        }
        self.open = false;
    }

    /// After a redirection's target, which ends at `at`.
    fn resume(&mut self, at: usize) {
        self.end = at;
    }
}
