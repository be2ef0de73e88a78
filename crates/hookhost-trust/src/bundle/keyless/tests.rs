//! Real signatures of Sigstore's public-good instance (tests/fixtures/sigstore/README.md says
//! where each comes from) verified offline against its trusted root; then each attack, each
//! with its own refusal.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::Value;

use super::*;
use crate::bundle::cosign;
use crate::source::reference::Digest;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/fixtures/sigstore/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json(name: &str) -> Value {
    serde_json::from_slice(&fixture(name)).unwrap()
}

fn root() -> TrustedRoot {
    TrustedRoot::from_json(&fixture("trusted_root.json")).unwrap()
}

fn root_with(edit: impl FnOnce(&mut Value)) -> TrustedRoot {
    let mut root = json("trusted_root.json");
    edit(&mut root);
    TrustedRoot::from_json(&serde_json::to_vec(&root).unwrap()).unwrap()
}

fn who(identity: &str, issuer: &str) -> KeylessIdentity {
    KeylessIdentity {
        identity: Matcher::Exact(identity.to_string()),
        issuer: Matcher::Exact(issuer.to_string()),
        require_sct: true,
    }
}

const GITHUB: &str = "https://token.actions.githubusercontent.com";
const IMAGE_REPOSITORY: &str = "index.docker.io/salrashid123/server_image";
const IMAGE_IDENTITY: &str = "https://github.com/salrashid123/go-bazel-github-workflow/.github/workflows/release.yaml@refs/tags/v0.0.26";

fn image_manifest() -> Digest {
    "sha256:120ef883bd7612aee0a100297def41014bf3e1aa321a0eaf4d0ebd9855d39a11"
        .parse()
        .unwrap()
}

/// The `.sig` layer cosign attached to the image, with its payload (which cosign writes
/// byte for byte as `cosign::payload` does: its digest is the layer's).
fn image_layer() -> (Vec<u8>, Value) {
    let manifest = json("server_image.sig.manifest.json");
    let layer = manifest["layers"][0].clone();
    let payload = cosign::payload(IMAGE_REPOSITORY, &image_manifest());
    assert_eq!(
        Digest::of(&payload).to_string(),
        layer["digest"].as_str().unwrap()
    );
    (payload, layer["annotations"].clone())
}

fn image_signature(payload: &[u8], annotations: &Value) -> KeylessSignature {
    let text = |key: &str| annotations[key].as_str().unwrap().to_string();
    KeylessSignature::from_cosign(
        payload,
        &text("dev.cosignproject.cosign/signature"),
        &text("dev.sigstore.cosign/certificate"),
        Some(&text("dev.sigstore.cosign/bundle")),
    )
    .unwrap()
}

#[test]
fn a_real_cosign_keyless_image_signature_verifies() {
    let (payload, annotations) = image_layer();
    let signature = image_signature(&payload, &annotations);
    let verified = verify(&signature, &root(), &who(IMAGE_IDENTITY, GITHUB)).unwrap();
    assert_eq!(verified.identity, IMAGE_IDENTITY);
    assert_eq!(verified.issuer, GITHUB);
    assert_eq!(verified.integrated_time, 1_771_336_509);
    assert_eq!(
        verified.check_manifest(&image_manifest(), IMAGE_REPOSITORY),
        Ok(())
    );
    // A pattern names the workflow's every tag.
    let pattern = KeylessIdentity {
        identity: Matcher::regex(
            r"https://github\.com/salrashid123/go-bazel-github-workflow/\.github/workflows/release\.yaml@refs/tags/v.*",
        )
        .unwrap(),
        ..who("", GITHUB)
    };
    assert!(verify(&signature, &root(), &pattern).is_ok());
}

#[test]
fn real_sigstore_bundles_of_each_version_verify() {
    #[rustfmt::skip]
    let cases = [
        // v0.1, a P-384 signer, a proof without checkpoint
        ("python-3.12.5.tgz.sigstore.json", "thomas@python.org", "https://accounts.google.com",
         Some("38dc4e2c261d49c661196066edbfb70fdb16be4a79cc8220c224dfeb5636d405")),
        // v0.2, an inclusion proof against a signed checkpoint
        ("bundle_v3_github.whl.sigstore.json",
         "https://github.com/trailofbits/rfc8785.py/.github/workflows/release.yml@refs/tags/v0.1.2", GITHUB,
         Some("c4e92e9ecc828bef2aa7dba1de8ac983511f7532a0df11c770d39099a25cf201")),
        // v0.1, a DSSE envelope (npm provenance), logged as intoto 0.0.2, with a checkpoint
        ("sigstore.js-2.0.0-provenance.sigstore.json",
         "https://github.com/sigstore/sigstore-js/.github/workflows/release.yml@refs/heads/main", GITHUB, None),
    ];
    for (name, identity, issuer, digest) in cases {
        let signature = KeylessSignature::from_bundle(&fixture(name)).unwrap();
        let verified = verify(&signature, &root(), &who(identity, issuer))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(verified.message_digest().as_deref(), digest, "{name}");
        if digest.is_none() {
            let statement: Value = serde_json::from_slice(verified.statement().unwrap()).unwrap();
            assert_eq!(statement["subject"][0]["name"], "pkg:npm/sigstore@2.0.0");
        }
    }
    // v0.3, from Sigstore's staging instance, against staging's root.
    let staging = TrustedRoot::from_json(&fixture("staging_trusted_root.json")).unwrap();
    let signature =
        KeylessSignature::from_bundle(&fixture("staging_bundle_v3.txt.sigstore.json")).unwrap();
    let verified = verify(
        &signature,
        &staging,
        &who("william@yossarian.net", "https://github.com/login/oauth"),
    )
    .unwrap();
    let text = fixture("staging_bundle_v3.txt");
    assert_eq!(verified.message_digest().unwrap(), Digest::of(&text).hex());
}

#[test]
fn each_attack_on_a_real_signature_is_refused_with_its_own_message() {
    let (payload, annotations) = image_layer();
    let good = image_signature(&payload, &annotations);
    let right = who(IMAGE_IDENTITY, GITHUB);
    let message = |result: Result<Verified, KeylessError>| match result {
        Ok(_) => panic!("accepted"),
        Err(error) => error.to_string(),
    };

    let other_identity = who(
        "https://github.com/acme/policies/.github/workflows/release.yml@refs/heads/main",
        GITHUB,
    );
    assert_eq!(
        message(verify(&good, &root(), &other_identity)),
        format!(
            "its certificate is for {IMAGE_IDENTITY}, not for \
             https://github.com/acme/policies/.github/workflows/release.yml@refs/heads/main \
             (another identity signed it)"
        )
    );

    let other_issuer = who(IMAGE_IDENTITY, "https://accounts.google.com");
    assert_eq!(
        message(verify(&good, &root(), &other_issuer)),
        format!(
            "its certificate's OIDC issuer is {GITHUB}, not https://accounts.google.com (the \
             identity was vouched for by another identity provider)"
        )
    );

    // The payload changed after signing: it names another manifest.
    let forged = cosign::payload(IMAGE_REPOSITORY, &Digest::of(b"evil"));
    let tampered = image_signature(&forged, &annotations);
    assert_eq!(
        verify(&tampered, &root(), &right).unwrap_err(),
        KeylessError::BadSignature
    );

    // A trusted root that does not hold the CA that issued it (staging's CAs instead).
    let staging = json("staging_trusted_root.json");
    let foreign = root_with(|root| {
        root["certificateAuthorities"] = staging["certificateAuthorities"].clone();
    });
    let error = message(verify(&good, &foreign, &right));
    assert!(
        error.starts_with(
            "its certificate (issued by CN=sigstore-intermediate,O=sigstore.dev) does not chain \
             to a Fulcio CA of the trusted root"
        ),
        "{error}"
    );

    // The CA's window in the root ends before the signature was logged.
    let expired = root_with(|root| {
        for ca in root["certificateAuthorities"].as_array_mut().unwrap() {
            ca["validFor"]["end"] = "2025-12-31T00:00:00Z".into();
        }
    });
    assert_eq!(
        message(verify(&good, &expired, &right)),
        "the Fulcio CA that issued it (https://fulcio.sigstore.dev) was valid from \
         2022-04-13T20:06:15Z to 2025-12-31T00:00:00Z, and the transparency log recorded the \
         signature at 2026-02-17T13:55:09Z: it was expired (or not yet valid) at signing time"
    );

    // The log proof: the signed entry timestamp changed, the time moved, the entry swapped.
    let mut bundle: Value =
        serde_json::from_str(annotations["dev.sigstore.cosign/bundle"].as_str().unwrap()).unwrap();
    let mut moved = bundle.clone();
    moved["Payload"]["integratedTime"] = (1_771_336_509i64 - 3600).into();
    let mut broken = bundle.clone();
    let set = BASE64
        .decode(bundle["SignedEntryTimestamp"].as_str().unwrap())
        .unwrap();
    let mut flipped = set.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 1;
    broken["SignedEntryTimestamp"] = BASE64.encode(flipped).into();
    for (name, edited) in [("moved time", moved), ("broken SET", broken)] {
        let mut annotations = annotations.clone();
        annotations["dev.sigstore.cosign/bundle"] = edited.to_string().into();
        assert_eq!(
            message(verify(
                &image_signature(&payload, &annotations),
                &root(),
                &right
            )),
            "its transparency-log proof does not verify: Rekor's signed entry timestamp does \
             not verify with the key of https://rekor.sigstore.dev: the entry, its time or its \
             index were changed",
            "{name}"
        );
    }
    // No log entry at all.
    let text = |key: &str| annotations[key].as_str().unwrap().to_string();
    let unlogged = KeylessSignature::from_cosign(
        &payload,
        &text("dev.cosignproject.cosign/signature"),
        &text("dev.sigstore.cosign/certificate"),
        None,
    )
    .unwrap();
    assert!(
        message(verify(&unlogged, &root(), &right)).contains("it has no transparency-log entry"),
    );
    // Another signature's (genuine) log entry: the Python release's.
    let python = json("python-3.12.5.tgz.sigstore.json");
    let entry = &python["verificationMaterial"]["tlogEntries"][0];
    bundle["SignedEntryTimestamp"] = entry["inclusionPromise"]["signedEntryTimestamp"].clone();
    bundle["Payload"] = serde_json::json!({
        "body": entry["canonicalizedBody"],
        "integratedTime": entry["integratedTime"].as_str().unwrap().parse::<i64>().unwrap(),
        "logIndex": entry["logIndex"].as_str().unwrap().parse::<i64>().unwrap(),
        "logID": "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d",
    });
    let mut swapped = annotations.clone();
    swapped["dev.sigstore.cosign/bundle"] = bundle.to_string().into();
    assert_eq!(
        message(verify(
            &image_signature(&payload, &swapped),
            &root(),
            &right
        )),
        "its transparency-log proof does not verify: its log entry is for another signature"
    );

    // A genuine signature, for another artefact, or in another repository.
    let verified = verify(&good, &root(), &right).unwrap();
    let other = Digest::of(b"another manifest");
    assert_eq!(
        verified.check_manifest(&other, IMAGE_REPOSITORY),
        Err(KeylessError::WrongDigest {
            signed: image_manifest().to_string(),
            expected: other.to_string()
        })
    );
    assert_eq!(
        verified.check_manifest(&image_manifest(), "ghcr.io/acme/server_image"),
        Err(KeylessError::WrongRepository {
            signed: IMAGE_REPOSITORY.to_string(),
            expected: "ghcr.io/acme/server_image".to_string()
        })
    );
}

#[test]
fn a_broken_inclusion_proof_or_checkpoint_is_refused() {
    let name = "bundle_v3_github.whl.sigstore.json";
    let identity = who(
        "https://github.com/trailofbits/rfc8785.py/.github/workflows/release.yml@refs/tags/v0.1.2",
        GITHUB,
    );
    let verify_edited = |edit: &dyn Fn(&mut Value)| {
        let mut bundle = json(name);
        edit(&mut bundle["verificationMaterial"]["tlogEntries"][0]["inclusionProof"]);
        let signature = KeylessSignature::from_bundle(&serde_json::to_vec(&bundle).unwrap())?;
        verify(&signature, &root(), &identity).map(|_| ())
    };
    let proof = verify_edited(&|proof| {
        proof["hashes"][0] = BASE64.encode([7u8; 32]).into();
    })
    .unwrap_err()
    .to_string();
    assert!(proof.contains("its inclusion proof (entry "), "{proof}");
    assert!(
        proof.contains("does not lead to the root hash it names"),
        "{proof}"
    );
    let checkpoint = verify_edited(&|proof| {
        let note = proof["checkpoint"]["envelope"]
            .as_str()
            .unwrap()
            .to_string();
        let mut lines: Vec<&str> = note.split('\n').collect();
        lines[0] = "rekor.example - 1";
        proof["checkpoint"]["envelope"] = lines.join("\n").into();
    })
    .unwrap_err()
    .to_string();
    assert!(
        checkpoint.contains("its checkpoint is not signed by the log's key"),
        "{checkpoint}"
    );
}

#[test]
fn scts_need_ct_log_keys_unless_the_entry_says_otherwise() {
    let (payload, annotations) = image_layer();
    let signature = image_signature(&payload, &annotations);
    let without_ct = root_with(|root| root["ctlogs"] = serde_json::json!([]));
    let error = verify(&signature, &without_ct, &who(IMAGE_IDENTITY, GITHUB))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("the trusted root has no CT log keys, so the certificate's SCT cannot be verified offline; add `require_sct = false`"),
        "{error}"
    );
    let relaxed = KeylessIdentity {
        require_sct: false,
        ..who(IMAGE_IDENTITY, GITHUB)
    };
    assert!(verify(&signature, &without_ct, &relaxed).is_ok());
    // Another P-256 key (Rekor's) under the CT logs' ids: the SCT does not verify.
    let wrong_key = root_with(|root| {
        let rekor = root["tlogs"][0]["publicKey"]["rawBytes"].clone();
        for log in root["ctlogs"].as_array_mut().unwrap() {
            log["publicKey"]["rawBytes"] = rekor.clone();
        }
    });
    let error = verify(&signature, &wrong_key, &who(IMAGE_IDENTITY, GITHUB))
        .unwrap_err()
        .to_string();
    assert!(error.contains("that does not verify"), "{error}");
}

#[test]
fn trusted_roots_and_bundles_that_cannot_be_read_say_why() {
    #[rustfmt::skip]
    let roots: [(&str, &str); 3] = [
        ("{}",                 "missing field `mediaType`"),
        (r#"{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}"#, "it has no certificateAuthorities (Fulcio)"),
        (r#"{"mediaType":"x"}"#, "its mediaType is \"x\""),
    ];
    for (text, expected) in roots {
        let error = TrustedRoot::from_json(text.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{error}");
    }
    let mut key_bundle = json("bundle_v3_github.whl.sigstore.json");
    let material = key_bundle["verificationMaterial"].as_object_mut().unwrap();
    material.remove("x509CertificateChain");
    material.insert("publicKey".into(), serde_json::json!({"hint": "abc"}));
    let error = KeylessSignature::from_bundle(&serde_json::to_vec(&key_bundle).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("it is signed with a key, not a certificate"),
        "{error}"
    );
    let error = KeylessSignature::from_bundle(br#"{"mediaType":"application/vnd.dev.sigstore.bundle.v0.4+json","verificationMaterial":{}}"#)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("is not a Sigstore bundle version hookhost reads"),
        "{error}"
    );
}
