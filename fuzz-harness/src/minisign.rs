//! Signed bundles (`bundle`): a `.wasm` file's top-level sections, its `hookhost.metadata`
//! section, and its `hookhost.signature` sections, each a minisign signature in text, checked
//! against a trust store. The harness signs what the fuzzer writes with a key of its own, so
//! that verification is reached.
//!
//! Input: `[0, sign, bytes...]` (the seeds: components with metadata and signatures, and
//! their edited forms), or `[1, arbitrary...]`: a header and sections built one by one (custom
//! sections named as hookhost's, others with any id, stray bytes), metadata, and how many times
//! the harness signs it.
//!
//! Properties: no panic; a malformed file is an error value; the sections cover the file
//! exactly; a custom section added is found, metadata written reads back, the payload ignores
//! signatures, and what the harness signs verifies with its key.

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Result, Unstructured};
use hookhost::bundle::sections::{self, METADATA_SECTION, SIGNATURE_SECTION};
use hookhost::bundle::{self, Metadata, TrustStore, TrustedKey};
use minisign::KeyPair;
use serde_json::Value;

const COMPONENT: &[u8] = b"\0asm\x0d\0\x01\0";
const MODULE: &[u8] = b"\0asm\x01\0\0\0";

/// The harness's key, trusted by the store every bundle is verified against.
fn keys() -> &'static (KeyPair, TrustStore) {
    static KEYS: OnceLock<(KeyPair, TrustStore)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let pair = KeyPair::generate_unencrypted_keypair().expect("a minisign key");
        let store = TrustStore {
            keys: vec![TrustedKey {
                name: "fuzz".into(),
                key: pair.pk.clone(),
                revoked: false,
            }],
            require_signed: true,
        };
        (pair, store)
    })
}

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => match rest.split_first() {
            Some((sign, bytes)) => {
                run(bytes, *sign % 3, None);
                Ok(())
            }
            None => Ok(()),
        },
        _ => structured(rest),
    };
}

#[derive(Debug, Arbitrary)]
enum FuzzSection {
    Metadata(Vec<u8>),
    Signature(String),
    Custom(String, Vec<u8>),
    Other(u8, Vec<u8>),
    Stray(Vec<u8>),
}

fn leb128(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn section(out: &mut Vec<u8>, id: u8, body: &[u8]) {
    out.push(id);
    leb128(out, body.len() as u64);
    out.extend_from_slice(body);
}

fn custom(out: &mut Vec<u8>, name: &str, data: &[u8]) {
    let mut body = Vec::new();
    leb128(&mut body, name.len() as u64);
    body.extend_from_slice(name.as_bytes());
    body.extend_from_slice(data);
    section(out, 0, &body);
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    let mut bytes = if u.arbitrary()? { COMPONENT } else { MODULE }.to_vec();
    let parts: Vec<FuzzSection> = u.arbitrary()?;
    for part in parts {
        match part {
            FuzzSection::Metadata(data) => custom(&mut bytes, METADATA_SECTION, &data),
            FuzzSection::Signature(text) => custom(&mut bytes, SIGNATURE_SECTION, text.as_bytes()),
            FuzzSection::Custom(name, data) => custom(&mut bytes, &name, &data),
            FuzzSection::Other(id, body) => section(&mut bytes, id.max(1), &body),
            FuzzSection::Stray(stray) => bytes.extend_from_slice(&stray),
        }
    }
    let metadata = if u.arbitrary()? {
        Some(Metadata {
            name: u.arbitrary()?,
            version: u.arbitrary()?,
            description: u.arbitrary()?,
            events: u.arbitrary()?,
            default_config: u.arbitrary::<Option<String>>()?.map(Value::String),
            config_schema: u
                .arbitrary::<Option<Vec<i64>>>()?
                .map(|list| Value::from(list)),
        })
    } else {
        None
    };
    let sign = u.int_in_range(0..=2)?;
    run(&bytes, sign, metadata);
    Ok(())
}

/// Reads `bytes` as a bundle; writes `metadata` into it, then signs it `sign` times.
pub fn run(bytes: &[u8], sign: u8, metadata: Option<Metadata>) {
    let (pair, trust) = keys();
    let _ = bundle::signatures(bytes);
    let _ = bundle::read_metadata(bytes);
    let _ = bundle::verify(bytes, trust);
    let Ok(found) = sections::sections(bytes) else {
        assert!(bundle::payload(bytes).is_err());
        return;
    };
    let mut covered = bytes[..8].to_vec();
    for section in &found {
        covered.extend_from_slice(&bytes[section.range.clone()]);
    }
    assert_eq!(covered, bytes, "the sections do not cover the file");
    let pin = sha256_hex(bytes).to_uppercase();
    assert!(
        bundle::verify_pin(bytes, &pin).is_ok(),
        "its own digest as a pin"
    );
    let mut bytes = sections::with_custom(bytes, "fuzz", b"added");
    assert_eq!(
        sections::custom_sections(&bytes, "fuzz")
            .expect("sections still read")
            .last(),
        Some(&&b"added"[..])
    );
    if let Some(metadata) = metadata {
        bytes = bundle::with_metadata(&bytes, &metadata).expect("sections still read");
        assert_eq!(bundle::read_metadata(&bytes), Ok(Some(metadata)));
    }
    for _ in 0..sign {
        let payload = bundle::payload(&bytes).expect("sections still read");
        let signed = bundle::sign(&bytes, &pair.sk, "trusted comment: fuzz")
            .expect("a well-formed file signs");
        assert_eq!(
            bundle::payload(&signed).as_ref(),
            Ok(&payload),
            "the payload with a signature more"
        );
        // A signature already there by a key the store knows that does not verify fails the
        // file; the harness's own always verify.
        if bundle::signatures(&bytes).is_ok_and(|found| found.is_empty()) {
            let verified = bundle::verify(&signed, trust)
                .unwrap_or_else(|e| panic!("a bundle the harness signed does not verify: {e}"));
            assert_eq!(verified.signers, ["fuzz"]);
        }
        bytes = signed;
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
