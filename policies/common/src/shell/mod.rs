//! A shell command line read the way bash reads it, for policies that must see every command it
//! runs: words with their quoting removed, `;`, `&&`, `||`, `&`, newlines and pipes, subshells
//! and brace groups, `$(...)`, backticks and `<(...)` (parsed as scripts of their own),
//! redirections, heredocs and here-strings, line continuations and comments. Quoted text stays
//! one word: `echo "rm -rf /"` runs `echo`, never `rm`.
//!
//! [`parse`] gives a [`Script`]; [`calls::visit`] then walks what actually runs, through
//! wrappers (`sudo`, `env`, `timeout`, ...), shells given a string (`bash -c`, `eval`, a heredoc
//! fed to `sh`), `xargs`, `find -exec`, `ssh host CMD`, and the shell commands in code given to
//! `python -c`, `node -e`, `perl -e` (`os.system(...)`, `subprocess.run(...)`, `execSync(...)`).
//!
//! Nothing here expands variables, globs or aliases: a policy sees `$HOME` and `*` as written.

pub mod calls;
pub mod code;
mod parse;
mod word;
pub mod wrappers;

pub use calls::{Call, Via, visit};
pub use parse::parse;

use std::ops::Range;

/// A parsed command line: its simple commands in source order (the commands of subshells and
/// brace groups included; those of substitutions hang off the [`Word`] that holds them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    /// The simple commands.
    pub commands: Vec<Command>,
    /// True when the text could not be read to its end (an unclosed quote or substitution):
    /// what was read is still here.
    pub incomplete: bool,
}

/// One simple command: `NAME=v prog arg... > file`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    /// Leading `NAME=value` assignments.
    pub assignments: Vec<Word>,
    /// The program and its arguments, as words.
    pub words: Vec<Word>,
    /// Its redirections, in order.
    pub redirects: Vec<Redirect>,
    /// Where its standard input comes from.
    pub stdin: Input,
}

/// One word, its quotes removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// The text, quotes removed; substitutions (`$(...)`, `${...}`, `$VAR`) kept as written.
    pub text: String,
    /// Some part of it was quoted or escaped.
    pub quoted: bool,
    /// The scripts of its command and process substitutions, which run before the command.
    pub substitutions: Vec<Script>,
    /// It is a process substitution (`<(...)`, `>(...)`): the command sees a file name.
    pub process: bool,
}

/// A redirection: `2>>log`, `<input`, `<<EOF`, `&>/dev/null`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The file descriptor written before the operator, if any.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirectOp,
    /// What follows it (a heredoc's delimiter for [`RedirectOp::Heredoc`]).
    pub target: Word,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOp {
    /// `>`, `>|`, `&>`: the file is truncated.
    Write,
    /// `>>`, `&>>`.
    Append,
    /// `<`.
    Read,
    /// `<>`.
    ReadWrite,
    /// `>&`, `<&`: a descriptor duplicated (or, with a file name, `>&` writes it).
    Dup,
    /// `<<`, `<<-`.
    Heredoc,
    /// `<<<`.
    HereString,
}

impl Redirect {
    /// The redirection writes to the file it names (`>`, `>>`, `<>`, `&>`, and `>&` with a
    /// file name rather than a descriptor number).
    pub fn writes_file(&self) -> bool {
        match self.op {
            RedirectOp::Write | RedirectOp::Append | RedirectOp::ReadWrite => true,
            RedirectOp::Dup => {
                let target = self.target.text.as_str();
                target != "-" && !target.chars().all(|c| c.is_ascii_digit())
            }
            _ => false,
        }
    }

    /// The redirection reads the file it names (`<`, `<>`).
    pub fn reads_file(&self) -> bool {
        matches!(self.op, RedirectOp::Read | RedirectOp::ReadWrite)
    }
}

/// Where a command's standard input comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Input {
    /// Whatever the caller's is.
    #[default]
    Inherited,
    /// The output of the previous element of its pipeline: these commands of the same script.
    Pipe(Range<usize>),
    /// A heredoc's text.
    Heredoc(String),
    /// A here-string's text.
    HereString(String),
    /// A file (`< file`).
    File(String),
}

impl Script {
    /// Every command of the script, those of substitutions included, depth first.
    pub fn all_commands(&self) -> Vec<&Command> {
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }
}

fn collect<'a>(script: &'a Script, out: &mut Vec<&'a Command>) {
    for command in &script.commands {
        out.push(command);
        let words = command
            .assignments
            .iter()
            .chain(&command.words)
            .chain(command.redirects.iter().map(|r| &r.target));
        for word in words {
            for inner in &word.substitutions {
                collect(inner, out);
            }
        }
    }
}

impl Command {
    /// The words' texts.
    pub fn argv(&self) -> Vec<String> {
        self.words.iter().map(|w| w.text.clone()).collect()
    }
}
