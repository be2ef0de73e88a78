//! What loading a hooks.toml needs of registry references, and no more: check the reference's
//! form (at parse time) and map it to the store file of its locked digest (at load time). No
//! network code: everything here reads hooks.lock and the store.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::blobs::{BlobState, BlobStore};
use super::lock::{LockFile, LockLookup, LockedBundle};
use crate::bundle::Attached;
use crate::bundle::cosign::CosignSignature;
use crate::bundle::keyless::KeylessSignature;
use crate::source::WasmSpec;
use crate::source::reference::{OciReference, is_oci};

/// The media type of a bundle's wasm layer.
const WASM_LAYER: &str = "application/wasm";

/// The largest manifest read from the store.
const MAX_MANIFEST_BYTES: u64 = 4 << 20;

/// The spec of a wasm hook with its file resolved: a path is returned as it is; an `oci://`
/// reference becomes the store file of the digest hooks.lock pins it to, after checking that
/// the file still has that digest. Everything else of the spec (grants, config, a `sha256`
/// pin, and so signatures and `[trust]`) then applies to that file as to any other.
///
/// `config_dir` is the configuration's directory, where hooks.lock lives. An error is a
/// message for a configuration problem and names the command that fixes it.
///
/// A registry reference also comes with what `[trust]` checks it by: its reference, locked
/// manifest and the signatures hooks.lock carries ([`Attached`]).
pub fn locked_wasm_spec<'s>(
    spec: &'s WasmSpec,
    config_dir: &Path,
) -> Result<(Cow<'s, WasmSpec>, Option<Attached>), String> {
    let Some(wasm) = spec.path.to_str().filter(|path| is_oci(path)) else {
        return Ok((Cow::Borrowed(spec), None));
    };
    let store = BlobStore::open_default().map_err(|error| error.to_string())?;
    let (path, attached) = locked_file(wasm, config_dir, &store)?;
    Ok((
        Cow::Owned(WasmSpec {
            path,
            ..spec.clone()
        }),
        Some(attached),
    ))
}

/// What `[trust]` checks a locked artefact by: its signatures as hooks.lock carries them, and
/// whether the manifest they vouch for (kept in the store by `hookhost lock`) has the locked
/// file as its wasm layer.
pub(crate) fn attached(
    reference: &OciReference,
    entry: &LockedBundle,
    store: &BlobStore,
) -> Attached {
    let signatures = entry
        .signatures
        .iter()
        .filter(|locked| locked.certificate.is_none())
        .map(|locked| {
            (
                CosignSignature {
                    payload: locked.payload.as_bytes().to_vec(),
                    signature: locked.signature.clone(),
                },
                locked.key.clone(),
            )
        })
        .collect();
    let cosign_keyless = entry.signatures.iter().filter_map(|locked| {
        let certificate = locked.certificate.as_deref()?;
        let signature = KeylessSignature::from_cosign(
            locked.payload.as_bytes(),
            &locked.signature,
            certificate,
            locked.rekor_bundle.as_deref(),
        );
        Some((signature, locked.key.clone()))
    });
    let bundles = entry.sigstore_bundles.iter().map(|locked| {
        (
            KeylessSignature::from_bundle(locked.bundle.as_bytes()),
            locked.key.clone(),
        )
    });
    Attached {
        reference: reference.clone(),
        manifest: entry.manifest.clone(),
        signatures,
        keyless: cosign_keyless.chain(bundles).collect(),
        link: manifest_has_layer(entry, store),
    }
}

/// Whether the stored manifest `entry` pins (digest re-checked) has `entry`'s wasm layer.
fn manifest_has_layer(entry: &LockedBundle, store: &BlobStore) -> Result<(), String> {
    use std::io::Read as _;
    let relock = "run `hookhost lock` to fetch it again";
    let path = match store.check(&entry.manifest).map_err(|e| e.to_string())? {
        BlobState::Present(path) => path,
        BlobState::Missing => {
            return Err(format!(
                "its manifest {} is not in the local store; {relock}",
                entry.manifest
            ));
        }
        BlobState::Corrupt { actual } => {
            return Err(format!(
                "the stored copy of its manifest {} was changed (its digest is {actual}); \
                 {relock}",
                entry.manifest
            ));
        }
    };
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|file| file.take(MAX_MANIFEST_BYTES).read_to_end(&mut bytes))
        .map_err(|error| format!("cannot read its manifest {}: {error}", path.display()))?;
    let manifest: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|error| format!("its manifest {} is not JSON: {error}", entry.manifest))?;
    let layers = manifest["layers"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let wasm = entry.wasm.to_string();
    let found = layers.iter().any(|layer| {
        layer["mediaType"].as_str() == Some(WASM_LAYER) && layer["digest"].as_str() == Some(&wasm)
    });
    if found && layers.len() == 1 {
        Ok(())
    } else {
        Err(format!(
            "the signed manifest {} does not have {} as its only wasm layer, and hooks.lock \
             pins that file: hooks.lock was edited; {relock}",
            entry.manifest, entry.wasm
        ))
    }
}

/// The store file of a locked reference, checked against its digest, and what `[trust]`
/// checks it by.
pub(crate) fn locked_file(
    wasm: &str,
    config_dir: &Path,
    store: &BlobStore,
) -> Result<(PathBuf, Attached), String> {
    let reference = OciReference::parse(wasm).map_err(|error| error.to_string())?;
    let lock_path = LockFile::path_in(config_dir);
    let lock = LockFile::read(&lock_path)
        .map_err(|error| error.to_string())?
        .ok_or_else(|| {
            format!(
                "{reference} is not locked: there is no {} yet; run `hookhost lock` to resolve \
                 it to a digest and fetch it",
                lock_path.display()
            )
        })?;
    let entry = match lock.lookup(&reference) {
        LockLookup::Locked(entry) => entry,
        LockLookup::Missing => {
            return Err(format!(
                "{reference} is not locked: {} has no entry for it; run `hookhost lock` to \
                 resolve it to a digest and fetch it",
                lock_path.display()
            ));
        }
        LockLookup::Stale(entry) => {
            return Err(format!(
                "{} is stale: it pins {} ({}), but hooks.toml asks for {reference}; run \
                 `hookhost lock` to update it",
                lock_path.display(),
                entry.reference,
                entry.manifest
            ));
        }
    };
    let refetch = format!(
        "run `hookhost lock` to fetch it (or `hookhost pull {}`)",
        reference.with_digest(entry.manifest.clone())
    );
    match store
        .check(&entry.wasm)
        .map_err(|error| error.to_string())?
    {
        BlobState::Present(path) => Ok((path, attached(&reference, entry, store))),
        BlobState::Missing => Err(format!(
            "{reference} is locked to {} but is not in the local store {}; {refetch}",
            entry.wasm,
            store.dir().display()
        )),
        BlobState::Corrupt { actual } => Err(format!(
            "the stored copy of {reference} at {} was changed: its digest is {actual}, and \
             hooks.lock pins {}; {refetch}",
            store.blob_path(&entry.wasm).display(),
            entry.wasm
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oci::lock::LockedBundle;
    use crate::source::reference::Digest;

    const REFERENCE: &str = "oci://r.io/team/guard:1.0.0";

    struct Setup {
        config_dir: tempfile::TempDir,
        store: BlobStore,
        _store_dir: tempfile::TempDir,
        bytes: Vec<u8>,
    }

    fn setup(lock: Option<&str>, stored: Option<&[u8]>) -> Setup {
        let config_dir = tempfile::tempdir().unwrap();
        let store_dir = tempfile::tempdir().unwrap();
        let store = BlobStore::at(store_dir.path());
        let bytes = b"\0asm\x0d\0\x01\0 a component".to_vec();
        let digest = Digest::of(&bytes);
        if let Some(reference) = lock {
            let lock = LockFile {
                version: 1,
                bundles: vec![LockedBundle {
                    reference: reference.to_string(),
                    manifest: Digest::of(b"manifest"),
                    wasm: digest.clone(),
                    size: bytes.len() as u64,
                    signers: Vec::new(),
                    signatures: Vec::new(),
                    sigstore_bundles: Vec::new(),
                }],
            };
            lock.write(&LockFile::path_in(config_dir.path())).unwrap();
        }
        if let Some(stored) = stored {
            let path = store.blob_path(&digest);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, stored).unwrap();
        }
        Setup {
            config_dir,
            store,
            _store_dir: store_dir,
            bytes,
        }
    }

    #[test]
    fn a_locked_and_stored_reference_maps_to_its_store_file() {
        let mut s = setup(Some(REFERENCE), None);
        let bytes = std::mem::take(&mut s.bytes);
        s.store.write(&Digest::of(&bytes), &bytes).unwrap();
        let (path, attached) = locked_file(REFERENCE, s.config_dir.path(), &s.store).unwrap();
        assert!(attached.signatures.is_empty());
        assert_eq!(std::fs::read(path).unwrap(), bytes);
    }

    #[test]
    fn each_reason_a_reference_cannot_load_names_its_fix() {
        let m = Digest::of(b"manifest");
        // name, locked reference, store file content, expected message
        type Case<'a> = (&'a str, Option<&'a str>, Option<&'a [u8]>, &'a str);
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            ("no lock file",  None,                                 None, "oci://r.io/team/guard:1.0.0 is not locked: there is no "),
            ("no entry",      Some("oci://r.io/team/other:1.0.0"),  None, "has no entry for it; run `hookhost lock` to resolve it"),
            ("stale tag",     Some("oci://r.io/team/guard:0.9.0"),  None, &format!("is stale: it pins oci://r.io/team/guard:0.9.0 ({m}), but hooks.toml asks for oci://r.io/team/guard:1.0.0; run `hookhost lock` to update it")),
            ("not stored",    Some(REFERENCE),                      None, &format!("but is not in the local store {{store}}; run `hookhost lock` to fetch it (or `hookhost pull oci://r.io/team/guard@{m}`)")),
            ("tampered",      Some(REFERENCE),                      Some(b"\0asm\x0d\0\x01\0 evil"), "was changed: its digest is sha256:"),
        ];
        for (name, lock, stored, expected) in cases {
            let s = setup(*lock, *stored);
            let expected = expected.replace("{store}", &s.store.dir().display().to_string());
            let message = locked_file(REFERENCE, s.config_dir.path(), &s.store).unwrap_err();
            assert!(message.contains(&expected), "{name}: {message}");
        }
    }
}
