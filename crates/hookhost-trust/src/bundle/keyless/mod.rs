//! Keyless (Sigstore) signatures, verified offline against a trusted root the user provides.
//!
//! A keyless signer has no long-lived key: Fulcio issues a short-lived certificate for an
//! identity an OIDC provider vouched for (an email, a CI workflow's URI), the signer signs with
//! its key, and Rekor logs the signature. Verifying one offline needs a trusted root
//! ([`TrustedRoot`]: `trusted_root.json`, with Fulcio's CA chains, Rekor's and the CT logs'
//! keys, each with its validity window) and checks, in this order ([`verify`]):
//!
//! 1. the signature, with the certificate's key, over what it signs (a simple-signing payload,
//!    a message digest, or a DSSE envelope);
//! 2. the transparency-log proof (`tlog`): Rekor's signed entry timestamp with a Rekor key of
//!    the root, the inclusion proof against a signed checkpoint when there is one, and that
//!    the entry is for this signature, certificate and content; it gives the signing time;
//! 3. the certificate's chain to a Fulcio CA of the root, every certificate (and the CA's
//!    window) valid at that time (`cert`);
//! 4. the certificate's SCT with a CT log key of the root (`sct`), unless the trust entry
//!    says it need not;
//! 5. the identity and the OIDC issuer the trust entry names;
//! 6. then, for a registry artefact, that it vouches for this manifest
//!    ([`Verified::check_manifest`]).
//!
//! [`KeylessSignature`] reads both ways cosign attaches one (`material`): a `.sig` layer's
//! annotations and a Sigstore bundle (v0.1 to v0.3). Not verified: RFC 3161 timestamps and
//! Rekor v2 (Ed25519, no signed entry timestamp) entries, Ed25519 and RSA signers; each is
//! refused, saying so.

mod cert;
mod error;
mod key;
mod material;
mod root;
mod sct;
mod stages;
mod time;
mod tlog;
mod verify;

pub use error::KeylessError;
pub use material::{BUNDLE_MEDIA_TYPES, KeylessSignature, MAX_BUNDLE_BYTES};
pub use root::{MAX_ROOT_BYTES, TrustedRoot};
#[doc(hidden)]
pub use stages::fuzz_stages;
pub use verify::{KeylessIdentity, Matcher, SIGN_PREDICATE, Verified, verify};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_encodings;
