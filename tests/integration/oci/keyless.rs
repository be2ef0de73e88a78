//! Keyless (Sigstore) signatures on bundles in a real registry (Debian's `docker-registry`):
//! attached the way cosign attaches them (a `.sig` layer with its certificate, chain and Rekor
//! bundle; a Sigstore bundle through the referrers tag schema), locked by `hookhost lock`
//! against a `kind = "keyless"` rule, and checked again offline at every load.
//!
//! No cosign binary can be installed here (Debian has none; its skopeo 1.9.3 has sigstore
//! disabled), and the public-good Fulcio and Rekor need the network and an OIDC login. So each
//! test runs a private Sigstore instance made with openssl: a Fulcio-like CA issuing a code
//! signing certificate with the identity and issuer extensions Fulcio writes, and a Rekor-like
//! log key signing the entry timestamp over the entry cosign would log, all in a
//! trusted_root.json of Sigstore's format. It has no CT log, so the trust entry says
//! `require_sct = false`. The verification of real public-good signatures (SCTs included), and
//! of each attack on them, is in the unit tests of `bundle::keyless`.

use std::path::PathBuf;
use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hookhost::bundle::cosign;
use hookhost::oci::registry::{RegistryClient, SignatureLayer};
use hookhost::oci::{Digest, OciReference};

use super::registry::{Registry, require_tool};
use super::{Team, guard_hook};
use crate::support::build_fixture;

const IDENTITY: &str =
    "https://github.com/acme/policies/.github/workflows/release.yml@refs/heads/main";
const GITHUB: &str = "https://token.actions.githubusercontent.com";
const RULE: &str =
    "[[trust.rules]]\nmatch = \"oci://127.0.0.1:*/platform/*\"\nany_of = [\"release\"]\n";

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// A private Sigstore instance: a CA, a signing certificate it issued for `IDENTITY` (from
/// `GITHUB`), and a transparency log key.
struct Sigstore {
    dir: tempfile::TempDir,
    openssl: PathBuf,
}

impl Sigstore {
    fn new(identity: &str) -> Sigstore {
        let sigstore = Sigstore {
            dir: tempfile::tempdir().unwrap(),
            openssl: require_tool(&["openssl"], "apt-get install -y openssl"),
        };
        std::fs::write(
            sigstore.path("ca.cnf"),
            format!(
                "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nO = sigstore.dev\n\
                 CN = sigstore-intermediate\n[ca]\nbasicConstraints = critical,CA:TRUE\n\
                 keyUsage = critical,keyCertSign,cRLSign\nextendedKeyUsage = codeSigning\n\
                 [leaf]\nbasicConstraints = critical,CA:FALSE\n\
                 keyUsage = critical,digitalSignature\nextendedKeyUsage = codeSigning\n\
                 subjectAltName = critical,URI:{identity}\n\
                 1.3.6.1.4.1.57264.1.8 = ASN1:UTF8String:{GITHUB}\n"
            ),
        )
        .unwrap();
        for key in ["ca", "leaf", "rekor"] {
            let curve = if key == "ca" {
                "secp384r1"
            } else {
                "prime256v1"
            };
            sigstore.run(&[
                "ecparam",
                "-name",
                curve,
                "-genkey",
                "-noout",
                "-out",
                &format!("{key}.key"),
            ]);
        }
        sigstore.run(&[
            "req",
            "-new",
            "-x509",
            "-key",
            "ca.key",
            "-config",
            "ca.cnf",
            "-extensions",
            "ca",
            "-days",
            "3650",
            "-sha384",
            "-out",
            "ca.pem",
        ]);
        sigstore.run(&[
            "req",
            "-new",
            "-key",
            "leaf.key",
            "-subj",
            "/O=sigstore.dev",
            "-out",
            "leaf.csr",
        ]);
        sigstore.run(&[
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            "ca.cnf",
            "-extensions",
            "leaf",
            "-sha384",
            "-out",
            "leaf.pem",
        ]);
        sigstore.run(&[
            "ec",
            "-in",
            "rekor.key",
            "-pubout",
            "-outform",
            "DER",
            "-out",
            "rekor.der",
        ]);
        sigstore.run(&["x509", "-in", "ca.pem", "-outform", "DER", "-out", "ca.der"]);
        sigstore
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn run(&self, args: &[&str]) -> Vec<u8> {
        let out = Command::new(&self.openssl)
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    /// ECDSA over SHA-256 of `data` with `key` (DER), as a signer and as Rekor sign.
    fn sign(&self, key: &str, data: &[u8]) -> Vec<u8> {
        std::fs::write(self.path("data"), data).unwrap();
        self.run(&["dgst", "-sha256", "-sign", &format!("{key}.key"), "data"])
    }

    fn certificate(&self) -> String {
        std::fs::read_to_string(self.path("leaf.pem")).unwrap()
    }

    fn log_id(&self) -> Vec<u8> {
        Digest::of(&std::fs::read(self.path("rekor.der")).unwrap())
            .hex()
            .as_bytes()
            .chunks(2)
            .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap())
            .collect()
    }

    /// trusted_root.json: this instance's CA (or `ca_of`'s) and log, with `ctlogs` empty.
    fn trusted_root(&self, ca_of: &Sigstore) -> String {
        let b64 = |name: &str| BASE64.encode(std::fs::read(name).unwrap());
        serde_json::json!({
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [{
                "baseUrl": "https://rekor.test",
                "hashAlgorithm": "SHA2_256",
                "publicKey": {
                    "rawBytes": b64(self.path("rekor.der").to_str().unwrap()),
                    "keyDetails": "PKIX_ECDSA_P256_SHA_256",
                    "validFor": {"start": "2020-01-01T00:00:00Z"}
                },
                "logId": {"keyId": BASE64.encode(self.log_id())}
            }],
            "certificateAuthorities": [{
                "uri": "https://fulcio.test",
                "certChain": {"certificates": [{"rawBytes": b64(ca_of.path("ca.der").to_str().unwrap())}]},
                "validFor": {"start": "2020-01-01T00:00:00Z"}
            }],
            "ctlogs": []
        })
        .to_string()
    }

    /// Rekor's answer for a logged `body`: cosign's `dev.sigstore.cosign/bundle`.
    fn rekor_bundle(&self, body: &[u8], time: i64) -> String {
        let body = BASE64.encode(body);
        let log_id: String = self.log_id().iter().map(|b| format!("{b:02x}")).collect();
        let signed = format!(
            "{{\"body\":\"{body}\",\"integratedTime\":{time},\"logID\":\"{log_id}\",\"logIndex\":7}}"
        );
        let set = BASE64.encode(self.sign("rekor", signed.as_bytes()));
        serde_json::json!({
            "SignedEntryTimestamp": set,
            "Payload": {"body": body, "integratedTime": time, "logIndex": 7, "logID": log_id}
        })
        .to_string()
    }

    /// A keyless `.sig` layer over `payload`, as `cosign sign` attaches it.
    fn layer(&self, payload: &[u8]) -> SignatureLayer {
        let signature = self.sign("leaf", payload);
        let body = serde_json::json!({
            "apiVersion": "0.0.1", "kind": "hashedrekord",
            "spec": {
                "data": {"hash": {"algorithm": "sha256", "value": Digest::of(payload).hex()}},
                "signature": {
                    "content": BASE64.encode(&signature),
                    "publicKey": {"content": BASE64.encode(self.certificate())}
                }
            }
        });
        SignatureLayer {
            payload: payload.to_vec(),
            signature: BASE64.encode(&signature),
            certificate: Some(self.certificate()),
            chain: Some(std::fs::read_to_string(self.path("ca.pem")).unwrap()),
            rekor_bundle: Some(self.rekor_bundle(body.to_string().as_bytes(), now())),
        }
    }

    /// A Sigstore bundle (v0.3) of a DSSE envelope: cosign 3's image signature statement for
    /// `manifest`, logged as a `dsse` entry.
    fn bundle(&self, manifest: &Digest) -> Vec<u8> {
        let statement = serde_json::json!({
            "_type": "https://in-toto.io/Statement/v1",
            "subject": [{"name": "guard", "digest": {"sha256": manifest.hex()}}],
            "predicateType": "https://sigstore.dev/cosign/sign/v1",
            "predicate": {}
        })
        .to_string();
        let kind = "application/vnd.in-toto+json";
        let pae = format!(
            "DSSEv1 {} {kind} {} {statement}",
            kind.len(),
            statement.len()
        );
        let signature = self.sign("leaf", pae.as_bytes());
        let body = serde_json::json!({
            "apiVersion": "0.0.1", "kind": "dsse",
            "spec": {
                "payloadHash": {"algorithm": "sha256", "value": Digest::of(statement.as_bytes()).hex()},
                "signatures": [{
                    "signature": BASE64.encode(&signature),
                    "verifier": BASE64.encode(self.certificate())
                }]
            }
        })
        .to_string();
        // The entry's time is the one Rekor signed, read back from its answer: a second reading
        // of the clock, one openssl run later, was another second one run in twelve (issue 37).
        let rekor: serde_json::Value =
            serde_json::from_str(&self.rekor_bundle(body.as_bytes(), now())).unwrap();
        let der = self.run(&["x509", "-in", "leaf.pem", "-outform", "DER"]);
        serde_json::to_vec(&serde_json::json!({
            "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
            "verificationMaterial": {
                "certificate": {"rawBytes": BASE64.encode(der)},
                "tlogEntries": [{
                    "logIndex": "7",
                    "logId": {"keyId": BASE64.encode(self.log_id())},
                    "kindVersion": {"kind": "dsse", "version": "0.0.1"},
                    "integratedTime": rekor["Payload"]["integratedTime"].to_string(),
                    "inclusionPromise": {"signedEntryTimestamp": rekor["SignedEntryTimestamp"]},
                    "canonicalizedBody": BASE64.encode(&body)
                }]
            },
            "dsseEnvelope": {
                "payload": BASE64.encode(&statement),
                "payloadType": kind,
                "signatures": [{"sig": BASE64.encode(&signature)}]
            }
        }))
        .unwrap()
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The guard pushed to `path`, its reference, manifest digest and repository.
fn publish(registry: &Registry, team: &Team, path: &str) -> (String, OciReference, Digest, String) {
    let reference = registry.reference(path);
    let guard = build_fixture("destructive-guard");
    team.ok(&["push", guard.to_str().unwrap(), &reference]);
    let parsed = OciReference::parse(&reference).unwrap();
    let manifest = block_on(RegistryClient::new(false).resolve(&parsed))
        .unwrap()
        .manifest;
    let repository = format!("{}/{}", parsed.registry(), parsed.repository());
    (reference, parsed, manifest, repository)
}

/// hooks.toml with one keyless entry `release` (`entry` adds or overrides fields), the rule and
/// the guard.
fn configure(team: &Team, entry: &str, reference: &str) {
    team.config(&format!(
        "[[trust.keys]]\nid = \"release\"\nkind = \"keyless\"\n{entry}\n\n{RULE}\n{}",
        guard_hook(reference)
    ));
}

fn entry(identity: &str, issuer: &str, root: &str, sct: bool) -> String {
    format!(
        "identity = \"{identity}\"\nissuer = \"{issuer}\"\ntrusted_root = \"{root}\"\n{}",
        if sct { "" } else { "require_sct = false" }
    )
}

fn write(team: &Team, relative: &str, text: &str) {
    let path = team.project.path(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_keyless_signature_attached_as_cosign_does_is_locked_and_checked_offline_at_every_load() {
    let registry = Registry::start(false);
    let team = Team::new();
    let sigstore = Sigstore::new(IDENTITY);
    let (reference, parsed, manifest, repository) =
        publish(&registry, &team, "platform/guard:1.0.0");
    write(
        &team,
        ".forgeflare/sigstore/root.json",
        &sigstore.trusted_root(&sigstore),
    );
    let good = entry(IDENTITY, GITHUB, "sigstore/root.json", false);
    configure(&team, &good, &reference);

    // Unsigned: the rule refuses it.
    let unsigned = team.fails(&["lock"]);
    assert!(
        unsigned.contains("needs signatures by 1 of release, and it has no signatures"),
        "{unsigned}"
    );

    let layer = sigstore.layer(&cosign::payload(&repository, &manifest));
    block_on(RegistryClient::new(false).attach_layer(&parsed, &manifest, &layer)).unwrap();
    let locked = team.ok(&["lock"]);
    assert!(locked.contains("1 signature, signed by "), "{locked}");
    let lock = team.lock();
    let bundle = &lock.bundles[0];
    let recorded = &bundle.signatures[0];
    assert_eq!(recorded.identity.as_deref(), Some(IDENTITY));
    assert_eq!(recorded.issuer.as_deref(), Some(GITHUB));
    assert_eq!(
        recorded.certificate.as_deref(),
        Some(sigstore.certificate().as_str())
    );
    assert_eq!(bundle.signers, vec![recorded.key.clone().unwrap()]);
    team.guard_runs();
    let checked = team.ok(&["check"]);
    assert!(
        checked.contains(&format!(
            "release (keyless: {IDENTITY} from {GITHUB}, no SCT)"
        )),
        "{checked}"
    );

    // Offline from here: each load verifies again, against the [trust] of the day.
    drop(registry);
    team.guard_runs();
    let refused = |entry_text: &str| {
        configure(&team, entry_text, &reference);
        let message = team.fails(&["check"]);
        assert!(
            message.contains("is refused by the [trust] rule for \"oci://127.0.0.1:*/platform/*\"")
                && message.contains("needs signatures by 1 of release"),
            "{message}"
        );
        message
    };
    let other = "https://github.com/acme/policies/.github/workflows/other.yml@refs/heads/main";
    let message = refused(&entry(other, GITHUB, "sigstore/root.json", false));
    assert!(
        message.contains(&format!(
            "its certificate is for {IDENTITY}, not for {other} (another identity signed it)"
        )),
        "{message}"
    );
    let message = refused(&entry(
        IDENTITY,
        "https://accounts.google.com",
        "sigstore/root.json",
        false,
    ));
    assert!(
        message.contains(&format!(
            "its certificate's OIDC issuer is {GITHUB}, not https://accounts.google.com"
        )),
        "{message}"
    );
    // A root whose CA is another instance's.
    let stranger = Sigstore::new(IDENTITY);
    write(
        &team,
        ".forgeflare/sigstore/other-ca.json",
        &sigstore.trusted_root(&stranger),
    );
    let message = refused(&entry(IDENTITY, GITHUB, "sigstore/other-ca.json", false));
    assert!(
        message.contains("does not chain to a Fulcio CA of the trusted root"),
        "{message}"
    );
    // SCTs are required unless the entry says otherwise, and this root has no CT log.
    let message = refused(&entry(IDENTITY, GITHUB, "sigstore/root.json", true));
    assert!(
        message.contains("the trusted root has no CT log keys"),
        "{message}"
    );
    // A pattern of identities.
    configure(
        &team,
        &good.replace("identity = ", "identity_regex = ").replace(
            "release.yml@refs/heads/main",
            "[a-z]+\\\\.yml@refs/heads/.*",
        ),
        &reference,
    );
    team.guard_runs();

    // hooks.lock edited: the payload, then the log entry's time.
    configure(&team, &good, &reference);
    let lock_path = team.project.path(".forgeflare/hooks.lock");
    let original = team.lock();
    let mut edited = original.clone();
    let payload = &mut edited.bundles[0].signatures[0].payload;
    *payload = payload.replace(manifest.hex(), Digest::of(b"evil").hex());
    edited.write(&lock_path).unwrap();
    let message = team.fails(&["check"]);
    assert!(
        message.contains("its signature does not verify with its certificate's key"),
        "{message}"
    );
    let mut edited = original.clone();
    let rekor = edited.bundles[0].signatures[0]
        .rekor_bundle
        .clone()
        .unwrap();
    let mut rekor: serde_json::Value = serde_json::from_str(&rekor).unwrap();
    rekor["Payload"]["integratedTime"] =
        (rekor["Payload"]["integratedTime"].as_i64().unwrap() - 60).into();
    edited.bundles[0].signatures[0].rekor_bundle = Some(rekor.to_string());
    edited.write(&lock_path).unwrap();
    let message = team.fails(&["check"]);
    assert!(
        message.contains(
            "Rekor's signed entry timestamp does not verify with the key of https://rekor.test"
        ),
        "{message}"
    );
    original.write(&lock_path).unwrap();
    team.guard_runs();
}

#[test]
fn a_sigstore_bundle_attached_through_the_referrers_tag_schema_is_locked_and_a_copy_on_another_artefact_is_refused()
 {
    let registry = Registry::start(false);
    let team = Team::new();
    let sigstore = Sigstore::new(IDENTITY);
    let (reference, parsed, manifest, _) = publish(&registry, &team, "platform/guard:1.0.0");
    write(
        &team,
        ".forgeflare/sigstore/root.json",
        &sigstore.trusted_root(&sigstore),
    );
    configure(
        &team,
        &entry(IDENTITY, GITHUB, "sigstore/root.json", false),
        &reference,
    );
    let bundle = sigstore.bundle(&manifest);
    let client = RegistryClient::new(false);
    block_on(client.attach_sigstore_bundle(&parsed, &manifest, &bundle)).unwrap();
    assert_eq!(
        block_on(client.sigstore_bundles(&parsed, &manifest)).unwrap(),
        vec![bundle.clone()]
    );
    let locked = team.ok(&["lock"]);
    assert!(locked.contains("1 signature, signed by "), "{locked}");
    let lock = team.lock();
    let recorded = &lock.bundles[0].sigstore_bundles[0];
    assert_eq!(recorded.bundle.as_bytes(), bundle.as_slice());
    assert_eq!(recorded.identity.as_deref(), Some(IDENTITY));
    team.guard_runs();

    // The same bundle attached to another artefact (a copy of the guard under another name,
    // changed by a byte): it vouches for the first.
    let other_reference = registry.reference("platform/other:1.0.0");
    let guard = std::fs::read(build_fixture("destructive-guard")).unwrap();
    let copy = team.project.path("copy.wasm");
    let pair = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    std::fs::write(
        &copy,
        hookhost::bundle::sign(&guard, &pair.sk, "copy").unwrap(),
    )
    .unwrap();
    team.ok(&["push", copy.to_str().unwrap(), &other_reference]);
    let other = OciReference::parse(&other_reference).unwrap();
    let other_manifest = block_on(client.resolve(&other)).unwrap().manifest;
    block_on(client.attach_sigstore_bundle(&other, &other_manifest, &bundle)).unwrap();
    configure(
        &team,
        &entry(IDENTITY, GITHUB, "sigstore/root.json", false),
        &other_reference,
    );
    let refused = team.fails(&["lock"]);
    assert!(
        refused.contains(&format!(
            "it vouches for {manifest}, not for {other_manifest}"
        )),
        "{refused}"
    );
}
