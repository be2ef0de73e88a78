//! cosign's verification ([`verify`]) takes every shape a valid P-256 signature's DER takes,
//! high S included, and refuses what openssl and Go's crypto/ecdsa refuse. The signatures are
//! fixed (`bundle::test_support`, made once with openssl); the soak test (`--ignored`) signs
//! thousands both ways.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use p256::ecdsa::Signature;
use p256::pkcs8::{DecodePublicKey as _, EncodePublicKey as _};

use super::{
    CosignError, CosignPrivateKey, CosignPublicKey, CosignSignature, payload, sign, verify,
};
use crate::bundle::test_support::{MESSAGE, P256, Tool, bytes, soak_count};
use crate::source::reference::Digest;

const REPOSITORY: &str = "registry.example/platform/guard";

fn public(spki: &[u8]) -> CosignPublicKey {
    let key = p256::PublicKey::from_public_key_der(spki).unwrap();
    CosignPublicKey::from_pem(&key.to_public_key_pem(Default::default()).unwrap()).unwrap()
}

fn signature(payload: &[u8], der: &[u8]) -> CosignSignature {
    CosignSignature {
        payload: payload.to_vec(),
        signature: BASE64.encode(der),
    }
}

/// (r, n - s): the same signature with the other S.
fn mirrored(der: &[u8]) -> Vec<u8> {
    let sig = Signature::from_der(der).unwrap();
    let (r, s) = sig.split_scalars();
    let other = Signature::from_scalars(r, -s).unwrap();
    other.to_der().as_bytes().to_vec()
}

#[test]
fn openssl_signatures_of_every_der_shape_verify_with_either_s() {
    let manifest = Digest::of(b"guard");
    assert_eq!(payload(REPOSITORY, &manifest), MESSAGE.as_bytes());
    let other = Digest::of(b"other");
    let key = public(&bytes(P256.spki));
    let verdict = |manifest: &Digest, der: &[u8]| {
        let signed = signature(&payload(REPOSITORY, manifest), der);
        verify(&key, &signed, manifest, REPOSITORY)
    };
    for (shape, hex) in P256.signatures {
        let der = bytes(hex);
        let raw = Signature::from_der(&der).unwrap().to_bytes().to_vec();
        let trailing = [der.clone(), vec![0]].concat();
        let bad = Err(CosignError::BadSignature);
        #[rustfmt::skip]
        let cases = [
            ("as made",                     &manifest, der.clone(),    Ok(())),
            ("S mirrored: (r, n - s)",      &manifest, mirrored(&der), Ok(())),
            ("as raw r || s",               &manifest, raw,            bad.clone()),
            ("with a byte after",           &manifest, trailing,       bad.clone()),
            ("over another payload",        &other,    der,            bad),
        ];
        for (case, manifest, der, expected) in cases {
            assert_eq!(verdict(manifest, &der), expected, "{shape} {case}");
        }
    }
}

#[test]
#[ignore = "signs and verifies thousands of payloads with openssl (minutes): \
            cargo test --lib bundle::cosign::tests_encodings -- --ignored --nocapture"]
fn openssl_and_cosign_verification_agree_on_thousands_of_signatures_both_ways() {
    let openssl = Tool::new("openssl");
    let count = soak_count();
    openssl.ok("ecparam -name prime256v1 -genkey -noout -out key.pem", &[]);
    let key = public(&openssl.ok("ec -in key.pem -pubout -outform DER", &[]));
    let mut high = 0;
    for i in 0..count {
        let manifest = Digest::of(format!("openssl {i}").as_bytes());
        let signed = payload(REPOSITORY, &manifest);
        openssl.write("payload", &signed);
        let der = openssl.ok("dgst -sha256 -sign key.pem payload", &[]);
        high += usize::from(Signature::from_der(&der).unwrap().normalize_s().is_some());
        assert_eq!(
            verify(&key, &signature(&signed, &der), &manifest, REPOSITORY),
            Ok(()),
            "openssl's signature {} of {manifest}",
            BASE64.encode(&der)
        );
    }
    // hookhost's signatures (low S), and each with its S mirrored, verified by openssl.
    let signer = CosignPrivateKey::generate();
    openssl.write("cosign.pub", signer.public_key().to_pem().as_bytes());
    for i in 0..count {
        let manifest = Digest::of(format!("hookhost {i}").as_bytes());
        let signed = sign(&signer, REPOSITORY, &manifest);
        openssl.write("payload", &signed.payload);
        let der = BASE64.decode(&signed.signature).unwrap();
        for (which, der) in [("low S", der.clone()), ("high S", mirrored(&der))] {
            openssl.write("signature", &der);
            let line = "dgst -sha256 -verify cosign.pub -signature signature payload";
            let (verified, _) = openssl.run(line, &[]);
            assert!(
                verified,
                "openssl refuses hookhost's signature ({which}) {}",
                BASE64.encode(&der)
            );
        }
    }
    eprintln!(
        "{count} openssl signatures ({high} high S) verified by cosign::verify; {count} of \
         hookhost's, low S and high S, verified by openssl"
    );
}
