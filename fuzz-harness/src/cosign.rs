//! cosign's key-based signatures (`bundle::cosign`): a public key's PEM, a signature's base64
//! DER, and the simple-signing payload, whose claims (`type`, `docker-manifest-digest`,
//! `docker-reference`) are read once the signature verifies. The harness signs what the
//! fuzzer writes with a key of its own, so that the payload's reader is reached.
//!
//! Input: `[0, payload \0 signature \0 key PEM \0 repository]` (the seeds: containers/image's
//! signed payload, its signature and key), or `[1, arbitrary...]`: a payload (cosign's own for a
//! repository and manifest, a JSON tree with cosign's keys, or bytes), signed by the harness
//! or not, and a key PEM of the harness or fuzzed.
//!
//! Properties: no panic; a payload the key signed is never refused as a bad signature, and
//! cosign's own payload for a manifest and repository verifies for exactly those; what
//! verifies makes the claims it verified; a key that reads prints back as itself.

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hookhost::bundle::cosign::{self, CosignError, CosignPublicKey, CosignSignature};
use hookhost::oci::Digest;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::EncodePublicKey as _;

use crate::json::{self, Words};

const KEYS: &[&str] = &[
    "critical",
    "identity",
    "docker-reference",
    "image",
    "docker-manifest-digest",
    "type",
    "optional",
    "creator",
    "timestamp",
];

const STRINGS: &[&str] = &[
    "cosign container image signature",
    "registry.example/team/guard",
    "registry.example:5000/team/guard:1.0",
    "registry.example/team/guard@sha256:00",
    "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    "",
];

fn words() -> Words {
    Words {
        keys: KEYS,
        strings: STRINGS,
    }
}

/// The harness's signing key, and its public key as cosign.pub holds it.
fn key() -> &'static (SigningKey, String) {
    static KEY: OnceLock<(SigningKey, String)> = OnceLock::new();
    KEY.get_or_init(|| {
        let signing = SigningKey::from_bytes(&[7u8; 32].into()).expect("a P-256 scalar");
        let pem = signing
            .verifying_key()
            .to_public_key_pem(p256::pkcs8::LineEnding::LF)
            .expect("a P-256 key encodes");
        (signing, pem)
    })
}

fn sign(payload: &[u8]) -> String {
    let signature: Signature = key().0.sign(payload);
    BASE64.encode(signature.to_der().as_bytes())
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
    let mut parts = rest.splitn(4, |b| *b == 0);
    let payload = parts.next().unwrap_or_default();
    let signature = parts.next().and_then(crate::text).unwrap_or_default();
    let key = parts.next().and_then(crate::text).unwrap_or_default();
    let repository = parts.next().and_then(crate::text).unwrap_or_default();
    let signed = cosign::claims(payload)
        .ok()
        .and_then(|(_, digest)| digest.parse::<Digest>().ok())
        .unwrap_or_else(|| Digest::of(b"manifest"));
    run(payload, signature, key, repository, &signed, false);
    Ok(())
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    let repository: String = json::string(&mut u, words())?;
    let manifest = Digest::of(&u.arbitrary::<[u8; 2]>()?);
    let payload = match u.int_in_range(0..=2)? {
        0 => cosign::payload(&repository, &manifest),
        1 => serde_json::Value::Object(json::object(&mut u, words(), 4)?)
            .to_string()
            .into_bytes(),
        _ => u.arbitrary::<Vec<u8>>()?,
    };
    let ours = u.ratio(3, 4)?;
    let signature = if ours { sign(&payload) } else { u.arbitrary()? };
    let pem = if u.ratio(7, 8)? {
        key().1.clone()
    } else {
        u.arbitrary()?
    };
    run(&payload, &signature, &pem, &repository, &manifest, ours);
    Ok(())
}

/// Verifies `payload` and `signature` with the key in `pem` for `manifest` in `repository`;
/// `ours`: the harness's key signed it.
pub fn run(
    payload: &[u8],
    signature: &str,
    pem: &str,
    repository: &str,
    manifest: &Digest,
    ours: bool,
) {
    let claims = cosign::claims(payload);
    let Ok(public) = CosignPublicKey::from_pem(pem) else {
        return;
    };
    assert_eq!(
        CosignPublicKey::from_pem(&public.to_pem()).as_ref(),
        Ok(&public)
    );
    let signature = CosignSignature {
        payload: payload.to_vec(),
        signature: signature.to_string(),
    };
    let verified = cosign::verify(&public, &signature, manifest, repository);
    let harness_key = pem == key().1;
    if ours && harness_key {
        assert_ne!(
            verified,
            Err(CosignError::BadSignature),
            "a signature the key made"
        );
        if payload == cosign::payload(repository, manifest) {
            assert_eq!(verified, Ok(()), "cosign's own payload for {repository}");
        }
    }
    if verified.is_ok() {
        let (_, digest) = claims.expect("a verified payload has claims");
        assert_eq!(digest, manifest.to_string());
    }
}
