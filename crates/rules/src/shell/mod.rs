//! `Bash(...)` rules against a command line.
//!
//! A command line is read into simple commands (`parse`). A **deny or ask** rule holds when it
//! matches any of them at any depth (inside `$(...)`, backquotes, subshells, groups, and, a
//! hookhost addition, the script of `bash -c`, `sh -c` and `eval`), any spelling of each
//! (`strip`: wrappers, assignments, exec wrappers such as `sudo`), or the whole line; and, when
//! the line cannot be read, when its text contains the rule (`text`). An **allow** rule covers
//! one top-level command at a time; the line is approved only when every one of them is covered
//! by some allow rule, and only when every one is a plain simple command (no substitution,
//! expansion, here document or redirection other than to `/dev/null` or another descriptor):
//! `safe && rm -rf /` is never approved by `Bash(safe:*)`.

mod exec;
mod parse;
mod pattern;
mod strip;
mod text;

pub(crate) use pattern::Pattern;

/// A command line, read.
#[derive(Debug)]
pub(crate) struct Script {
    /// The line, trimmed.
    pub(crate) whole: String,
    /// Its top-level simple commands, in order.
    pub(crate) commands: Vec<Command>,
    /// The commands inside substitutions, subshells and groups.
    pub(crate) nested: Vec<Command>,
    /// Every top-level element is a plain simple command.
    pub(crate) plain: bool,
    /// The reader lost its way (unclosed quote or parenthesis, too long).
    pub(crate) broken: bool,
}

/// One simple command.
#[derive(Debug, Clone)]
pub(crate) struct Command {
    /// As written, without its redirections.
    pub(crate) text: String,
    /// As written, redirections included.
    pub(crate) full: String,
    pub(crate) words: Vec<Word>,
    /// No expansion, substitution, here document, reserved word or redirection that writes.
    pub(crate) plain: bool,
}

/// One word of a command.
#[derive(Debug, Clone)]
pub(crate) struct Word {
    /// As written.
    pub(crate) raw: String,
    /// Quotes and escapes removed (expansions left as written).
    pub(crate) value: String,
    /// Something in it expands when the shell runs it.
    pub(crate) expands: bool,
}

/// Reads a command line.
pub(crate) fn read(text: &str) -> Script {
    parse::parse(text)
}

/// Words that open a compound command: a deny rule looks at the command after them
/// (`if true; then rm -rf /; fi` runs `rm -rf /`).
const OPENERS: &[&str] = &[
    "if", "then", "elif", "else", "do", "while", "until", "!", "time", "{",
];

const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash"];

impl Script {
    /// The first command (at any depth) a deny or ask rule with `pattern` holds for, as
    /// written; `case_blind` for PowerShell rules.
    pub(crate) fn denied_by(&self, pattern: &Pattern, case_blind: bool) -> Option<String> {
        let pattern = if case_blind {
            lower(pattern)
        } else {
            pattern.clone()
        };
        let fold = |text: String| {
            if case_blind {
                text.to_lowercase()
            } else {
                text
            }
        };
        if pattern.matches(&fold(self.whole.clone())) {
            return Some(self.whole.clone());
        }
        for command in self.subjects(0) {
            let hit = deny_spellings(&command)
                .into_iter()
                .map(fold)
                .any(|spelling| {
                    pattern.matches(&spelling) || pattern.through_xargs(&spelling, false)
                });
            if hit {
                return Some(command.text.clone());
            }
        }
        if self.broken && text::found_in(&pattern, &fold(self.whole.clone())) {
            return Some(self.whole.clone());
        }
        None
    }

    /// Every command a deny rule looks at: top-level, nested, and inside `bash -c`/`eval`.
    fn subjects(&self, depth: usize) -> Vec<Command> {
        let mut all: Vec<Command> = self.commands.iter().chain(&self.nested).cloned().collect();
        if depth < 3 {
            let inner: Vec<Command> = all
                .iter()
                .filter_map(inner_script)
                .flat_map(|script| {
                    let mut commands = script.subjects(depth + 1);
                    if script.broken {
                        commands.push(Command {
                            text: script.whole.clone(),
                            full: script.whole.clone(),
                            words: Vec::new(),
                            plain: false,
                        });
                    }
                    commands
                })
                .collect();
            all.extend(inner);
        }
        all
    }

    /// Whether an exact allow rule names the whole line (Claude Code approves exactly the
    /// line it was given, however complex).
    pub(crate) fn exactly(&self, pattern: &Pattern) -> bool {
        matches!(pattern, Pattern::Exact(exact) if *exact == self.whole || *exact == strip::common(&self.whole))
    }

    /// The top-level commands an allow rule may cover one by one, or `None` when the line
    /// cannot be approved command by command.
    pub(crate) fn approvable(&self) -> Option<&[Command]> {
        (self.plain
            && !self.broken
            && !self.commands.is_empty()
            && self.whole.len() <= parse::MAX_LEN)
            .then_some(self.commands.as_slice())
    }
}

/// Whether an allow rule with `pattern` covers `command` (a plain top-level command).
pub(crate) fn allows(pattern: &Pattern, command: &Command) -> bool {
    if !command.plain {
        return false;
    }
    let stripped = strip::common(&command.text);
    let spellings = match pattern {
        Pattern::Exact(_) => vec![
            command.full.trim().to_string(),
            command.text.clone(),
            stripped,
        ],
        _ => vec![command.text.clone(), stripped],
    };
    spellings.iter().any(|spelling| {
        let matched = pattern.matches(spelling) || pattern.through_xargs(spelling, true);
        matched && !glued_star_widens(pattern, spelling)
    })
}

/// Claude Code refuses an allow wildcard glued to a partial word (`Bash(./scripts/*)`, `ls*`)
/// when the word it completes is not plain (its `lzs`); hookhost refuses every such case
/// where the completed word has more than letters, digits and `_.+-:@%,~/`, or a `$`, a
/// backquote or a dot-dot, which is as strict or stricter.
fn glued_star_widens(pattern: &Pattern, command: &str) -> bool {
    let Pattern::Wildcard(_) = pattern else {
        return false;
    };
    let literal = pattern::squeeze(pattern.literal_start());
    let literal = literal.strip_prefix("xargs ").unwrap_or(&literal);
    let partial = literal.rsplit(' ').next().unwrap_or_default();
    let command = pattern::squeeze(command);
    let command = command.strip_prefix("xargs ").unwrap_or(&command);
    if partial.is_empty() || partial.contains('=') || !command.starts_with(literal) {
        return false;
    }
    let rest = &command[literal.len()..];
    let completed = format!("{partial}{}", &rest[..rest.find(' ').unwrap_or(rest.len())]);
    let plain = completed
        .chars()
        .all(|c| c.is_alphanumeric() || "_.+-:@%,~/".contains(c));
    !plain || completed.contains("..") || completed.contains("/.")
}

fn lower(pattern: &Pattern) -> Pattern {
    match pattern {
        Pattern::Exact(text) => Pattern::Exact(text.to_lowercase()),
        Pattern::Prefix(text) => Pattern::Prefix(text.to_lowercase()),
        Pattern::Wildcard(text) => Pattern::Wildcard(text.to_lowercase()),
    }
}

/// The spellings of one command a deny or ask rule is matched against.
fn deny_spellings(command: &Command) -> Vec<String> {
    let skip = command
        .words
        .iter()
        .take_while(|word| OPENERS.contains(&word.raw.as_str()))
        .count();
    let words = &command.words[skip..];
    let mut texts = vec![command.text.clone(), command.full.trim().to_string()];
    if skip > 0 {
        texts.push(
            words
                .iter()
                .map(|word| word.raw.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    let argv: Vec<String> = words.iter().map(|word| word.value.clone()).collect();
    let raw: Vec<String> = words.iter().map(|word| word.raw.clone()).collect();
    for argv in [argv, raw] {
        let unwrapped = exec::exec_wrappers(&argv);
        texts.push(argv.join(" "));
        texts.push(unwrapped.join(" "));
    }
    // Closure under the text strippings and the program's basename.
    let mut seen = std::collections::BTreeSet::new();
    let mut at = 0;
    while at < texts.len() && texts.len() < 64 {
        let text = texts[at].clone();
        at += 1;
        if !seen.insert(text.clone()) {
            continue;
        }
        texts.push(strip::common(&text));
        texts.push(strip::assignments(&text));
        if let Some((program, rest)) = text.split_once(' ').or(Some((text.as_str(), "")))
            && strip::basename(program) != program
        {
            texts.push(
                format!("{} {rest}", strip::basename(program))
                    .trim_end()
                    .to_string(),
            );
        }
    }
    seen.into_iter().filter(|text| !text.is_empty()).collect()
}

/// The script a command hands to a shell (`bash -c SCRIPT`, `sh -lc SCRIPT`, `eval ARGS`).
fn inner_script(command: &Command) -> Option<Script> {
    let argv: Vec<String> = command
        .words
        .iter()
        .map(|word| word.value.clone())
        .collect();
    let argv = exec::exec_wrappers(&argv);
    let program = strip::basename(argv.first()?);
    if program == "eval" {
        return Some(read(&argv[1..].join(" ")));
    }
    if !SHELLS.contains(&program) {
        return None;
    }
    let flag = argv
        .iter()
        .skip(1)
        .position(|word| word.starts_with('-') && !word.starts_with("--") && word.contains('c'))?;
    argv.get(flag + 2).map(|script| read(script))
}

#[cfg(test)]
mod tests;
