//! What goes wrong with a configuration, located: every problem of a file with its line,
//! column and hook, and the error that carries them.

use std::fmt;
use std::path::PathBuf;

use super::location::Location;

/// Why a configuration could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read (for [`Config::load`](super::Config::load), also: it does not
    /// exist).
    #[error("cannot read hook configuration {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The file was read but is not a valid configuration; every problem is listed.
    #[error("{}", invalid_summary(path, problems))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every problem found, in file order. Never empty.
        problems: Vec<ConfigProblem>,
    },
}

impl ConfigError {
    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            ConfigError::Read { path, .. } | ConfigError::Invalid { path, .. } => path,
        }
    }

    /// The problems of an invalid file (empty for a read error).
    pub fn problems(&self) -> &[ConfigProblem] {
        match self {
            ConfigError::Read { .. } => &[],
            ConfigError::Invalid { problems, .. } => problems,
        }
    }

    /// One line naming the first problem (and how many more there are), for places that must
    /// fit an error into a single message, such as a blocked tool's result.
    pub fn one_line(&self) -> String {
        match self {
            ConfigError::Read { path, source } => {
                format!("cannot read {}: {source}", path.display())
            }
            ConfigError::Invalid { path, problems } => {
                let first = problems.first().map(|p| p.to_string()).unwrap_or_default();
                match problems.len() {
                    0 | 1 => format!("{}:{first}", path.display()),
                    n => format!("{}:{first} (and {} more)", path.display(), n - 1),
                }
            }
        }
    }
}

fn invalid_summary(path: &std::path::Path, problems: &[ConfigProblem]) -> String {
    located_summary("invalid hook configuration", "hook", path, problems)
}

/// `{heading} PATH (N problems):` and each problem on its own line, as
/// `PATH:line:column: {item} #N (name): message`: how every file hookhost validates (hooks.toml,
/// a policy test file) reports itself.
pub fn located_summary(
    heading: &str,
    item: &str,
    path: &std::path::Path,
    problems: &[ConfigProblem],
) -> String {
    let mut out = format!(
        "{heading} {} ({} problem{}):",
        path.display(),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    for problem in problems {
        out.push_str(&format!("\n  {}:", path.display()));
        out.push_str(&problem.located(item));
    }
    out
}

/// One thing wrong with a configuration, located in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// Where in the file.
    pub location: Location,
    /// The hook the problem belongs to: its 0-based index and its name, if it has one yet.
    pub hook: Option<(usize, Option<String>)>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl ConfigProblem {
    /// `line:column: {item} #N (name): message`, the problem's owner called `item` ("hook",
    /// "case").
    fn located(&self, item: &str) -> String {
        let owner = match &self.hook {
            Some((index, Some(name))) => format!("{item} #{} ({name}): ", index + 1),
            Some((index, None)) => format!("{item} #{}: ", index + 1),
            None => String::new(),
        };
        format!("{}: {owner}{}", self.location, self.message)
    }
}

/// Formats as `line:column: hook #N (name): message` (the caller prefixes the file).
impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.located("hook"))
    }
}
