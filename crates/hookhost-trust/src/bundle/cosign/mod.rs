//! cosign-compatible signatures on registry artefacts (key-based, no Fulcio, no Rekor): the
//! keys, the simple-signing payload and the signature, as Sigstore's cosign and
//! containers/image (skopeo, podman) write and read them. Pure and offline: the registry side
//! (the `sha256-<hex>.sig` tag) is `oci::registry::signatures`.
//!
//! - Keys are ECDSA P-256 (cosign's default). A public key is an SPKI `PUBLIC KEY` PEM
//!   (`cosign.pub`); a private key is cosign's encrypted PEM: JSON
//!   `{kdf: scrypt N/r/p + salt, cipher: nacl/secretbox + nonce, ciphertext}` around PKCS#8 DER
//!   (secure-systems-lab's `encrypted` format). Plain PKCS#8 and SEC1 PEMs load too.
//! - A signature is ECDSA (ASN.1 DER, base64) over SHA-256 of the exact payload bytes; the
//!   payload says which manifest digest, in which repository, the signer vouches for.
//!
//! The signature is checked before the payload is believed: [`verify`] first proves the key
//! signed these bytes, then that they name this manifest in this repository.

mod error;
mod key;
mod signature;

pub use error::CosignError;
pub use key::{CosignPrivateKey, CosignPublicKey};
pub(crate) use signature::check_claims;
pub use signature::{CosignSignature, PAYLOAD_TYPE, claims, payload, sign, verify};

#[cfg(test)]
mod tests_encodings;
#[cfg(test)]
mod tests_payload;
