//! What a keyless signature carries, read from the two ways cosign attaches one: a `.sig`
//! layer's annotations (the simple-signing payload, `dev.cosignproject.cosign/signature`,
//! `dev.sigstore.cosign/certificate`, `dev.sigstore.cosign/bundle`: Rekor's signed entry
//! timestamp with the entry it signs) and a Sigstore bundle (v0.1 to v0.3 JSON: a message
//! signature or a DSSE envelope, the certificate, the transparency-log entries with their
//! inclusion promise and proof). Reading believes nothing: `verify` checks it all.
//!
//! Longer than 400 lines: both containers Sigstore hands material in (cosign's `.sig`
//! annotations, and the bundle JSON in its three versions) are read into one shape here, with
//! the readers they share; split, each half would reach into the other.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Deserializer};
use sha2::{Digest as _, Sha256};
use x509_cert::Certificate;
use x509_cert::der::{DecodePem as _, Encode as _};

use super::error::KeylessError;
use super::root::RawBytesJson;

/// The most bytes of a Sigstore bundle or a cosign bundle annotation hookhost reads.
pub const MAX_BUNDLE_BYTES: usize = 1 << 20;
/// The most transparency-log entries one signature may carry.
const MAX_ENTRIES: usize = 8;
/// The most hashes of an inclusion proof (a tree of 2^64 leaves needs 64).
const MAX_PROOF_HASHES: usize = 64;

/// The media types of the Sigstore bundles hookhost reads.
pub const BUNDLE_MEDIA_TYPES: [&str; 4] = [
    "application/vnd.dev.sigstore.bundle+json;version=0.1",
    "application/vnd.dev.sigstore.bundle+json;version=0.2",
    "application/vnd.dev.sigstore.bundle+json;version=0.3",
    "application/vnd.dev.sigstore.bundle.v0.3+json",
];

/// One keyless signature: what it signs, the signature, the signing certificate and its
/// transparency-log entries. Made by [`KeylessSignature::from_cosign`] or
/// [`KeylessSignature::from_bundle`]; checked by [`super::verify`].
#[derive(Debug, Clone)]
pub struct KeylessSignature {
    pub(super) content: Content,
    pub(super) signature: Vec<u8>,
    pub(super) certificate: Vec<u8>,
    pub(super) entries: Vec<LogEntry>,
}

/// What the signature is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Content {
    /// A message: its digest (SHA-256), and the message itself when it travels with the
    /// signature (cosign's simple-signing payload).
    Message {
        digest: Vec<u8>,
        payload: Option<Vec<u8>>,
    },
    /// A DSSE envelope: the signature is over PAE(payload type, payload).
    Envelope {
        payload_type: String,
        payload: Vec<u8>,
    },
}

/// One transparency-log (Rekor) entry.
#[derive(Debug, Clone)]
pub(super) struct LogEntry {
    pub(super) log_index: i64,
    pub(super) log_id: Vec<u8>,
    pub(super) integrated_time: i64,
    /// The signed entry timestamp (inclusion promise).
    pub(super) promise: Option<Vec<u8>>,
    pub(super) proof: Option<InclusionProof>,
    /// The canonicalized entry body (JSON).
    pub(super) body: Vec<u8>,
}

/// An RFC 6962 inclusion proof, with the checkpoint (signed note) it is against.
#[derive(Debug, Clone)]
pub(super) struct InclusionProof {
    pub(super) log_index: i64,
    pub(super) root_hash: Vec<u8>,
    pub(super) tree_size: i64,
    pub(super) hashes: Vec<Vec<u8>>,
    pub(super) checkpoint: Option<String>,
}

fn malformed(what: impl Into<String>) -> KeylessError {
    KeylessError::Malformed(what.into())
}

fn base64(what: &str, text: &str) -> Result<Vec<u8>, KeylessError> {
    BASE64
        .decode(text.trim())
        .map_err(|e| malformed(format!("its {what} is not base64 ({e})")))
}

/// cosign's `dev.sigstore.cosign/bundle` annotation.
#[derive(Deserialize)]
struct RekorBundle {
    #[serde(rename = "SignedEntryTimestamp")]
    signed_entry_timestamp: String,
    #[serde(rename = "Payload")]
    payload: RekorPayload,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RekorPayload {
    body: String,
    integrated_time: i64,
    log_index: i64,
    #[serde(rename = "logID")]
    log_id: String,
}

impl KeylessSignature {
    /// A `.sig` layer's keyless signature: `payload` (the layer's blob, byte for byte),
    /// `signature` (base64, `dev.cosignproject.cosign/signature`), `certificate` (PEM,
    /// `dev.sigstore.cosign/certificate`) and `rekor_bundle` (JSON, `dev.sigstore.cosign/bundle`;
    /// without it the signature has no log proof and is refused when verified).
    pub fn from_cosign(
        payload: &[u8],
        signature: &str,
        certificate: &str,
        rekor_bundle: Option<&str>,
    ) -> Result<KeylessSignature, KeylessError> {
        let certificate = Certificate::from_pem(certificate.trim().as_bytes())
            .and_then(|cert| cert.to_der())
            .map_err(|e| malformed(format!("its certificate is not a PEM certificate ({e})")))?;
        let mut entries = Vec::new();
        if let Some(text) = rekor_bundle {
            if text.len() > MAX_BUNDLE_BYTES {
                return Err(malformed("its Rekor bundle is larger than 1 MiB"));
            }
            let bundle: RekorBundle = serde_json::from_str(text)
                .map_err(|e| malformed(format!("its Rekor bundle is not cosign's ({e})")))?;
            let log_id = hex_decode(&bundle.payload.log_id)
                .ok_or_else(|| malformed("its Rekor bundle's logID is not hex"))?;
            entries.push(LogEntry {
                log_index: bundle.payload.log_index,
                log_id,
                integrated_time: bundle.payload.integrated_time,
                promise: Some(base64(
                    "signed entry timestamp",
                    &bundle.signed_entry_timestamp,
                )?),
                proof: None,
                body: base64("Rekor entry", &bundle.payload.body)?,
            });
        }
        Ok(KeylessSignature {
            content: Content::Message {
                digest: Sha256::digest(payload).to_vec(),
                payload: Some(payload.to_vec()),
            },
            signature: base64("signature", signature)?,
            certificate,
            entries,
        })
    }

    /// A Sigstore bundle (JSON, v0.1 to v0.3), as `cosign sign --new-bundle-format`, `cosign
    /// attest --new-bundle-format`, sigstore-python and sigstore-js write it. A bundle signed
    /// with a key rather than a certificate is refused (that is a `kind = "cosign"` key's job).
    pub fn from_bundle(json: &[u8]) -> Result<KeylessSignature, KeylessError> {
        if json.len() > MAX_BUNDLE_BYTES {
            return Err(malformed("the Sigstore bundle is larger than 1 MiB"));
        }
        let bundle: BundleJson = serde_json::from_slice(json)
            .map_err(|e| malformed(format!("it is not a Sigstore bundle ({e})")))?;
        if !BUNDLE_MEDIA_TYPES.contains(&bundle.media_type.as_str()) {
            return Err(malformed(format!(
                "its mediaType {:?} is not a Sigstore bundle version hookhost reads (0.1 to 0.3)",
                bundle.media_type
            )));
        }
        let material = bundle.verification_material;
        let certificate = match (material.certificate, material.x509_certificate_chain) {
            (Some(cert), _) => cert.raw_bytes,
            (None, Some(chain)) => {
                chain
                    .certificates
                    .into_iter()
                    .next()
                    .ok_or_else(|| malformed("its certificate chain is empty"))?
                    .raw_bytes
            }
            (None, None) => {
                return Err(malformed(if material.public_key.is_some() {
                    "it is signed with a key, not a certificate: trust that key with \
                     kind = \"cosign\""
                } else {
                    "it has no certificate"
                }));
            }
        };
        let certificate = base64("certificate", &certificate)?;
        if material.tlog_entries.len() > MAX_ENTRIES {
            return Err(malformed(format!(
                "it has more than {MAX_ENTRIES} transparency-log entries"
            )));
        }
        let mut entries = Vec::new();
        for entry in material.tlog_entries {
            let proof = match entry.inclusion_proof {
                Some(proof) => {
                    if proof.hashes.len() > MAX_PROOF_HASHES {
                        return Err(malformed("its inclusion proof has too many hashes"));
                    }
                    Some(InclusionProof {
                        log_index: proof.log_index,
                        root_hash: base64("inclusion proof's root hash", &proof.root_hash)?,
                        tree_size: proof.tree_size,
                        hashes: proof
                            .hashes
                            .iter()
                            .map(|h| base64("inclusion proof's hash", h))
                            .collect::<Result<_, _>>()?,
                        checkpoint: proof.checkpoint.map(|c| c.envelope),
                    })
                }
                None => None,
            };
            entries.push(LogEntry {
                log_index: entry.log_index,
                log_id: base64("log id", &entry.log_id.key_id)?,
                integrated_time: entry.integrated_time,
                promise: entry
                    .inclusion_promise
                    .map(|p| base64("signed entry timestamp", &p.signed_entry_timestamp))
                    .transpose()?,
                proof,
                body: base64("log entry body", &entry.canonicalized_body)?,
            });
        }
        let (content, signature) = match (bundle.message_signature, bundle.dsse_envelope) {
            (Some(message), None) => {
                let digest = message
                    .message_digest
                    .ok_or_else(|| malformed("its message signature has no digest"))?;
                if digest.algorithm != "SHA2_256" {
                    return Err(malformed(format!(
                        "its message digest is {}, and hookhost reads SHA2_256",
                        digest.algorithm
                    )));
                }
                (
                    Content::Message {
                        digest: base64("message digest", &digest.digest)?,
                        payload: None,
                    },
                    base64("signature", &message.signature)?,
                )
            }
            (None, Some(envelope)) => {
                let [signature] = envelope.signatures.as_slice() else {
                    return Err(malformed(format!(
                        "its DSSE envelope has {} signatures; a keyless bundle has one",
                        envelope.signatures.len()
                    )));
                };
                (
                    Content::Envelope {
                        payload_type: envelope.payload_type,
                        payload: base64("DSSE payload", &envelope.payload)?,
                    },
                    base64("DSSE signature", &signature.sig)?,
                )
            }
            _ => {
                return Err(malformed(
                    "it has neither a message signature nor a DSSE envelope (or both)",
                ));
            }
        };
        Ok(KeylessSignature {
            content,
            signature,
            certificate,
            entries,
        })
    }
}

/// DSSE's pre-authentication encoding: what an envelope's signature is over.
pub(super) fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut bytes = format!(
        "DSSEv1 {} {payload_type} {} ",
        payload_type.len(),
        payload.len()
    )
    .into_bytes();
    bytes.extend_from_slice(payload);
    bytes
}

/// `hex` as bytes; `None` when it is not hex.
pub(super) fn hex_decode(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Bytes as lowercase hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BundleJson {
    media_type: String,
    verification_material: MaterialJson,
    message_signature: Option<MessageJson>,
    dsse_envelope: Option<EnvelopeJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MaterialJson {
    certificate: Option<RawBytesJson>,
    x509_certificate_chain: Option<ChainJson>,
    public_key: Option<serde_json::Value>,
    #[serde(default)]
    tlog_entries: Vec<EntryJson>,
}

#[derive(Deserialize)]
struct ChainJson {
    certificates: Vec<RawBytesJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EntryJson {
    #[serde(deserialize_with = "int64")]
    log_index: i64,
    log_id: LogIdJson,
    #[serde(deserialize_with = "int64")]
    integrated_time: i64,
    inclusion_promise: Option<PromiseJson>,
    inclusion_proof: Option<ProofJson>,
    canonicalized_body: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogIdJson {
    key_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromiseJson {
    signed_entry_timestamp: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProofJson {
    #[serde(deserialize_with = "int64")]
    log_index: i64,
    root_hash: String,
    #[serde(deserialize_with = "int64")]
    tree_size: i64,
    #[serde(default)]
    hashes: Vec<String>,
    checkpoint: Option<CheckpointJson>,
}

#[derive(Deserialize)]
struct CheckpointJson {
    envelope: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageJson {
    message_digest: Option<DigestJson>,
    signature: String,
}

#[derive(Deserialize)]
struct DigestJson {
    algorithm: String,
    digest: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EnvelopeJson {
    payload: String,
    payload_type: String,
    signatures: Vec<EnvelopeSignatureJson>,
}

#[derive(Deserialize)]
struct EnvelopeSignatureJson {
    sig: String,
}

/// A protobuf int64 in JSON: a string of digits, or a number.
fn int64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Int {
        Text(String),
        Number(i64),
    }
    match Int::deserialize(deserializer)? {
        Int::Number(n) => Ok(n),
        Int::Text(text) => text.parse().map_err(serde::de::Error::custom),
    }
}
