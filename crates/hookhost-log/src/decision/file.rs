//! The log file: many agent processes append to it at once. Each batch of records (one line
//! each) is written with one `write` under an exclusive `flock` on `FILE.lock`, so records never
//! interleave;
//! the same lock guards rotation (`FILE` → `FILE.1` → ... → `FILE.{keep}`, the oldest dropped)
//! once the next record would take the file past its size. A writer killed in the middle of a
//! large record can leave its line cut: the next writer ends that line first, so every record
//! after it starts on a line of its own, and a reader skips the cut one.
//!
//! hookhost writes into, rotates and removes only its own logs: a file there that does not
//! start with a record (someone's `.bashrc`, which a cloned repository's `[log] path` named) is
//! refused with an error, never appended to nor renamed aside; so is a rotated file that is not
//! a log. A log a project chose is opened without following a symlink.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

/// The file of a decision log.
#[derive(Debug)]
pub struct DecisionFile {
    path: PathBuf,
    max_bytes: u64,
    keep: u32,
    /// Open without following a symlink at the file (a log a project chose).
    no_follow: bool,
}

impl DecisionFile {
    /// The log at `path`, rotated past `max_bytes`, keeping `keep` old files.
    pub fn new(path: PathBuf, max_bytes: u64, keep: u32) -> DecisionFile {
        DecisionFile {
            path,
            max_bytes,
            keep,
            no_follow: false,
        }
    }

    /// The same log, opened without following a symlink at its path: for a path a project
    /// chose, which could name a link to the user's files.
    pub fn without_following_links(mut self) -> DecisionFile {
        self.no_follow = true;
        self
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `record` (one line of JSON, without its newline).
    pub fn append(&self, record: &[u8]) -> std::io::Result<()> {
        self.append_all(&[record])
    }

    /// Appends `records` (lines of JSON, without their newlines) under one lock, rotating
    /// between two of them when the next would take the file past its size.
    pub fn append_all(&self, records: &[impl AsRef<[u8]>]) -> std::io::Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
        let _held = FileLock::exclusive(&self.lock_path())?;
        let mut file = self.open()?;
        let mut len = file.metadata()?.len();
        ensure_log(&mut file, len, &self.path)?;
        let mut lines = Vec::new();
        if len > 0 && !ends_with_newline(&mut file, len)? {
            lines.push(b'\n');
        }
        for record in records {
            let record = record.as_ref();
            let written = len + lines.len() as u64;
            if written > 0 && written + record.len() as u64 + 1 > self.max_bytes {
                file.write_all(&lines)?;
                lines.clear();
                drop(file);
                self.rotate()?;
                file = self.open()?;
                len = 0;
            }
            lines.extend_from_slice(record);
            lines.push(b'\n');
        }
        file.write_all(&lines)
    }

    fn open(&self) -> std::io::Result<File> {
        let flags = if self.no_follow { libc::O_NOFOLLOW } else { 0 };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .mode(0o600)
            .custom_flags(flags)
            .open(&self.path)
            .map_err(|error| match error.raw_os_error() {
                Some(libc::ELOOP) => std::io::Error::other(format!(
                    "{} is a symbolic link, which a log a project names may not be",
                    self.path.display()
                )),
                _ => error,
            })?;
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::other(format!(
                "{} is not a regular file",
                self.path.display()
            )));
        }
        Ok(file)
    }

    fn lock_path(&self) -> PathBuf {
        self.beside(".lock")
    }

    /// `FILE.{n}`, the `n`th newest rotated file.
    pub fn rotated(&self, n: u32) -> PathBuf {
        self.beside(&format!(".{n}"))
    }

    /// `FILE{suffix}`: a file kept beside the log (its lock, the export's cursor).
    pub fn beside(&self, suffix: &str) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    }

    fn rotate(&self) -> std::io::Result<()> {
        if self.keep == 0 {
            return match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        // Every file the renames below move or replace must be one of hookhost's logs.
        for n in 1..=self.keep {
            is_own_log(&self.rotated(n))?;
        }
        for n in (1..self.keep).rev() {
            match std::fs::rename(self.rotated(n), self.rotated(n + 1)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        std::fs::rename(&self.path, self.rotated(1))
    }
}

/// Fails unless `file` (of `len` bytes) is empty or starts as a record does: `{`, then the
/// `"id"` key (spaces between allowed).
fn ensure_log(file: &mut File, len: u64, path: &Path) -> std::io::Result<()> {
    if len == 0 {
        return Ok(());
    }
    let mut start = [0u8; 64];
    let n = (len as usize).min(start.len());
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut start[..n])?;
    let start = &start[..n];
    let after_brace = start
        .strip_prefix(b"{")
        .map(|rest| {
            let skip = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
            &rest[skip..]
        })
        .unwrap_or_default();
    // A log cut inside its first key still starts as one.
    let id = b"\"id\"";
    let starts_as_record = !after_brace.is_empty()
        && (after_brace.starts_with(id) || id.starts_with(after_brace))
        || start == b"{";
    match starts_as_record {
        true => Ok(()),
        false => Err(not_a_log(path)),
    }
}

/// Whether `path` is a rotated log of hookhost's: a regular file (not a link) that is empty or
/// starts with a record. `false` when it does not exist.
fn is_own_log(path: &Path) -> std::io::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
        Ok(metadata) if !metadata.is_file() => Err(not_a_log(path)),
        Ok(metadata) => {
            let mut file = File::open(path)?;
            ensure_log(&mut file, metadata.len(), path).map(|()| true)
        }
    }
}

fn not_a_log(path: &Path) -> std::io::Error {
    std::io::Error::other(format!(
        "{} exists and is not a hookhost decision log (it does not start with a record): \
         hookhost neither writes into it nor rotates it; point [log] path at a file of its own",
        path.display()
    ))
}

fn ends_with_newline(file: &mut File, len: u64) -> std::io::Result<bool> {
    let mut last = [0u8];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// An exclusive `flock` on a lock file, released when dropped (and by the kernel when the
/// process dies): what serializes the log's writers, and `hookhost log --export`s.
#[derive(Debug)]
pub struct FileLock(File);

impl FileLock {
    /// Waits for the lock on `path` (created, `0600`, if missing).
    pub fn exclusive(path: &Path) -> std::io::Result<FileLock> {
        let file = FileLock::open(path)?;
        loop {
            // SAFETY: `file` is an open descriptor, owned by the returned guard.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(FileLock(file));
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }

    /// The lock on `path` if nobody holds it, `None` if somebody does.
    pub fn try_exclusive(path: &Path) -> std::io::Result<Option<FileLock>> {
        let file = FileLock::open(path)?;
        // SAFETY: `file` is an open descriptor, owned by the returned guard.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(Some(FileLock(file)));
        }
        let error = std::io::Error::last_os_error();
        match error.kind() {
            std::io::ErrorKind::WouldBlock => Ok(None),
            _ => Err(error),
        }
    }

    fn open(path: &Path) -> std::io::Result<File> {
        OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // SAFETY: the descriptor is still open (the guard owns its file).
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}
