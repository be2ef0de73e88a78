//! The ECDSA keys Sigstore uses: P-256 (Rekor, the CT logs, most signers) and P-384 (Fulcio's
//! CAs, some signers), read from SPKI DER; signatures are ASN.1 DER over a digest.

use p256::ecdsa::signature::hazmat::PrehashVerifier as _;
use p256::pkcs8::DecodePublicKey as _;
use sha2::{Digest as _, Sha256, Sha384};

use super::error::KeylessError;

/// A public key that verifies ECDSA signatures.
#[derive(Debug, Clone)]
pub(super) enum EcKey {
    P256(p256::ecdsa::VerifyingKey),
    P384(p384::ecdsa::VerifyingKey),
}

/// The hash a signature was made over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hash {
    Sha256,
    Sha384,
}

impl Hash {
    pub(super) fn digest(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => Sha256::digest(bytes).to_vec(),
            Hash::Sha384 => Sha384::digest(bytes).to_vec(),
        }
    }
}

impl EcKey {
    /// Reads a SubjectPublicKeyInfo (DER).
    pub(super) fn from_spki(der: &[u8]) -> Result<EcKey, KeylessError> {
        if let Ok(key) = p256::PublicKey::from_public_key_der(der) {
            return Ok(EcKey::P256(p256::ecdsa::VerifyingKey::from(&key)));
        }
        if let Ok(key) = p384::PublicKey::from_public_key_der(der) {
            return Ok(EcKey::P384(p384::ecdsa::VerifyingKey::from(&key)));
        }
        Err(KeylessError::UnsupportedKey(
            "it is not an ECDSA P-256 or P-384 public key (Ed25519 and RSA keys are not \
             verified)"
                .to_string(),
        ))
    }

    /// The hash this key's curve signs with by default (P-256: SHA-256, P-384: SHA-384).
    pub(super) fn natural_hash(&self) -> Hash {
        match self {
            EcKey::P256(_) => Hash::Sha256,
            EcKey::P384(_) => Hash::Sha384,
        }
    }

    /// Whether `signature` is this key's over `digest`. Every keyless path verifies here, with
    /// the signature's bytes as they travel: the signer's (a `.sig` annotation, a bundle's
    /// message signature or DSSE `sig`), Rekor's signed entry timestamp, a checkpoint's after
    /// its 4-byte key hint, an SCT's `digitally-signed` vector, a certificate's BIT STRING.
    ///
    /// Valid is what Go's `ecdsa.VerifyASN1` (Sigstore's verifiers, Rekor, Fulcio, the CT logs)
    /// and openssl accept, so that hookhost refuses no signature they accept, and accepts none
    /// they refuse (`tests_encodings` holds one openssl signature of each shape):
    /// - ASN.1 DER `SEQUENCE { r INTEGER, s INTEGER }`, strict: minimal INTEGERs (a leading
    ///   0x00 exactly when the top bit is set: 33 bytes for half of all P-256 r and s; fewer
    ///   bytes than the curve's width when the top byte is 0, one signature in 256), nothing
    ///   after the SEQUENCE. Raw `r || s` (IEEE P1363, as JWS and WebCrypto write it) and BER
    ///   are refused.
    /// - 0 < r, s < n.
    /// - High S as well as low: Go and openssl make both and accept both; (r, s) and
    ///   (r, n - s) are one signature. Refusing high S would refuse half of them.
    /// - A digest longer than the curve (SHA-384 with P-256) is cut to its leftmost bits, a
    ///   shorter one read as a number (FIPS 186-4), as Go does.
    pub(super) fn verify_digest(&self, digest: &[u8], signature: &[u8]) -> bool {
        match self {
            EcKey::P256(key) => p256::ecdsa::Signature::from_der(signature).is_ok_and(|sig| {
                // p256 takes high S as it is (only k256 refuses it); normalized all the same, so
                // that no version of the crate can start refusing what Go accepts.
                let sig = sig.normalize_s().unwrap_or(sig);
                key.verify_prehash(digest, &sig).is_ok()
            }),
            EcKey::P384(key) => p384::ecdsa::Signature::from_der(signature).is_ok_and(|sig| {
                let sig = sig.normalize_s().unwrap_or(sig);
                key.verify_prehash(digest, &sig).is_ok()
            }),
        }
    }

    /// Whether `signature` is this key's over `message`, hashed with `hash`.
    pub(super) fn verify(&self, hash: Hash, message: &[u8], signature: &[u8]) -> bool {
        self.verify_digest(&hash.digest(message), signature)
    }
}
