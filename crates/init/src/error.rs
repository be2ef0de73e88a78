//! Why init could not plan or write: every variant names the file, and a syntax error its line
//! and column, so that the user can fix it; nothing has been written when one is returned.

use std::path::PathBuf;

use crate::names::UnknownName;

/// An error of `hookhost init` (or `--remove`).
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// An agent or profile name that is not known.
    #[error(transparent)]
    UnknownName(#[from] UnknownName),
    /// An event asked for that init does not register hookhost on.
    #[error("init leaves {product}'s {event} out: {why}")]
    LeftOut {
        /// The agent.
        product: &'static str,
        /// The event.
        event: &'static str,
        /// Why.
        why: &'static str,
    },
    /// A file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A settings file is not what its agent reads: not JSON (or JSON with comments where
    /// the agent reads none), or JSON of another shape.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Settings {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// What is wrong, and how to fix it.
        message: String,
    },
    /// A hooks.toml that does not parse, or would not once hookhost's block is added.
    #[error("{}: {message}", path.display())]
    HooksToml {
        /// The file.
        path: PathBuf,
        /// What is wrong (with the line and column the TOML parser gives).
        message: String,
    },
    /// The home or configuration directory could not be found (no `HOME`).
    #[error("cannot find {what}: set {variable}")]
    NoDirectory {
        /// Which directory.
        what: &'static str,
        /// The variable that would name it.
        variable: &'static str,
    },
    /// A file changed between planning and writing (the agent wrote its settings meanwhile).
    #[error("{} changed while hookhost init ran; nothing was written for it: run it again", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
    /// Writing a file failed; the files written before it were put back.
    #[error("cannot write {}; the files written before it were restored", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
