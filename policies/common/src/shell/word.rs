//! The word level of the parser: quotes (`'...'`, `"..."`, `$'...'`), backslashes and line
//! continuations, `$VAR` and `${...}` (kept as written), `$((...))`, and the substitutions whose
//! commands run: `$(...)`, backticks, `<(...)`, `>(...)`.

use super::parse::{MAX_DEPTH, Parser};
use super::{Script, Word};

impl Parser {
    /// Reads one word (it may be empty when the next character ends words).
    pub(super) fn word(&mut self) -> Word {
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | ')' => break,
                '<' | '>' if self.peek_at(1) == Some('(') && word.text.is_empty() => {
                    let start = self.pos;
                    self.pos += 2;
                    let inner = self.nested_body(true);
                    word.text = self.chars[start..self.pos].iter().collect();
                    word.substitutions.push(inner);
                    word.process = true;
                }
                '<' | '>' => break,
                '(' if word.text.ends_with('=') => {
                    // An array assignment, `x=(a b)`: its text, not a subshell.
                    self.literal_until_close(&mut word);
                }
                '(' => break,
                '\'' => {
                    word.quoted = true;
                    self.pos += 1;
                    self.single_quoted(&mut word.text);
                }
                '"' => {
                    word.quoted = true;
                    self.pos += 1;
                    self.double_quoted(&mut word);
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(next) => {
                            word.quoted = true;
                            word.text.push(next);
                            self.pos += 1;
                        }
                        None => {}
                    }
                }
                '$' => self.dollar(&mut word),
                '`' => self.backtick(&mut word),
                c => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        word
    }

    fn literal_until_close(&mut self, word: &mut Word) {
        let start = self.pos;
        self.pos += 1;
        let mut open = 1;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '(' => open += 1,
                ')' => {
                    open -= 1;
                    if open == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        word.text
            .extend(self.chars[start..self.pos].iter().copied());
    }

    fn single_quoted(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == '\'' {
                return;
            }
            text.push(c);
        }
        self.incomplete = true;
    }

    fn double_quoted(&mut self, word: &mut Word) {
        while let Some(c) = self.peek() {
            match c {
                '"' => {
                    self.pos += 1;
                    return;
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(next @ ('"' | '\\' | '$' | '`')) => {
                            word.text.push(next);
                            self.pos += 1;
                        }
                        _ => word.text.push('\\'),
                    }
                }
                '$' => self.dollar(word),
                '`' => self.backtick(word),
                c => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        self.incomplete = true;
    }

    /// `$...` at the current position.
    fn dollar(&mut self, word: &mut Word) {
        let start = self.pos;
        match self.peek_at(1) {
            Some('(') if self.peek_at(2) == Some('(') => {
                self.pos += 3;
                let mut open = 2usize;
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    match c {
                        '(' => open += 1,
                        ')' => {
                            open -= 1;
                            if open == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                word.text
                    .extend(self.chars[start..self.pos].iter().copied());
            }
            Some('(') => {
                self.pos += 2;
                let inner = self.nested_body(true);
                word.text
                    .extend(self.chars[start..self.pos].iter().copied());
                word.substitutions.push(inner);
            }
            Some('{') => {
                self.pos += 2;
                let mut open = 1usize;
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    match c {
                        '{' => open += 1,
                        '}' => {
                            open -= 1;
                            if open == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                word.text
                    .extend(self.chars[start..self.pos].iter().copied());
            }
            Some('\'') => {
                word.quoted = true;
                self.pos += 2;
                self.ansi_c(&mut word.text);
            }
            Some('"') => {
                word.quoted = true;
                self.pos += 2;
                self.double_quoted(word);
            }
            _ => {
                word.text.push('$');
                self.pos += 1;
                while let Some(c) = self
                    .peek()
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    word.text.push(c);
                    self.pos += 1;
                }
                // Special parameters: `$@`, `$*`, `$#`, `$?`, `$$`, `$!`, `$-`.
                if self.pos == start + 1
                    && let Some(c) = self
                        .peek()
                        .filter(|c| matches!(c, '@' | '*' | '#' | '?' | '$' | '!' | '-'))
                {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$'...'`: C escapes (`\n`, `\t`, `\xHH`, `\'`, octal).
    fn ansi_c(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\'' => return,
                '\\' => {
                    let Some(next) = self.peek() else { break };
                    self.pos += 1;
                    match next {
                        'n' => text.push('\n'),
                        't' => text.push('\t'),
                        'r' => text.push('\r'),
                        'e' | 'E' => text.push('\u{1b}'),
                        'x' => {
                            let hex: String = self.chars[self.pos..]
                                .iter()
                                .take(2)
                                .take_while(|c| c.is_ascii_hexdigit())
                                .collect();
                            self.pos += hex.len();
                            if let Some(ch) =
                                u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                            {
                                text.push(ch);
                            }
                        }
                        '0'..='7' => {
                            let mut oct = String::from(next);
                            while oct.len() < 3
                                && let Some(d) = self.peek().filter(|c| ('0'..='7').contains(c))
                            {
                                oct.push(d);
                                self.pos += 1;
                            }
                            if let Some(ch) =
                                u32::from_str_radix(&oct, 8).ok().and_then(char::from_u32)
                            {
                                text.push(ch);
                            }
                        }
                        other => text.push(other),
                    }
                }
                c => text.push(c),
            }
        }
        self.incomplete = true;
    }

    /// A backtick substitution: its text unescaped, then parsed as a script of its own.
    fn backtick(&mut self, word: &mut Word) {
        let start = self.pos;
        self.pos += 1;
        let mut inner = String::new();
        let mut closed = false;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '`' => {
                    closed = true;
                    break;
                }
                '\\' => {
                    if let Some(next) = self.peek() {
                        self.pos += 1;
                        if !matches!(next, '`' | '\\' | '$') {
                            inner.push('\\');
                        }
                        inner.push(next);
                    }
                }
                c => inner.push(c),
            }
        }
        if !closed {
            self.incomplete = true;
        }
        word.text
            .extend(self.chars[start..self.pos].iter().copied());
        if self.depth < MAX_DEPTH {
            let mut script = super::parse::parse_at(&inner, self.depth + 1);
            if script.incomplete {
                self.incomplete = true;
            }
            script.incomplete = false;
            word.substitutions.push(script);
        } else {
            word.substitutions.push(Script::default());
        }
    }
}
