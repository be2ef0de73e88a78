//! `.forgeflare/convergence.json`: what PostToolUse signals and the end of a run leave behind
//! for the outer Ralph loop (seed 000, R8).
//!
//! Every write is atomic: the new content goes to `convergence.json.tmp` in the same directory,
//! is fsynced, and is renamed over the file, so a crash leaves the old file or the new one,
//! never an empty or partial one. Several processes (parallel agents in one project) may
//! share the file: each read-modify-write holds an advisory lock on `convergence.json.lock`,
//! so only one process at a time writes the temp file. Failures are warnings: they never
//! change what the runner returns (R8 extends R5's fail-open rule to hookhost's own I/O), and
//! observations that could not be written are named in the warning and kept for the store's
//! next write.
//!
//! The file is bounded, so that a call costs the same at the end of a long session as at its
//! start (each signalling call reads, rewrites and syncs the whole file): it keeps the first
//! observation (the first signal is the one that decided, R7) and the newest ones after it, at
//! most [`MAX_OBSERVATIONS`] in all and [`MAX_OBSERVATION_BYTES`] of JSON, and counts the
//! observations it dropped in `dropped_observations`. A file that never reached the bound has no
//! such key and reads exactly as before; readers that do not know the key ignore it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

mod lock;
pub use lock::LOCK_WAIT;
use lock::{FileLock, LockError};

/// The most observations `convergence.json` keeps: the first of the session and the 255 newest,
/// as long as they fit in [`MAX_OBSERVATION_BYTES`]. Signals as Ralph loops raise them (a name
/// and a sentence, ~100 bytes) keep a long history; the largest (a 256-byte name, an 8 KiB
/// reason) hit the byte bound after about 18.
pub const MAX_OBSERVATIONS: usize = 256;
/// The most bytes the kept observations take as JSON, which is what a call's cost follows (the
/// sync costs the same for 8 KiB as for 160 KiB on the development machine; the parse and
/// rewrite do not): at this bound the 10,000th call of the largest signal measured 1.7x the
/// session's first (docs/benchmarks.md), where a 512 KiB bound measured 3.3x. A reason of
/// control characters, escaped six bytes for one (52 KB), counts at its escaped size.
pub const MAX_OBSERVATION_BYTES: usize = 160 * 1024;

/// The file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvergenceState {
    /// One entry per PostToolUse signal, in the order they were raised: the first of the
    /// session, then the newest (older ones beyond the bound are dropped and counted).
    #[serde(default)]
    pub observations: Vec<Observation>,
    /// How many observations between the first and the oldest kept were dropped to keep the
    /// file bounded. Absent (zero) until the first is dropped.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped_observations: u64,
    /// How the run ended; written once per session by the Stop event.
    #[serde(rename = "final", default, skip_serializing_if = "Option::is_none")]
    pub final_state: Option<FinalState>,
}

/// One PostToolUse signal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The signal's name.
    pub signal: String,
    /// The hook's reason.
    pub reason: String,
    /// The batch counter when the signal was raised.
    pub tool_iterations: usize,
}

/// The `final` key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalState {
    /// The Stop reason.
    pub reason: String,
    /// The batch counter at the end.
    pub tool_iterations: usize,
    /// Tokens used by the run.
    pub total_tokens: u64,
    /// When the run ended, RFC 3339 in UTC (`2026-02-13T19:30:00Z`).
    pub timestamp: String,
}

/// Why a convergence write failed.
#[derive(Debug, thiserror::Error)]
pub enum ConvergenceError {
    /// Creating the directory, locking, writing, syncing or renaming failed.
    /// A file could not be read, written or created: which, and what the OS said.
    #[error(transparent)]
    Io(#[from] crate::durable::FileError),
    /// Another process (another agent in the same project) held the lock for the whole wait,
    /// so nothing was read, written or removed.
    #[error(
        "could not lock {} within {}ms: another process holds it; {consequence}",
        lock.display(),
        waited.as_millis()
    )]
    Locked {
        /// The lock file.
        lock: PathBuf,
        /// How long this process waited.
        waited: Duration,
        /// What was not done, naming every observation not written, and what happens to it.
        consequence: String,
    },
}

/// Owns `convergence.json` for one runner: serializes its writes (within this process by a
/// mutex, across processes by a file lock) and remembers whether this session already wrote
/// `final`.
#[derive(Debug)]
pub struct ConvergenceStore {
    dir: PathBuf,
    path: PathBuf,
    tmp: PathBuf,
    lock_file: PathBuf,
    lock_wait: Duration,
    /// One read-modify-write at a time in this process, so concurrent PostToolUse calls lose
    /// nothing. Holds the observations a failed write could not record; the next write of
    /// this store records them first.
    unwritten: Mutex<Vec<Observation>>,
    final_written: AtomicBool,
}

/// What one write adds.
enum Change<'a> {
    Observations(&'a [Observation]),
    Final(FinalState),
}

impl ConvergenceStore {
    /// A store for `dir/convergence.json` (the directory is created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> ConvergenceStore {
        let dir = dir.into();
        ConvergenceStore {
            path: dir.join("convergence.json"),
            tmp: dir.join("convergence.json.tmp"),
            lock_file: dir.join("convergence.json.lock"),
            dir,
            lock_wait: LOCK_WAIT,
            unwritten: Mutex::new(Vec::new()),
            final_written: AtomicBool::new(false),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Deletes the file, at startup: a stale file from an earlier run must not be read as
    /// this run's result. A file that does not exist is fine. Starts a new session.
    pub fn clear(&self) -> Result<(), ConvergenceError> {
        let mut unwritten = self.unwritten.lock().unwrap_or_else(|e| e.into_inner());
        unwritten.clear();
        self.final_written.store(false, Ordering::SeqCst);
        if !self.dir.is_dir() {
            return Ok(());
        }
        let _lock = self.lock(|| "did not remove the stale convergence.json".to_string())?;
        match fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(ConvergenceError::Io(crate::durable::FileError {
                action: "remove",
                path: self.path.clone(),
                source,
            })),
        }
    }

    /// Appends observations in one read-modify-write (R7/R8). Returns warnings about the
    /// existing file (for example: it was corrupt and was moved aside). Observations that
    /// cannot be written are kept and written first by this store's next write; the error
    /// names them when the lock was the cause.
    pub fn append_observations(
        &self,
        observations: &[Observation],
    ) -> Result<Vec<String>, ConvergenceError> {
        self.update(Change::Observations(observations))
    }

    /// Writes `final`, once per session. Returns `Ok(None)` when this session already wrote it
    /// (the first Stop of a session is the one the outer loop reads), else the warnings. When
    /// the write fails, the session has no `final` yet and the next Stop writes it.
    pub fn write_final(
        &self,
        final_state: FinalState,
    ) -> Result<Option<Vec<String>>, ConvergenceError> {
        if self.final_written.swap(true, Ordering::SeqCst) {
            return Ok(None);
        }
        self.update(Change::Final(final_state)).map(Some)
    }

    fn update(&self, change: Change<'_>) -> Result<Vec<String>, ConvergenceError> {
        let mut unwritten = self.unwritten.lock().unwrap_or_else(|e| e.into_inner());
        let final_state = match change {
            Change::Observations(observations) => {
                unwritten.extend_from_slice(observations);
                None
            }
            Change::Final(final_state) => Some(final_state),
        };
        match self.write(&unwritten, final_state.as_ref()) {
            Ok(warnings) => {
                unwritten.clear();
                Ok(warnings)
            }
            Err(error) => {
                if final_state.is_some() {
                    self.final_written.store(false, Ordering::SeqCst);
                }
                Err(error)
            }
        }
    }

    /// One read-modify-write under the file lock.
    fn write(
        &self,
        observations: &[Observation],
        final_state: Option<&FinalState>,
    ) -> Result<Vec<String>, ConvergenceError> {
        fs::create_dir_all(&self.dir).map_err(io("create directory", &self.dir))?;
        let _lock = self.lock(|| not_written(observations, final_state))?;
        let mut warnings = Vec::new();
        let mut state = match fs::read(&self.path) {
            Ok(bytes) => match serde_json::from_slice::<ConvergenceState>(&bytes) {
                Ok(state) => state,
                Err(error) => {
                    // Keep the unreadable file for a human instead of overwriting it.
                    let aside = self.dir.join("convergence.json.corrupt");
                    let moved = fs::rename(&self.path, &aside);
                    warnings.push(format!(
                        "{} was not valid convergence JSON ({error}); {}",
                        self.path.display(),
                        match moved {
                            Ok(()) => format!("moved it to {} and started afresh", aside.display()),
                            Err(e) => format!("could not move it aside ({e}); overwriting it"),
                        }
                    ));
                    ConvergenceState::default()
                }
            },
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                ConvergenceState::default()
            }
            Err(source) => return Err(io("read", &self.path)(source)),
        };
        state.observations.extend_from_slice(observations);
        state.dropped_observations += bound(&mut state.observations);
        if let Some(final_state) = final_state {
            state.final_state = Some(final_state.clone());
        }
        let json = serde_json::to_vec_pretty(&state).expect("convergence state serializes");
        // Only the lock holder writes the spec's fixed temp name.
        write_atomically(&self.tmp, &self.path, &json)?;
        Ok(warnings)
    }

    /// Takes the cross-process lock; `consequence` says what a busy lock leaves undone.
    fn lock(&self, consequence: impl FnOnce() -> String) -> Result<FileLock, ConvergenceError> {
        FileLock::acquire(&self.lock_file, self.lock_wait).map_err(|error| match error {
            LockError::Busy { waited } => ConvergenceError::Locked {
                lock: self.lock_file.clone(),
                waited,
                consequence: consequence(),
            },
            LockError::Io(action, source) => io(action, &self.lock_file)(source),
        })
    }

    /// Reads a convergence file, as the outer loop does after the agent exits.
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<ConvergenceState> {
        let bytes = fs::read(path)?;
        serde_json::from_slice(&bytes).map_err(std::io::Error::other)
    }
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// Drops the oldest observations after the first until at most [`MAX_OBSERVATIONS`] are left
/// and they fit in [`MAX_OBSERVATION_BYTES`]; returns how many it dropped.
fn bound(observations: &mut Vec<Observation>) -> u64 {
    let Some((first, rest)) = observations.split_first() else {
        return 0;
    };
    let mut bytes = json_len(first);
    let newest = rest
        .iter()
        .rev()
        .take(MAX_OBSERVATIONS - 1)
        .take_while(|observation| {
            bytes += json_len(observation);
            bytes <= MAX_OBSERVATION_BYTES
        })
        .count();
    let dropped = rest.len() - newest;
    observations.drain(1..1 + dropped);
    dropped as u64
}

/// The length of an observation's JSON (compact: the file's indentation adds a few bytes).
fn json_len(observation: &Observation) -> usize {
    /// Counts what is written, keeps nothing.
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, observation).expect("an observation serializes");
    count.0
}

/// How many observations a lock warning names one by one.
const NAMED_IN_WARNING: usize = 5;

/// What a write that could not take the lock leaves undone, naming each observation (by its
/// signal and batch) so that nothing is lost silently.
fn not_written(observations: &[Observation], final_state: Option<&FinalState>) -> String {
    let mut what = Vec::new();
    let mut then = Vec::new();
    if !observations.is_empty() {
        let mut named: Vec<String> = observations
            .iter()
            .take(NAMED_IN_WARNING)
            .map(|o| format!("{:?} at tool_iterations {}", o.signal, o.tool_iterations))
            .collect();
        if observations.len() > NAMED_IN_WARNING {
            named.push(format!("{} more", observations.len() - NAMED_IN_WARNING));
        }
        let plural = if observations.len() == 1 { "" } else { "s" };
        what.push(format!(
            "{} observation{plural} ({})",
            observations.len(),
            named.join(", ")
        ));
        then.push("this runner keeps the observations and writes them with its next write");
    }
    if let Some(final_state) = final_state {
        what.push(format!("`final` (reason {:?})", final_state.reason));
        then.push("the next Stop of this session writes `final`");
    }
    format!("not written: {}; {}", what.join(" and "), then.join("; "))
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ConvergenceError {
    let path = path.to_path_buf();
    move |source| {
        ConvergenceError::Io(crate::durable::FileError {
            action,
            path,
            source,
        })
    }
}

/// Writes `bytes` over `path` through `tmp`, whole and durably (`crate::durable`).
fn write_atomically(tmp: &Path, path: &Path, bytes: &[u8]) -> Result<(), ConvergenceError> {
    let options = crate::durable::WriteOptions {
        temp: Some(tmp),
        ..Default::default()
    };
    crate::durable::write_parts(path, &[bytes], options).map_err(|error| {
        ConvergenceError::Io(crate::durable::FileError {
            action: error.action,
            path: error.path,
            source: error.source,
        })
    })
}

/// The current time as RFC 3339 in UTC, to the second.
pub(crate) fn timestamp_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests;
