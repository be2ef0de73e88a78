//! The cross-process lock on `convergence.json`: an advisory `flock` on
//! `convergence.json.lock`, taken with a bounded wait.
//!
//! Two agents in one project share `.forgeflare/`. Without the lock both write the fixed temp
//! name `convergence.json.tmp` at once, rename a torn file into place, and lose each other's
//! observations. With it, only the holder reads, writes the temp file and renames.

use std::fs::{self, File, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a writer waits for another process to release the lock before it gives up with a
/// warning. A healthy writer holds it for one small read, write, fsync and rename.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);

/// The longest pause between two attempts: short, because holders are quick and the waiters
/// poll rather than queue.
const MAX_PAUSE: Duration = Duration::from_millis(10);

/// An exclusive lock on the lock file, released when dropped (closing the file releases a
/// `flock`). The lock file itself is never deleted: a process that deleted it while another
/// waited on it would let a third lock a new file of the same name.
#[derive(Debug)]
pub(super) struct FileLock {
    _file: File,
}

/// Why the lock was not taken.
#[derive(Debug)]
pub(super) enum LockError {
    /// Another process held it for the whole wait.
    Busy {
        /// How long this process waited.
        waited: Duration,
    },
    /// Opening the lock file or locking it failed.
    Io(&'static str, std::io::Error),
}

impl FileLock {
    /// Takes the lock on `path` (created if missing), polling without blocking so that a hung
    /// peer cannot block this process for longer than `wait`.
    pub(super) fn acquire(path: &Path, wait: Duration) -> Result<FileLock, LockError> {
        // std opens with O_CLOEXEC: a hook spawned meanwhile does not inherit the lock.
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| LockError::Io("open lock file", e))?;
        let started = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(FileLock { _file: file }),
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(error)) => return Err(LockError::Io("lock", error)),
            }
            let waited = started.elapsed();
            if waited >= wait {
                return Err(LockError::Busy { waited });
            }
            std::thread::sleep(pause.min(wait - waited));
            pause = (pause * 2).min(MAX_PAUSE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_busy_until_released() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let held = FileLock::acquire(&path, Duration::ZERO).unwrap();
        // flock locks belong to an open file description: a second open conflicts even in
        // this process, as another process's would.
        match FileLock::acquire(&path, Duration::from_millis(30)) {
            Err(LockError::Busy { waited }) => assert!(waited >= Duration::from_millis(30)),
            other => panic!("expected Busy, got {other:?}"),
        }
        drop(held);
        FileLock::acquire(&path, Duration::ZERO).unwrap();
        assert!(path.exists(), "the lock file stays");
    }
}
