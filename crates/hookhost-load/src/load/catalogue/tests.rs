//! The catalogue's components are checked before they run: each embedded one verifies, and a
//! changed byte, a wrong pin, or a signature by another key refuses to load.

use minisign::KeyPair;
use sha2::{Digest as _, Sha256};

use super::*;
use crate::bundle::sections::{self, SIGNATURE_SECTION};

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An entry that pins `bytes` as they are.
fn pinning(bytes: &[u8]) -> Entry {
    Entry {
        sha256: hex(bytes),
        ..Policy::find("destructive").unwrap().entry().clone()
    }
}

#[test]
fn every_embedded_policy_verifies_with_the_catalogue_key() {
    for policy in crate::catalogue::POLICIES {
        assert_eq!(
            verify(policy.component, policy.entry()),
            Ok(vec![KEY_NAME.to_string()]),
            "{}",
            policy.name
        );
    }
}

#[test]
fn a_changed_byte_is_refused_by_the_pin() {
    let policy = Policy::find("destructive").unwrap();
    let mut bytes = policy.component.to_vec();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    let error = verify(&bytes, policy.entry()).unwrap_err();
    assert!(
        error.starts_with(&format!(
            "has sha256 {}, but hookhost's catalogue index pins sha256 = \"{}\"",
            hex(&bytes),
            policy.entry().sha256
        )),
        "{error}"
    );
}

#[test]
fn a_wrong_pin_is_refused() {
    let policy = Policy::find("secrets").unwrap();
    let entry = Entry {
        sha256: "0".repeat(64),
        ..policy.entry().clone()
    };
    let error = verify(policy.component, &entry).unwrap_err();
    assert!(
        error.contains(&format!("pins sha256 = \"{}\"", "0".repeat(64))),
        "{error}"
    );
}

#[test]
fn changed_bytes_with_a_matching_pin_are_refused_by_the_signature() {
    // An index edited along with the component: the catalogue key's signature still holds the
    // line.
    let policy = Policy::find("destructive").unwrap();
    let mut bytes = policy.component.to_vec();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    let error = verify(&bytes, &pinning(&bytes)).unwrap_err();
    assert!(
        error.starts_with("has a signature by key hookhost-catalogue (")
            && error.contains("it was changed after signing (tampered)"),
        "{error}"
    );
}

#[test]
fn a_component_signed_by_another_key_is_refused() {
    let policy = Policy::find("destructive").unwrap();
    let unsigned = sections::without_custom(policy.component, SIGNATURE_SECTION).unwrap();
    let other = KeyPair::generate_unencrypted_keypair().unwrap();
    let signed = bundle::sign(&unsigned, &other.sk, "someone else").unwrap();
    let error = verify(&signed, &pinning(&signed)).unwrap_err();
    assert!(
        error.starts_with("is signed, but by an untrusted key ("),
        "{error}"
    );
    let error = verify(&unsigned, &pinning(&unsigned)).unwrap_err();
    assert!(error.starts_with("is not signed"), "{error}");
}
