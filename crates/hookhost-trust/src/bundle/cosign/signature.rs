//! cosign's signature of a manifest: the simple-signing payload (which manifest digest, in
//! which repository) and ECDSA P-256 over SHA-256 of its exact bytes, base64 of the DER form.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use p256::ecdsa::Signature;
use p256::ecdsa::signature::{Signer as _, Verifier as _};
use serde::{Deserialize, Serialize};

use super::error::CosignError;
use super::key::{CosignPrivateKey, CosignPublicKey};
use crate::source::reference::Digest;

/// The `type` of a cosign simple-signing payload.
pub const PAYLOAD_TYPE: &str = "cosign container image signature";

/// One signature as cosign attaches it: the simple-signing payload (exact bytes) and the
/// base64 ECDSA (ASN.1 DER) signature over SHA-256 of those bytes (the
/// `dev.cosignproject.cosign/signature` annotation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CosignSignature {
    /// The simple-signing payload, byte for byte as signed.
    pub payload: Vec<u8>,
    /// The signature, base64 of its ASN.1 DER form.
    pub signature: String,
}

/// cosign's simple-signing payload, in cosign's key order.
#[derive(Serialize, Deserialize)]
struct SimpleSigning {
    critical: Critical,
    #[serde(default)]
    optional: Option<serde_json::Value>,
}

#[derive(Serialize, Deserialize)]
struct Critical {
    identity: Identity,
    image: Image,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Serialize, Deserialize)]
struct Identity {
    #[serde(rename = "docker-reference")]
    docker_reference: String,
}

#[derive(Serialize, Deserialize)]
struct Image {
    #[serde(rename = "docker-manifest-digest")]
    docker_manifest_digest: String,
}

/// cosign's simple-signing payload: `{"critical":{"identity":{"docker-reference":REPO},
/// "image":{"docker-manifest-digest":DIGEST},"type":"cosign container image signature"},
/// "optional":null}`. An `oci://` prefix of `docker_reference` is dropped, as [`verify`] drops it
/// from the repository it checks: a docker reference has none.
pub fn payload(docker_reference: &str, manifest: &Digest) -> Vec<u8> {
    let payload = SimpleSigning {
        critical: Critical {
            identity: Identity {
                docker_reference: without_scheme(docker_reference).to_string(),
            },
            image: Image {
                docker_manifest_digest: manifest.to_string(),
            },
            kind: PAYLOAD_TYPE.to_string(),
        },
        optional: None,
    };
    serde_json::to_vec(&payload).expect("the payload serializes")
}

/// Signs `manifest` in `docker_reference` (`REGISTRY/REPOSITORY`, as cosign writes it) with
/// `key`.
pub fn sign(key: &CosignPrivateKey, docker_reference: &str, manifest: &Digest) -> CosignSignature {
    let payload = payload(docker_reference, manifest);
    let signature: Signature = key.signing_key().sign(&payload);
    CosignSignature {
        signature: BASE64.encode(signature.to_der().as_bytes()),
        payload,
    }
}

/// Ok when `signature` is `key`'s over its payload AND the payload vouches for `manifest`
/// (docker-manifest-digest equal) in repository `repository` (docker-reference equal to
/// `REGISTRY/REPOSITORY`, tag or digest suffix ignored, and an `oci://` prefix of `repository`),
/// type `cosign container image signature`. The signature is checked first: the payload's
/// claims are believed only once the key is known to have made them.
///
/// The signature is valid as cosign's own verifier (Go's `ecdsa.VerifyASN1`) and openssl take
/// it: strict ASN.1 DER (minimal INTEGERs, whatever their length; nothing after), high S as
/// well as low; raw `r || s` and BER are refused ([`keyless`](crate::bundle::keyless)'s
/// signatures are read alike; `tests_encodings` holds one openssl signature of each shape).
pub fn verify(
    key: &CosignPublicKey,
    signature: &CosignSignature,
    manifest: &Digest,
    repository: &str,
) -> Result<(), CosignError> {
    let der = BASE64
        .decode(signature.signature.trim())
        .map_err(|_| CosignError::BadSignature)?;
    let parsed = Signature::from_der(&der).map_err(|_| CosignError::BadSignature)?;
    // Go's ECDSA leaves S unnormalized; (r, s) and (r, n - s) are the same signature. p256
    // takes high S as it is; normalized all the same, so no version of it can refuse one.
    let parsed = parsed.normalize_s().unwrap_or(parsed);
    key.verifying_key()
        .verify(&signature.payload, &parsed)
        .map_err(|_| CosignError::BadSignature)?;
    check_claims(&signature.payload, manifest, repository)
}

/// Ok when a simple-signing `payload` (already proven signed) vouches for `manifest` in
/// `repository`: its type, its docker-manifest-digest and its docker-reference's repository.
/// Keyless signatures carry the same payload.
pub(crate) fn check_claims(
    payload: &[u8],
    manifest: &Digest,
    repository: &str,
) -> Result<(), CosignError> {
    let payload = parse_payload(payload)?;
    let critical = payload.critical;
    if critical.kind != PAYLOAD_TYPE {
        return Err(CosignError::MalformedPayload(format!(
            "its type is {:?}, not {PAYLOAD_TYPE:?}",
            critical.kind
        )));
    }
    let signed_digest = critical.image.docker_manifest_digest;
    if signed_digest != manifest.to_string() {
        return Err(CosignError::WrongDigest {
            signed: signed_digest,
            expected: manifest.to_string(),
        });
    }
    let signed = repository_of(&critical.identity.docker_reference);
    let expected = repository_of(without_scheme(repository));
    if signed != expected {
        return Err(CosignError::WrongRepository {
            signed: signed.to_string(),
            expected: expected.to_string(),
        });
    }
    Ok(())
}

/// The payload's claims, read without checking any signature (for messages):
/// (docker-reference, docker-manifest-digest).
pub fn claims(payload: &[u8]) -> Result<(String, String), CosignError> {
    let critical = parse_payload(payload)?.critical;
    Ok((
        critical.identity.docker_reference,
        critical.image.docker_manifest_digest,
    ))
}

fn parse_payload(payload: &[u8]) -> Result<SimpleSigning, CosignError> {
    serde_json::from_slice(payload).map_err(|e| {
        CosignError::MalformedPayload(format!(
            "{e} (expected {{\"critical\":{{\"identity\":{{\"docker-reference\":…}},\
             \"image\":{{\"docker-manifest-digest\":…}},\"type\":…}}}})"
        ))
    })
}

/// `reference` without hookhost's `oci://` scheme (found by fuzzing, `cosign`: a payload made
/// for `oci://REPO` named `oci://REPO`, which no verification for `oci://REPO` accepted).
fn without_scheme(reference: &str) -> &str {
    reference.strip_prefix("oci://").unwrap_or(reference)
}

/// `REGISTRY/REPOSITORY` of a docker reference: its `@digest` and `:tag` dropped (a `:` before
/// the last `/` is the registry's port).
fn repository_of(reference: &str) -> &str {
    let name = reference
        .split_once('@')
        .map_or(reference, |(name, _)| name);
    match name.rsplit_once(':') {
        Some((repository, tag)) if !tag.contains('/') => repository,
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/../../tests/fixtures/cosign/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn digest(n: u8) -> Digest {
        Digest::of(&[n])
    }

    const REPO: &str = "registry.example:5000/team/guard";

    #[test]
    fn a_signature_verifies_with_its_key_for_its_manifest_and_repository() {
        let key = CosignPrivateKey::generate();
        let signature = sign(&key, REPO, &digest(1));
        let public = key.public_key();
        assert_eq!(verify(&public, &signature, &digest(1), REPO), Ok(()));
        // Tag and digest suffixes of either side do not matter, nor an oci:// prefix.
        for repository in [format!("{REPO}:1.0"), format!("oci://{REPO}@{}", digest(1))] {
            assert_eq!(
                verify(&public, &signature, &digest(1), &repository),
                Ok(()),
                "{repository}"
            );
        }
        let tagged = sign(&key, &format!("{REPO}:1.0"), &digest(1));
        assert_eq!(verify(&public, &tagged, &digest(1), REPO), Ok(()));
    }

    #[test]
    fn the_payload_is_cosigns_byte_for_byte() {
        let d = digest(1);
        assert_eq!(
            String::from_utf8(payload(REPO, &d)).unwrap(),
            format!(
                "{{\"critical\":{{\"identity\":{{\"docker-reference\":\"{REPO}\"}},\"image\":\
                 {{\"docker-manifest-digest\":\"{d}\"}},\"type\":\"cosign container image \
                 signature\"}},\"optional\":null}}"
            )
        );
        assert_eq!(
            claims(&payload(REPO, &d)),
            Ok((REPO.to_string(), d.to_string()))
        );
    }

    #[test]
    fn each_refusal_is_its_own_error() {
        let key = CosignPrivateKey::generate();
        let public = key.public_key();
        let signature = sign(&key, REPO, &digest(1));
        let other = CosignPrivateKey::generate().public_key();
        let mut tampered = signature.clone();
        tampered.payload = payload(REPO, &digest(2));
        let garbage = CosignSignature {
            payload: signature.payload.clone(),
            signature: "not base64!".into(),
        };
        let not_json = sign_raw(&key, b"not json");
        let wrong_type = sign_raw(
            &key,
            &String::from_utf8(payload(REPO, &digest(1)))
                .unwrap()
                .replace(PAYLOAD_TYPE, "something else")
                .into_bytes(),
        );
        let cases: [(
            &str,
            &CosignPublicKey,
            &CosignSignature,
            Digest,
            &str,
            CosignError,
        ); 7] = [
            (
                "another key",
                &other,
                &signature,
                digest(1),
                REPO,
                CosignError::BadSignature,
            ),
            (
                "payload changed",
                &public,
                &tampered,
                digest(2),
                REPO,
                CosignError::BadSignature,
            ),
            (
                "not base64",
                &public,
                &garbage,
                digest(1),
                REPO,
                CosignError::BadSignature,
            ),
            (
                "another manifest",
                &public,
                &signature,
                digest(2),
                REPO,
                CosignError::WrongDigest {
                    signed: digest(1).to_string(),
                    expected: digest(2).to_string(),
                },
            ),
            (
                "another repository",
                &public,
                &signature,
                digest(1),
                "registry.example:5000/team/other:1.0",
                CosignError::WrongRepository {
                    signed: REPO.into(),
                    expected: "registry.example:5000/team/other".into(),
                },
            ),
            (
                "another registry",
                &public,
                &signature,
                digest(1),
                "ghcr.io/team/guard",
                CosignError::WrongRepository {
                    signed: REPO.into(),
                    expected: "ghcr.io/team/guard".into(),
                },
            ),
            (
                "wrong type",
                &public,
                &wrong_type,
                digest(1),
                REPO,
                CosignError::MalformedPayload(
                    "its type is \"something else\", not \"cosign container image signature\""
                        .into(),
                ),
            ),
        ];
        for (name, key, signature, manifest, repository, expected) in cases {
            assert_eq!(
                verify(key, signature, &manifest, repository),
                Err(expected),
                "{name}"
            );
        }
        assert!(matches!(
            verify(&public, &not_json, &digest(1), REPO),
            Err(CosignError::MalformedPayload(_))
        ));
        assert!(matches!(
            claims(b"{}"),
            Err(CosignError::MalformedPayload(_))
        ));
    }

    fn sign_raw(key: &CosignPrivateKey, payload: &[u8]) -> CosignSignature {
        let signature: Signature = key.signing_key().sign(payload);
        CosignSignature {
            payload: payload.to_vec(),
            signature: BASE64.encode(signature.to_der().as_bytes()),
        }
    }

    #[test]
    fn a_real_cosign_signature_verifies() {
        // Written by cosign for containers/image's tests (tests/fixtures/cosign/README.md).
        let public = CosignPublicKey::from_pem(&fixture("containers-image.pub")).unwrap();
        let signature = CosignSignature {
            payload: fixture("containers-image.payload.json").into_bytes(),
            signature: fixture("containers-image.sig").trim().to_string(),
        };
        let manifest: Digest =
            "sha256:634a8f35b5f16dcf4aaa0822adc0b1964bb786fca12f6831de8ddc45e5986a00"
                .parse()
                .unwrap();
        let repository = "192.168.64.2:5000/cosign-signed-single-sample";
        assert_eq!(verify(&public, &signature, &manifest, repository), Ok(()));
        let other = CosignPublicKey::from_pem(&fixture("containers-image-2.pub")).unwrap();
        assert_eq!(
            verify(&other, &signature, &manifest, repository),
            Err(CosignError::BadSignature)
        );
        assert_eq!(
            claims(&signature.payload),
            Ok((repository.to_string(), manifest.to_string()))
        );
    }

    #[test]
    fn a_key_read_from_cosigns_file_signs_what_its_public_key_verifies() {
        let key = CosignPrivateKey::from_pem(&fixture("sigstore-hello.key"), b"hello").unwrap();
        let signature = sign(&key, REPO, &digest(3));
        assert_eq!(
            verify(&key.public_key(), &signature, &digest(3), REPO),
            Ok(())
        );
    }
}
