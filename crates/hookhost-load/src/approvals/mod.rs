//! The project configurations the user approved (`[projects] policy = "approve"`), direnv-style:
//! `hookhost allow` records the SHA-256 of a project's hooks file and of the project's files its
//! hooks run (`coverage`: the scripts their commands name, their components); a change to any
//! of them needs approval again.
//!
//! The record lives with the user, never in the repository:
//! `$HOOKHOST_DATA_DIR/approvals.json`, else `$XDG_DATA_HOME/hookhost/approvals.json`, else
//! `~/.local/share/hookhost/approvals.json`. Writes are atomic (a temp file, fsynced, renamed).
//!
//! ```json
//! {
//!   "approved": { "/p/.forgeflare/hooks.toml": "<sha256>" },
//!   "covers": { "/p/.forgeflare/hooks.toml": { "/p/check.sh": "<sha256>", "/p/tools/x.py": null } }
//! }
//! ```
//!
//! `null`: named but absent when approved (a file that appears there needs approval). An
//! approval without `covers` was recorded by an older hookhost: it still approves the hooks
//! file, and a notice asks for `hookhost allow` again so that what the hooks run is covered.
//! (Older versions read this file too: they ignore `covers`.)
//!
//! The same reading of a command line tells `hookhost check` when a hook's script or program
//! cannot be found (`runs`).

mod coverage;
mod programs;
mod runs;
#[cfg(test)]
mod tests;
mod trace;
mod words;

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

pub use coverage::{Coverage, HookCoverage, NotRecorded};
pub use runs::{Unrunnable, unrunnable};

/// The approved files and their digests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approvals {
    /// Absolute path of a hooks file to the hex SHA-256 of the content approved.
    approved: BTreeMap<String, String>,
    /// Absolute path of a hooks file to the files its hooks run, by absolute path, and their
    /// digests (`None`: absent). No entry: approved by a version that did not record them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    covers: BTreeMap<String, BTreeMap<String, Option<String>>>,
}

/// Where a project's hooks file stands with the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Never approved, or the file changed since.
    NotApproved,
    /// Approved, and every file its hooks run is as approved.
    Approved,
    /// Approved by a version that recorded the hooks file only: what its hooks run is not
    /// compared (the file still counts as approved, with a notice).
    FileOnly,
    /// The hooks file is as approved, but files its hooks run are not.
    Changed(Vec<Change>),
}

/// A file an approval covers that is no longer as approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The file, absolute.
    pub path: PathBuf,
    /// What happened to it.
    pub kind: ChangeKind,
}

/// How a covered file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Its content differs.
    Modified,
    /// It was there and is gone.
    Deleted,
    /// It was named but absent, and is there now.
    Created,
    /// The hooks run it now, and did not when approved (they run from another directory).
    NewlyNamed,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A repository names its files: escaped, they cannot forge a line of the message.
        let path = crate::text::line(&self.path.to_string_lossy()).into_owned();
        match self.kind {
            ChangeKind::Modified => write!(f, "{path} changed"),
            ChangeKind::Deleted => write!(f, "{path} was deleted"),
            ChangeKind::Created => write!(f, "{path} was created"),
            ChangeKind::NewlyNamed => write!(f, "{path} is run and was not covered"),
        }
    }
}

impl Approval {
    /// Why the hooks of `file` may not run, if they may not: the message their guards block
    /// with.
    pub fn held_reason(&self, file: &Path) -> Option<String> {
        let file = file.display();
        match self {
            Approval::Approved | Approval::FileOnly => None,
            Approval::NotApproved => Some(format!(
                "the project's hooks in {file} are not approved (the user's policy is \"approve\"); review the file, then run `hookhost allow --config {file}`"
            )),
            Approval::Changed(changes) => {
                let changes: Vec<String> = changes.iter().map(Change::to_string).collect();
                Some(format!(
                    "the project's hooks in {file} were approved, but {} since (an approval covers the files its hooks run); review the change, then run `hookhost allow --config {file}`",
                    changes.join(", ")
                ))
            }
        }
    }

    /// What the user should hear although the hooks run: an approval that covers the hooks
    /// file only.
    pub fn notice(&self, file: &Path) -> Option<String> {
        let file = file.display();
        (*self == Approval::FileOnly).then(|| format!(
            "the approval of {file} was recorded by an older hookhost and covers that file only, not the scripts and components its hooks run; review them, then run `hookhost allow --config {file}` so that a change to them needs a new approval"
        ))
    }
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

    /// Where the hooks file stands: its current content against the approved one, then what
    /// its hooks run now (`coverage`, from [`Coverage::of`]) against what was recorded.
    /// Called when the layers load under `policy = "approve"`.
    pub fn check(&self, file: &Path, coverage: &Coverage) -> Approval {
        let (Some(key), Some(digest)) = (key(file), digest(file)) else {
            return Approval::NotApproved;
        };
        if self.approved.get(&key) != Some(&digest) {
            return Approval::NotApproved;
        }
        let Some(recorded) = self.covers.get(&key) else {
            return Approval::FileOnly;
        };
        let changes: Vec<Change> = coverage
            .files()
            .into_iter()
            .filter_map(|(path, now)| {
                let kind = match (recorded.get(&path), &now) {
                    (None, _) => ChangeKind::NewlyNamed,
                    (Some(then), now) if then == now => return None,
                    (Some(None), Some(_)) => ChangeKind::Created,
                    (Some(Some(_)), None) => ChangeKind::Deleted,
                    (Some(_), _) => ChangeKind::Modified,
                };
                Some(Change {
                    path: PathBuf::from(path),
                    kind,
                })
            })
            .collect();
        if changes.is_empty() {
            Approval::Approved
        } else {
            Approval::Changed(changes)
        }
    }

    /// Approves the file's current content and the files its hooks run (`coverage`, with the
    /// digests it read, which `hookhost allow` showed); returns the file's digest.
    pub fn approve(&mut self, file: &Path, coverage: &Coverage) -> std::io::Result<String> {
        let key = key(file).ok_or_else(|| {
            std::io::Error::other(format!("cannot resolve the path {}", file.display()))
        })?;
        let digest = digest(file)
            .ok_or_else(|| std::io::Error::other(format!("cannot read {}", file.display())))?;
        self.approved.insert(key.clone(), digest.clone());
        self.covers.insert(key, coverage.files());
        Ok(digest)
    }

    /// Withdraws the approval of a file; true when there was one.
    pub fn revoke(&mut self, file: &Path) -> bool {
        key(file).is_some_and(|key| {
            self.covers.remove(&key);
            self.approved.remove(&key).is_some()
        })
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
