//! Signed policy bundles: metadata and signatures inside the component, verified before
//! anything is compiled.

use std::io::Cursor;

use hookhost::bundle::{self, BundleError, Metadata, TrustStore, TrustedKey};
use hookhost::{HookRunner, StopReason};
use minisign::{KeyPair, PublicKey};

use crate::support::{Project, probe};

fn keypair() -> KeyPair {
    KeyPair::generate_unencrypted_keypair().unwrap()
}

fn trusted(name: &str, pair: &KeyPair, revoked: bool) -> TrustedKey {
    TrustedKey {
        name: name.to_string(),
        key: pair.pk.clone(),
        revoked,
    }
}

fn store(keys: Vec<TrustedKey>) -> TrustStore {
    TrustStore {
        keys,
        require_signed: true,
    }
}

/// A small valid component, so that every byte of a signed bundle can be flipped in a test.
fn tiny_component() -> Vec<u8> {
    wat::parse_str(
        "(component (core module $m (func (export \"f\"))) (core instance (instantiate $m)))",
    )
    .unwrap()
}

fn metadata() -> Metadata {
    Metadata {
        name: "destructive-guard".into(),
        version: "1.2.0".into(),
        description: "blocks destructive commands".into(),
        events: vec!["PreToolUse/guard".into()],
        default_config: Some(serde_json::json!({"deny": []})),
        config_schema: None,
    }
}

#[test]
fn sign_and_verify_round_trip_with_several_signatures_and_keys() {
    let (author, security, other) = (keypair(), keypair(), keypair());
    let bytes = bundle::with_metadata(&tiny_component(), &metadata()).unwrap();
    let once = bundle::sign(&bytes, &author.sk, "by the author").unwrap();
    let twice = bundle::sign(&once, &security.sk, "by security").unwrap();
    assert_eq!(bundle::read_metadata(&twice).unwrap(), Some(metadata()));
    assert_eq!(bundle::signatures(&twice).unwrap().len(), 2);

    let both = store(vec![
        trusted("author", &author, false),
        trusted("security", &security, false),
    ]);
    assert_eq!(
        bundle::verify(&twice, &both).unwrap().signers,
        ["author", "security"]
    );
    // Rotation: either key alone is enough.
    assert_eq!(
        bundle::verify(&twice, &store(vec![trusted("security", &security, false)]))
            .unwrap()
            .signers,
        ["security"]
    );
    // A revoked key does not count, even though its signature verifies...
    let revoked = store(vec![trusted("author", &author, true)]);
    assert_eq!(
        bundle::verify(&once, &revoked),
        Err(BundleError::Revoked(format!(
            "author ({})",
            key_id(&author)
        )))
    );
    // ...but another trusted signature still does.
    let mixed = store(vec![
        trusted("author", &author, true),
        trusted("security", &security, false),
    ]);
    assert_eq!(
        bundle::verify(&twice, &mixed).unwrap().signers,
        ["security"]
    );
    // Signed, but by nobody we trust: the message names the key.
    assert_eq!(
        bundle::verify(&twice, &store(vec![trusted("other", &other, false)])),
        Err(BundleError::Untrusted {
            ids: vec![key_id(&author), key_id(&security)]
        })
    );
    assert_eq!(bundle::verify(&bytes, &both), Err(BundleError::Unsigned));
}

fn key_id(pair: &KeyPair) -> String {
    let mut id = [0u8; 8];
    id.copy_from_slice(&pair.pk.keynum()[..8]);
    format!("{:016X}", u64::from_le_bytes(id))
}

#[test]
fn changing_any_single_byte_is_caught() {
    let author = keypair();
    let bytes = bundle::with_metadata(&tiny_component(), &metadata()).unwrap();
    let signed = bundle::sign(&bytes, &author.sk, "by the author").unwrap();
    let trust = store(vec![trusted("author", &author, false)]);
    assert!(bundle::verify(&signed, &trust).is_ok());
    for i in 0..signed.len() {
        for flip in [0x01u8, 0x80] {
            let mut changed = signed.clone();
            changed[i] ^= flip;
            assert!(
                bundle::verify(&changed, &trust).is_err(),
                "flipping bit {flip:#x} of byte {i} of {} went unnoticed",
                signed.len()
            );
        }
    }
}

#[test]
fn stripping_resigning_and_editing_metadata_are_refused() {
    let (author, stranger) = (keypair(), keypair());
    let bytes = bundle::with_metadata(&tiny_component(), &metadata()).unwrap();
    let signed = bundle::sign(&bytes, &author.sk, "by the author").unwrap();
    let trust = store(vec![trusted("author", &author, false)]);

    let stripped = bundle::payload(&signed).unwrap();
    assert_eq!(
        bundle::verify(&stripped, &trust),
        Err(BundleError::Unsigned)
    );

    let resigned = bundle::sign(&stripped, &stranger.sk, "by a stranger").unwrap();
    assert_eq!(
        bundle::verify(&resigned, &trust),
        Err(BundleError::Untrusted {
            ids: vec![key_id(&stranger)]
        })
    );

    let edited = bundle::with_metadata(
        &signed,
        &Metadata {
            version: "9.9.9".into(),
            ..metadata()
        },
    )
    .unwrap();
    assert_eq!(
        bundle::verify(&edited, &trust),
        Err(BundleError::Tampered(format!(
            "key author ({})",
            key_id(&author)
        )))
    );
    let message = BundleError::Tampered("key author (X)".into()).to_string();
    assert!(
        message.contains("does not match its content: it was changed after signing (tampered)"),
        "{message}"
    );
}

#[test]
fn extracted_signatures_verify_with_minisign_itself() {
    let author = keypair();
    let signed = bundle::sign(&tiny_component(), &author.sk, "by the author").unwrap();
    let info = &bundle::signatures(&signed).unwrap()[0];
    // What `hookhost inspect --extract` writes: the payload and a .minisig file.
    let signature = minisign::SignatureBox::from_string(&info.minisig).unwrap();
    let payload = bundle::payload(&signed).unwrap();
    let public = PublicKey::from_base64(&author.pk.to_base64()).unwrap();
    minisign::verify(
        &public,
        &signature,
        Cursor::new(&payload),
        true,
        false,
        false,
    )
    .unwrap();
}

/// Writes a signed copy of the probe and a hooks.toml that trusts `keys`.
fn signed_probe(project: &Project, signers: &[&KeyPair]) -> Vec<u8> {
    let mut bytes = std::fs::read(probe()).unwrap();
    bytes = bundle::with_metadata(&bytes, &metadata()).unwrap();
    for signer in signers {
        bytes = bundle::sign(&bytes, &signer.sk, "test").unwrap();
    }
    std::fs::create_dir_all(project.path(".forgeflare")).unwrap();
    std::fs::write(project.path(".forgeflare/policy.wasm"), &bytes).unwrap();
    bytes
}

fn trust_config(keys: &[(&str, &KeyPair, bool)], require: bool, hook_extra: &str) -> String {
    let mut text = format!("[trust]\nrequire_signed = {require}\n\n");
    for (id, pair, revoked) in keys {
        text.push_str(&format!(
            "[[trust.keys]]\nid = \"{id}\"\nkey = \"{}\"\nrevoked = {revoked}\n\n",
            pair.pk.to_base64()
        ));
    }
    text.push_str(&format!(
        "[[hooks]]\nname = \"policy\"\nevent = \"Stop\"\nwasm = \"policy.wasm\"\n{hook_extra}\n"
    ));
    text
}

fn load(project: &Project, config: &str) -> Result<HookRunner, String> {
    let path = project.config(config);
    HookRunner::load(path, project.options()).map_err(|e| e.to_string())
}

#[test]
fn a_signed_bundle_loads_in_plain_wasmtime_and_runs_through_hook_runner() {
    let project = Project::new();
    let author = keypair();
    let bytes = signed_probe(&project, &[&author]);
    use hookhost::wasm::deps::wasmtime;
    let engine = wasmtime::Engine::default();
    wasmtime::component::Component::from_binary(&engine, &bytes).expect("still a valid component");

    let runner = load(
        &project,
        &trust_config(&[("author", &author, false)], true, ""),
    )
    .unwrap();
    let info = runner.wasm_hooks().into_iter().next().unwrap().1;
    assert_eq!(info.signers, ["author"]);
    let outcome = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(runner.stop(StopReason::EndTurn, 1, 1));
    assert!(
        outcome.reports[0].result.is_ok(),
        "{:?}",
        outcome.reports[0]
    );
}

#[test]
fn trust_failures_are_config_errors_that_say_what_failed() {
    let project = Project::new();
    let (author, stranger, old) = (keypair(), keypair(), keypair());

    signed_probe(&project, &[]);
    let error = load(
        &project,
        &trust_config(&[("author", &author, false)], true, ""),
    )
    .unwrap_err();
    assert!(error.contains("hook #1 (policy): `wasm` file"), "{error}");
    assert!(
        error.contains("is not signed, and [trust] require_signed = true"),
        "{error}"
    );

    signed_probe(&project, &[&stranger]);
    let error = load(
        &project,
        &trust_config(&[("author", &author, false)], true, ""),
    )
    .unwrap_err();
    assert!(
        error.contains(&format!(
            "is signed, but by an untrusted key ({})",
            key_id(&stranger)
        )),
        "{error}"
    );

    signed_probe(&project, &[&old]);
    let error = load(
        &project,
        &trust_config(
            &[("author", &author, false), ("old-2025", &old, true)],
            true,
            "",
        ),
    )
    .unwrap_err();
    assert!(
        error.contains(&format!(
            "is signed by a revoked key (old-2025 ({}))",
            key_id(&old)
        )),
        "{error}"
    );

    let bytes = signed_probe(&project, &[&author]);
    let mut tampered = bundle::with_metadata(
        &bytes,
        &Metadata {
            name: "evil".into(),
            ..metadata()
        },
    )
    .unwrap();
    std::fs::write(project.path(".forgeflare/policy.wasm"), &tampered).unwrap();
    let error = load(
        &project,
        &trust_config(&[("author", &author, false)], true, ""),
    )
    .unwrap_err();
    assert!(
        error.contains("that does not match its content: it was changed after signing (tampered)"),
        "{error}"
    );
    // Tampering is refused even when signatures are not required.
    let error = load(
        &project,
        &trust_config(&[("author", &author, false)], false, ""),
    )
    .unwrap_err();
    assert!(error.contains("(tampered)"), "{error}");
    tampered.clear();

    let error = load(
        &project,
        &trust_config(&[], false, &format!("sha256 = \"{}\"", "ab".repeat(32))),
    )
    .unwrap_err();
    assert!(
        error.contains(&format!(
            "but hooks.toml pins sha256 = \"{}\"",
            "ab".repeat(32)
        )),
        "{error}"
    );

    // The facade fails closed on all of these.
    let config = project.config(&trust_config(&[("author", &stranger, false)], true, ""));
    let facade = hookhost::forgeflare::HookRunner::load(
        config.to_str().unwrap(),
        project.root().to_str().unwrap(),
    );
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(facade.run_pre_tool_use("Bash", &serde_json::json!({}), 0));
    assert!(matches!(
        result,
        hookhost::forgeflare::PreToolResult::Block { .. }
    ));
}

#[test]
fn a_pin_accepts_exactly_its_file() {
    let project = Project::new();
    let bytes = signed_probe(&project, &[]);
    let digest: String = {
        use sha2::Digest as _;
        sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let runner = load(
        &project,
        &trust_config(
            &[],
            false,
            &format!("sha256 = \"{}\"", digest.to_uppercase()),
        ),
    )
    .unwrap();
    assert_eq!(
        runner.wasm_hooks().into_iter().next().unwrap().1.sha256,
        digest
    );
}

#[test]
fn the_compile_cache_never_lets_an_unverified_file_run() {
    let project = Project::new();
    let author = keypair();
    // The unsigned probe is already compiled in the shared cache (support::build_fixture).
    std::fs::create_dir_all(project.path(".forgeflare")).unwrap();
    std::fs::copy(probe(), project.path(".forgeflare/policy.wasm")).unwrap();
    let unsigned_ok = load(&project, &trust_config(&[], false, "")).unwrap();
    assert_eq!(
        unsigned_ok.wasm_hooks().into_iter().next().unwrap().1.cache,
        hookhost::wasm::CacheOutcome::Hit
    );
    // The same bytes, with signatures required: refused before the cache is consulted.
    let error = load(
        &project,
        &trust_config(&[("author", &author, false)], true, ""),
    )
    .unwrap_err();
    assert!(error.contains("is not signed"), "{error}");
}

#[test]
fn trust_table_problems_are_located() {
    let project = Project::new();
    let cases: &[(&str, &str)] = &[
        (
            "[trust]\nrequire_signed = \"yes\"\n",
            "2:18: `trust.require_signed` must be true or false",
        ),
        ("[trust]\nkeyz = []\n", "2:1: unknown key `trust.keyz`"),
        (
            "[[trust.keys]]\nkey = \"RWQ\"\n",
            "1:1: a trust key needs an `id`",
        ),
        (
            "[[trust.keys]]\nid = \"a\"\n",
            "needs exactly one of `key` (the public key) or `file` (a .pub file)",
        ),
        (
            "[[trust.keys]]\nid = \"a\"\nkey = \"nope\"\n",
            "1:1: trust key \"a\": `key` is not a minisign public key",
        ),
        (
            "[[trust.keys]]\nid = \"a\"\nfile = \"missing.pub\"\n",
            "cannot read a minisign public key from",
        ),
        (
            "[[trust.keys]]\nid = \"a\"\nkey = \"x\"\n[[trust.keys]]\nid = \"a\"\nkey = \"y\"\n",
            "trust key id \"a\" is used twice",
        ),
        // Signature rules, revocation by id, and a key's kind.
        (
            "[[trust.rules]]\nmatch = \"r.io/x/*\"\nany_of = [\"a\"]\n",
            "2:9: `match` of a trust rule must be a registry reference pattern",
        ),
        (
            "[[trust.rules]]\nany_of = [\"a\"]\n",
            "1:1: a trust rule needs `match`",
        ),
        (
            "[[trust.rules]]\nmatch = \"oci://r.io/*\"\n",
            "the trust rule for \"oci://r.io/*\" names no keys",
        ),
        (
            "[[trust.rules]]\nmatch = \"oci://r.io/*\"\nany_of = [\"a\"]\nall_of = [\"b\"]\n",
            "has both `any_of` and `all_of`; give one",
        ),
        (
            "[[trust.rules]]\nmatch = \"oci://r.io/*\"\nany_of = [\"a\", \"b\"]\nmin = 3\n",
            "4:7: `min` = 3 of the trust rule for \"oci://r.io/*\" is more than the 2 keys",
        ),
        (
            "[[trust.rules]]\nmatch = \"oci://r.io/*\"\nall_of = [\"a\"]\nmin = 1\n",
            "`min` goes with `any_of`",
        ),
        (
            "[[trust.rules]]\nmatch = \"oci://r.io/*\"\nany_of = [\"a\", \"a\"]\n",
            "names a key twice",
        ),
        (
            "[[trust.rules]]\nmatch = \"oci://r.io/*\"\nanyof = [\"a\"]\n",
            "3:1: unknown key `anyof` in a trust rule",
        ),
        (
            "[[trust.rules]]\nmatch = \"oci://r.io/*\"\nany_of = [\"nobody\"]\n",
            "1:1: the trust rule for \"oci://r.io/*\" names key \"nobody\", which no [[trust.keys]] entry",
        ),
        (
            "[trust]\nrevoked = [\"not-an-id\"]\n",
            "2:12: each entry of `trust.revoked` must be a key id",
        ),
        (
            "[[trust.keys]]\nid = \"a\"\nkind = \"gpg\"\nkey = \"x\"\n",
            "3:8: `kind` of a trust key must be \"minisign\"",
        ),
        (
            "[[trust.keys]]\nid = \"a\"\nkey = \"-----BEGIN PUBLIC KEY-----\\nMFkw\\n-----END PUBLIC KEY-----\"\n",
            "trust key \"a\" is a PEM key: add kind = \"cosign\"",
        ),
        (
            "[[trust.keys]]\nid = \"a\"\nkind = \"cosign\"\nkey = \"-----BEGIN PUBLIC KEY-----\\nMFkw\\n-----END PUBLIC KEY-----\"\n",
            "trust key \"a\" (kind = \"cosign\"):",
        ),
    ];
    for (text, expected) in cases {
        let error = load(&project, text).unwrap_err();
        assert!(error.contains(expected), "{text}: {error}");
    }
}

/// A hook built without WASI is signed and verified as a component is: the signature and
/// metadata sections sit in the core module, are checked on its bytes, and the module is then
/// wrapped. A byte changed after signing is still refused.
#[tokio::test]
async fn a_signed_hook_built_without_wasi_is_verified_then_wrapped() {
    use crate::support::{NO_WASI, build_fixture_for};
    let project = Project::new();
    let author = keypair();
    let module = std::fs::read(build_fixture_for(NO_WASI, "destructive-guard")).unwrap();
    let signed = bundle::sign(
        &bundle::with_metadata(&module, &metadata()).unwrap(),
        &author.sk,
        "test",
    )
    .unwrap();
    assert_eq!(&signed[..8], b"\0asm\x01\0\0\0", "still a core module");
    std::fs::create_dir_all(project.path(".forgeflare")).unwrap();
    std::fs::write(project.path(".forgeflare/policy.wasm"), &signed).unwrap();
    let config = trust_config(&[("author", &author, false)], true, "")
        .replace("event = \"Stop\"", "event = \"PreToolUse\"");
    let runner = load(&project, &config).unwrap();
    assert_eq!(runner.wasm_hooks()[0].1.signers, ["author"]);
    let outcome =
        crate::support::pre_bash(&runner, &serde_json::json!({"command": "rm -rf /"})).await;
    match &outcome.decision {
        hookhost::Decision::Block(block) => {
            assert_eq!(
                block.message(),
                "blocked by policy: recursive delete of / (rm -r)"
            )
        }
        other => panic!("expected a block, got {other:?}"),
    }

    let mut tampered = signed.clone();
    let at = tampered.len() / 3;
    tampered[at] ^= 0x01;
    std::fs::write(project.path(".forgeflare/policy.wasm"), &tampered).unwrap();
    let Err(refused) = load(&project, &config) else {
        panic!("a changed byte is refused")
    };
    assert!(refused.contains("policy.wasm"), "{refused}");
    assert!(refused.contains("signature"), "{refused}");
}
