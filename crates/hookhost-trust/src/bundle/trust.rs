//! Signing and verifying bundles with minisign keys.

use std::fmt;
use std::io::Cursor;
use std::path::Path;

use minisign::{PublicKey, SecretKey, SignatureBox};
use sha2::{Digest as _, Sha256};

use super::payload;
use super::sections::{self, SIGNATURE_SECTION};
use crate::config::{KeySource, KeySpec};

/// A minisign key id, shown as minisign shows it: 16 uppercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyId([u8; 8]);

impl KeyId {
    /// The id minisign prints for `key` (`signify`'s key number, as 16 hex digits).
    pub fn of(key: &PublicKey) -> KeyId {
        KeyId::from_slice(key.keynum())
    }

    fn from_slice(bytes: &[u8]) -> KeyId {
        let mut id = [0; 8];
        id.copy_from_slice(&bytes[..8]);
        KeyId(id)
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016X}", u64::from_le_bytes(self.0))
    }
}

/// A public key the configuration trusts (or has revoked).
#[derive(Clone)]
pub struct TrustedKey {
    /// The name the configuration gives it; messages use it.
    pub name: String,
    /// The key.
    pub key: PublicKey,
    /// A revoked key's signatures are refused, even when they verify.
    pub revoked: bool,
}

impl TrustedKey {
    /// The key of a `[[trust.keys]]` entry; `base_dir` is the config file's directory, which a
    /// `file` is relative to. The error says which key and what is wrong with it.
    pub fn load(spec: &KeySpec, base_dir: &Path) -> Result<TrustedKey, String> {
        let key = match &spec.source {
            KeySource::Inline(text) => PublicKey::from_base64(text).map_err(|e| {
                format!(
                    "trust key \"{}\": `key` is not a minisign public key: {e}",
                    spec.id
                )
            }),
            KeySource::File(path) => {
                let path = base_dir.join(path);
                PublicKey::from_file(&path).map_err(|e| {
                    format!(
                        "trust key \"{}\": cannot read a minisign public key from {}: {e}",
                        spec.id,
                        path.display()
                    )
                })
            }
        }?;
        Ok(TrustedKey {
            name: spec.id.clone(),
            key,
            revoked: spec.revoked,
        })
    }

    /// The key's minisign id.
    pub fn key_id(&self) -> KeyId {
        KeyId::of(&self.key)
    }
}

impl fmt::Debug for TrustedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrustedKey")
            .field("name", &self.name)
            .field("key_id", &self.key_id().to_string())
            .field("revoked", &self.revoked)
            .finish()
    }
}

/// The keys a runner trusts, and whether every wasm hook must be signed by one of them.
#[derive(Debug, Clone, Default)]
pub struct TrustStore {
    /// The keys, trusted or revoked.
    pub keys: Vec<TrustedKey>,
    /// Every wasm hook needs a valid signature from a trusted, unrevoked key.
    pub require_signed: bool,
}

impl TrustStore {
    fn find(&self, id: KeyId) -> Option<&TrustedKey> {
        self.keys.iter().find(|key| key.key_id() == id)
    }
}

/// Why a bundle was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    /// The file is not well formed, or a signature section cannot be read.
    #[error("is not a valid bundle: {0}")]
    Malformed(String),
    /// No signature, and one is required.
    #[error(
        "is not signed, and [trust] require_signed = true; sign it with `hookhost sign FILE --key KEY`"
    )]
    Unsigned,
    /// Signed, but by no trusted key.
    #[error("is signed, but by an untrusted key ({}); add the key to [trust] if you trust its owner", ids.join(", "))]
    Untrusted {
        /// The key ids of the signatures.
        ids: Vec<String>,
    },
    /// Signed by a revoked key, and by no other trusted key.
    #[error("is signed by a revoked key ({0}); have it re-signed with a current key")]
    Revoked(String),
    /// A signature from a known key does not match the content: the file changed after it was
    /// signed.
    #[error(
        "has a signature by {0} that does not match its content: it was changed after signing (tampered)"
    )]
    Tampered(String),
    /// The file's SHA-256 is not the one hooks.toml pins.
    #[error("has sha256 {actual}, but hooks.toml pins sha256 = \"{expected}\"")]
    PinMismatch {
        /// The pinned digest.
        expected: String,
        /// The file's digest.
        actual: String,
    },
}

/// A valid bundle, and who vouched for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The names of the trusted keys whose signatures verified.
    pub signers: Vec<String>,
}

/// One signature of a bundle, as `hookhost inspect` shows it.
#[derive(Debug, Clone)]
pub struct SignatureInfo {
    /// The signing key's id.
    pub key_id: KeyId,
    /// The comment the signature covers (signer, name, version, time).
    pub trusted_comment: String,
    /// The signature in minisign's text format, for `minisign -V`.
    pub minisig: String,
}

/// The untrusted comment of every signature hookhost embeds.
pub(crate) const UNTRUSTED_COMMENT: &str = "hookhost bundle signature";

/// The signatures a bundle carries.
pub fn signatures(bytes: &[u8]) -> Result<Vec<SignatureInfo>, BundleError> {
    sections::custom_sections(bytes, SIGNATURE_SECTION)
        .map_err(|e| BundleError::Malformed(e.to_string()))?
        .into_iter()
        .map(|data| {
            let text = std::str::from_utf8(data)
                .map_err(|_| BundleError::Malformed("a signature section is not text".into()))?;
            let signature = SignatureBox::from_string(text).map_err(|e| {
                BundleError::Malformed(format!("a signature section cannot be read: {e}"))
            })?;
            // minisign leaves the untrusted comment (and layout) unauthenticated. Requiring the
            // exact text hookhost writes means no byte of a signature section can change
            // unnoticed.
            if signature.untrusted_comment().unwrap_or_default() != UNTRUSTED_COMMENT
                || signature.to_string() != text
            {
                return Err(BundleError::Malformed(
                    "a signature section is not in the form hookhost writes (it was edited)".into(),
                ));
            }
            Ok(SignatureInfo {
                key_id: KeyId::from_slice(signature.keynum()),
                trusted_comment: signature.trusted_comment().unwrap_or_default(),
                minisig: text.to_string(),
            })
        })
        .collect()
}

/// Appends a signature by `secret_key` over the bundle's payload. Existing signatures stay:
/// a bundle can carry its author's and a security team's.
pub fn sign(
    bytes: &[u8],
    secret_key: &SecretKey,
    trusted_comment: &str,
) -> Result<Vec<u8>, BundleError> {
    let payload = payload(bytes).map_err(|e| BundleError::Malformed(e.to_string()))?;
    let signature = minisign::sign(
        None,
        secret_key,
        Cursor::new(&payload),
        Some(trusted_comment),
        Some(UNTRUSTED_COMMENT),
    )
    .map_err(|e| BundleError::Malformed(format!("cannot sign: {e}")))?;
    Ok(sections::with_custom(
        bytes,
        SIGNATURE_SECTION,
        signature.into_string().as_bytes(),
    ))
}

/// Checks a bundle against `trust`. Every signature by a key the store knows must verify (a
/// failing one means the file changed after signing). With `require_signed`, at least one
/// valid signature must come from a trusted, unrevoked key.
pub fn verify(bytes: &[u8], trust: &TrustStore) -> Result<Verified, BundleError> {
    let examined = examine(bytes, trust, &[])?;
    if examined.signers.is_empty() && trust.require_signed {
        return Err(examined.refusal());
    }
    Ok(Verified {
        signers: examined.signers.into_iter().map(|(name, _)| name).collect(),
    })
}

/// What a bundle's embedded signatures say, each checked.
#[derive(Debug, Default)]
pub(crate) struct Examined {
    /// Trusted, unrevoked keys whose signatures verified: name and key id.
    pub(crate) signers: Vec<(String, String)>,
    /// Revoked keys whose signatures verified, as "name (id)".
    pub(crate) revoked: Vec<String>,
    /// The key ids of signatures by keys the store does not know.
    pub(crate) unknown: Vec<String>,
}

impl Examined {
    /// Why a bundle that needs a trusted signature has none.
    pub(crate) fn refusal(self) -> BundleError {
        if let Some(first) = self.revoked.into_iter().next() {
            BundleError::Revoked(first)
        } else if !self.unknown.is_empty() {
            BundleError::Untrusted { ids: self.unknown }
        } else {
            BundleError::Unsigned
        }
    }
}

/// Checks every embedded signature by a key `trust` knows (a failing one is
/// [`BundleError::Tampered`]); `revoked_ids` are key ids revoked by id.
pub(crate) fn examine(
    bytes: &[u8],
    trust: &TrustStore,
    revoked_ids: &[String],
) -> Result<Examined, BundleError> {
    let found = signatures(bytes)?;
    if found.is_empty() {
        return Ok(Examined::default());
    }
    let payload = payload(bytes).map_err(|e| BundleError::Malformed(e.to_string()))?;
    let mut examined = Examined::default();
    for info in &found {
        let Some(key) = trust.find(info.key_id) else {
            examined.unknown.push(info.key_id.to_string());
            continue;
        };
        let signature = SignatureBox::from_string(&info.minisig)
            .map_err(|e| BundleError::Malformed(e.to_string()))?;
        let described = format!("key {} ({})", key.name, info.key_id);
        minisign::verify(
            &key.key,
            &signature,
            Cursor::new(&payload),
            true,
            false,
            false,
        )
        .map_err(|_| BundleError::Tampered(described))?;
        let id = info.key_id.to_string();
        if key.revoked || revoked_ids.contains(&id) {
            examined.revoked.push(format!("{} ({id})", key.name));
        } else {
            examined.signers.push((key.name.clone(), id));
        }
    }
    Ok(examined)
}

/// Checks a pinned SHA-256 (hex, any case) of the whole file.
pub fn verify_pin(bytes: &[u8], expected: &str) -> Result<(), BundleError> {
    verify_pin_digest(&Sha256::digest(bytes).into(), expected)
}

/// [`verify_pin`] for bytes whose SHA-256 is already known.
pub fn verify_pin_digest(digest: &[u8; 32], expected: &str) -> Result<(), BundleError> {
    let actual: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    if actual.eq_ignore_ascii_case(expected.trim()) {
        Ok(())
    } else {
        Err(BundleError::PinMismatch {
            expected: expected.to_string(),
            actual,
        })
    }
}
