//! A command hook's command line cut into words and operators the way bash reads it (quotes,
//! escapes, `$VAR`, `$(...)`, backquotes, globs, `&&`, `|`, `;`, redirections, here-documents),
//! for [`super::trace`] to tell which files it runs.
//!
//! Not a shell: nothing is expanded or run. A word keeps its parts (literal text, variables,
//! command substitutions) so the tracer can decide what it can know; what it cannot is
//! reported as untraceable, never guessed. (A full bash parser, such as brush-parser, would be
//! a large dependency for a reader that only has to be right or say it cannot tell.)

/// One piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    /// Text as it reaches the command, quotes removed.
    Literal(String),
    /// `$NAME` or `${NAME}`.
    Variable(String),
    /// `$(...)`, backquotes or `<(...)`: the command inside, as written.
    Substitution(String),
    /// Anything else known only at run time: `$1`, `${X:-y}`, `$((...))`, `$'...'`.
    Dynamic,
}

/// A word of the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    /// As written, for messages.
    pub raw: String,
    pub parts: Vec<Part>,
    /// An unquoted `*`, `?`, `[` or `{`: bash may turn it into other words.
    pub glob: bool,
    /// An unquoted `~` first.
    pub tilde: bool,
}

/// What the command line is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Word(Word),
    /// `;`, a newline, `&`, `&&`, `||`, `|`, `|&`, `;;`: a simple command ends.
    Separator,
    /// `(`: a subshell starts (a `cd` inside stays inside).
    Open,
    /// `)`.
    Close,
    /// A redirection; the word after it is its target, not an argument.
    Redirect,
}

/// Cuts `command` into tokens.
pub(super) fn tokens(command: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        chars: command.chars().collect(),
        at: 0,
        heredocs: Vec::new(),
    };
    let mut tokens = Vec::new();
    while let Some(token) = lexer.next() {
        tokens.push(token);
    }
    tokens
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    /// Delimiters of here-documents whose bodies start at the next newline (`true`: `<<-`).
    heredocs: Vec<(String, bool)>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn next(&mut self) -> Option<Token> {
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.at += 1;
        }
        let c = self.peek(0)?;
        match c {
            '\\' if self.peek(1) == Some('\n') => {
                self.at += 2;
                self.next()
            }
            '\n' => {
                self.at += 1;
                self.skip_heredocs();
                Some(Token::Separator)
            }
            '#' => {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.at += 1;
                }
                self.next()
            }
            ';' | '&' | '|' => {
                if c == '&' && self.peek(1) == Some('>') {
                    self.at += if self.peek(2) == Some('>') { 3 } else { 2 };
                    return Some(Token::Redirect);
                }
                self.at += 1;
                if matches!(self.peek(0), Some('&' | '|' | ';')) {
                    self.at += 1;
                }
                Some(Token::Separator)
            }
            '(' => {
                self.at += 1;
                Some(Token::Open)
            }
            ')' => {
                self.at += 1;
                Some(Token::Close)
            }
            '<' | '>' if self.peek(1) != Some('(') => Some(self.redirect()),
            _ => {
                // `2>file`, `2>&1`: a file descriptor before a redirection is not a word.
                let digits = self.chars[self.at..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if digits > 0
                    && matches!(self.peek(digits), Some('<' | '>'))
                    && self.peek(digits + 1) != Some('(')
                {
                    self.at += digits;
                    return Some(self.redirect());
                }
                Some(Token::Word(self.word()))
            }
        }
    }

    fn redirect(&mut self) -> Token {
        let heredoc = self.peek(0) == Some('<') && self.peek(1) == Some('<');
        let here_string = heredoc && self.peek(2) == Some('<');
        while matches!(self.peek(0), Some('<' | '>' | '&' | '|' | '-')) {
            self.at += 1;
        }
        if heredoc && !here_string {
            let strip_tabs = self.chars[self.at - 1] == '-';
            while matches!(self.peek(0), Some(' ' | '\t')) {
                self.at += 1;
            }
            let start = self.at;
            let delimiter = self.word();
            self.at = start;
            let text: String = delimiter
                .parts
                .iter()
                .map(|part| match part {
                    Part::Literal(text) => text.as_str(),
                    _ => "",
                })
                .collect();
            self.heredocs.push((text, strip_tabs));
        }
        Token::Redirect
    }

    /// Skips the bodies of the here-documents opened on the line that just ended.
    fn skip_heredocs(&mut self) {
        for (delimiter, strip_tabs) in std::mem::take(&mut self.heredocs) {
            while self.at < self.chars.len() {
                let end = self.chars[self.at..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(self.chars.len(), |n| self.at + n);
                let line: String = self.chars[self.at..end].iter().collect();
                self.at = (end + 1).min(self.chars.len());
                let line = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line == delimiter {
                    break;
                }
            }
        }
    }

    fn word(&mut self) -> Word {
        let start = self.at;
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut glob = false;
        let tilde = self.peek(0) == Some('~');
        let flush = |literal: &mut String, parts: &mut Vec<Part>| {
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(literal)));
            }
        };
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' if self.peek(1) == Some('(') => {
                    self.at += 1;
                    let inner = self.balanced('(', ')');
                    flush(&mut literal, &mut parts);
                    parts.push(Part::Substitution(inner));
                }
                '<' | '>' => break,
                '\\' => {
                    self.at += 1;
                    match self.peek(0) {
                        Some('\n') => self.at += 1,
                        Some(c) => {
                            literal.push(c);
                            self.at += 1;
                        }
                        None => {}
                    }
                }
                '\'' => {
                    self.at += 1;
                    while let Some(c) = self.peek(0) {
                        self.at += 1;
                        if c == '\'' {
                            break;
                        }
                        literal.push(c);
                    }
                }
                '"' => {
                    self.at += 1;
                    while let Some(c) = self.peek(0) {
                        match c {
                            '"' => {
                                self.at += 1;
                                break;
                            }
                            '\\' if matches!(self.peek(1), Some('$' | '`' | '"' | '\\' | '\n')) => {
                                if self.peek(1) != Some('\n') {
                                    literal.push(self.peek(1).unwrap_or_default());
                                }
                                self.at += 2;
                            }
                            '$' | '`' => {
                                if let Some(part) = self.expansion() {
                                    flush(&mut literal, &mut parts);
                                    parts.push(part);
                                } else {
                                    literal.push('$');
                                }
                            }
                            _ => {
                                literal.push(c);
                                self.at += 1;
                            }
                        }
                    }
                }
                '$' | '`' => {
                    if let Some(part) = self.expansion() {
                        flush(&mut literal, &mut parts);
                        parts.push(part);
                    } else {
                        literal.push('$');
                    }
                }
                _ => {
                    glob |= matches!(c, '*' | '?' | '[' | '{');
                    literal.push(c);
                    self.at += 1;
                }
            }
        }
        flush(&mut literal, &mut parts);
        Word {
            raw: self.chars[start..self.at].iter().collect(),
            parts,
            glob,
            tilde,
        }
    }

    /// A `$...` or backquoted expansion at the cursor; `None` for a `$` that is only a dollar
    /// sign (consumed).
    fn expansion(&mut self) -> Option<Part> {
        if self.peek(0) == Some('`') {
            self.at += 1;
            let start = self.at;
            while let Some(c) = self.peek(0) {
                self.at += 1;
                match c {
                    '\\' => self.at += 1,
                    '`' => break,
                    _ => {}
                }
            }
            let end = self.at.saturating_sub(1).max(start).min(self.chars.len());
            return Some(Part::Substitution(self.chars[start..end].iter().collect()));
        }
        self.at += 1; // `$`
        let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
        match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                self.balanced('(', ')');
                Some(Part::Dynamic)
            }
            Some('(') => Some(Part::Substitution(self.balanced('(', ')'))),
            Some('{') => {
                let inner = self.balanced('{', '}');
                let plain = !inner.is_empty()
                    && !inner.starts_with(|c: char| c.is_ascii_digit())
                    && inner.chars().all(name_char);
                Some(if plain {
                    Part::Variable(inner)
                } else {
                    Part::Dynamic
                })
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.at;
                while self.peek(0).is_some_and(name_char) {
                    self.at += 1;
                }
                Some(Part::Variable(self.chars[start..self.at].iter().collect()))
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.at += 1;
                Some(Part::Dynamic)
            }
            Some('\'' | '"') => {
                // `$'...'` and `$"..."`: read as a quoted word would be, known only at run time.
                let quote = self.peek(0).unwrap_or('\'');
                self.at += 1;
                while let Some(c) = self.peek(0) {
                    self.at += 1;
                    match c {
                        '\\' => self.at += 1,
                        c if c == quote => break,
                        _ => {}
                    }
                }
                Some(Part::Dynamic)
            }
            _ => None,
        }
    }

    /// From an opening bracket at the cursor to its match (quotes and nesting followed), the
    /// text between them.
    fn balanced(&mut self, open: char, close: char) -> String {
        self.at += 1;
        let start = self.at;
        let mut depth = 1;
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                '\\' => self.at += 1,
                '\'' => {
                    while self.peek(0).is_some_and(|c| c != '\'') {
                        self.at += 1;
                    }
                    self.at += 1;
                }
                '"' => {
                    while let Some(c) = self.peek(0) {
                        self.at += 1;
                        match c {
                            '\\' => self.at += 1,
                            '"' => break,
                            _ => {}
                        }
                    }
                }
                c if c == open => depth += 1,
                c if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        self.at = self.at.min(self.chars.len());
        let end = if depth == 0 { self.at - 1 } else { self.at };
        self.chars[start..end.max(start)].iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(command: &str) -> Vec<String> {
        tokens(command)
            .into_iter()
            .map(|token| match token {
                Token::Word(word) => {
                    word.parts
                        .iter()
                        .map(|part| match part {
                            Part::Literal(text) => text.clone(),
                            Part::Variable(name) => format!("<{name}>"),
                            Part::Substitution(inner) => format!("<({inner})>"),
                            Part::Dynamic => "<?>".to_string(),
                        })
                        .collect::<String>()
                        + if word.glob { "<glob>" } else { "" }
                }
                Token::Separator => ";".to_string(),
                Token::Open => "(".to_string(),
                Token::Close => ")".to_string(),
                Token::Redirect => ">".to_string(),
            })
            .collect()
    }

    #[test]
    fn words_and_operators_as_bash_reads_them() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, &[&str])] = &[
            ("plain", "./check.sh", &["./check.sh"]),
            ("args", "python3 tools/x.py --flag", &["python3", "tools/x.py", "--flag"]),
            ("quoted variable", r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh"#, &["<CLAUDE_PROJECT_DIR>/.claude/hooks/guard.sh"]),
            ("braced", "${GEMINI_PROJECT_DIR}/g.sh", &["<GEMINI_PROJECT_DIR>/g.sh"]),
            ("single quotes", "echo 'a b' c\\ d", &["echo", "a b", "c d"]),
            ("chain", "cd hooks && ./a.sh || ./b.sh; ./c.sh | tee x &", &["cd", "hooks", ";", "./a.sh", ";", "./b.sh", ";", "./c.sh", ";", "tee", "x", ";"]),
            ("redirections", "./a.sh 2>&1 >out.log </dev/null &>>all", &["./a.sh", ">", "1", ">", "out.log", ">", "/dev/null", ">", "all"]),
            ("substitution", r#"bash "$(dirname "$0")/x.sh""#, &["bash", "<(dirname \"$0\")>/x.sh"]),
            ("backquotes", "`which jq` .", &["<(which jq)>", "."]),
            ("arithmetic and specials", "echo $((1+2)) $1 ${X:-y}", &["echo", "<?>", "<?>", "<?>"]),
            ("glob", "bash scripts/*.sh", &["bash", "scripts/*.sh<glob>"]),
            ("comment", "./a.sh # ./b.sh", &["./a.sh"]),
            ("subshell", "(cd x; ./a.sh)", &["(", "cd", "x", ";", "./a.sh", ")"]),
            ("heredoc", "cat <<'EOF'\n./not-run.sh\nEOF\n./b.sh", &["cat", ">", "EOF", ";", "./b.sh"]),
            ("process substitution", "diff <(./a.sh) b", &["diff", "<(./a.sh)>", "b"]),
            ("line continuation", "./a.sh \\\n  --x", &["./a.sh", "--x"]),
            ("lone dollar", "echo $ x", &["echo", "$", "x"]),
        ];
        for (name, command, expected) in cases {
            assert_eq!(words(command), *expected, "{name}: {command}");
        }
    }
}
