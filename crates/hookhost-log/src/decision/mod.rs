//! The decision log: one JSON record per event that reached a hook (OPA's decision logs,
//! Kubewarden's audit), appended to the file `[log]` names so that a team can answer what its
//! policies blocked, for whom, and how long they took.
//!
//! A record: a decision id (UUID v7, time-ordered), the time, the agent, session, cwd, event
//! and tool; the merged decision and the hook that decided it; and, per hook that ran, its
//! name, layer, source (a command, a file path or an `oci://` reference), the component's
//! digest and the keys that signed it, its mode, its verdict or failure, and the microseconds
//! it took; what hooks in monitor mode would have decided. The tool input and the payload
//! are kept under the masking rules of `[log]`: `drop` and `hash` (JSON pointers),
//! `drop_contents` (every agent's file contents, by the tool vocabulary: `contents`) and
//! `redact` (secrets, in every string and reason: `redaction`).
//!
//! A leaf on top of the runner's types: the runner hands a [`Recorder`] a [`Draft`] of each
//! outcome (a copy of what the record says, taken on the calling path); the recorder's writer
//! thread turns drafts into records (`record`), appends them in batches to the log's file
//! (`file`), one line each, and hands them to an [`Export`] (OpenTelemetry) where one is
//! configured.

mod contents;
mod file;
mod outcomes;
mod record;
mod recorder;
mod redaction;

pub use file::{DecisionFile, FileLock};
pub use outcomes::SharedRecorder;
pub(crate) use record::Masks;
pub(crate) use record::new_id;
pub use record::{Draft, Provenance, record};
pub use recorder::{Export, Recorder};

use std::sync::Arc;

use crate::config::LogSpec;

/// A configured decision log: its file, and what `[log]` says records keep.
#[derive(Debug)]
pub struct DecisionLog {
    /// The file records are appended to.
    pub file: Arc<DecisionFile>,
    /// `[log]` as configured.
    pub spec: Arc<LogSpec>,
}

impl DecisionLog {
    /// The log `spec` describes; `base_dir` is its configuration file's directory.
    pub fn new(spec: LogSpec, base_dir: &std::path::Path) -> DecisionLog {
        let path = match spec.path.strip_prefix("~") {
            Ok(rest) => std::env::var_os("HOME")
                .map(|home| std::path::PathBuf::from(home).join(rest))
                .unwrap_or_else(|| spec.path.clone()),
            Err(_) => base_dir.join(&spec.path),
        };
        DecisionLog {
            file: Arc::new(DecisionFile::new(path, spec.max_bytes, spec.keep)),
            spec: Arc::new(spec),
        }
    }

    /// The same log, its file opened without following a symlink (a path a project chose).
    pub fn without_following_links(self) -> DecisionLog {
        let file = Arc::try_unwrap(self.file)
            .map(DecisionFile::without_following_links)
            .map(Arc::new)
            .unwrap_or_else(|file| file);
        DecisionLog { file, ..self }
    }

    /// Its files, oldest first: the rotated ones (`FILE.{keep}` down to `FILE.1`), then
    /// `FILE`; some may not exist.
    pub fn files(&self) -> Vec<std::path::PathBuf> {
        (1..=self.spec.keep)
            .rev()
            .map(|n| self.file.rotated(n))
            .chain(std::iter::once(self.file.path().to_path_buf()))
            .collect()
    }
}

/// Whether `value`, a line of a log parsed, is a decision record (not a foreign line).
pub fn is_record(value: &serde_json::Value) -> bool {
    value.get("id").is_some() && value.get("hooks").is_some()
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_masks;
