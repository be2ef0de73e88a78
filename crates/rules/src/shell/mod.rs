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

use std::cell::OnceCell;

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
    /// The commands a deny rule looks at, with their spellings: worked out once per call, for
    /// every rule.
    pub(crate) spelled: OnceCell<Vec<Spelled>>,
}

/// A command as written, and each of its spellings as written and squeezed.
pub(crate) type Spelled = (String, Vec<(String, String)>);

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
    /// `text` with what every rule looks past taken off, once.
    pub(crate) stripped: OnceCell<String>,
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
        let lowered;
        let pattern = if case_blind {
            lowered = pattern.lowercase();
            &lowered
        } else {
            pattern
        };
        let fold = |text: &str| {
            if case_blind {
                text.to_lowercase()
            } else {
                text.to_string()
            }
        };
        if pattern.matches(&fold(&self.whole)) {
            return Some(self.whole.clone());
        }
        let spelled = self.spelled.get_or_init(|| self.spelled(0));
        for (text, spellings) in spelled {
            let hit = spellings.iter().any(|(raw, squeezed)| {
                if case_blind {
                    let (raw, squeezed) = (raw.to_lowercase(), squeezed.to_lowercase());
                    pattern.matches_squeezed(&raw, &squeezed)
                        || pattern.through_xargs(&squeezed, false)
                } else {
                    pattern.matches_squeezed(raw, squeezed)
                        || pattern.through_xargs(squeezed, false)
                }
            });
            if hit {
                return Some(text.clone());
            }
        }
        if self.broken && text::found_in(pattern, &fold(&self.whole)) {
            return Some(self.whole.clone());
        }
        None
    }

    /// Every command a deny rule looks at (top-level, nested, and inside `bash -c`/`eval`),
    /// as written, with its spellings.
    fn spelled(&self, depth: usize) -> Vec<Spelled> {
        let mut all = Vec::new();
        for command in self.commands.iter().chain(&self.nested) {
            all.push((command.text.clone(), deny_spellings(command)));
            if depth < 3
                && let Some(script) = inner_script(command)
            {
                all.extend(script.spelled(depth + 1));
                if script.broken {
                    let squeezed = pattern::squeeze(&script.whole).into_owned();
                    all.push((script.whole.clone(), vec![(script.whole.clone(), squeezed)]));
                }
            }
        }
        all
    }

    /// Whether an exact allow rule names the whole line (Claude Code approves exactly the
    /// line it was given, however complex).
    pub(crate) fn exactly(&self, pattern: &Pattern) -> bool {
        matches!(pattern, Pattern::Exact(exact) if *exact == self.whole || *exact == *strip::common(&self.whole))
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
    let stripped = command
        .stripped
        .get_or_init(|| strip::common(&command.text).into_owned());
    let spellings = match pattern {
        Pattern::Exact(_) => vec![
            command.full.trim(),
            command.text.as_str(),
            stripped.as_str(),
        ],
        _ => vec![command.text.as_str(), stripped.as_str()],
    };
    spellings.into_iter().any(|spelling| {
        let squeezed = pattern::squeeze(spelling);
        let matched =
            pattern.matches_squeezed(spelling, &squeezed) || pattern.through_xargs(&squeezed, true);
        matched && !glued_star_widens(pattern, spelling)
    })
}

/// Claude Code refuses an allow wildcard glued to a partial word (`Bash(./scripts/*)`, `ls*`)
/// when the word it completes is not plain (its `lzs`); hookhost refuses every such case
/// where the completed word has more than letters, digits and `_.+-:@%,~/`, or a `$`, a
/// backquote or a dot-dot, which is as strict or stricter.
fn glued_star_widens(pattern: &Pattern, command: &str) -> bool {
    let Pattern::Wildcard(..) = pattern else {
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

/// The spellings of one command a deny or ask rule is matched against.
fn deny_spellings(command: &Command) -> Vec<(String, String)> {
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
        if argv.first().is_some_and(|first| exec::wraps(first)) {
            texts.push(exec::exec_wrappers(&argv).join(" "));
        }
        texts.push(argv.join(" "));
    }
    // Closure under the text strippings and the program's basename.
    let mut seen = std::collections::BTreeSet::new();
    while let Some(text) = texts.pop() {
        if seen.len() >= 64 || seen.contains(&text) {
            continue;
        }
        let stripped = strip::common(&text);
        if *stripped != *text {
            texts.push(stripped.into_owned());
        }
        let bare = strip::assignments(&text);
        if bare != text {
            texts.push(bare.to_string());
        }
        let (program, rest) = text.split_once(' ').unwrap_or((text.as_str(), ""));
        if strip::basename(program) != program {
            texts.push(
                format!("{} {rest}", strip::basename(program))
                    .trim_end()
                    .to_string(),
            );
        }
        seen.insert(text);
    }
    seen.into_iter()
        .filter(|text| !text.is_empty())
        .map(|text| {
            let squeezed = pattern::squeeze(&text).into_owned();
            (text, squeezed)
        })
        .collect()
}

/// The script a command hands to a shell (`bash -c SCRIPT`, `sh -lc SCRIPT`, `eval ARGS`).
fn inner_script(command: &Command) -> Option<Script> {
    let runs_a_script = |word: &Word| {
        let program = strip::basename(&word.value);
        program == "eval" || SHELLS.contains(&program)
    };
    if !command.words.iter().any(runs_a_script) {
        return None;
    }
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
