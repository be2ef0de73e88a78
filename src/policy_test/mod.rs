//! Policy tests: a TOML file of cases beside hooks.toml (`hooks.test.toml`), each an event run
//! through the real loading, layers, matchers, runtimes and merge, with what must come out.
//! `hookhost test` is its command line; an agent can run the same files in its own tests.
//!
//! ```toml
//! [layers]                          # the files each case loads, relative to this file
//! project = "hooks.toml"            # default: hooks.toml beside this file
//!
//! [[cases]]
//! name = "rm -rf / is blocked"
//! event = "PreToolUse"
//! tool = "Bash"
//! input = { command = "rm -rf /" }
//! expect = { decision = "block", by = "destructive-guard", reason = "recursive delete" }
//!
//! [[cases]]
//! name = "Claude Code's answer"
//! agent = "claude"                  # the agent the event arrives from: its variables, its reply
//! event = "PreToolUse"
//! tool = "Bash"
//! input = { command = "git push --force" }
//! expect.decision = "block"
//! expect.reply = { json = { hookSpecificOutput = { permissionDecision = "deny" } } }
//! ```
//!
//! ```text
//! hooks.test.toml ──parse──▶ CaseFile ──run──▶ per case: HookRunner::load_exact (the case's
//!  (parse: every problem        │               layers, nothing of this machine's), the event
//!   located, "did you mean")    │               fired (and the agent's reply rendered), async
//!                               │               hooks drained ──▶ expect: CaseResult (passed,
//!                               │               failed with mismatches, or an error)
//!                               └──junit──▶ JUnit XML for CI
//! ```
//!
//! A leaf over the library's API: nothing below imports it.

mod expect;
pub mod junit;
mod parse;
mod run;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::config::Location;
use crate::dialect::AgentFormat;

pub use expect::Mismatch;
pub use run::run_file;

/// The name of the test file `hookhost test` looks for beside a hooks.toml.
pub const DEFAULT_FILE: &str = "hooks.test.toml";

/// A validated test file: its cases, in file order.
#[derive(Debug, Clone)]
pub struct CaseFile {
    /// Where it was read; messages name it, and relative paths in it resolve against its
    /// directory.
    pub path: PathBuf,
    /// Every case.
    pub cases: Vec<Case>,
}

/// One case: an event, where it runs, and what must come out.
#[derive(Debug, Clone)]
pub struct Case {
    /// How reports name it.
    pub name: String,
    /// Where its `[[cases]]` table starts.
    pub location: Location,
    /// The agent the event arrives from: its project-directory variables and `HOOKHOST_AGENT`
    /// for the hooks, as `agent-hook` gives them, and its reply for `expect.reply`.
    pub agent: Option<AgentFormat>,
    /// The event.
    pub event: CaseEvent,
    /// The configuration files it loads.
    pub layers: CaseLayers,
    /// The agent's working directory: hooks run there.
    pub cwd: PathBuf,
    /// Variables for the event's command hooks.
    pub env: Vec<(String, String)>,
    /// What must come out.
    pub expect: Expect,
}

/// The event of a case.
#[derive(Debug, Clone)]
pub enum CaseEvent {
    /// In hookhost's terms.
    Fields {
        /// hookhost's name for the event (built-in or custom).
        name: String,
        /// The tool call's tool and input.
        tool: Option<(String, Value)>,
        /// The other payload fields.
        payload: Vec<(String, Value)>,
        /// The session id.
        session_id: Option<String>,
    },
    /// The agent's own JSON, as it writes it on `agent-hook`'s stdin (`stdin`), read by the
    /// agent's parser; `event` is `agent-hook --event`.
    Stdin {
        /// The JSON text.
        text: String,
        /// `--event`, when given.
        event: Option<String>,
    },
}

/// The files a case loads, by layer. Exactly these: neither this machine's managed file nor
/// the user's own hooks.toml comes in unless named, so that a test gives the same answer on
/// every machine.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CaseLayers {
    /// Plays the organisation's managed file (its owner and mode are not checked).
    pub managed: Option<PathBuf>,
    /// Plays the user's own hooks.toml.
    pub user: Option<PathBuf>,
    /// The project's hooks.toml.
    pub project: Option<PathBuf>,
    /// The project's hooks.local.toml.
    pub local: Option<PathBuf>,
}

/// What must come out of a case; what is not given is not checked (at least one thing is).
#[derive(Debug, Clone, Default)]
pub struct Expect {
    /// The merged decision: `allow`, `approve`, `warn`, `ask` or `block`.
    pub decision: Option<String>,
    /// The hook that decided (blocked, asked, warned or approved).
    pub by: Option<Named>,
    /// Text the decision's message must contain (each entry).
    pub reason: Vec<String>,
    /// The block is a hook's failure (true) or its decision (false).
    pub hook_failed: Option<bool>,
    /// The tool input as the guards rewrote it, exactly.
    pub updated_input: Option<Value>,
    /// Text the context for the model must contain (each entry).
    pub context: Vec<String>,
    /// The signals raised, by name, in order.
    pub signals: Option<Vec<String>>,
    /// Hooks that must have run.
    pub ran: Vec<Named>,
    /// Hooks that must not have run (not reached, or held or skipped).
    pub did_not_run: Vec<Named>,
    /// The agent's reply (needs `agent`).
    pub reply: Option<ExpectReply>,
}

/// A hook name a case expects, with where it is written: a name no hook has is an error of the
/// case, never a pass (`did_not_run = ["destructive-gaurd"]` would hold for ever).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The hook's name.
    pub name: String,
    /// Where the test file writes it.
    pub location: Location,
}

/// What the agent must read back.
#[derive(Debug, Clone, Default)]
pub struct ExpectReply {
    /// `agent-hook`'s exit status.
    pub exit_code: Option<u8>,
    /// Keys and values stdout's JSON must have (other keys may be there too).
    pub json: Option<Value>,
    /// Text stdout must contain (each entry).
    pub stdout: Vec<String>,
    /// Text stderr must contain (each entry).
    pub stderr: Vec<String>,
}

/// How a case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Everything expected came out.
    Passed,
    /// Something else came out.
    Failed(Vec<Mismatch>),
    /// The case could not be run as written (its layers do not load, it names a hook no layer
    /// has, the agent cannot read its stdin): the test, or the configuration, needs fixing.
    Error(String),
}

/// The result of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// Where the case is.
    pub location: Location,
    /// `PreToolUse Bash`, `Stop`: the event in a few words.
    pub event: String,
    /// What came out, in a few words (`block by destructive-guard`), when it ran.
    pub actual: Option<String>,
    /// From firing the event to the answer (and the async hooks drained).
    pub duration: Duration,
    /// Passed, failed or an error.
    pub status: Status,
}

impl CaseResult {
    /// True when the case passed.
    pub fn passed(&self) -> bool {
        self.status == Status::Passed
    }
}

/// Why a test file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CaseFileError {
    /// It could not be read (or does not exist).
    #[error("cannot read the test file {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It was read but is not a valid test file; every problem is listed.
    #[error("{}", invalid_summary(path, problems))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every problem, in file order; `hook` is the case (index and name).
        problems: Vec<crate::config::ConfigProblem>,
    },
}

fn invalid_summary(path: &Path, problems: &[crate::config::ConfigProblem]) -> String {
    crate::config::located_summary("invalid test file", "case", path, problems)
}

impl CaseFile {
    /// Reads and validates the test file at `path`: every problem located, with "did you
    /// mean" hints, as hooks.toml is. The layers it names must exist.
    pub fn load(path: impl AsRef<Path>) -> Result<CaseFile, CaseFileError> {
        let path = path.as_ref();
        let error = |source| CaseFileError::Read {
            path: path.to_path_buf(),
            source,
        };
        let text = read_text(path).map_err(error)?;
        CaseFile::parse(&text, path)
    }

    /// Validates `text` as the test file at `path` (relative paths resolve against its
    /// directory).
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<CaseFile, CaseFileError> {
        let path = path.as_ref();
        parse::parse_file(text, path)
            .map(|cases| CaseFile {
                path: path.to_path_buf(),
                cases,
            })
            .map_err(|problems| CaseFileError::Invalid {
                path: path.to_path_buf(),
                problems,
            })
    }
}

/// A regular file of at most [`crate::config::MAX_CONFIG_BYTES`], as UTF-8.
fn read_text(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let invalid = |message: String| std::io::Error::new(std::io::ErrorKind::InvalidData, message);
    if !std::fs::metadata(path)?.is_file() {
        return Err(invalid("not a regular file".to_string()));
    }
    let limit = crate::config::MAX_CONFIG_BYTES;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(invalid(format!("larger than {limit} bytes")));
    }
    String::from_utf8(bytes).map_err(|error| invalid(error.to_string()))
}
