//! A file written whole or not at all, and still there after a crash: the one way hookhost
//! replaces a file (convergence.json, compiled components and their sums, pulled blobs and
//! hooks.lock, the log export's cursor, an imported hooks.toml).
//!
//! The bytes go to a temp file in the target's directory, which is synced, then renamed over
//! the target (or linked to it, when an existing file must not be replaced); then the
//! directory is synced, so that the rename itself survives a crash. A reader sees the old file
//! or the new one, never a mix, and a failed write leaves no temp file behind.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A file operation that failed: what was being done, to which path, and what the OS said.
/// The one shape of every "cannot read/write/create PATH" error of the crate's files
/// (convergence.json, the blob store, hooks.lock, this module's writes).
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}", path.display())]
pub struct FileError {
    /// What was being done: "read", "create", "write", "sync", "rename into place", ...
    pub action: &'static str,
    /// The file or directory.
    pub path: PathBuf,
    /// What the OS said.
    #[source]
    pub source: std::io::Error,
}

impl From<FileError> for std::io::Error {
    fn from(error: FileError) -> std::io::Error {
        error.source
    }
}

/// How the target is replaced.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteOptions<'a> {
    /// The temp file's path (it must be in the target's directory). Default: a name unique to
    /// this process and call, `.{name}.{pid}.{n}.tmp`. A writer that holds a lock on the
    /// target names one, so that a crashed write leaves one known file behind.
    pub(crate) temp: Option<&'a Path>,
    /// Fail with `AlreadyExists` rather than replace a file already at the target.
    pub(crate) keep_existing: bool,
}

/// Writes `bytes` to `path` whole and durably, replacing what was there.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    Ok(write_parts(path, &[bytes], WriteOptions::default())?)
}

/// [`write_atomically`] to a path where no file is yet: fails with `AlreadyExists`, writing
/// nothing, when one is (an imported hooks.toml never replaces the user's without `--force`).
pub fn write_new_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let options = WriteOptions {
        keep_existing: true,
        ..WriteOptions::default()
    };
    Ok(write_parts(path, &[bytes], options)?)
}

/// Writes `parts` one after the other to `path`, whole and durably, as `options` say.
pub fn write_parts(
    path: &Path,
    parts: &[&[u8]],
    options: WriteOptions<'_>,
) -> Result<(), FileError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let unique;
    let temp = match options.temp {
        Some(temp) => temp,
        None => {
            unique = dir.join(format!(
                ".{}.{}.{}.tmp",
                path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
                std::process::id(),
                next_number()
            ));
            &unique
        }
    };
    let failed = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| FileError {
            action,
            path,
            source,
        }
    };
    let mut file = File::create(temp).map_err(failed("create", temp))?;
    let written = (|| {
        for part in parts {
            file.write_all(part).map_err(failed("write", temp))?;
        }
        file.sync_all().map_err(failed("sync", temp))?;
        drop(file);
        if options.keep_existing {
            // A hard link fails when the target exists; the temp name then goes.
            std::fs::hard_link(temp, path).map_err(failed("write", path))?;
            let _ = std::fs::remove_file(temp);
            Ok(())
        } else {
            std::fs::rename(temp, path).map_err(failed("rename into place", path))
        }
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(temp);
        return written;
    }
    // Best effort: not every filesystem lets a directory be opened and synced.
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// A number unique within this process, for temp file names (the compile cache's key, which
/// is written with its own permissions, names its temp file with it too).
pub(crate) fn next_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        std::fs::write(&path, "old").unwrap();
        write_parts(&path, &[b"ne", b"w"], WriteOptions::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["state.json"]);
    }

    #[test]
    fn keep_existing_refuses_to_replace_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.toml");
        std::fs::write(&path, "mine").unwrap();
        let options = WriteOptions {
            keep_existing: true,
            ..WriteOptions::default()
        };
        let error = write_parts(&path, &[b"theirs"], options).unwrap_err();
        assert_eq!(error.source.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        std::fs::remove_file(&path).unwrap();
        write_parts(&path, &[b"theirs"], options).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs");
    }

    #[test]
    fn a_temp_path_taken_fails_before_the_target_is_touched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("convergence.json");
        std::fs::write(&path, "kept").unwrap();
        let temp = dir.path().join("convergence.json.tmp");
        std::fs::create_dir(&temp).unwrap();
        let options = WriteOptions {
            temp: Some(&temp),
            ..WriteOptions::default()
        };
        let error = write_parts(&path, &[b"lost"], options).unwrap_err();
        assert_eq!((error.action, error.path), ("create", temp));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept");
    }
}
