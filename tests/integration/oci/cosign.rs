//! cosign signatures on bundles in a real registry, checked against tools that are not
//! hookhost: skopeo (containers/image, which reads and writes cosign's `.sig` tags) and
//! openssl (which checks the ECDSA signatures).
//!
//! What Debian's skopeo 1.9.3 does, found by running it (the tests adapt to a skopeo that can
//! do more, and say which path they took):
//! - It neither makes nor verifies sigstore signatures: `--sign-by-sigstore-private-key` fails
//!   with "creating signature: Debian-local change: sigstore disabled", and a `sigstoreSigned`
//!   policy rejects every signature with "Debian-local change: sigstore disabled" (one reason
//!   per signature it found). This is Debian's patch, not about the wasm artefact: its config
//!   media type `application/vnd.wasm.config.v0+json` is copied without complaint.
//! - It does read and write the signatures themselves, with `use-sigstore-attachments: true`
//!   for the registry in a `--registries.d` directory: copying to `dir:` writes each as a
//!   `signature-N` file (its `sigstore-json` format: payload and annotations), and copying
//!   from `dir:` to a registry writes the `.sig` tag its own way (its own config blob).
//!
//! So the crypto is checked with openssl (and, in the unit tests of `bundle::cosign`, against
//! signatures and keys cosign itself wrote), and the registry layout both ways with skopeo.
//! Then what a hostile or broken registry can do to the reader (an endless answer, a payload
//! changed on the way).
//!
//! Longer than 500 lines: one story, a signature from key to registry and back, with the
//! skopeo helpers only it needs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hookhost::bundle::cosign::{self, CosignError, CosignPublicKey, CosignSignature};
use hookhost::oci::registry::RegistryClient;
use hookhost::oci::{Digest, OciReference};

use super::registry::{Fault, FaultProxy, Registry, require_tool, skopeo};
use super::{Team, digest_of};
use crate::support::build_fixture;

pub(super) const PASSWORD_VAR: &str = "HOOKHOST_TEST_COSIGN_PASSWORD";
pub(super) const PASSWORD: &str = "correct horse battery";
/// What Debian's patch of containers/image says instead of signing or verifying.
const DEBIAN_DISABLED: &str = "Debian-local change: sigstore disabled";

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

impl Team {
    /// `hookhost keygen --cosign --out NAME`: NAME.key and NAME.pub in the project.
    pub(super) fn cosign_key(&self, name: &str) -> (PathBuf, CosignPublicKey) {
        let printed = self.expect(
            0,
            &[
                "keygen",
                "--cosign",
                "--out",
                name,
                "--password-env",
                PASSWORD_VAR,
            ],
            &[(PASSWORD_VAR, PASSWORD)],
        );
        let public = self.project.path(&format!("{name}.pub"));
        let key = CosignPublicKey::from_pem(&std::fs::read_to_string(&public).unwrap()).unwrap();
        assert!(
            printed.contains(&format!("key id {}", key.key_id())),
            "{printed}"
        );
        assert!(
            printed.contains(&format!(
                "[[trust.keys]]\nkind = \"cosign\"\nid = \"{name}\"\nfile = \"{name}.pub\""
            )),
            "{printed}"
        );
        (public, key)
    }

    fn with_password(&self, args: &[&str]) -> String {
        self.expect(0, args, &[(PASSWORD_VAR, PASSWORD)])
    }
}

/// The manifest digest `hookhost push` printed.
fn pushed_manifest(printed: &str) -> Digest {
    printed
        .lines()
        .find_map(|line| line.strip_prefix("manifest: "))
        .unwrap_or_else(|| panic!("no manifest line in:\n{printed}"))
        .parse()
        .unwrap()
}

/// skopeo, with a `--registries.d` that turns cosign attachments on for `registry`.
struct Skopeo {
    dir: tempfile::TempDir,
}

impl Skopeo {
    fn new(registry: &Registry) -> Skopeo {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("registries.d")).unwrap();
        std::fs::write(
            dir.path().join("registries.d/hookhost-test.yaml"),
            format!(
                "docker:\n  127.0.0.1:{}:\n    use-sigstore-attachments: true\n",
                registry.port
            ),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("accept.json"),
            r#"{"default":[{"type":"insecureAcceptAnything"}]}"#,
        )
        .unwrap();
        Skopeo { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `skopeo copy` with the attachments configuration and `policy` (accept-all by default).
    fn copy(&self, extra: &[&str], from: &str, to: &str, policy: Option<&Path>) -> Output {
        let accept = self.path("accept.json");
        Command::new(skopeo())
            .arg("copy")
            .arg("--policy")
            .arg(policy.unwrap_or(&accept))
            .arg("--registries.d")
            .arg(self.path("registries.d"))
            .args(["--src-tls-verify=false", "--dest-tls-verify=false"])
            .args(extra)
            .args([from, to])
            .output()
            .unwrap()
    }

    fn copy_ok(&self, from: &str, to: &str) {
        let out = self.copy(&[], from, to, None);
        assert!(
            out.status.success(),
            "skopeo copy {from} {to}: {}",
            text(&out)
        );
    }

    /// The signatures skopeo writes into a `dir:` copy: `signature-1`, `signature-2`, ... in
    /// containers/image's `sigstore-json` format.
    fn signatures_in(dir: &Path) -> Vec<CosignSignature> {
        let mut found = Vec::new();
        for n in 1.. {
            let Ok(bytes) = std::fs::read(dir.join(format!("signature-{n}"))) else {
                break;
            };
            let json = bytes
                .strip_prefix(b"\0sigstore-json\n")
                .expect("a sigstore-json signature file");
            let json: serde_json::Value = serde_json::from_slice(json).unwrap();
            assert_eq!(
                json["mimeType"],
                "application/vnd.dev.cosign.simplesigning.v1+json"
            );
            found.push(CosignSignature {
                payload: BASE64.decode(json["payload"].as_str().unwrap()).unwrap(),
                signature: json["annotations"]["dev.cosignproject.cosign/signature"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            });
        }
        found
    }

    /// Writes `signature` into a `dir:` copy as skopeo's `signature-N`.
    fn write_signature(dir: &Path, n: usize, signature: &CosignSignature) {
        let json = serde_json::json!({
            "mimeType": "application/vnd.dev.cosign.simplesigning.v1+json",
            "payload": BASE64.encode(&signature.payload),
            "annotations": { "dev.cosignproject.cosign/signature": signature.signature },
        });
        let mut bytes = b"\0sigstore-json\n".to_vec();
        bytes.extend(serde_json::to_vec(&json).unwrap());
        std::fs::write(dir.join(format!("signature-{n}")), bytes).unwrap();
    }

    /// A policy that requires a sigstore signature by `key` for every image of the registry.
    fn policy(&self, registry: &Registry, key: &Path) -> PathBuf {
        let path = self.path(&format!(
            "policy-{}.json",
            key.file_stem().unwrap().to_string_lossy()
        ));
        let policy = serde_json::json!({
            "default": [{ "type": "reject" }],
            "transports": { "docker": { format!("127.0.0.1:{}", registry.port): [{
                "type": "sigstoreSigned",
                "keyPath": key,
                "signedIdentity": { "type": "matchRepository" },
            }]}},
        });
        std::fs::write(&path, policy.to_string()).unwrap();
        path
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// openssl's verdict on `signature` with the public key file `key`: ECDSA over SHA-256 of the
/// payload, DER signature, SPKI PEM key, as cosign defines them.
fn openssl_verifies(key: &Path, signature: &CosignSignature) -> bool {
    let openssl = require_tool(&["openssl"], "apt-get install -y openssl");
    let dir = tempfile::tempdir().unwrap();
    let (payload, der) = (dir.path().join("payload"), dir.path().join("signature.der"));
    std::fs::write(&payload, &signature.payload).unwrap();
    std::fs::write(&der, BASE64.decode(&signature.signature).unwrap()).unwrap();
    let out = Command::new(openssl)
        .args(["dgst", "-sha256", "-verify"])
        .arg(key)
        .arg("-signature")
        .arg(&der)
        .arg(&payload)
        .output()
        .unwrap();
    let said = text(&out);
    assert!(
        said.contains("Verified OK") || said.contains("Verification failure"),
        "openssl: {said}"
    );
    out.status.success()
}

/// hookhost signs (`push --sign`, then a second signer with `sign --oci`); skopeo reads both
/// signatures out of the `.sig` tag byte for byte, and openssl verifies each with its signer's
/// `.pub` and refuses it with the other's.
#[test]
fn hookhost_signatures_are_read_by_skopeo_and_verified_by_openssl() {
    let registry = Registry::start(false);
    let team = Team::new();
    let guard = build_fixture("destructive-guard");
    let (signer_pub, signer) = team.cosign_key("signer");
    let (reviewer_pub, reviewer) = team.cosign_key("reviewer");
    let reference = registry.reference("team/guard:1.0.0");
    let repository = format!("127.0.0.1:{}/team/guard", registry.port);

    let pushed = team.with_password(&[
        "push",
        guard.to_str().unwrap(),
        &reference,
        "--sign",
        "signer.key",
        "--password-env",
        PASSWORD_VAR,
    ]);
    let manifest = pushed_manifest(&pushed);
    assert!(
        pushed.contains(&format!(
            "signed:   {manifest} with cosign key {} (tag sha256-{}.sig)",
            signer.key_id(),
            manifest.hex()
        )),
        "{pushed}"
    );
    for _ in 0..2 {
        // The second time adds nothing: the same key signs the same payload identically.
        team.with_password(&[
            "sign",
            "--oci",
            &reference,
            "--key",
            "reviewer.key",
            "--password-env",
            PASSWORD_VAR,
        ]);
    }

    let client = RegistryClient::new(false);
    let parsed = OciReference::parse(&reference).unwrap();
    let stored = block_on(client.signatures(&parsed, &manifest)).unwrap();
    assert_eq!(stored.len(), 2, "two signers, two layers: {stored:?}");
    assert_eq!(
        cosign::verify(&signer, &stored[0], &manifest, &repository),
        Ok(())
    );
    assert_eq!(
        cosign::verify(&reviewer, &stored[1], &manifest, &repository),
        Ok(())
    );

    let skopeo = Skopeo::new(&registry);
    let copy = skopeo.path("copy");
    skopeo.copy_ok(
        &registry.docker("team/guard:1.0.0"),
        &format!("dir:{}", copy.display()),
    );
    let read = Skopeo::signatures_in(&copy);
    assert_eq!(read, stored, "skopeo reads what hookhost wrote");
    assert_eq!(digest_of(&copy.join("manifest.json")), manifest);
    assert!(openssl_verifies(&signer_pub, &read[0]));
    assert!(!openssl_verifies(&reviewer_pub, &read[0]));
    assert!(openssl_verifies(&reviewer_pub, &read[1]));

    // skopeo's own verdict, where its build verifies sigstore signatures.
    let verdict = |key: &Path| {
        skopeo.copy(
            &[],
            &registry.docker("team/guard:1.0.0"),
            &format!("dir:{}", skopeo.path("verified").display()),
            Some(&skopeo.policy(&registry, key)),
        )
    };
    let trusted = verdict(&signer_pub);
    if text(&trusted).contains(DEBIAN_DISABLED) {
        // Debian's build: it found both signatures (one refusal each) and checks neither.
        assert_eq!(
            text(&trusted).matches(DEBIAN_DISABLED).count(),
            2,
            "{}",
            text(&trusted)
        );
    } else {
        assert!(trusted.status.success(), "skopeo: {}", text(&trusted));
        let other = team.cosign_key("other").0;
        let refused = verdict(&other);
        assert!(!refused.status.success(), "skopeo: {}", text(&refused));
    }
}

/// A signature skopeo writes into the registry, with a key `hookhost keygen --cosign` made, is
/// read by `RegistryClient::signatures` and verified by `cosign::verify`; another key is
/// refused. skopeo signs itself where its build can; Debian's cannot ("sigstore disabled"),
/// and there the signature (made by hookhost's library) reaches the registry through skopeo:
/// written as a `signature-1` file into a `dir:` copy of the bundle, then copied from `dir:`
/// to the registry, so that the `.sig` tag's manifest, config and layer are skopeo's.
#[test]
fn signatures_skopeo_writes_are_read_and_verified() {
    let registry = Registry::start(false);
    let team = Team::new();
    let guard = build_fixture("destructive-guard");
    let (key_path, public) = team.cosign_key("signer");
    let (_, other) = team.cosign_key("other");
    let pushed = team.ok(&[
        "push",
        guard.to_str().unwrap(),
        &registry.reference("team/guard:1.0.0"),
    ]);
    let manifest = pushed_manifest(&pushed);
    let skopeo = Skopeo::new(&registry);
    let target = "skopeo/guard:1.0.0";
    let repository = format!("127.0.0.1:{}/skopeo/guard", registry.port);

    std::fs::write(skopeo.path("passphrase"), PASSWORD).unwrap();
    let key = key_path.with_extension("key");
    let signed = skopeo.copy(
        &[
            "--sign-by-sigstore-private-key",
            key.to_str().unwrap(),
            "--sign-passphrase-file",
            skopeo.path("passphrase").to_str().unwrap(),
        ],
        &registry.docker("team/guard:1.0.0"),
        &registry.docker(target),
        None,
    );
    if !signed.status.success() {
        assert!(
            text(&signed).contains(DEBIAN_DISABLED),
            "skopeo could not sign: {}",
            text(&signed)
        );
        let private = hookhost::bundle::cosign::CosignPrivateKey::from_pem(
            &std::fs::read_to_string(&key).unwrap(),
            PASSWORD.as_bytes(),
        )
        .unwrap();
        let copy = skopeo.path("copy");
        skopeo.copy_ok(
            &registry.docker("team/guard:1.0.0"),
            &format!("dir:{}", copy.display()),
        );
        Skopeo::write_signature(&copy, 1, &cosign::sign(&private, &repository, &manifest));
        skopeo.copy_ok(&format!("dir:{}", copy.display()), &registry.docker(target));
    }

    let client = RegistryClient::new(false);
    let reference = OciReference::parse(&registry.reference(target)).unwrap();
    let found = block_on(client.signatures(&reference, &manifest)).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        cosign::verify(&public, &found[0], &manifest, &repository),
        Ok(())
    );
    assert_eq!(
        cosign::verify(&other, &found[0], &manifest, &repository),
        Err(CosignError::BadSignature)
    );
    // The .sig manifest is skopeo's, not hookhost's: its config is containers/image's.
    let sig_tag = registry.docker(&format!("skopeo/guard:sha256-{}.sig", manifest.hex()));
    let raw = Command::new(super::registry::skopeo())
        .args(["inspect", "--raw", "--tls-verify=false", &sig_tag])
        .output()
        .unwrap();
    let raw: serde_json::Value = serde_json::from_slice(&raw.stdout).unwrap();
    assert_eq!(
        raw["layers"][0]["mediaType"],
        "application/vnd.dev.cosign.simplesigning.v1+json"
    );
}

/// A `.sig` tag copied from another manifest's (what a registry mirror, or an attacker with
/// push access, can do) is read back, and verification names both digests. An unsigned
/// manifest has no signatures (not an error), and `manifest_bytes` returns the manifest skopeo
/// sees, byte for byte.
#[test]
fn a_signature_moved_to_another_manifest_is_refused_by_digest() {
    let registry = Registry::start(false);
    let team = Team::new();
    let guard = build_fixture("destructive-guard");
    let (_, signer) = team.cosign_key("signer");
    let first = pushed_manifest(&team.with_password(&[
        "push",
        guard.to_str().unwrap(),
        &registry.reference("team/guard:1.0.0"),
        "--sign",
        "signer.key",
        "--password-env",
        PASSWORD_VAR,
    ]));
    // Another annotation, another manifest for the same file.
    let second = pushed_manifest(&team.ok(&[
        "push",
        guard.to_str().unwrap(),
        &registry.reference("team/guard:2.0.0"),
        "-a",
        "org.example.build=2",
    ]));
    assert_ne!(first, second);
    let client = RegistryClient::new(false);
    let reference = OciReference::parse(&registry.reference("team/guard:2.0.0")).unwrap();
    assert_eq!(
        block_on(client.signatures(&reference, &second)).unwrap(),
        vec![]
    );

    let skopeo = Skopeo::new(&registry);
    skopeo.copy_ok(
        &registry.docker(&format!("team/guard:sha256-{}.sig", first.hex())),
        &registry.docker(&format!("team/guard:sha256-{}.sig", second.hex())),
    );
    let moved = block_on(client.signatures(&reference, &second)).unwrap();
    assert_eq!(moved.len(), 1);
    let repository = format!("127.0.0.1:{}/team/guard", registry.port);
    let refused = cosign::verify(&signer, &moved[0], &second, &repository).unwrap_err();
    assert_eq!(
        refused,
        CosignError::WrongDigest {
            signed: first.to_string(),
            expected: second.to_string(),
        }
    );
    assert!(
        refused.to_string().starts_with(&format!(
            "the cosign signature vouches for manifest {first}, not for {second}"
        )),
        "{refused}"
    );

    let raw = Command::new(super::registry::skopeo())
        .args([
            "inspect",
            "--raw",
            "--tls-verify=false",
            &registry.docker("team/guard:1.0.0"),
        ])
        .output()
        .unwrap();
    assert_eq!(
        block_on(client.manifest_bytes(&reference, &first)).unwrap(),
        raw.stdout
    );
}

/// A refused command: its name, arguments, environment and what it must say.
type Refusal<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

/// Each kind of key goes with its kind of signing, and each refusal says what to use instead;
/// a wrong password stops `push --sign` before anything is pushed.
#[test]
fn keys_of_the_wrong_kind_or_password_are_refused_before_any_push() {
    let registry = Registry::start(false);
    let team = Team::new();
    team.cosign_key("cosign");
    team.ok(&["keygen", "--out", "mini", "--unencrypted"]);
    let component = team.project.path("empty.wasm");
    std::fs::write(&component, wat::parse_str("(component)").unwrap()).unwrap();
    let reference = registry.reference("team/never:1.0.0");
    let wrong = [(PASSWORD_VAR, "not the password")];
    #[rustfmt::skip]
    let cases: &[Refusal] = &[
        ("minisign key, --oci", &["sign", "--oci", &reference, "--key", "mini.key"], &[],
         "mini.key is not a cosign key (a PEM file like cosign.key): a bundle in a registry is signed with a cosign key (`hookhost keygen --cosign`)"),
        ("cosign key, file", &["sign", component.to_str().unwrap(), "--key", "cosign.key"], &[],
         "cosign.key is a cosign key: cosign keys sign bundles in a registry (`hookhost sign --oci REF --key KEY`"),
        ("no password", &["sign", "--oci", &reference, "--key", "cosign.key"], &[],
         "cosign.key is encrypted: pass its password with --password-env VAR"),
        ("wrong password", &["push", component.to_str().unwrap(), &reference, "--sign", "cosign.key", "--password-env", PASSWORD_VAR], &wrong,
         "the password does not decrypt this cosign private key"),
        ("keygen without password", &["keygen", "--cosign", "--out", "unset"], &[],
         "a cosign key needs its password from --password-env VAR"),
    ];
    for (name, args, env, expected) in cases {
        let said = team.expect(1, args, env);
        assert!(said.contains(expected), "{name}: {said}");
    }
    let client = RegistryClient::new(false);
    let never = OciReference::parse(&reference).unwrap();
    assert!(
        block_on(client.resolve(&never)).is_err(),
        "nothing was pushed"
    );
}

/// A registry that answers `/v2/` and then every request with an endless body: 1 GiB
/// announced in `Content-Length`, or no length at all (the body ends when the connection
/// closes). It sends at most 64 MiB, so that a reader without a bound fails the test by its
/// result rather than by hanging.
fn endless_registry(announce: bool) -> u16 {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                if head.starts_with(b"GET /v2/ ") {
                    let _ = stream.write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                    );
                    return;
                }
                let length = if announce {
                    "Content-Length: 1073741824\r\n"
                } else {
                    ""
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\n\
                     {length}Connection: close\r\n\r\n"
                );
                let junk = vec![b' '; 1 << 16];
                for _ in 0..1024 {
                    if stream.write_all(&junk).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

/// A hostile registry cannot make the signature reader take more than the bound: a manifest
/// announced as 1 GiB is refused before its body is read, one without a length is cut at the
/// bound; either way the error says what and where.
#[test]
fn a_registry_answering_without_end_is_cut_at_the_bound() {
    let manifest = Digest::of(b"the signed manifest");
    for announce in [true, false] {
        let port = endless_registry(announce);
        let reference = format!("oci://127.0.0.1:{port}/team/guard:1.0.0");
        let client = RegistryClient::new(false);
        let error =
            block_on(client.signatures(&OciReference::parse(&reference).unwrap(), &manifest))
                .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "the signature manifest of {reference} is larger than 4194304 bytes, more than \
                 any signature manifest hookhost reads: the registry served something else; \
                 nothing past the limit was read"
            ),
            "announced: {announce}"
        );
    }
}

/// A signature payload whose bytes do not hash to its descriptor's digest (changed on the
/// way, here by a proxy that flips one bit) is an error naming the payload and both digests,
/// never a signature handed to the verifier.
#[test]
fn a_signature_payload_changed_on_the_way_is_an_error_naming_it() {
    let registry = Registry::start(false);
    let client = RegistryClient::new(false);
    let reference = OciReference::parse(&registry.reference("team/empty:1.0.0")).unwrap();
    let component = wat::parse_str("(component)").unwrap();
    let pushed =
        block_on(client.push(&component, "empty.wasm", &reference, Default::default())).unwrap();
    let key = hookhost::bundle::cosign::CosignPrivateKey::generate();
    let repository = format!("127.0.0.1:{}/team/empty", registry.port);
    let signature = cosign::sign(&key, &repository, &pushed.manifest);
    block_on(client.attach_signature(&reference, &pushed.manifest, &signature)).unwrap();
    let payload = Digest::of(&signature.payload);

    let proxy = FaultProxy::start(registry.port, &format!("/blobs/{payload}"), Fault::FlipByte);
    let through = OciReference::parse(&proxy.reference("team/empty:1.0.0")).unwrap();
    let error = block_on(client.signatures(&through, &pushed.manifest))
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!(
            "the signature payload of {through} has digest sha256:"
        )) && error.contains(&format!("not the expected {payload}")),
        "{error}"
    );
}
