//! Sharing bundles through OCI registries, pinned by a lock file.
//!
//! ```text
//! hookhost push FILE REF ──▶ registry (CNCF Wasm OCI artifact: wasm config, one application/wasm layer)
//! hooks.toml  wasm = "oci://registry/team/guard:1.2.0"
//!   hookhost lock ──resolve tag──▶ manifest digest ──▶ hooks.lock (beside hooks.toml)
//!                 ──fetch layer──▶ store/blobs/sha256/<wasm digest>   (atomic, digest-checked)
//!   load (no network) ──▶ hooks.lock ──▶ store file, digest re-checked ──▶ the usual wasm loader
//!                                        (sha256 pin, signatures, [trust], compile cache)
//! ```
//!
//! - [`mod@reference`] (a hook source, in `source`): `oci://REGISTRY/REPOSITORY[:TAG][@sha256:…]`,
//!   parsed and validated.
//! - [`lock`]: the `hooks.lock` format.
//! - [`blobs`]: the content-addressed [`BlobStore`] pulled bundles live in.
//! - `registry` (cargo feature `oci`, on by default): the network client behind `hookhost
//!   push`, `pull` and `lock`. Loading a configuration never needs it, so an embedder can build
//!   hookhost without it and still run locked bundles that the CLI fetched.

pub mod blobs;
pub mod lock;
mod locked;
#[cfg(feature = "oci")]
pub mod registry;

/// `oci://` references are hook sources, parsed in [`crate::source::reference`]; this path stays
/// for embedders.
pub use crate::source::reference;
pub use crate::source::reference::{Digest, OciReference, ReferenceError, SCHEME, is_oci};
pub use blobs::{BlobState, BlobStore, BlobStoreError, STORE_DIR_ENV};
pub use lock::{
    LOCK_FILE, LockError, LockFile, LockLookup, LockedBundle, LockedSignature, LockedSigstoreBundle,
};

/// The blob store's module by its earlier name.
#[doc(hidden)]
pub use blobs as store;

pub use locked::locked_wasm_spec;

/// The registry references of a configuration's wasm hooks, in declaration order and without
/// repeats: what `hookhost lock` pins. Disabled hooks count, since loading prepares them too.
pub fn config_references(config: &hookhost_core::Config) -> Vec<OciReference> {
    let mut references: Vec<OciReference> = Vec::new();
    for hook in &config.hooks {
        if let crate::source::HookSource::Wasm(wasm) = &hook.source
            && let Some(text) = wasm.path.to_str().filter(|path| is_oci(path))
            && let Ok(reference) = OciReference::parse(text)
            && !references.contains(&reference)
        {
            references.push(reference);
        }
    }
    references
}
