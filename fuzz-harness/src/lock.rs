//! hooks.lock (`oci::LockFile`): read, written back, read again; the lookups a load makes with
//! the `oci://` references a hooks.toml names.
//!
//! Input: `[0, text...]` (the seeds: lock files as `hookhost lock` writes them), or
//! `[1, arbitrary...]`: a lock built entry by entry, written, and a reference looked up.
//!
//! Properties: no panic; a refusal is a `LockError` naming the file and `hookhost lock`; what
//! reads writes back to text that reads the same (and a lock that is written reads back equal).

use std::path::PathBuf;
use std::sync::OnceLock;

use arbitrary::{Arbitrary, Result, Unstructured};
use hookhost::oci::{
    Digest, LockFile, LockedBundle, LockedSignature, LockedSigstoreBundle, OciReference,
};

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => {
            run_text(rest);
            Ok(())
        }
        _ => structured(rest),
    };
}

fn path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| LockFile::path_in(&crate::scratch::subdir("lock")))
}

/// `bytes` as hooks.lock: read, and when it reads, written and read back.
pub fn run_text(bytes: &[u8]) {
    std::fs::write(path(), bytes).expect("the scratch lock file");
    match LockFile::read(path()) {
        Ok(Some(lock)) => round_trip(&lock),
        Ok(None) => panic!("the lock file was just written"),
        Err(error) => {
            let message = error.to_string();
            assert!(message.contains("hooks.lock"), "{message}");
        }
    }
}

/// `lock` written and read back is `lock`, and its text is stable.
fn round_trip(lock: &LockFile) {
    let text = lock.to_text();
    std::fs::write(path(), &text).expect("the scratch lock file");
    let read = LockFile::read(path())
        .unwrap_or_else(|e| panic!("a written lock does not read: {e}\n{text}"))
        .expect("the lock file was just written");
    assert_eq!(&read, lock, "a lock read back differs\n{text}");
    assert_eq!(read.to_text(), text);
}

#[derive(Debug, Arbitrary)]
struct FuzzSignature {
    payload: String,
    signature: String,
    key: Option<String>,
    certificate: Option<String>,
    chain: Option<String>,
    rekor_bundle: Option<String>,
    identity: Option<String>,
    issuer: Option<String>,
}

#[derive(Debug, Arbitrary)]
struct FuzzBundle {
    reference: String,
    manifest: Vec<u8>,
    wasm: Vec<u8>,
    size: u64,
    signers: Vec<String>,
    signatures: Vec<FuzzSignature>,
    bundles: Vec<(String, Option<String>, Option<String>, Option<String>)>,
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    let bundles: Vec<FuzzBundle> = u.arbitrary()?;
    let wanted: String = u.arbitrary()?;
    let lock = LockFile {
        version: 1,
        bundles: bundles
            .into_iter()
            .map(|b| LockedBundle {
                reference: b.reference,
                manifest: Digest::of(&b.manifest),
                wasm: Digest::of(&b.wasm),
                // TOML integers are i64: a registry's sizes are (OCI descriptors' are int64).
                size: b.size >> 1,
                signers: b.signers,
                signatures: b
                    .signatures
                    .into_iter()
                    .map(|s| LockedSignature {
                        payload: s.payload,
                        signature: s.signature,
                        key: s.key,
                        certificate: s.certificate,
                        chain: s.chain,
                        rekor_bundle: s.rekor_bundle,
                        identity: s.identity,
                        issuer: s.issuer,
                    })
                    .collect(),
                sigstore_bundles: b
                    .bundles
                    .into_iter()
                    .map(|(bundle, key, identity, issuer)| LockedSigstoreBundle {
                        bundle,
                        key,
                        identity,
                        issuer,
                    })
                    .collect(),
            })
            .collect(),
    };
    round_trip(&lock);
    if let Ok(reference) = OciReference::parse(&wanted) {
        let _ = lock.lookup(&reference);
    }
    Ok(())
}
