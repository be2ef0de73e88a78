//! Signed policy bundles: a hook component that carries its own metadata and signatures in
//! custom sections, so that one `.wasm` file travels and stays a valid component that any
//! runtime loads.
//!
//! - `hookhost.metadata`: JSON ([`Metadata`]): name, version, description, events, default
//!   config, config schema.
//! - `hookhost.signature`: one per signature, each a minisign signature (text) of the
//!   bundle's *payload*: the file with every `hookhost.signature` section removed. Metadata is
//!   part of the payload, so editing it after signing breaks every signature.
//!
//! Keys and signatures are minisign's (Ed25519, BLAKE2b-prehashed): teams generate and keep
//! keys with `minisign -G` or `hookhost keygen`, and can check a bundle with the minisign tool
//! on the payload `hookhost inspect --extract` writes out.
//!
//! [`cosign`] holds the other kind of signature hookhost reads and makes: Sigstore cosign's
//! key-based signatures on registry artefacts (a manifest digest signed, not the file), which
//! `oci::registry` reads from and attaches to a registry.

pub mod cosign;
pub mod keyless;
mod metadata;
mod policy;
pub mod sections;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests_minisign;
mod trust;

pub use metadata::{Metadata, read_metadata, with_metadata};
pub use policy::{Attached, CosignKey, KeylessKey, Signers, TrustPolicy, TrustRule};
pub use trust::verify_pin_digest;
pub use trust::{
    BundleError, KeyId, SignatureInfo, TrustStore, TrustedKey, Verified, sign, signatures, verify,
    verify_pin,
};

/// The bytes a signature covers: the file without its signature sections.
pub fn payload(bytes: &[u8]) -> Result<Vec<u8>, sections::MalformedBinary> {
    sections::without_custom(bytes, sections::SIGNATURE_SECTION)
}
