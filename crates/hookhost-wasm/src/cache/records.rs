//! Records of files already checked, so that an unchanged file is not read in full again:
//! `files/{device}-{inode}` (a component file's SHA-256) and `checked/{device}-{inode}` (an
//! artefact whose MAC checked, and the entry it is).
//!
//! A record names the file's identity (device, inode, size, mtime, ctime) and carries a MAC
//! under the cache's key, so a record this user's hookhost did not write is ignored. Any write
//! to a file changes its ctime, which no user can set; a file changed less than [`RACY`] before
//! it was checked is not recorded (a timestamp is coarser than a write), nor one that changed
//! while it was read.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{Keyed, write_atomically};

/// The first field of a `files/` or `checked/` record's MAC.
const RECORD_MAGIC: &str = "hookhost-file-3";
/// A file whose mtime or ctime is this close to the moment it was checked is checked again at
/// its next load rather than recorded.
const RACY: Duration = Duration::from_secs(2);

/// The two kinds of records.
#[derive(Clone, Copy)]
pub(super) enum Records {
    /// Component files and their SHA-256.
    Files,
    /// Artefacts whose MAC checked, and the entry they are.
    Checked,
}

impl Keyed {
    /// What this user's hookhost recorded in `records` of the file `key` identifies, if the
    /// file has not changed since.
    pub(super) fn recorded(&self, records: Records, key: &FileKey) -> Option<String> {
        let path = key.path(records);
        let record = std::fs::read_to_string(self.dir.join(&path)).ok()?;
        let (rest, mac) = record.trim_end().rsplit_once(' ')?;
        let (stamp, what) = rest.rsplit_once(' ')?;
        let mac = blake3::Hash::from_hex(mac).ok()?;
        // blake3::Hash compares in constant time.
        (stamp == key.stamp() && mac == self.record_mac(&path, key, what)).then(|| what.to_string())
    }

    /// Records in `records` that the file with metadata `before` (taken before it was checked)
    /// and `after` (after) is `what`, unless it changed in between or too recently.
    pub(super) fn record(&self, records: Records, before: &Metadata, after: &Metadata, what: &str) {
        let Some(key) = FileKey::of(before) else {
            return;
        };
        if FileKey::of(after).as_ref() != Some(&key) || key.racy() {
            return;
        }
        let path = key.path(records);
        let mac = self.record_mac(&path, &key, what);
        let record = format!("{} {what} {}\n", key.stamp(), mac.to_hex());
        // The cache is an optimisation: failing to write it is not an error.
        let _ = write_atomically(&self.dir.join(path), &[record.as_bytes()]);
    }

    /// What a record authenticates: where it is filed (which says what kind of file it is
    /// about, and its device and inode), the rest of the file's identity, and what it says.
    fn record_mac(&self, path: &Path, key: &FileKey, what: &str) -> blake3::Hash {
        self.key.mac(&[
            RECORD_MAGIC.as_bytes(),
            path.as_os_str().as_encoded_bytes(),
            key.stamp().as_bytes(),
            what.as_bytes(),
        ])
    }
}

/// What identifies a version of a file without reading it.
#[derive(PartialEq, Eq)]
pub(super) struct FileKey {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileKey {
    #[cfg(unix)]
    pub(super) fn of(meta: &Metadata) -> Option<FileKey> {
        use std::os::unix::fs::MetadataExt as _;
        meta.is_file().then(|| FileKey {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    pub(super) fn of(_: &Metadata) -> Option<FileKey> {
        None
    }

    fn path(&self, records: Records) -> PathBuf {
        let dir = match records {
            Records::Files => "files",
            Records::Checked => "checked",
        };
        Path::new(dir).join(format!("{:x}-{:x}", self.dev, self.ino))
    }

    fn stamp(&self) -> String {
        let FileKey {
            size, mtime, ctime, ..
        } = self;
        format!(
            "{size} {}.{:09} {}.{:09}",
            mtime.0, mtime.1, ctime.0, ctime.1
        )
    }

    /// Whether the file changed too recently for its timestamps to tell the next change apart.
    fn racy(&self) -> bool {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let margin = RACY.as_secs() as i64;
        self.mtime.0 + margin >= now || self.ctime.0 + margin >= now
    }
}
