//! The project configurations the user approved (`[projects] policy = "approve"`), direnv-style:
//! `hookhost allow` records the SHA-256 of a project's hooks file; a changed file needs
//! approval again.
//!
//! The record lives with the user, never in the repository:
//! `$HOOKHOST_DATA_DIR/approvals.json`, else `$XDG_DATA_HOME/hookhost/approvals.json`, else
//! `~/.local/share/hookhost/approvals.json`. Writes are atomic (a temp file, fsynced, renamed).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// The approved files and their digests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approvals {
    /// Absolute path of a hooks file to the hex SHA-256 of the content approved.
    approved: BTreeMap<String, String>,
}

impl Approvals {
    /// Where the user's approvals live.
    pub fn default_path() -> Option<PathBuf> {
        Some(crate::dirs::data_dir()?.join("approvals.json"))
    }

    /// Reads the approvals at `path`; a missing file is no approvals.
    pub fn load(path: &Path) -> std::io::Result<Approvals> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(std::io::Error::other),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Approvals::default()),
            Err(error) => Err(error),
        }
    }

    /// Writes the approvals to `path`, atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    }

    /// True when the file's current content is the approved one.
    pub fn is_approved(&self, file: &Path) -> bool {
        match (key(file), digest(file)) {
            (Some(key), Some(digest)) => self.approved.get(&key) == Some(&digest),
            _ => false,
        }
    }

    /// Approves the file's current content; returns its digest.
    pub fn approve(&mut self, file: &Path) -> std::io::Result<String> {
        let key =
            key(file).ok_or_else(|| std::io::Error::other("cannot resolve the file's path"))?;
        let digest = digest(file)
            .ok_or_else(|| std::io::Error::other(format!("cannot read {}", file.display())))?;
        self.approved.insert(key, digest.clone());
        Ok(digest)
    }

    /// Withdraws the approval of a file; true when there was one.
    pub fn revoke(&mut self, file: &Path) -> bool {
        key(file).is_some_and(|key| self.approved.remove(&key).is_some())
    }
}

fn key(file: &Path) -> Option<String> {
    std::fs::canonicalize(file)
        .ok()
        .map(|path| path.to_string_lossy().into_owned())
}

/// The hex SHA-256 of a file's content.
pub fn digest(file: &Path) -> Option<String> {
    let bytes = std::fs::read(file).ok()?;
    Some(
        Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}
