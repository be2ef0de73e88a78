//! Signature policies over cosign signatures in a real registry: `[[trust.rules]]` checked by
//! `hookhost lock` and again, offline, by every load; each attack refused with its own message.
//!
//! Keys and signatures are made with hookhost's library (the format skopeo and cosign read and
//! write: see `cosign.rs` for skopeo on both sides); locking, checking and firing run the real
//! `hookhost` binary against Debian's `docker-registry` on a loopback port.

use hookhost::bundle::cosign::{self, CosignPrivateKey, CosignSignature};
use hookhost::oci::OciReference;
use hookhost::oci::registry::RegistryClient;

use super::registry::Registry;
use super::{Team, guard_hook};
use crate::support::build_fixture;

/// A published guard, the keys of the test, and the team that uses it.
struct Signed {
    registry: Option<Registry>,
    team: Team,
    reference: String,
    keys: Vec<(&'static str, CosignPrivateKey)>,
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

impl Signed {
    /// Pushes the destructive guard to `path` and makes keys `p1`, `p2`, `p3` and `stranger`,
    /// whose public keys go to `.forgeflare/keys/NAME.pub`.
    fn publish(path: &str) -> Signed {
        let registry = Registry::start(false);
        let team = Team::new();
        let reference = registry.reference(path);
        let guard = build_fixture("destructive-guard");
        team.ok(&["push", guard.to_str().unwrap(), &reference]);
        let keys: Vec<_> = ["p1", "p2", "p3", "stranger"]
            .into_iter()
            .map(|name| (name, CosignPrivateKey::generate()))
            .collect();
        std::fs::create_dir_all(team.project.path(".forgeflare/keys")).unwrap();
        for (name, key) in &keys {
            std::fs::write(
                team.project.path(&format!(".forgeflare/keys/{name}.pub")),
                key.public_key().to_pem(),
            )
            .unwrap();
        }
        Signed {
            registry: Some(registry),
            team,
            reference,
            keys,
        }
    }

    fn registry(&self) -> &Registry {
        self.registry.as_ref().expect("the registry is running")
    }

    fn key(&self, name: &str) -> &CosignPrivateKey {
        &self.keys.iter().find(|(n, _)| *n == name).unwrap().1
    }

    fn id(&self, name: &str) -> String {
        self.key(name).public_key().key_id()
    }

    /// The reference's manifest digest and its repository as a payload names it.
    fn target(&self, reference: &str) -> (OciReference, hookhost::oci::Digest, String) {
        let reference = OciReference::parse(reference).unwrap();
        let client = RegistryClient::new(false);
        let manifest = block_on(client.resolve(&reference)).unwrap().manifest;
        let repository = format!("{}/{}", reference.registry(), reference.repository());
        (reference, manifest, repository)
    }

    /// Attaches `name`'s signature to `reference`, as cosign does.
    fn sign(&self, name: &str, reference: &str) {
        let (reference, manifest, repository) = self.target(reference);
        let signature = cosign::sign(self.key(name), &repository, &manifest);
        self.attach(&reference, &signature);
    }

    fn attach(&self, reference: &OciReference, signature: &CosignSignature) {
        let (_, manifest, _) = self.target(&reference.to_string());
        block_on(RegistryClient::new(false).attach_signature(reference, &manifest, signature))
            .unwrap();
    }

    /// hooks.toml: the keys, `trust` (rules and more), and the guard.
    fn configure(&self, trust: &str) {
        let mut text = String::new();
        for name in ["p1", "p2", "p3"] {
            text.push_str(&format!(
                "[[trust.keys]]\nid = \"{name}\"\nkind = \"cosign\"\nfile = \"keys/{name}.pub\"\n\n"
            ));
        }
        text.push_str(trust);
        text.push('\n');
        text.push_str(&guard_hook(&self.reference));
        self.team.config(&text);
    }

    fn lock_fails(&self) -> String {
        self.team.fails(&["lock"])
    }

    /// `hookhost check` refuses the configuration; its message.
    fn check_fails(&self) -> String {
        self.team.fails(&["check"])
    }
}

/// The destructive guard with a minisign signature inside: a component like it, another file.
fn variant(team: &Team) -> std::path::PathBuf {
    let pair = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let guard = std::fs::read(build_fixture("destructive-guard")).unwrap();
    let signed = hookhost::bundle::sign(&guard, &pair.sk, "older").unwrap();
    let path = team.project.path("older-guard.wasm");
    std::fs::write(&path, signed).unwrap();
    path
}

const PLATFORM_RULE: &str = "match = \"oci://127.0.0.1:*/platform/*\"";

#[test]
fn a_rule_is_checked_at_lock_and_at_every_load_and_the_signers_are_locked() {
    let mut s = Signed::publish("platform/guard:1.0.0");
    s.configure(&format!(
        "[[trust.rules]]\n{PLATFORM_RULE}\nany_of = [\"p1\", \"p2\", \"p3\"]\nmin = 2\n"
    ));
    // Unsigned: a rule applies, so it is never accepted.
    let unsigned = s.lock_fails();
    assert!(
        unsigned.contains(&format!(
            "{} is not locked: is refused by the [trust] rule for \"oci://127.0.0.1:*/platform/*\"",
            s.reference
        )) && unsigned.contains("needs signatures by 2 of p1, p2, p3, and it has no signatures"),
        "{unsigned}"
    );
    assert!(!s.team.project.path(".forgeflare/hooks.lock").exists());

    // One signature of the two needed: the threshold is not met.
    s.sign("p1", &s.reference);
    let one = s.lock_fails();
    assert!(
        one.contains(&format!(
            "needs signatures by 2 of p1, p2, p3, and it is signed by p1 ({})",
            s.id("p1")
        )),
        "{one}"
    );

    // Two: locked, with both signatures and their signers.
    s.sign("p3", &s.reference);
    let locked = s.team.ok(&["lock"]);
    assert!(locked.contains("2 signatures, signed by"), "{locked}");
    let lock = s.team.lock();
    let mut signers = lock.bundles[0].signers.clone();
    signers.sort();
    let mut expected = vec![s.id("p1"), s.id("p3")];
    expected.sort();
    assert_eq!(signers, expected);
    assert_eq!(lock.bundles[0].signatures.len(), 2);
    s.team.guard_runs();
    let checked = s.team.ok(&["check"]);
    assert!(checked.contains("signed by p1+p3"), "{checked}");
    assert!(
        checked.contains(
            "keys p1 (cosign), p2 (cosign), p3 (cosign); rule oci://127.0.0.1:*/platform/* \
             needs 2 of p1, p2, p3"
        ),
        "{checked}"
    );

    // Offline from here: every load checks again, against the [trust] of the day.
    drop(s.registry.take());

    // The policy tightened: all three are needed now.
    s.configure(&format!(
        "[[trust.rules]]\n{PLATFORM_RULE}\nall_of = [\"p1\", \"p2\", \"p3\"]\n"
    ));
    let tightened = s.check_fails();
    assert!(
        tightened.contains("needs signatures by all of p1, p2, p3, and it is signed by p1"),
        "{tightened}"
    );

    // A key revoked by id: its signature counts for nothing.
    s.configure(&format!(
        "[trust]\nrevoked = [\"{}\"]\n\n[[trust.rules]]\n{PLATFORM_RULE}\nany_of = [\"p1\", \"p2\", \"p3\"]\nmin = 2\n",
        s.id("p3")
    ));
    let revoked = s.check_fails();
    assert!(
        revoked.contains(&format!(
            "signatures by revoked keys count for nothing (p3 ({}))",
            s.id("p3")
        )),
        "{revoked}"
    );

    // Back to the policy it was locked under: it loads again.
    s.configure(&format!(
        "[[trust.rules]]\n{PLATFORM_RULE}\nany_of = [\"p1\", \"p2\", \"p3\"]\nmin = 2\n"
    ));
    s.team.guard_runs();

    // A signature removed from hooks.lock: the threshold is no longer met.
    let path = s.team.project.path(".forgeflare/hooks.lock");
    let mut lock = s.team.lock();
    lock.bundles[0].signatures.pop();
    lock.write(&path).unwrap();
    let removed = s.check_fails();
    assert!(
        removed.contains("needs signatures by 2 of p1, p2, p3, and it is signed by"),
        "{removed}"
    );
}

#[test]
fn each_forged_signature_is_refused_with_its_own_message() {
    let s = Signed::publish("platform/guard:1.0.0");
    let other = s.registry().reference("platform/guard:0.9.0");
    // Another artefact under another tag: the same guard, with a signature inside, so another
    // file and another digest.
    let older = variant(&s.team);
    s.team.ok(&["push", older.to_str().unwrap(), &other]);
    s.configure(&format!(
        "[[trust.rules]]\n{PLATFORM_RULE}\nany_of = [\"p1\"]\n"
    ));

    // Signed by a key [trust] does not name.
    s.sign("stranger", &s.reference);
    let untrusted = s.lock_fails();
    assert!(
        untrusted.contains(
            "needs signatures by 1 of p1, and 1 attached signature that no key of [trust] \
             verifies (made by an untrusted key, or changed after signing)"
        ),
        "{untrusted}"
    );

    // A trusted signature copied from another tag: it vouches for the other digest.
    let s2 = Signed::publish("platform/guard:1.0.0");
    s2.team.ok(&[
        "push",
        older.to_str().unwrap(),
        &s2.registry().reference("platform/guard:0.9.0"),
    ]);
    let (_, older_manifest, repository) =
        s2.target(&s2.registry().reference("platform/guard:0.9.0"));
    let copied = cosign::sign(s2.key("p1"), &repository, &older_manifest);
    s2.attach(&OciReference::parse(&s2.reference).unwrap(), &copied);
    s2.configure(&format!(
        "[[trust.rules]]\n{PLATFORM_RULE}\nany_of = [\"p1\"]\n"
    ));
    let elsewhere = s2.lock_fails();
    assert!(
        elsewhere.contains(&format!(
            "a signature by p1 over another artefact ({older_manifest}: copied from another \
             tag or repository)"
        )),
        "{elsewhere}"
    );

    // A signature for another repository (same bytes pushed twice).
    let s3 = Signed::publish("platform/guard:1.0.0");
    let (_, manifest, _) = s3.target(&s3.reference);
    let foreign = cosign::sign(s3.key("p1"), "127.0.0.1:1/elsewhere/guard", &manifest);
    s3.attach(&OciReference::parse(&s3.reference).unwrap(), &foreign);
    s3.configure(&format!(
        "[[trust.rules]]\n{PLATFORM_RULE}\nany_of = [\"p1\"]\n"
    ));
    let repository = s3.lock_fails();
    assert!(
        repository
            .contains("a signature by p1 for another repository (127.0.0.1:1/elsewhere/guard"),
        "{repository}"
    );

    // A payload changed after locking: hooks.lock knows which key verified it.
    let s4 = Signed::publish("platform/guard:1.0.0");
    s4.sign("p1", &s4.reference);
    s4.configure(&format!(
        "[[trust.rules]]\n{PLATFORM_RULE}\nany_of = [\"p1\"]\n"
    ));
    s4.team.ok(&["lock"]);
    s4.team.guard_runs();
    let path = s4.team.project.path(".forgeflare/hooks.lock");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"optional\":null"), "{text}");
    std::fs::write(&path, text.replace("\"optional\":null", "\"optional\":{}")).unwrap();
    let tampered = s4.check_fails();
    assert!(
        tampered.contains(&format!(
            "the signature hooks.lock records by p1 ({}) no longer verifies: it or its payload \
             was changed after `hookhost lock` (tampered)",
            s4.id("p1")
        )),
        "{tampered}"
    );

    // hooks.lock edited to pin another stored file under the signed manifest and its
    // signatures: the signed manifest's wasm layer is not that file.
    std::fs::write(&path, &text).unwrap();
    s4.team.guard_runs();
    let older_reference = s4.registry().reference("platform/guard:0.9.0");
    s4.team
        .ok(&["push", older.to_str().unwrap(), &older_reference]);
    s4.team.ok(&["pull", &older_reference]);
    let older_digest = hookhost::oci::Digest::of(&std::fs::read(&older).unwrap());
    let mut lock = s4.team.lock();
    lock.bundles[0].wasm = older_digest.clone();
    lock.bundles[0].size = std::fs::metadata(&older).unwrap().len();
    lock.write(&path).unwrap();
    let swapped = s4.check_fails();
    assert!(
        swapped.contains(&format!(
            "its signatures cannot be tied to the locked file: the signed manifest {} does not \
             have {older_digest} as its only wasm layer, and hooks.lock pins that file: \
             hooks.lock was edited",
            lock.bundles[0].manifest
        )),
        "{swapped}"
    );
}

#[test]
fn a_projects_own_key_never_satisfies_the_users_rule() {
    let s = Signed::publish("platform/guard:1.0.0");
    // The user's rule names the user's p1; the project defines its own key, also named "p1",
    // and signs with it.
    let user_dir = s.team.home.path().join(".config/hookhost");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::write(user_dir.join("p1.pub"), s.key("p1").public_key().to_pem()).unwrap();
    std::fs::write(
        user_dir.join("hooks.toml"),
        format!(
            "[[trust.keys]]\nid = \"p1\"\nkind = \"cosign\"\nfile = \"p1.pub\"\n\n\
             [[trust.rules]]\n{PLATFORM_RULE}\nany_of = [\"p1\"]\n"
        ),
    )
    .unwrap();
    std::fs::write(
        s.team.project.path(".forgeflare/keys/p1.pub"),
        s.key("stranger").public_key().to_pem(),
    )
    .unwrap();
    s.configure("");
    s.sign("stranger", &s.reference);
    let refused = s.lock_fails();
    assert!(
        refused.contains("hookhost/hooks.toml:") && refused.contains("needs signatures by 1 of p1"),
        "{refused}"
    );
    // The user's key signs: accepted.
    s.sign("p1", &s.reference);
    s.team.ok(&["lock"]);
    s.team.guard_runs();
}

#[test]
fn a_minisign_signature_inside_and_a_cosign_signature_beside_count_alike() {
    let s = Signed::publish("platform/guard:1.0.0");
    // The same guard, signed inside with minisign, pushed as 2.0.0 and signed beside with p1.
    let release = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let guard = std::fs::read(build_fixture("destructive-guard")).unwrap();
    let signed = hookhost::bundle::sign(&guard, &release.sk, "release").unwrap();
    let file = s.team.project.path("signed-guard.wasm");
    std::fs::write(&file, &signed).unwrap();
    let reference = s.registry().reference("platform/guard:2.0.0");
    s.team.ok(&["push", file.to_str().unwrap(), &reference]);
    let release_key = format!(
        "[[trust.keys]]\nid = \"release\"\nkey = \"{}\"\n\n",
        release.pk.to_base64()
    );
    let config = |rule: &str| {
        let mut text = String::new();
        text.push_str(&release_key);
        text.push_str("[[trust.keys]]\nid = \"p1\"\nkind = \"cosign\"\nfile = \"keys/p1.pub\"\n\n");
        text.push_str(rule);
        text.push('\n');
        text.push_str(&guard_hook(&reference));
        s.team.config(&text);
    };
    config(&format!(
        "[[trust.rules]]\n{PLATFORM_RULE}\nall_of = [\"release\", \"p1\"]\n"
    ));
    let one = s.lock_fails();
    assert!(
        one.contains("needs signatures by all of release, p1, and it is signed by release"),
        "{one}"
    );
    s.sign("p1", &reference);
    s.team.ok(&["lock"]);
    let checked = s.team.ok(&["check"]);
    assert!(checked.contains("signed by release+p1"), "{checked}");

    // Without any rule, require_signed takes either kind; an old configuration (minisign key,
    // require_signed) still loads the bundle it signed.
    s.team.config(&format!(
        "[trust]\nrequire_signed = true\n\n{release_key}{}",
        guard_hook(&reference)
    ));
    let checked = s.team.ok(&["check"]);
    assert!(checked.contains("signed by release"), "{checked}");
}
