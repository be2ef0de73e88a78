//! Ed25519 (minisign) through the path every embedded bundle signature takes ([`verify`]): a
//! signature made by the minisign tool verifies; one whose S is not reduced (S + L, the one
//! other encoding an Ed25519 signature has) is refused, as libsodium (the minisign tool) and
//! Go's crypto/ed25519 refuse it. Ed25519 signatures are deterministic and of one fixed size,
//! so there are no other shapes to cover. The soak test (`--ignored`) signs hundreds both ways.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use minisign::{KeyPair, PublicKey};

use super::sections::{SIGNATURE_SECTION, with_custom};
use super::test_support::{Tool, soak_count};
use super::{BundleError, TrustStore, TrustedKey, payload, sign, signatures, verify};

/// The smallest WebAssembly module: what [`MINISIG`] signs.
const PAYLOAD: &[u8] = b"\0asm\x01\0\0\0";

/// Made once with minisign 0.11: `minisign -G -W`, then `minisign -S -m payload.wasm -c
/// "hookhost bundle signature" -t "signer: ed25519 vector, made once with minisign 0.11"`.
const PUBLIC_KEY: &str = "RWQ9RQznNSckFPSi6OSUTQyPrudnHFioAxPAoPz8wN+kcxX7DqpxssnJ";
const MINISIG: &str = "untrusted comment: hookhost bundle signature
RUQ9RQznNSckFKK85FlqoqXbUIwr7CDkenzb3beuAHMQjfnWULCj5qDE5MKDWR6BVNnndMEhzcVtUb4mikCSU6YqgsRqpiS1hQc=
trusted comment: signer: ed25519 vector, made once with minisign 0.11
ZT/pQo7vv8U7ye0JstB5yxJ/AG8oarOJTu2mDpb8Qf/nidrkAGb2apjOK0YDbyjC9oD9wAiquvr93kG5WpLKAg==
";

/// L, the order of Ed25519's base point, little-endian.
const L: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

fn trust(key: PublicKey) -> TrustStore {
    TrustStore {
        keys: vec![TrustedKey {
            name: "release".to_string(),
            key,
            revoked: false,
        }],
        require_signed: true,
    }
}

/// `signature` (64 bytes, R || S) with S + L in place of S.
fn s_plus_l(signature: &mut [u8]) {
    let mut carry = 0u16;
    for (byte, l) in signature[32..64].iter_mut().zip(L) {
        let sum = u16::from(*byte) + u16::from(l) + carry;
        *byte = sum as u8;
        carry = sum >> 8;
    }
    assert_eq!(carry, 0, "S + L fits in 32 bytes, as S < L < 2^253");
}

#[test]
fn a_minisign_tool_signature_verifies_and_its_unreduced_twin_is_refused() {
    let trust = trust(PublicKey::from_base64(PUBLIC_KEY).unwrap());
    let bundle = with_custom(PAYLOAD, SIGNATURE_SECTION, MINISIG.as_bytes());
    assert_eq!(payload(&bundle).unwrap(), PAYLOAD);
    assert_eq!(verify(&bundle, &trust).unwrap().signers, vec!["release"]);

    // The global signature (over the signature and the trusted comment) with S + L: the same
    // equation holds ([S + L]B = [S]B), so only the S < L check refuses it.
    let mut lines: Vec<String> = MINISIG.lines().map(str::to_string).collect();
    let mut global = BASE64.decode(&lines[3]).unwrap();
    s_plus_l(&mut global);
    lines[3] = BASE64.encode(&global);
    let twin = format!("{}\n", lines.join("\n"));
    let bundle = with_custom(PAYLOAD, SIGNATURE_SECTION, twin.as_bytes());
    assert_eq!(
        verify(&bundle, &trust).unwrap_err(),
        BundleError::Tampered(format!(
            "key release ({})",
            signatures(&bundle).unwrap()[0].key_id
        ))
    );
}

#[test]
#[ignore = "signs and verifies hundreds of bundles with the minisign tool (minutes): \
            cargo test --lib bundle::tests_minisign -- --ignored --nocapture"]
fn the_minisign_tool_and_hookhost_agree_on_hundreds_of_signatures_both_ways() {
    let minisign = Tool::new("minisign");
    let count = soak_count() / 4;
    minisign.ok("-G -W -p tool.pub -s tool.key", &[]);
    let tool_key = String::from_utf8(minisign.read("tool.pub")).unwrap();
    let tool_trust = trust(PublicKey::from_base64(tool_key.lines().nth(1).unwrap()).unwrap());
    let pair = KeyPair::generate_unencrypted_keypair().unwrap();
    let hookhost_key = pair.pk.to_base64();
    for i in 0..count {
        let unsigned = with_custom(PAYLOAD, "soak", i.to_string().as_bytes());
        minisign.write("payload.wasm", &unsigned);
        let comment = format!("soak {i}");
        minisign.ok(
            "-S -s tool.key -m payload.wasm -x tool.minisig",
            &["-c", super::trust::UNTRUSTED_COMMENT, "-t", &comment],
        );
        let bundle = with_custom(&unsigned, SIGNATURE_SECTION, &minisign.read("tool.minisig"));
        let verified = verify(&bundle, &tool_trust);
        assert!(verified.is_ok(), "the tool's signature {i}: {verified:?}");

        let signed = sign(&unsigned, &pair.sk, &comment).unwrap();
        minisign.write(
            "hookhost.minisig",
            signatures(&signed).unwrap()[0].minisig.as_bytes(),
        );
        let line = format!("-V -P {hookhost_key} -m payload.wasm -x hookhost.minisig");
        let (ok, _) = minisign.run(&line, &[]);
        assert!(ok, "the minisign tool refuses hookhost's signature {i}");
    }
    eprintln!(
        "{count} minisign tool signatures verified by bundle::verify; {count} of hookhost's \
         verified by the minisign tool"
    );
}
