//! `hookhost lock`: bring hooks.lock and the store in line with a configuration's references.
//!
//! Like `cargo`'s lock file, an entry that still matches hooks.toml is kept as it is (its
//! bundle is fetched by digest if the store lacks it), so a teammate running `hookhost lock`
//! after a clone gets exactly the bundles that were locked, even if a tag has moved since.
//! New or changed references are resolved; `update` resolves every reference again.
//!
//! Signatures are read again on every run, for the pinned manifest: the cosign signatures
//! attached to it (a signature added or removed in the registry since shows in the new lock),
//! each checked against the configuration's `[trust]`; an artefact the policy refuses is not
//! locked. The manifest itself goes into the store, so that a load can check, offline, that
//! the manifest the signatures vouch for has the locked file as its wasm layer.

use std::path::{Path, PathBuf};

use super::super::blobs::BlobStore;
use super::super::lock::{
    LockError, LockFile, LockLookup, LockedBundle, LockedSignature, LockedSigstoreBundle,
};
use super::super::locked::attached;
use super::{RegistryClient, RegistryError};
use crate::bundle::TrustPolicy;
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
    /// A reference's signatures do not satisfy `[trust]`.
    #[error("{reference} is not locked: {reason}")]
    Refused {
        /// The reference.
        reference: String,
        /// What the policy found missing.
        reason: String,
    },
    /// The store could not be written or read.
    #[error("{0}")]
    Store(String),
}

/// Pins `references` in the lock file at `lock_path` and fetches their bundles into `store`,
/// with no signature policy (signatures are recorded, none is required).
pub async fn update_lock(
    references: &[OciReference],
    lock_path: &Path,
    client: &RegistryClient,
    store: &BlobStore,
    update: bool,
) -> Result<LockUpdate, LockUpdateError> {
    update_lock_with(
        references,
        lock_path,
        client,
        store,
        update,
        &TrustPolicy::default(),
    )
    .await
}

/// Pins `references` in the lock file at `lock_path` and fetches their bundles into `store`;
/// each artefact's signatures must satisfy `policy`. The file is written (atomically) only
/// when everything succeeded and something changed.
pub async fn update_lock_with(
    references: &[OciReference],
    lock_path: &Path,
    client: &RegistryClient,
    store: &BlobStore,
    update: bool,
    policy: &TrustPolicy,
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
                    signers: Vec::new(),
                    signatures: Vec::new(),
                    sigstore_bundles: Vec::new(),
                };
                let status = match before {
                    LockLookup::Missing => LockStatus::Added,
                    LockLookup::Locked(entry) | LockLookup::Stale(entry)
                        if (&entry.manifest, &entry.wasm, entry.size)
                            != (&bundle.manifest, &bundle.wasm, bundle.size) =>
                    {
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
        let bundle = signed(reference, bundle, client, store, policy).await?;
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

/// `bundle` with the signatures attached to its manifest in the registry, checked against
/// `policy`, and its manifest kept in the store.
async fn signed(
    reference: &OciReference,
    mut bundle: LockedBundle,
    client: &RegistryClient,
    store: &BlobStore,
    policy: &TrustPolicy,
) -> Result<LockedBundle, LockUpdateError> {
    let manifest = client.manifest_bytes(reference, &bundle.manifest).await?;
    store
        .write(&bundle.manifest, &manifest)
        .map_err(|error| LockUpdateError::Store(error.to_string()))?;
    let not_text = |what: &str| LockUpdateError::Refused {
        reference: reference.to_string(),
        reason: format!("an attached {what} is not text (it is JSON)"),
    };
    let mut signatures = Vec::new();
    for layer in client.signature_layers(reference, &bundle.manifest).await? {
        signatures.push(LockedSignature {
            payload: String::from_utf8(layer.payload)
                .map_err(|_| not_text("signature's payload"))?,
            signature: layer.signature,
            certificate: layer.certificate,
            chain: layer.chain,
            rekor_bundle: layer.rekor_bundle,
            ..LockedSignature::default()
        });
    }
    bundle.signatures = signatures;
    let mut sigstore_bundles = Vec::new();
    for found in client.sigstore_bundles(reference, &bundle.manifest).await? {
        sigstore_bundles.push(LockedSigstoreBundle {
            bundle: String::from_utf8(found).map_err(|_| not_text("Sigstore bundle"))?,
            key: None,
            identity: None,
            issuer: None,
        });
    }
    bundle.sigstore_bundles = sigstore_bundles;
    let refused = |reason: String| LockUpdateError::Refused {
        reference: reference.to_string(),
        reason,
    };
    let wasm = std::fs::read(store.blob_path(&bundle.wasm))
        .map_err(|error| LockUpdateError::Store(error.to_string()))?;
    let attached = attached(reference, &bundle, store);
    let signers = policy.check(&wasm, Some(&attached)).map_err(refused)?;
    // Which key verified which signature, so that a load can tell a signature changed since
    // from one by a key it never trusted.
    let (keyed, keyless): (Vec<_>, Vec<_>) = bundle
        .signatures
        .iter_mut()
        .partition(|locked| locked.certificate.is_none());
    for (locked, (signature, _)) in keyed.into_iter().zip(&attached.signatures) {
        locked.key = policy.verifier(signature, &attached);
    }
    // `attached.keyless` lists the keyless layers first, then the bundles, in lock order.
    let mut verified = attached.keyless.iter().map(|(signature, _)| {
        signature
            .as_ref()
            .ok()
            .and_then(|signature| policy.keyless_verifier(signature, &attached))
    });
    for locked in keyless {
        if let Some((id, who)) = verified.next().flatten() {
            (locked.key, locked.identity, locked.issuer) =
                (Some(id), Some(who.identity), Some(who.issuer));
        }
    }
    for locked in &mut bundle.sigstore_bundles {
        if let Some((id, who)) = verified.next().flatten() {
            (locked.key, locked.identity, locked.issuer) =
                (Some(id), Some(who.identity), Some(who.issuer));
        }
    }
    bundle.signers = signers.ids();
    Ok(bundle)
}
