//! Every shape a valid ECDSA signature's DER takes verifies through [`EcKey::verify`], the one
//! function every keyless path verifies with (the signer's signature, Rekor's signed entry
//! timestamp, its checkpoints, SCTs, the Fulcio chain's certificates), and what openssl and
//! Go's crypto/ecdsa refuse is refused. The signatures are fixed (`bundle::test_support`,
//! made once with openssl); the soak test (`--ignored`) signs thousands both ways.

use p256::ecdsa::signature::hazmat::PrehashSigner as _;
use p256::pkcs8::EncodePublicKey as _;

use super::cert::signed_parts;
use super::key::{EcKey, Hash};
use crate::bundle::test_support::{
    MESSAGE, P256, P384, Tool, Vectors, bytes, integer_lengths, soak_count,
};

/// What a test needs to know of a DER signature on one curve: whether its S is high, and the
/// same signature with the other S, (r, n - s).
struct Facts {
    high: bool,
    mirrored: Vec<u8>,
}

fn facts(p384: bool, der: &[u8]) -> Facts {
    if p384 {
        let sig = p384::ecdsa::Signature::from_der(der).unwrap();
        let (r, s) = sig.split_scalars();
        let mirrored = p384::ecdsa::Signature::from_scalars(r, -s).unwrap();
        Facts {
            high: sig.normalize_s().is_some(),
            mirrored: mirrored.to_der().as_bytes().to_vec(),
        }
    } else {
        let sig = p256::ecdsa::Signature::from_der(der).unwrap();
        let (r, s) = sig.split_scalars();
        let mirrored = p256::ecdsa::Signature::from_scalars(r, -s).unwrap();
        Facts {
            high: sig.normalize_s().is_some(),
            mirrored: mirrored.to_der().as_bytes().to_vec(),
        }
    }
}

/// The curves, each with its vectors, its hash and the width of its scalars.
const CURVES: [(&str, &Vectors, Hash, usize); 2] = [
    ("P-256", &P256, Hash::Sha256, 32),
    ("P-384", &P384, Hash::Sha384, 48),
];

#[test]
fn openssl_signatures_of_every_der_shape_verify_with_either_s() {
    for (curve, vectors, hash, width) in CURVES {
        let key = EcKey::from_spki(&bytes(vectors.spki)).unwrap();
        assert_eq!(key.natural_hash(), hash, "{curve}");
        let other_hash = if hash == Hash::Sha256 {
            Hash::Sha384
        } else {
            Hash::Sha256
        };
        for (shape, hex) in vectors.signatures {
            let der = bytes(hex);
            let facts = facts(curve == "P-384", &der);
            // The vector is the shape its name says.
            let (r, s) = integer_lengths(&der);
            let is = match shape {
                "low_s" => r == width && s == width && !facts.high,
                "high_s" => r == width && facts.high,
                "r_leading_zero" => r == width + 1 && s == width && !facts.high,
                "s_leading_zero" => r == width + 1 && s == width + 1,
                "r_short" => r < width && s == width,
                "s_short" => r == width && s < width,
                other => panic!("unknown shape {other}"),
            };
            assert!(is, "{curve} {shape}: r {r} bytes, s {s} bytes");
            let named = format!("{curve} {shape}");
            assert!(key.verify(hash, MESSAGE.as_bytes(), &der), "{named}");
            // (r, n - s) is the same signature: a high S made low, a low S made high.
            assert!(
                key.verify(hash, MESSAGE.as_bytes(), &facts.mirrored),
                "{named}, S mirrored"
            );
            assert!(!key.verify(hash, b"another message", &der), "{named}");
            assert!(!key.verify(other_hash, MESSAGE.as_bytes(), &der), "{named}");
        }
    }
}

/// The order of each curve's group, big-endian.
const ORDERS: [&str; 2] = [
    "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
    "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
];

/// A DER signature of the INTEGER contents `r` and `s`, as given (no minimal-form fixing).
fn der_of(r: &[u8], s: &[u8]) -> Vec<u8> {
    let mut body = vec![0x02, r.len() as u8];
    body.extend_from_slice(r);
    body.extend_from_slice(&[0x02, s.len() as u8]);
    body.extend_from_slice(s);
    let mut der = vec![0x30];
    if body.len() >= 0x80 {
        der.push(0x81);
    }
    der.push(body.len() as u8);
    der.extend_from_slice(&body);
    der
}

/// r's and s's INTEGER contents.
fn integers(der: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let header = if der[1] & 0x80 == 0 { 2 } else { 3 };
    let (r, s) = integer_lengths(der);
    let r_at = header + 2;
    let s_at = r_at + r + 2;
    (der[r_at..r_at + r].to_vec(), der[s_at..s_at + s].to_vec())
}

#[test]
fn what_openssl_and_go_refuse_is_refused() {
    for ((curve, vectors, hash, _), order) in CURVES.into_iter().zip(ORDERS) {
        let key = EcKey::from_spki(&bytes(vectors.spki)).unwrap();
        let shaped = |name: &str| {
            let (_, hex) = vectors.signatures.iter().find(|(n, _)| *n == name).unwrap();
            bytes(hex)
        };
        let (short_r, s) = integers(&shaped("r_short"));
        let (r, high_s) = integers(&shaped("high_s"));
        assert!(key.verify(hash, MESSAGE.as_bytes(), &der_of(&short_r, &s)));
        let raw: Vec<u8> = [vec![0; r.len() - short_r.len()], short_r.clone(), s.clone()].concat();
        let mut trailing = der_of(&short_r, &s);
        trailing.push(0);
        #[rustfmt::skip]
        let refused: [(&str, Vec<u8>); 8] = [
            ("raw r || s (IEEE P1363), not DER",             raw),
            ("r padded with a needless 0x00 (BER)",          der_of(&[&[0][..], &short_r].concat(), &s)),
            ("a byte after the SEQUENCE",                    trailing),
            ("s negative (its leading 0x00 dropped)",        der_of(&r, &high_s[1..])),
            ("r = 0",                                        der_of(&[0], &s)),
            ("s = n, the group's order",                     der_of(&short_r, &[&[0][..], &bytes(order)].concat())),
            ("r and s swapped",                              der_of(&s, &short_r)),
            ("empty",                                        Vec::new()),
        ];
        for (name, der) in refused {
            assert!(
                !key.verify(hash, MESSAGE.as_bytes(), &der),
                "{curve}: {name} verified"
            );
        }
    }
}

/// Signs a digest, giving DER.
type Signer = Box<dyn Fn(&[u8]) -> Vec<u8>>;

/// openssl signs `count` messages with a fresh key of `curve`, each verified by [`EcKey`];
/// the p256/p384 crate signs as many, each (and its mirrored S) verified by openssl. Returns
/// how many of openssl's signatures had each shape: r short, s short, r with a leading 0x00,
/// s with one, high S.
fn soak_curve(openssl: &Tool, curve: &str, hash: Hash, count: usize) -> [usize; 5] {
    let (name, width, p384) = match curve {
        "P-256" => ("prime256v1", 32, false),
        _ => ("secp384r1", 48, true),
    };
    let flag = if hash == Hash::Sha256 {
        "-sha256"
    } else {
        "-sha384"
    };
    openssl.ok(
        &format!("ecparam -name {name} -genkey -noout -out key.pem"),
        &[],
    );
    let spki = openssl.ok("ec -in key.pem -pubout -outform DER", &[]);
    let key = EcKey::from_spki(&spki).unwrap();
    let mut shapes = [0; 5];
    for i in 0..count {
        let message = format!("{curve} {flag} message {i}");
        openssl.write("message", message.as_bytes());
        let der = openssl.ok(&format!("dgst {flag} -sign key.pem message"), &[]);
        assert!(
            key.verify(hash, message.as_bytes(), &der),
            "{curve} {flag}: openssl's signature {} of {message:?} does not verify",
            super::material::hex(&der)
        );
        let (r, s) = integer_lengths(&der);
        let facts = facts(p384, &der);
        for (n, counted) in [r < width, s < width, r > width, s > width, facts.high]
            .into_iter()
            .enumerate()
        {
            shapes[n] += usize::from(counted);
        }
    }
    // The crate's side: a key of its own, low S from the crate, high S mirrored.
    let (public, sign): (_, Signer) = if p384 {
        let signing = p384::ecdsa::SigningKey::random(&mut rand_core::OsRng);
        (
            signing.verifying_key().to_public_key_der().unwrap(),
            Box::new(move |digest| {
                let sig: p384::ecdsa::Signature = signing.sign_prehash(digest).unwrap();
                sig.to_der().as_bytes().to_vec()
            }),
        )
    } else {
        let signing = p256::ecdsa::SigningKey::random(&mut rand_core::OsRng);
        (
            signing.verifying_key().to_public_key_der().unwrap(),
            Box::new(move |digest| {
                let sig: p256::ecdsa::Signature = signing.sign_prehash(digest).unwrap();
                sig.to_der().as_bytes().to_vec()
            }),
        )
    };
    openssl.write("crate.der", public.as_bytes());
    for i in 0..count {
        let message = format!("{curve} {flag} crate message {i}");
        openssl.write("message", message.as_bytes());
        let der = sign(&hash.digest(message.as_bytes()));
        for (which, der) in [
            ("low S", der.clone()),
            ("high S", facts(p384, &der).mirrored),
        ] {
            openssl.write("signature", &der);
            let line =
                format!("dgst {flag} -keyform DER -verify crate.der -signature signature message");
            let (verified, _) = openssl.run(&line, &[]);
            assert!(
                verified,
                "{curve} {flag}: openssl refuses the crate's signature ({which}) {} of {message:?}",
                super::material::hex(&der)
            );
        }
    }
    shapes
}

/// Certificates openssl issues with a key of `curve` (self-signed: one process each), their
/// signatures read as the Fulcio chain reads them and verified by [`EcKey`].
fn soak_certificates(openssl: &Tool, curve: &str, hash: Hash, count: usize) {
    let (name, flag) = match (curve, hash) {
        ("P-256", Hash::Sha256) => ("prime256v1", "-sha256"),
        ("P-256", _) => ("prime256v1", "-sha384"),
        (_, Hash::Sha256) => ("secp384r1", "-sha256"),
        _ => ("secp384r1", "-sha384"),
    };
    openssl.ok(
        &format!("ecparam -name {name} -genkey -noout -out ca.pem"),
        &[],
    );
    let spki = openssl.ok("ec -in ca.pem -pubout -outform DER", &[]);
    let key = EcKey::from_spki(&spki).unwrap();
    for i in 0..count {
        let line = format!("req -new -x509 -key ca.pem -days 1 {flag} -outform DER");
        let der = openssl.ok(&line, &["-subj", &format!("/O=sigstore.dev/CN=soak {i}")]);
        let (tbs, _, signature) = signed_parts(&der).unwrap();
        assert!(
            key.verify(hash, tbs, signature),
            "{curve} {flag}: the signature of openssl's certificate {i} does not verify"
        );
    }
}

#[test]
#[ignore = "signs and verifies thousands of messages with openssl (minutes): \
            cargo test --lib bundle::keyless::tests_encodings -- --ignored --nocapture"]
fn openssl_and_hookhost_agree_on_thousands_of_signatures_both_ways() {
    let openssl = Tool::new("openssl");
    let count = soak_count();
    for (curve, hash) in [
        ("P-256", Hash::Sha256),
        ("P-384", Hash::Sha384),
        ("P-256", Hash::Sha384),
        ("P-384", Hash::Sha256),
    ] {
        let [r_short, s_short, r_zero, s_zero, high] = soak_curve(&openssl, curve, hash, count);
        eprintln!(
            "{curve} {hash:?}: {count} openssl signatures verified (r short {r_short}, s short \
             {s_short}, r with a leading 0x00 {r_zero}, s with one {s_zero}, high S {high}); \
             {count} of the crate's, low S and high S, verified by openssl"
        );
        soak_certificates(&openssl, curve, hash, count / 4);
        eprintln!(
            "{curve} {hash:?}: {} openssl certificates verified",
            count / 4
        );
    }
}
