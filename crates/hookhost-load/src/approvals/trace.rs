//! Which files of the project a command hook runs, read from its command line: the program
//! when it is named by a path (`./check.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`),
//! the script an interpreter or `source` is given (`bash scripts/guard.sh`, `python3
//! tools/x.py --flag`), a `bash -c` line read in turn, and every other argument that is a path
//! (`jq -f filters/x.jq`); after a `cd`, in pipelines, lists and subshells, in `$(...)`;
//! redirections are not followed.
//!
//! What cannot be traced is said, never guessed: a path built at run time (a variable other
//! than the project-directory ones, a command substitution), a pattern, `eval`, a module run
//! by name. Paths outside the project are not recorded: they are not the repository's to
//! change. A script that runs another project file is covered only for what its own command
//! names.
//!
//! Longer than 400 lines: one walk over a command line's words (pipelines, lists, subshells,
//! `$(...)`, `cd`) that must see all of them to say which files it runs, or that it cannot
//! tell.

use std::path::{Path, PathBuf};

use super::programs::{
    BUILTINS, INTERPRETERS, RESERVED, SHELLS, TASK_RUNNERS, VALUE_OPTIONS, WRAPPERS,
};
use super::words::{Part, Token, Word, tokens};
use crate::dialect::ALL_PROJECT_DIR_VARIABLES;

/// Where a command runs.
pub(super) struct Place<'a> {
    /// The project's directory: the files under it are recorded.
    pub root: &'a Path,
    /// The directory the command starts in (absolute).
    pub cwd: &'a Path,
    /// What the project-directory variables hold.
    pub project_dir: &'a Path,
    /// `~` and `$HOME`.
    pub home: Option<&'a Path>,
}

/// Why a path the command names is not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotRecorded {
    /// Outside the project: not the repository's to change.
    Outside,
    /// A directory: what it holds is not recorded.
    Directory,
}

/// What one command runs, as far as its words tell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Traced {
    /// Files of the project it names, absolute, in order, each once.
    pub files: Vec<PathBuf>,
    /// Paths it names that are not recorded, and why.
    pub not_recorded: Vec<(PathBuf, NotRecorded)>,
    /// What it runs that cannot be traced to files, as sentences.
    pub untraceable: Vec<String>,
    /// The programs and scripts it runs, wherever they are, in order: what must be there for
    /// the command to run (`hookhost check` says when one is not).
    pub runs: Vec<Run>,
}

/// A program or script a command runs, and whether the command starts with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// What runs.
    pub target: Runs,
    /// It belongs to the command's first program (with its wrappers, its script, the commands
    /// of its `bash -c`): without it the command does nothing at all. What runs later may sit
    /// behind a condition (`[ -x ./opt.sh ] && ./opt.sh`).
    pub first: bool,
}

/// A program or script a command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runs {
    /// A program named by a path, executed (it must exist and be executable).
    Program(PathBuf),
    /// A script given to a shell, an interpreter or `source` (it must exist).
    Script(PathBuf),
    /// A program named without a `/`: looked up on `PATH` (not a shell builtin or keyword).
    Named(String),
}

/// Reads `command` as started in `place.cwd`.
pub(super) fn trace(command: &str, place: &Place<'_>) -> Traced {
    let mut tracer = Tracer {
        place,
        traced: Traced::default(),
        depth: 0,
        later: false,
    };
    tracer.line(command, Some(place.cwd.to_path_buf()));
    tracer.traced
}

/// `bash -c` inside `bash -c` inside ...: deeper than this is not read.
const MAX_DEPTH: usize = 4;

struct Tracer<'a> {
    place: &'a Place<'a>,
    traced: Traced,
    depth: usize,
    /// A program has run: what comes after is not the command's first.
    later: bool,
}

impl Tracer<'_> {
    /// A command line: simple commands between separators; a subshell's `cd` stays inside it.
    fn line(&mut self, command: &str, cwd: Option<PathBuf>) {
        if self.depth >= MAX_DEPTH {
            self.untraceable(
                "its command nests shells deeper than hookhost reads",
                command,
            );
            return;
        }
        self.depth += 1;
        let mut cwd = cwd;
        let mut outer = Vec::new();
        let mut words = Vec::new();
        let mut redirected = false;
        for token in tokens(command).into_iter().chain([Token::Separator]) {
            match token {
                Token::Word(word) if redirected => {
                    redirected = false;
                    self.substitutions(&word, &cwd);
                }
                Token::Word(word) => words.push(word),
                Token::Redirect => redirected = true,
                Token::Separator | Token::Open | Token::Close => {
                    self.simple(&std::mem::take(&mut words), &mut cwd);
                    match token {
                        Token::Open => outer.push(cwd.clone()),
                        Token::Close => cwd = outer.pop().unwrap_or(cwd),
                        _ => {}
                    }
                }
            }
        }
        self.depth -= 1;
    }

    /// One simple command: assignments and reserved words first, then the command.
    fn simple(&mut self, words: &[Word], cwd: &mut Option<PathBuf>) {
        for word in words {
            self.substitutions(word, cwd);
        }
        let start = words
            .iter()
            .position(|word| !is_assignment(word) && !RESERVED.contains(&word.raw.as_str()))
            .unwrap_or(words.len());
        self.command(&words[start..], cwd);
    }

    /// The commands inside a word's `$(...)`, read in turn.
    fn substitutions(&mut self, word: &Word, cwd: &Option<PathBuf>) {
        for part in &word.parts {
            if let Part::Substitution(inner) = part {
                self.line(inner, cwd.clone());
            }
        }
    }

    fn command(&mut self, words: &[Word], cwd: &mut Option<PathBuf>) {
        let Some((first, args)) = words.split_first() else {
            return;
        };
        let Some(name) = self.text(first, cwd) else {
            self.untraceable(
                "its command runs a program whose path is built at run time",
                &first.raw,
            );
            return;
        };
        // `[` is the test builtin, not a pattern.
        if first.glob && name != "[" {
            self.untraceable(
                "its command names the program it runs by a pattern",
                &first.raw,
            );
            return;
        }
        let builtin = !name.contains('/')
            && (BUILTINS.contains(&name.as_str()) || RESERVED.contains(&name.as_str()));
        if name.contains('/') {
            self.record(first, &name, cwd);
            if let Some(path) = self.resolve(first, &name, cwd) {
                self.runs(Runs::Program(path));
            }
        } else if !builtin {
            self.runs(Runs::Named(name.clone()));
        }
        let program = name.rsplit('/').next().unwrap_or_default();
        let interpreter = INTERPRETERS.iter().find(|(known, _)| {
            *known == program
                || (*known == "python"
                    && program
                        .strip_prefix("python")
                        .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.')))
        });
        match program {
            "cd" | "pushd" => {
                *cwd = match args.iter().find(|word| !word.raw.starts_with('-')) {
                    None => self.place.home.map(Path::to_path_buf),
                    Some(word) => self.text(word, cwd).and_then(|dir| {
                        let dir = self.expand_tilde(word, &dir)?;
                        Some(normalize(&cwd.as_ref()?.join(dir)))
                    }),
                }
            }
            "for" | "select" => {} // `for NAME in WORDS`: the words are data; the body follows.
            "case" => self.untraceable("its command chooses what it runs with `case`", &first.raw),
            "eval" => {
                let line: Vec<&str> = words.iter().map(|word| word.raw.as_str()).collect();
                self.untraceable(
                    "its command runs text it builds at run time",
                    &line.join(" "),
                )
            }
            "source" | "." => self.script(args.first(), cwd),
            _ if SHELLS.contains(&program) => self.shell(args, cwd),
            _ => {
                if let Some((_, options, operands)) =
                    WRAPPERS.iter().find(|(known, ..)| *known == program)
                {
                    let start = operands_start(args, options, *operands, program == "env");
                    self.command(&args[start.min(args.len())..], cwd);
                } else if let Some((_, inline)) = interpreter {
                    self.interpreter(program, inline, args, cwd);
                } else if TASK_RUNNERS.contains(&program) {
                    let line: Vec<&str> = words.iter().map(|word| word.raw.as_str()).collect();
                    self.untraceable(
                        "its command runs a tool that reads what to run from the project's own files",
                        &line.join(" "),
                    );
                    self.arguments(args, cwd);
                } else {
                    self.arguments(args, cwd);
                }
            }
        }
        // After a program, or a test (`[ -x ./opt.sh ] && ./opt.sh`), what runs may not.
        if !builtin || matches!(name.as_str(), "[" | "[[" | "test") {
            self.later = true;
        }
    }

    /// `bash [options] script args` or `bash -c 'line'`.
    fn shell(&mut self, args: &[Word], cwd: &mut Option<PathBuf>) {
        let mut inline = false;
        let mut at = 0;
        while let Some(word) = args.get(at) {
            let option = word.raw.as_str();
            if matches!(
                option,
                "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
            ) {
                at += 2;
            } else if option == "--" {
                at += 1;
                break;
            } else if option.len() > 1 && (option.starts_with('-') || option.starts_with('+')) {
                inline |=
                    !option.starts_with("--") && option.starts_with('-') && option.contains('c');
                at += 1;
            } else {
                break;
            }
        }
        let Some(word) = args.get(at) else {
            return; // it reads its commands from stdin, which is not traced
        };
        if inline {
            match self.text(word, cwd) {
                Some(line) => self.line(&line, cwd.clone()),
                None => self.untraceable(
                    "its command runs a command line built at run time",
                    &word.raw,
                ),
            }
        } else {
            self.script(Some(word), cwd);
            self.arguments(&args[at + 1..], cwd);
        }
    }

    /// `python3 [options] script args`; `-c CODE` runs code the hooks file holds.
    fn interpreter(
        &mut self,
        program: &str,
        inline: &[&str],
        args: &[Word],
        cwd: &mut Option<PathBuf>,
    ) {
        let mut at = 0;
        while let Some(word) = args.get(at) {
            let option = word.raw.as_str();
            if inline.contains(&option) {
                return;
            } else if option == "-m" && program.starts_with("python") {
                let module = args.get(at + 1).map_or("", |word| word.raw.as_str());
                self.untraceable(
                    "its command runs a module by name, found at run time",
                    &format!("-m {module}"),
                );
                return;
            } else if VALUE_OPTIONS.contains(&option) {
                at += 2;
            } else if option.starts_with('-')
                || (program == "deno" && option == "run")
                || (program == "bun" && option == "run")
            {
                at += 1;
            } else {
                break;
            }
        }
        self.script(args.get(at), cwd);
        if at < args.len() {
            self.arguments(&args[at + 1..], cwd);
        }
    }

    /// A word that names a script to run: recorded with or without a `/`.
    fn script(&mut self, word: Option<&Word>, cwd: &Option<PathBuf>) {
        let Some(word) = word else { return };
        match self.text(word, cwd) {
            None => self.untraceable("its command builds a path at run time", &word.raw),
            Some(_) if word.glob => self.untraceable(
                "its command names the scripts it runs by a pattern",
                &word.raw,
            ),
            Some(text) => {
                self.record(word, &text, cwd);
                if let Some(path) = self.resolve(word, &text, cwd) {
                    self.runs(Runs::Script(path));
                }
            }
        }
    }

    fn runs(&mut self, target: Runs) {
        if !self.traced.runs.iter().any(|run| run.target == target) {
            let first = !self.later;
            self.traced.runs.push(Run { target, first });
        }
    }

    /// Other arguments: those that are paths are recorded (a rules file, a jq program).
    fn arguments(&mut self, args: &[Word], cwd: &Option<PathBuf>) {
        for word in args {
            if word.glob || word.raw.starts_with('-') {
                continue;
            }
            if let Some(text) = self.text(word, cwd)
                && text.contains('/')
                && !text.contains("://")
            {
                self.record(word, &text, cwd);
            }
        }
    }

    fn record(&mut self, word: &Word, text: &str, cwd: &Option<PathBuf>) {
        if self.expand_tilde(word, text).is_none() {
            return self.not_recorded(PathBuf::from(text), NotRecorded::Outside);
        }
        let Some(path) = self.resolve(word, text, cwd) else {
            return self.untraceable(
                "its command names a path after a `cd` to a directory built at run time",
                &word.raw,
            );
        };
        if !path.starts_with(self.place.root) {
            self.not_recorded(path, NotRecorded::Outside)
        } else if path.is_dir() {
            self.not_recorded(path, NotRecorded::Directory)
        } else if !self.traced.files.contains(&path) {
            self.traced.files.push(path);
        }
    }

    /// The absolute path a word names (`None`: someone else's home, or relative to a
    /// directory built at run time).
    fn resolve(&self, word: &Word, text: &str, cwd: &Option<PathBuf>) -> Option<PathBuf> {
        let path = self.expand_tilde(word, text)?;
        let path = match cwd {
            _ if path.is_absolute() => path,
            Some(cwd) => cwd.join(path),
            None => return None,
        };
        Some(normalize(&path))
    }

    /// `~/x` as `$HOME/x`; `None` for `~user/x` (someone's home: outside the project).
    fn expand_tilde(&self, word: &Word, text: &str) -> Option<PathBuf> {
        if !word.tilde {
            return Some(PathBuf::from(text));
        }
        match text.strip_prefix('~') {
            Some("") => self.place.home.map(Path::to_path_buf),
            Some(rest) if rest.starts_with('/') => {
                Some(self.place.home?.join(rest.trim_start_matches('/')))
            }
            _ => None,
        }
    }

    fn not_recorded(&mut self, path: PathBuf, why: NotRecorded) {
        if !self.traced.not_recorded.iter().any(|(p, _)| *p == path) {
            self.traced.not_recorded.push((path, why));
        }
    }

    fn untraceable(&mut self, why: &str, raw: &str) {
        let sentence = format!(
            "{why}: `{}`; hookhost cannot tell which files it runs, and changes to them will \
             not need a new approval",
            crate::text::name(raw)
        );
        if !self.traced.untraceable.contains(&sentence) {
            self.traced.untraceable.push(sentence);
        }
    }

    /// A word's text when it is known before the command runs: literals and the
    /// project-directory variables (and `$PWD`, `$HOME`); `None` otherwise.
    fn text(&self, word: &Word, cwd: &Option<PathBuf>) -> Option<String> {
        let mut text = String::new();
        for part in &word.parts {
            match part {
                Part::Literal(literal) => text.push_str(literal),
                Part::Variable(name) if ALL_PROJECT_DIR_VARIABLES.contains(&name.as_str()) => {
                    text.push_str(&self.place.project_dir.to_string_lossy())
                }
                Part::Variable(name) if name == "PWD" => {
                    text.push_str(&cwd.as_ref()?.to_string_lossy())
                }
                Part::Variable(name) if name == "HOME" => {
                    text.push_str(&self.place.home?.to_string_lossy())
                }
                Part::Variable(_) | Part::Substitution(_) | Part::Dynamic => return None,
            }
        }
        Some(text)
    }
}

/// `NAME=value` before a command.
fn is_assignment(word: &Word) -> bool {
    let Some((name, _)) = word.raw.split_once('=') else {
        return false;
    };
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Where the wrapped command starts among a wrapper's arguments.
fn operands_start(args: &[Word], options: &[&str], operands: usize, assignments: bool) -> usize {
    let mut at = 0;
    while let Some(word) = args.get(at) {
        let raw = word.raw.as_str();
        if options.contains(&raw) {
            at += 2;
        } else if raw.starts_with('-') || (assignments && is_assignment(word)) {
            at += 1;
        } else {
            break;
        }
    }
    at + operands
}

/// `a/./b/../c` as `a/c`, without asking the file system (a path that does not exist yet is
/// recorded too: a file that appears there later needs approval).
pub(super) use crate::dirs::lexical as normalize;
