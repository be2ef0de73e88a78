//! A keyless signature verified against a trusted root and the identity a trust entry names,
//! in an order where nothing is believed before it is proven: the signature with the
//! certificate's key, the log's proof (which gives the signing time), the certificate's chain
//! at that time, its SCT, then who it names and what it vouches for.

use super::cert::{Leaf, verify_chain};
use super::error::KeylessError;
use super::key::Hash;
use super::material::{Content, KeylessSignature, hex, pae};
use super::root::TrustedRoot;
use super::sct::verify_scts;
use super::tlog::verified_time;
use crate::bundle::cosign::{self, CosignError};
use crate::source::reference::Digest;

/// The in-toto statement type of an image signature made by `cosign sign` with Sigstore
/// bundles (cosign 3, `--new-bundle-format`).
pub const SIGN_PREDICATE: &str = "https://sigstore.dev/cosign/sign/v1";
const IN_TOTO: &str = "application/vnd.in-toto+json";

/// How a certificate's identity or issuer is matched.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Equal, byte for byte.
    Exact(String),
    /// A regular expression that must match the whole value (anchored, unlike cosign's
    /// `--certificate-identity-regexp`).
    Regex(regex::Regex),
}

impl Matcher {
    /// A regular expression matched against the whole value.
    pub fn regex(pattern: &str) -> Result<Matcher, regex::Error> {
        crate::config::anchored_regex(pattern).map(Matcher::Regex)
    }

    /// Whether `value` matches.
    pub fn matches(&self, value: &str) -> bool {
        match self {
            Matcher::Exact(exact) => exact == value,
            Matcher::Regex(regex) => regex.is_match(value),
        }
    }
}

impl std::fmt::Display for Matcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Matcher::Exact(exact) => write!(f, "{exact}"),
            Matcher::Regex(regex) => {
                let pattern = regex.as_str();
                let inner = pattern
                    .strip_prefix("^(?:")
                    .and_then(|p| p.strip_suffix(")$"))
                    .unwrap_or(pattern);
                write!(f, "an identity matching /{inner}/")
            }
        }
    }
}

/// Who a keyless trust entry accepts.
#[derive(Debug, Clone)]
pub struct KeylessIdentity {
    /// The certificate's subject (a SAN: an email, a URI such as a CI workflow's).
    pub identity: Matcher,
    /// The OIDC issuer that vouched for it (Fulcio's issuer extension).
    pub issuer: Matcher,
    /// Whether the certificate's SCT must verify with a CT log key of the trusted root.
    pub require_sct: bool,
}

/// A keyless signature that verified: who made it, when, and what it signs.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The certificate's identity that matched.
    pub identity: String,
    /// The certificate's OIDC issuer.
    pub issuer: String,
    /// When the log integrated it (Unix seconds).
    pub integrated_time: i64,
    pub(super) content: Content,
}

/// Verifies `signature` against `root` (Fulcio CAs, Rekor and CT log keys) for `expected`'s
/// identity. Offline; each refusal is its own [`KeylessError`].
pub fn verify(
    signature: &KeylessSignature,
    root: &TrustedRoot,
    expected: &KeylessIdentity,
) -> Result<Verified, KeylessError> {
    let leaf = Leaf::from_der(&signature.certificate)?;
    let signed = match &signature.content {
        Content::Message { digest, .. } => leaf.key.verify_digest(digest, &signature.signature),
        Content::Envelope {
            payload_type,
            payload,
        } => {
            let pae = pae(payload_type, payload);
            // P-384 signers hash with SHA-384 by default; some sign with SHA-256.
            [leaf.key.natural_hash(), Hash::Sha256]
                .into_iter()
                .any(|hash| leaf.key.verify(hash, &pae, &signature.signature))
        }
    };
    if !signed {
        return Err(KeylessError::BadSignature);
    }
    let time = verified_time(signature, root)?;
    let (_, issuer) = verify_chain(&leaf, root, time)?;
    if expected.require_sct {
        verify_scts(&leaf, issuer, root)?;
    }
    let identity = leaf
        .names
        .iter()
        .find(|name| expected.identity.matches(name))
        .ok_or_else(|| KeylessError::WrongIdentity {
            found: if leaf.names.is_empty() {
                "no email or URI".to_string()
            } else {
                leaf.names.join(", ")
            },
            expected: expected.identity.to_string(),
        })?;
    let issuer = match &leaf.oidc_issuer {
        Some(issuer) if expected.issuer.matches(issuer) => issuer.clone(),
        found => {
            return Err(KeylessError::WrongIssuer {
                found: found.clone().unwrap_or_else(|| "absent".to_string()),
                expected: expected.issuer.to_string(),
            });
        }
    };
    Ok(Verified {
        identity: identity.clone(),
        issuer,
        integrated_time: time,
        content: signature.content.clone(),
    })
}

impl Verified {
    /// The SHA-256 (hex) of the message signed, for a message signature.
    pub fn message_digest(&self) -> Option<String> {
        match &self.content {
            Content::Message { digest, .. } => Some(hex(digest)),
            Content::Envelope { .. } => None,
        }
    }

    /// The DSSE payload (an in-toto statement), for an envelope.
    pub fn statement(&self) -> Option<&[u8]> {
        match &self.content {
            Content::Envelope { payload, .. } => Some(payload),
            Content::Message { .. } => None,
        }
    }

    /// Ok when what was signed vouches for `manifest` in `repository`: a simple-signing
    /// payload naming both (a `.sig` layer), an image signature statement
    /// ([`SIGN_PREDICATE`]) whose subject is `manifest`, or a message signature over the
    /// manifest itself.
    pub fn check_manifest(&self, manifest: &Digest, repository: &str) -> Result<(), KeylessError> {
        match &self.content {
            Content::Message {
                payload: Some(payload),
                ..
            } => cosign::check_claims(payload, manifest, repository).map_err(|e| match e {
                CosignError::WrongDigest { signed, expected } => {
                    KeylessError::WrongDigest { signed, expected }
                }
                CosignError::WrongRepository { signed, expected } => {
                    KeylessError::WrongRepository { signed, expected }
                }
                other => KeylessError::Malformed(other.to_string()),
            }),
            Content::Message {
                digest,
                payload: None,
            } => {
                if hex(digest) == manifest.hex() {
                    Ok(())
                } else {
                    Err(KeylessError::WrongDigest {
                        signed: format!("sha256:{}", hex(digest)),
                        expected: manifest.to_string(),
                    })
                }
            }
            Content::Envelope {
                payload_type,
                payload,
            } => check_statement(payload_type, payload, manifest),
        }
    }
}

fn check_statement(
    payload_type: &str,
    payload: &[u8],
    manifest: &Digest,
) -> Result<(), KeylessError> {
    if payload_type != IN_TOTO {
        return Err(KeylessError::Malformed(format!(
            "its envelope holds {payload_type:?}, not an in-toto statement"
        )));
    }
    let statement: serde_json::Value = serde_json::from_slice(payload)
        .map_err(|e| KeylessError::Malformed(format!("its in-toto statement is not JSON ({e})")))?;
    let predicate = statement["predicateType"].as_str().unwrap_or_default();
    if predicate != SIGN_PREDICATE {
        return Err(KeylessError::Malformed(format!(
            "it is an attestation of type {predicate:?}, not an image signature \
             ({SIGN_PREDICATE:?}, what `cosign sign` writes): attestations say something about \
             an artefact and do not count as its signature"
        )));
    }
    let subjects: Vec<String> = statement["subject"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|subject| subject["digest"]["sha256"].as_str())
        .map(|hex| format!("sha256:{hex}"))
        .collect();
    if subjects
        .iter()
        .any(|subject| *subject == manifest.to_string())
    {
        Ok(())
    } else {
        Err(KeylessError::WrongDigest {
            signed: if subjects.is_empty() {
                "no sha256 subject".to_string()
            } else {
                subjects.join(", ")
            },
            expected: manifest.to_string(),
        })
    }
}
