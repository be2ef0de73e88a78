//! `hookhost lock`: bring hooks.lock and the store in line with a configuration's references.
//!
//! Like `cargo`'s lock file, an entry that still matches hooks.toml is kept as it is (its
//! bundle is fetched by digest if the store lacks it), so a teammate running `hookhost lock`
//! after a clone gets exactly the bundles that were locked, even if a tag has moved since.
//! New or changed references are resolved; `update` resolves every reference again.

use std::path::{Path, PathBuf};

use super::super::blobs::BlobStore;
use super::super::lock::{LockError, LockFile, LockLookup, LockedBundle};
use super::{RegistryClient, RegistryError};
use crate::source::reference::OciReference;

/// What `hookhost lock` did with one reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockStatus {
    /// The lock already pinned it (and, with `update`, the registry agrees).
    Kept,
    /// It was not in the lock.
    Added,
    /// It now pins another manifest than before: `previous` is the old entry (which may be
    /// for another tag of the same repository).
    Updated {
        /// The entry it replaces.
        previous: LockedBundle,
    },
}

/// One reference after `hookhost lock`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedReference {
    /// Its entry in the new lock.
    pub bundle: LockedBundle,
    /// How the entry came about.
    pub status: LockStatus,
    /// Whether its bundle was downloaded (false: the store had it).
    pub downloaded: bool,
}

/// The result of [`update_lock`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockUpdate {
    /// The lock file.
    pub path: PathBuf,
    /// Every reference, in configuration order.
    pub references: Vec<LockedReference>,
    /// False when the file was already up to date (or there is nothing to lock).
    pub written: bool,
    /// The old file could not be parsed and was replaced (its error, for the report).
    pub replaced_invalid: Option<String>,
}

/// Why [`update_lock`] failed; the lock file is then unchanged.
#[derive(Debug, thiserror::Error)]
pub enum LockUpdateError {
    /// The lock file could not be read or written.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A reference could not be resolved or fetched.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

/// Pins `references` in the lock file at `lock_path` and fetches their bundles into `store`.
/// The file is written (atomically) only when everything succeeded and something changed.
pub async fn update_lock(
    references: &[OciReference],
    lock_path: &Path,
    client: &RegistryClient,
    store: &BlobStore,
    update: bool,
) -> Result<LockUpdate, LockUpdateError> {
    let (previous, replaced_invalid) = match LockFile::read(lock_path) {
        Ok(lock) => (lock.unwrap_or_default(), None),
        // Rewriting a broken lock is what the error message tells the user to do.
        Err(error @ LockError::Invalid { .. }) => (LockFile::new(), Some(error.to_string())),
        Err(error) => return Err(error.into()),
    };
    let mut next = LockFile::new();
    let mut outcome = Vec::new();
    for reference in references {
        let canonical = reference.to_string();
        if next.bundles.iter().any(|b| b.reference == canonical) {
            continue;
        }
        let before = previous.lookup(reference);
        let (bundle, status) = match before {
            LockLookup::Locked(entry) if !update => (entry.clone(), LockStatus::Kept),
            _ => {
                let resolved = client.resolve(reference).await?;
                let bundle = LockedBundle {
                    reference: canonical,
                    manifest: resolved.manifest,
                    wasm: resolved.wasm,
                    size: resolved.size,
                };
                let status = match before {
                    LockLookup::Missing => LockStatus::Added,
                    LockLookup::Locked(entry) | LockLookup::Stale(entry) if *entry != bundle => {
                        LockStatus::Updated {
                            previous: entry.clone(),
                        }
                    }
                    LockLookup::Locked(_) | LockLookup::Stale(_) => LockStatus::Kept,
                };
                (bundle, status)
            }
        };
        let fetched = client
            .fetch(reference, &bundle.wasm, bundle.size, store)
            .await?;
        next.bundles.push(bundle.clone());
        outcome.push(LockedReference {
            bundle,
            status,
            downloaded: fetched.downloaded,
        });
    }
    // With no file before, `previous` is empty: an empty result writes nothing.
    let written = next != previous || replaced_invalid.is_some();
    if written {
        next.write(lock_path)?;
    }
    Ok(LockUpdate {
        path: lock_path.to_path_buf(),
        references: outcome,
        written,
        replaced_invalid,
    })
}
