//! Sharing bundles through a real registry (Debian's `docker-registry`, the CNCF distribution
//! registry) on a loopback port: push, lock, pull and run, interoperability with skopeo, cosign
//! signatures (`cosign`), and one message per failure. Without the registry or skopeo installed
//! these tests fail, saying what to install.

#[cfg(feature = "catalogue")]
mod catalogue;
mod cosign;
mod failures;
mod keyless;
mod registry;
mod trust;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hookhost::oci::{Digest, LockFile};
use hookhost::{Decision, HookRunner, ToolCall};
use registry::{Registry, files_under, skopeo};

use crate::support::{Project, build_fixture, run_child_with, test_cache};

/// A project, a private store and a private home (so no real credentials or caches are used),
/// and the `hookhost` binary run in them.
struct Team {
    project: Project,
    store: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Team {
    fn new() -> Team {
        Team {
            project: Project::new(),
            store: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        command
            .args(args)
            .current_dir(self.project.root())
            .env("HOOKHOST_STORE_DIR", self.store.path())
            .envs(crate::support::test_cache_env())
            .env("HOME", self.home.path());
        for var in [
            "XDG_CACHE_HOME",
            "XDG_CONFIG_HOME",
            "XDG_RUNTIME_DIR",
            "DOCKER_CONFIG",
            "REGISTRY_AUTH_FILE",
            "HOOKHOST_REGISTRY_USERNAME",
            "HOOKHOST_REGISTRY_PASSWORD",
        ] {
            command.env_remove(var);
        }
        command.envs(env.iter().copied());
        command.output().unwrap()
    }

    /// The project's guard loads and blocks `rm -rf /`.
    fn guard_runs(&self) {
        let fired = self.expect(
            2,
            &[
                "fire",
                "PreToolUse",
                "--tool",
                "Bash",
                "--input",
                r#"{"command":"rm -rf /"}"#,
            ],
            &[],
        );
        assert!(fired.contains("recursive delete of /"), "{fired}");
    }

    /// Runs `hookhost`, expects exit status `code`, returns stdout and stderr together.
    fn expect(&self, code: i32, args: &[&str], env: &[(&str, &str)]) -> String {
        let out = self.run(args, env);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(code), "hookhost {args:?}:\n{text}");
        text
    }

    fn ok(&self, args: &[&str]) -> String {
        self.expect(0, args, &[])
    }

    fn fails(&self, args: &[&str]) -> String {
        self.expect(1, args, &[])
    }

    fn config(&self, toml: &str) -> PathBuf {
        self.project.config(toml)
    }

    fn lock(&self) -> LockFile {
        LockFile::read(&self.project.path(".forgeflare/hooks.lock"))
            .unwrap()
            .expect("hooks.lock exists")
    }

    fn stored_files(&self) -> Vec<PathBuf> {
        files_under(self.store.path())
    }
}

fn guard_hook(reference: &str) -> String {
    format!("[[hooks]]\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\nwasm = \"{reference}\"\n")
}

fn digest_of(path: &Path) -> Digest {
    Digest::of(&std::fs::read(path).unwrap())
}

#[test]
fn a_pushed_bundle_is_locked_pulled_and_run_offline() {
    let registry = Registry::start(false);
    let team = Team::new();
    let guard = build_fixture("destructive-guard");
    let reference = registry.reference("team/destructive-guard:1.2.0");

    let pushed = team.ok(&["push", guard.to_str().unwrap(), &reference]);
    assert!(pushed.contains(&format!("to {reference}")), "{pushed}");
    assert!(
        pushed.contains(&format!("wasm:     {}", digest_of(&guard))),
        "{pushed}"
    );

    team.config(&guard_hook(&reference));
    let unlocked = team.fails(&["check"]);
    assert!(
        unlocked.contains(&format!(
            "{reference} is not locked: there is no {} yet; run `hookhost lock`",
            team.project.path(".forgeflare/hooks.lock").display()
        )),
        "{unlocked}"
    );

    let locked = team.ok(&["lock"]);
    let size = std::fs::metadata(&guard).unwrap().len();
    assert!(
        locked.contains(&format!("added, downloaded {size} bytes")),
        "{locked}"
    );
    assert!(locked.contains("wrote "), "{locked}");
    let lock = team.lock();
    assert_eq!(lock.bundles.len(), 1);
    assert_eq!(lock.bundles[0].reference, reference);
    assert_eq!(lock.bundles[0].wasm, digest_of(&guard));
    let stored = team
        .store
        .path()
        .join("blobs/sha256")
        .join(digest_of(&guard).hex());
    assert_eq!(
        std::fs::read(&stored).unwrap(),
        std::fs::read(&guard).unwrap()
    );
    assert!(team.ok(&["lock"]).contains("is up to date"));

    // From here on, no network: the registry is gone.
    drop(registry);
    let fired = team.expect(
        2,
        &[
            "fire",
            "PreToolUse",
            "--tool",
            "Bash",
            "--input",
            r#"{"command":"rm -rf /"}"#,
        ],
        &[],
    );
    assert!(
        fired.contains(&format!(
            "BLOCKED: blocked by {reference}: recursive delete of /"
        )),
        "{fired}"
    );
    let stdout = run_child_with(
        "oci::locked_bundle_runs_through_hook_runner_child",
        &[
            (
                "HOOKHOST_OCI_CHILD_PROJECT",
                team.project.root().as_os_str(),
            ),
            ("HOOKHOST_STORE_DIR", team.store.path().as_os_str()),
        ],
    );
    assert!(stdout.contains("blocked by oci://"), "{stdout}");

    let pulled_again = team.fails(&["pull", &reference]);
    assert!(
        pulled_again.contains("cannot reach registry"),
        "{pulled_again}"
    );
}

/// Runs in a child process with the store of the test above: the library alone, offline.
#[ignore = "a child process the test after it starts (support::child_test)"]
#[test]
fn locked_bundle_runs_through_hook_runner_child() {
    let Some(project) = std::env::var_os("HOOKHOST_OCI_CHILD_PROJECT") else {
        return;
    };
    let project = PathBuf::from(project);
    let mut options = hookhost::RunnerOptions::new(&project);
    options.forward_stderr = false;
    options.cache = test_cache();
    let runner = HookRunner::load(project.join(".forgeflare/hooks.toml"), options)
        .unwrap_or_else(|e| panic!("{e}"));
    let input = serde_json::json!({ "command": "rm -rf /" });
    let outcome = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(runner.pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 1,
        }));
    let Decision::Block(block) = &outcome.decision else {
        panic!("not blocked: {outcome:?}");
    };
    println!("{}", block.message());
}

#[test]
fn skopeo_inspects_and_copies_a_pushed_bundle() {
    let registry = Registry::start(false);
    let team = Team::new();
    let guard = build_fixture("destructive-guard");
    team.ok(&[
        "push",
        guard.to_str().unwrap(),
        &registry.reference("team/guard:1.0.0"),
    ]);

    let skopeo = |args: &[&str]| {
        let out = Command::new(skopeo()).args(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "skopeo {args:?}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    };
    let source = registry.docker("team/guard:1.0.0");
    let manifest: serde_json::Value = serde_json::from_str(&skopeo(&[
        "inspect",
        "--raw",
        "--tls-verify=false",
        &source,
    ]))
    .unwrap();
    assert_eq!(
        manifest["mediaType"],
        "application/vnd.oci.image.manifest.v1+json"
    );
    assert_eq!(
        manifest["config"]["mediaType"],
        "application/vnd.wasm.config.v0+json"
    );
    assert_eq!(manifest["layers"].as_array().unwrap().len(), 1);
    assert_eq!(manifest["layers"][0]["mediaType"], "application/wasm");
    assert_eq!(
        manifest["layers"][0]["digest"],
        digest_of(&guard).to_string()
    );
    assert_eq!(
        manifest["annotations"]["org.opencontainers.image.title"],
        "destructive_guard"
    );

    let config: serde_json::Value = serde_json::from_str(&skopeo(&[
        "inspect",
        "--config",
        "--raw",
        "--tls-verify=false",
        &source,
    ]))
    .unwrap();
    assert_eq!(config["architecture"], "wasm");
    assert_eq!(config["os"], "wasip2");
    assert_eq!(config["layerDigests"][0], digest_of(&guard).to_string());
    assert_eq!(
        config["component"]["exports"][0],
        "hookhost:hooks/handler@0.2.0"
    );
    assert_eq!(config["component"]["target"], "hookhost:hooks/hook@0.2.0");

    skopeo(&[
        "copy",
        "--src-tls-verify=false",
        "--dest-tls-verify=false",
        &source,
        &registry.docker("mirror/guard:1.0.0"),
    ]);
    let output = team.project.path("copied.wasm");
    let pulled = team.ok(&[
        "pull",
        &registry.reference("mirror/guard:1.0.0"),
        "--output",
        output.to_str().unwrap(),
    ]);
    assert!(pulled.contains("downloaded"), "{pulled}");
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(&guard).unwrap()
    );
}

#[test]
fn signed_bundles_from_a_registry_are_verified_on_every_load() {
    let registry = Registry::start(false);
    let team = Team::new();
    let bundle = team.project.path("probe.wasm");
    std::fs::copy(build_fixture("probe"), &bundle).unwrap();
    let keys = team.project.path("team");
    team.ok(&["keygen", "--out", keys.to_str().unwrap(), "--unencrypted"]);
    team.ok(&[
        "sign",
        bundle.to_str().unwrap(),
        "--key",
        "team.key",
        "--name",
        "probe",
        "--version",
        "2.0.0",
    ]);
    let reference = registry.reference("team/probe:2.0.0");
    team.ok(&["push", bundle.to_str().unwrap(), &reference]);
    let public = std::fs::read_to_string(team.project.path("team.pub")).unwrap();
    let public = public.lines().nth(1).unwrap();
    let config = |revoked: bool, pin: &str| {
        format!(
            "[trust]\nrequire_signed = true\n\n[[trust.keys]]\nid = \"team\"\nkey = \"{public}\"\n\
             revoked = {revoked}\n\n[[hooks]]\nname = \"probe\"\nevent = \"Stop\"\n\
             wasm = \"{reference}\"\n{pin}\n"
        )
    };

    team.config(&config(false, ""));
    team.ok(&["lock"]);
    drop(registry);
    let checked = team.ok(&["check"]);
    assert!(checked.contains("signed by team"), "{checked}");

    // Revoking the key refuses the bundle already in the store: verification is per load.
    team.config(&config(true, ""));
    let revoked = team.fails(&["check"]);
    assert!(
        revoked.contains("is signed by a revoked key (team"),
        "{revoked}"
    );

    // A sha256 pin applies to the pulled file as to a local one.
    let wrong = "0".repeat(64);
    team.config(&config(false, &format!("sha256 = \"{wrong}\"")));
    let pinned = team.fails(&["check"]);
    assert!(
        pinned.contains(&format!("but hooks.toml pins sha256 = \"{wrong}\"")),
        "{pinned}"
    );

    // A store file changed on disk is refused before anything else looks at it.
    team.config(&config(false, ""));
    let stored = team
        .store
        .path()
        .join("blobs/sha256")
        .join(digest_of(&bundle).hex());
    let mut bytes = std::fs::read(&stored).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&stored, bytes).unwrap();
    let tampered = team.fails(&["check"]);
    assert!(
        tampered.contains(&format!(
            "the stored copy of {reference} at {} was changed",
            stored.display()
        )),
        "{tampered}"
    );
    assert!(
        tampered.contains("run `hookhost lock` to fetch it"),
        "{tampered}"
    );
}

#[test]
fn the_lock_holds_pins_until_updated_and_rolls_back() {
    let registry = Registry::start(false);
    let team = Team::new();
    let (old, new) = (
        build_fixture("destructive-guard"),
        build_fixture("path-allowlist"),
    );
    let tag = registry.reference("team/guard:1.0.0");
    let old_push = team.ok(&["push", old.to_str().unwrap(), &tag]);
    let old_manifest = old_push
        .lines()
        .find_map(|line| line.strip_prefix("manifest: "))
        .unwrap()
        .to_string();
    team.config(&guard_hook(&tag));
    team.ok(&["lock"]);

    // The tag moves upstream: the lock keeps the bundle the team reviewed.
    team.ok(&["push", new.to_str().unwrap(), &tag]);
    std::fs::remove_dir_all(team.store.path()).unwrap();
    let kept = team.ok(&["lock"]);
    assert!(kept.contains("kept, downloaded"), "{kept}");
    assert_eq!(team.lock().bundles[0].wasm, digest_of(&old));
    team.ok(&["check"]);

    let updated = team.ok(&["lock", "--update"]);
    assert!(
        updated.contains(&format!("updated from {old_manifest}")),
        "{updated}"
    );
    assert_eq!(team.lock().bundles[0].wasm, digest_of(&new));

    // hooks.toml changed without `hookhost lock`: stale.
    let pinned = registry.reference(&format!("team/guard@{old_manifest}"));
    team.config(&guard_hook(&pinned));
    let stale = team.fails(&["check"]);
    assert!(
        stale.contains(&format!("hooks.lock is stale: it pins {tag} (")),
        "{stale}"
    );
    assert!(
        stale.contains(&format!(
            "but hooks.toml asks for {pinned}; run `hookhost lock` to update it"
        )),
        "{stale}"
    );

    // Rolling back is pinning the old manifest's digest.
    let rolled_back = team.ok(&["lock"]);
    assert!(
        rolled_back.contains(&format!("replaces {tag}")),
        "{rolled_back}"
    );
    assert_eq!(team.lock().bundles[0].wasm, digest_of(&old));
    team.ok(&["check"]);
}

#[test]
fn malformed_references_are_located_config_problems() {
    let team = Team::new();
    team.config(&guard_hook("oci://team/guard:1.0.0"));
    let message = team.fails(&["check"]);
    assert!(
        message.contains(
            "hooks.toml:4:8: hook #1 (oci://team/guard:1.0.0): `oci://team/guard:1.0.0` is not \
             a valid OCI reference: it names no registry: write the registry's host first, like \
             oci://ghcr.io/team/guard:1.0.0"
        ),
        "{message}"
    );
}
