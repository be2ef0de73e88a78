//! `.forgeflare/convergence.json`: what PostToolUse signals and the end of a run leave behind
//! for the outer Ralph loop (seed 000, R8).
//!
//! Every write is atomic: the new content goes to `convergence.json.tmp` in the same directory,
//! is fsynced, and is renamed over the file, so a crash leaves the old file or the new one,
//! never an empty or partial one. Failures are warnings: they never change what the runner
//! returns (R8 extends R5's fail-open rule to hookhost's own I/O).

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

/// The file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvergenceState {
    /// One entry per PostToolUse signal, in the order they were raised.
    #[serde(default)]
    pub observations: Vec<Observation>,
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
    /// Creating the directory, writing, syncing or renaming failed.
    #[error("cannot {action} {}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path it was done to.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
}

/// Owns `convergence.json` for one runner: serializes its writes and remembers whether this
/// session already wrote `final`.
#[derive(Debug)]
pub struct ConvergenceStore {
    dir: PathBuf,
    path: PathBuf,
    tmp: PathBuf,
    /// One read-modify-write at a time, so concurrent PostToolUse calls lose nothing.
    lock: Mutex<()>,
    final_written: AtomicBool,
}

impl ConvergenceStore {
    /// A store for `dir/convergence.json` (the directory is created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> ConvergenceStore {
        let dir = dir.into();
        ConvergenceStore {
            path: dir.join("convergence.json"),
            tmp: dir.join("convergence.json.tmp"),
            dir,
            lock: Mutex::new(()),
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
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.final_written.store(false, Ordering::SeqCst);
        match fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(ConvergenceError::Io {
                action: "remove",
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// Appends observations in one read-modify-write (R7/R8). Returns warnings about the
    /// existing file (for example: it was corrupt and was moved aside).
    pub fn append_observations(
        &self,
        observations: &[Observation],
    ) -> Result<Vec<String>, ConvergenceError> {
        self.update(|state| state.observations.extend_from_slice(observations))
    }

    /// Writes `final`, once per session. Returns `Ok(None)` when this session already wrote it
    /// (the first Stop of a session is the one the outer loop reads), else the warnings.
    pub fn write_final(
        &self,
        final_state: FinalState,
    ) -> Result<Option<Vec<String>>, ConvergenceError> {
        if self.final_written.swap(true, Ordering::SeqCst) {
            return Ok(None);
        }
        self.update(move |state| state.final_state = Some(final_state))
            .map(Some)
    }

    fn update(
        &self,
        change: impl FnOnce(&mut ConvergenceState),
    ) -> Result<Vec<String>, ConvergenceError> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| ConvergenceError::Io {
                action,
                path,
                source,
            }
        };
        fs::create_dir_all(&self.dir).map_err(io("create directory", &self.dir))?;
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
        change(&mut state);
        let json = serde_json::to_vec_pretty(&state).expect("convergence state serializes");
        write_atomically(&self.tmp, &self.path, &json)?;
        Ok(warnings)
    }

    /// Reads a convergence file, as the outer loop does after the agent exits.
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<ConvergenceState> {
        let bytes = fs::read(path)?;
        serde_json::from_slice(&bytes).map_err(std::io::Error::other)
    }
}

/// Write `bytes` to `tmp`, fsync it, rename it over `path`, then fsync the directory so the
/// rename itself survives a crash.
fn write_atomically(tmp: &Path, path: &Path, bytes: &[u8]) -> Result<(), ConvergenceError> {
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| ConvergenceError::Io {
            action,
            path,
            source,
        }
    };
    let mut file = fs::File::create(tmp).map_err(io("create", tmp))?;
    file.write_all(bytes).map_err(io("write", tmp))?;
    file.sync_all().map_err(io("sync", tmp))?;
    drop(file);
    fs::rename(tmp, path).map_err(io("rename into place", path))?;
    if let Some(dir) = path.parent() {
        // Best effort: not every filesystem lets a directory be opened and synced.
        if let Ok(dir) = fs::File::open(dir) {
            let _ = dir.sync_all();
        }
    }
    Ok(())
}

/// The current time as RFC 3339 in UTC, to the second.
pub(crate) fn timestamp_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observation(signal: &str, iterations: usize) -> Observation {
        Observation {
            signal: signal.into(),
            reason: format!("{signal} reason"),
            tool_iterations: iterations,
        }
    }

    fn final_state(reason: &str) -> FinalState {
        FinalState {
            reason: reason.into(),
            tool_iterations: 22,
            total_tokens: 45000,
            timestamp: timestamp_now(),
        }
    }

    #[test]
    fn creates_directory_and_appends_json_level() {
        let root = tempfile::tempdir().unwrap();
        let store = ConvergenceStore::new(root.path().join(".forgeflare"));
        store
            .append_observations(&[observation("clean_test", 12)])
            .unwrap();
        store
            .append_observations(&[
                observation("stable_output", 18),
                observation("lint_clean", 18),
            ])
            .unwrap();
        let state = ConvergenceStore::read(store.path()).unwrap();
        let signals: Vec<_> = state
            .observations
            .iter()
            .map(|o| o.signal.as_str())
            .collect();
        assert_eq!(signals, ["clean_test", "stable_output", "lint_clean"]);
        assert!(state.final_state.is_none());
        assert!(
            !root
                .path()
                .join(".forgeflare/convergence.json.tmp")
                .exists()
        );
    }

    #[test]
    fn final_is_written_once_per_session_and_keeps_observations() {
        let root = tempfile::tempdir().unwrap();
        let store = ConvergenceStore::new(root.path());
        store.append_observations(&[observation("a", 1)]).unwrap();
        assert!(
            store
                .write_final(final_state("convergence_signal"))
                .unwrap()
                .is_some()
        );
        assert!(
            store
                .write_final(final_state("end_turn"))
                .unwrap()
                .is_none()
        );
        let text = fs::read_to_string(store.path()).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["final"]["reason"], "convergence_signal");
        assert_eq!(json["final"]["total_tokens"], 45000);
        assert_eq!(json["observations"][0]["signal"], "a");
        let timestamp = json["final"]["timestamp"].as_str().unwrap();
        assert!(
            timestamp.ends_with('Z') && timestamp.len() == 20,
            "{timestamp}"
        );

        store.clear().unwrap();
        assert!(!store.path().exists());
        assert!(
            store
                .write_final(final_state("end_turn"))
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn clear_of_missing_file_is_fine() {
        let root = tempfile::tempdir().unwrap();
        ConvergenceStore::new(root.path().join("nope"))
            .clear()
            .unwrap();
    }

    #[test]
    fn corrupt_file_is_moved_aside_not_lost() {
        let root = tempfile::tempdir().unwrap();
        let store = ConvergenceStore::new(root.path());
        fs::write(store.path(), "{ not json").unwrap();
        let warnings = store.append_observations(&[observation("a", 1)]).unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("moved it to"), "{warnings:?}");
        assert_eq!(
            fs::read_to_string(root.path().join("convergence.json.corrupt")).unwrap(),
            "{ not json"
        );
        assert_eq!(
            ConvergenceStore::read(store.path())
                .unwrap()
                .observations
                .len(),
            1
        );
    }

    #[test]
    fn writes_go_through_a_temp_file_so_a_failed_write_leaves_the_old_file_whole() {
        let root = tempfile::tempdir().unwrap();
        let store = ConvergenceStore::new(root.path());
        store
            .append_observations(&[observation("kept", 1)])
            .unwrap();
        let before = fs::read(store.path()).unwrap();
        // The temp path is taken by a directory: the write fails before touching the file.
        fs::create_dir(root.path().join("convergence.json.tmp")).unwrap();
        let error = store
            .append_observations(&[observation("lost", 2)])
            .unwrap_err();
        assert!(error.to_string().starts_with("cannot create"), "{error}");
        assert_eq!(fs::read(store.path()).unwrap(), before);
    }

    #[test]
    fn write_failure_is_an_error_value_not_a_panic() {
        let root = tempfile::tempdir().unwrap();
        // A file where the directory should be.
        let blocker = root.path().join(".forgeflare");
        fs::write(&blocker, "").unwrap();
        let store = ConvergenceStore::new(&blocker);
        let error = store
            .append_observations(&[observation("a", 1)])
            .unwrap_err();
        assert!(
            error.to_string().contains("cannot create directory"),
            "{error}"
        );
    }
}
