//! Keyless (Sigstore) signatures (`bundle::keyless`): Sigstore bundles (v0.1 to v0.3), a `.sig`
//! layer's annotations (signature, certificate PEM, Rekor bundle), the X.509 certificates in
//! them, Rekor's log entries, inclusion proofs and checkpoints, the certificate's SCTs, and
//! trusted roots. Verified against the two real trusted roots of tests/fixtures/sigstore, and
//! every stage run on its own (`keyless::fuzz_stages`), since forged material stops at the
//! first signature check.
//!
//! Input: `[0, kind, bytes...]` (the seeds: the real bundles and `.sig` layer of
//! tests/fixtures/sigstore; kind 0 a bundle, 1 a layer as `payload \0 signature \0 certificate
//! \0 rekor bundle`, 2 a trusted root), or `[1, arbitrary...]`: a bundle as a JSON tree with
//! Sigstore's keys.
//!
//! Properties: no panic (the refusal messages print times, whatever times the material
//! claims); every refusal a `KeylessError` with a message.

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use hookhost::bundle::keyless::{self, KeylessIdentity, KeylessSignature, Matcher, TrustedRoot};
use hookhost::oci::Digest;

use crate::json::{self, Words};

const KEYS: &[&str] = &[
    "mediaType",
    "verificationMaterial",
    "certificate",
    "rawBytes",
    "x509CertificateChain",
    "certificates",
    "publicKey",
    "hint",
    "tlogEntries",
    "logIndex",
    "logId",
    "keyId",
    "kindVersion",
    "kind",
    "version",
    "integratedTime",
    "inclusionPromise",
    "signedEntryTimestamp",
    "inclusionProof",
    "rootHash",
    "treeSize",
    "hashes",
    "checkpoint",
    "envelope",
    "canonicalizedBody",
    "messageSignature",
    "messageDigest",
    "algorithm",
    "digest",
    "signature",
    "dsseEnvelope",
    "payload",
    "payloadType",
    "signatures",
    "sig",
    "keyid",
    "timestampVerificationData",
];

const STRINGS: &[&str] = &[
    "application/vnd.dev.sigstore.bundle.v0.3+json",
    "application/vnd.dev.sigstore.bundle+json;version=0.1",
    "application/vnd.dev.sigstore.bundle+json;version=0.2",
    "application/vnd.in-toto+json",
    "SHA2_256",
    "hashedrekord",
    "dsse",
    "intoto",
    "0.0.1",
    "0.0.2",
    "1710888076",
    "253402300800",
    "-1",
    "9223372036854775807",
    "AAAA",
    "",
    "wNI9atQGlz+VWfO6LRygH4QUfY/8W4RFwiT5i5WRgB0=",
];

fn words() -> Words {
    Words {
        keys: KEYS,
        strings: STRINGS,
    }
}

/// The public-good and the staging trusted roots.
fn roots() -> &'static [TrustedRoot; 2] {
    static ROOTS: OnceLock<[TrustedRoot; 2]> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let read = |bytes: &[u8]| TrustedRoot::from_json(bytes).expect("a fixture root");
        [
            read(include_bytes!(
                "../../tests/fixtures/sigstore/trusted_root.json"
            )),
            read(include_bytes!(
                "../../tests/fixtures/sigstore/staging_trusted_root.json"
            )),
        ]
    })
}

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => raw(rest),
        _ => structured(rest),
    };
}

fn raw(rest: &[u8]) -> Result<()> {
    let Some((kind, bytes)) = rest.split_first() else {
        return Ok(());
    };
    match kind % 3 {
        0 => run(KeylessSignature::from_bundle(bytes)),
        1 => {
            let mut parts = bytes.splitn(4, |b| *b == 0);
            let payload = parts.next().unwrap_or_default();
            let mut text = || parts.next().and_then(crate::text);
            let (signature, certificate, rekor) = (text(), text(), text());
            run(KeylessSignature::from_cosign(
                payload,
                signature.unwrap_or_default(),
                certificate.unwrap_or_default(),
                rekor,
            ));
        }
        _ => {
            if let Err(error) = TrustedRoot::from_json(bytes) {
                assert!(!error.to_string().is_empty());
            }
        }
    }
    Ok(())
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    let bundle = serde_json::Value::Object(json::object(&mut u, words(), 5)?);
    run(KeylessSignature::from_bundle(bundle.to_string().as_bytes()));
    Ok(())
}

/// Verifies what was read (or checks the refusal has a message).
pub fn run(read: std::result::Result<KeylessSignature, keyless::KeylessError>) {
    let signature = match read {
        Ok(signature) => signature,
        Err(error) => {
            assert!(!error.to_string().is_empty());
            return;
        }
    };
    let anyone = |require_sct| KeylessIdentity {
        identity: Matcher::regex(".*").expect("a regex"),
        issuer: Matcher::regex(".*").expect("a regex"),
        require_sct,
    };
    let manifest = Digest::of(b"manifest");
    for root in roots() {
        for require_sct in [true, false] {
            if let Ok(verified) = keyless::verify(&signature, root, &anyone(require_sct)) {
                let _ = verified.check_manifest(&manifest, "registry.example/team/guard");
            }
        }
        for stage in
            keyless::fuzz_stages(&signature, root, &manifest, "registry.example/team/guard")
        {
            if let Err(error) = stage {
                assert!(!error.to_string().is_empty());
            }
        }
    }
}
