//! Sharing bundles through a real registry (Debian's `docker-registry`, the CNCF distribution
//! registry) on a loopback port: push, lock, pull and run, interoperability with skopeo, and
//! one message per failure. Without the registry or skopeo installed these tests fail, saying
//! what to install.

mod registry;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hookhost::oci::{Digest, LockFile};
use hookhost::{GuardDecision, HookRunner, ToolCall};
use registry::{Fault, FaultProxy, PASSWORD, Registry, USER, files_under, skopeo};

use crate::support::{Project, build_fixture, test_cache};

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
        let cache = test_cache().resolve().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        command
            .args(args)
            .current_dir(self.project.root())
            .env("HOOKHOST_STORE_DIR", self.store.path())
            .env("HOOKHOST_CACHE_DIR", cache)
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

/// Runs one test of this binary in a child process with `env` added, and returns its output.
fn run_child(test: &str, env: &[(&str, &Path)]) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{test} failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
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
    let stdout = run_child(
        "oci::locked_bundle_runs_through_hook_runner_child",
        &[
            ("HOOKHOST_OCI_CHILD_PROJECT", team.project.root()),
            ("HOOKHOST_STORE_DIR", team.store.path()),
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
    let GuardDecision::Block(block) = &outcome.decision else {
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
        "hookhost:hooks/handler@0.1.0"
    );
    assert_eq!(config["component"]["target"], "hookhost:hooks/hook@0.1.0");

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

/// Pushes `layers` with `config_media_type` through skopeo (hookhost refuses to push such
/// things), to see what pulling them says.
fn push_artifact(
    registry: &Registry,
    repository: &str,
    config_media_type: &str,
    layers: &[(&str, &[u8])],
) {
    let dir = tempfile::tempdir().unwrap();
    let blob = |bytes: &[u8]| {
        let digest = Digest::of(bytes);
        std::fs::write(dir.path().join(digest.hex()), bytes).unwrap();
        serde_json::json!({ "digest": digest.to_string(), "size": bytes.len() })
    };
    let mut config = blob(b"{}");
    config["mediaType"] = config_media_type.into();
    let layers: Vec<_> = layers
        .iter()
        .map(|(media_type, bytes)| {
            let mut layer = blob(bytes);
            layer["mediaType"] = (*media_type).into();
            layer
        })
        .collect();
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": config,
        "layers": layers,
    });
    std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
    std::fs::write(
        dir.path().join("version"),
        "Directory Transport Version: 1.1\n",
    )
    .unwrap();
    let out = Command::new(skopeo())
        .args(["copy", "--dest-tls-verify=false"])
        .arg(format!("dir:{}", dir.path().display()))
        .arg(registry.docker(repository))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn registry_failures_each_have_their_own_message_and_store_nothing() {
    let registry = Registry::start(false);
    let publisher = Team::new();
    let guard = build_fixture("destructive-guard");
    let wasm = digest_of(&guard);
    publisher.ok(&[
        "push",
        guard.to_str().unwrap(),
        &registry.reference("team/guard:1.0.0"),
    ]);
    let core_module = wat::parse_str("(module)").unwrap();
    push_artifact(
        &registry,
        "team/image:1",
        "application/vnd.oci.image.config.v1+json",
        &[("application/vnd.oci.image.layer.v1.tar", b"not a tar")],
    );
    push_artifact(
        &registry,
        "team/module:1",
        "application/vnd.wasm.config.v0+json",
        &[("application/wasm", &core_module)],
    );
    push_artifact(
        &registry,
        "team/two:1",
        "application/vnd.wasm.config.v0+json",
        &[
            ("application/wasm", &core_module),
            ("application/wasm", b"\0asm"),
        ],
    );
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();

    let proxy = |fault, marker: &str| FaultProxy::start(registry.port, marker, fault);
    let blob_path = format!("/blobs/{wasm}");
    let server_error = proxy(Fault::ServerError, "/manifests/");
    let cut = proxy(Fault::CutBody, &blob_path);
    let flipped = proxy(Fault::FlipByte, &blob_path);
    let size = std::fs::metadata(&guard).unwrap().len();

    #[rustfmt::skip]
    let cases: Vec<(&str, String, String)> = vec![
        ("unreachable", format!("oci://127.0.0.1:{closed_port}/team/guard:1.0.0"),
            format!("cannot reach registry 127.0.0.1:{closed_port} (for oci://127.0.0.1:{closed_port}/team/guard:1.0.0): check the address and the network")),
        ("404", registry.reference("team/guard:9.9.9"),
            format!("{} does not exist: registry 127.0.0.1:{} answered 404 Not Found for its manifest", registry.reference("team/guard:9.9.9"), registry.port)),
        ("500", server_error.reference("team/guard:1.0.0"),
            format!("registry 127.0.0.1:{} failed with 500 for {}: storage backend unavailable: the registry has a problem", server_error.port, server_error.reference("team/guard:1.0.0"))),
        ("truncated", cut.reference("team/guard:1.0.0"),
            format!("the download of {} stopped after {} of {size} bytes", cut.reference("team/guard:1.0.0"), size / 2)),
        ("digest mismatch", flipped.reference("team/guard:1.0.0"),
            format!("the wasm layer of {} has digest sha256:", flipped.reference("team/guard:1.0.0"))),
        ("container image", registry.reference("team/image:1"),
            "is not a hookhost bundle: its config media type is application/vnd.oci.image.config.v1+json, not application/vnd.wasm.config.v0+json".to_string()),
        ("two layers", registry.reference("team/two:1"),
            "is not a hookhost bundle: it has 2 layers; a bundle has exactly one application/wasm layer".to_string()),
        ("core module", registry.reference("team/module:1"),
            "is not a hookhost bundle: its wasm layer is a core WebAssembly module, not a component".to_string()),
    ];
    for (name, reference, expected) in &cases {
        let team = Team::new();
        let message = team.fails(&["pull", reference]);
        assert!(message.contains(expected.as_str()), "{name}: {message}");
        assert_eq!(
            team.stored_files(),
            Vec::<PathBuf>::new(),
            "{name}: the store stays empty"
        );
    }
    let mismatch = publisher.fails(&["pull", &flipped.reference("team/guard:1.0.0")]);
    assert!(
        mismatch.contains(&format!("not the expected {wasm}")),
        "{mismatch}"
    );
    assert!(mismatch.contains("nothing was stored"), "{mismatch}");

    // hookhost refuses to publish what it could not load.
    let module = publisher.project.path("module.wasm");
    std::fs::write(&module, &core_module).unwrap();
    let refused = publisher.fails(&[
        "push",
        module.to_str().unwrap(),
        &registry.reference("team/module:2"),
    ]);
    assert!(
        refused.contains("is not a hookhost bundle: module.wasm is a core WebAssembly module"),
        "{refused}"
    );
}

#[test]
fn credentials_come_from_the_environment_and_docker_and_podman_files() {
    let registry = Registry::start(true);
    let team = Team::new();
    let guard = build_fixture("destructive-guard");
    let guard = guard.to_str().unwrap();
    let reference = registry.reference("team/guard:1.0.0");
    let registry_name = format!("127.0.0.1:{}", registry.port);

    let anonymous = team.fails(&["push", guard, &reference]);
    assert!(
        anonymous.contains(&format!(
            "registry {registry_name} refused access to {reference} (401 Unauthorized) without \
             credentials: log in with `docker login {registry_name}`"
        )),
        "{anonymous}"
    );
    let wrong = team.expect(
        1,
        &["pull", &reference],
        &[
            ("HOOKHOST_REGISTRY_USERNAME", USER),
            ("HOOKHOST_REGISTRY_PASSWORD", "wrong"),
        ],
    );
    assert!(
        wrong.contains("(401 Unauthorized) with credentials from $HOOKHOST_REGISTRY_USERNAME"),
        "{wrong}"
    );
    let half = team.expect(
        1,
        &["pull", &reference],
        &[("HOOKHOST_REGISTRY_USERNAME", USER)],
    );
    assert!(
        half.contains(
            "set both HOOKHOST_REGISTRY_USERNAME and HOOKHOST_REGISTRY_PASSWORD, or neither"
        ),
        "{half}"
    );

    team.expect(
        0,
        &["push", guard, &reference],
        &[
            ("HOOKHOST_REGISTRY_USERNAME", USER),
            ("HOOKHOST_REGISTRY_PASSWORD", PASSWORD),
        ],
    );

    // `docker login` and `podman login` store base64 user:password under `auths`.
    let auth = base64_encode(format!("{USER}:{PASSWORD}").as_bytes());
    let auths = format!("{{\"auths\": {{\"{registry_name}\": {{\"auth\": \"{auth}\"}}}}}}");
    std::fs::create_dir_all(team.home.path().join(".docker")).unwrap();
    std::fs::write(team.home.path().join(".docker/config.json"), &auths).unwrap();
    team.ok(&["pull", &reference]);
    std::fs::remove_file(team.home.path().join(".docker/config.json")).unwrap();

    let runtime_dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(runtime_dir.path().join("containers")).unwrap();
    std::fs::write(runtime_dir.path().join("containers/auth.json"), &auths).unwrap();
    std::fs::remove_dir_all(team.store.path()).unwrap();
    team.expect(
        0,
        &["pull", &reference],
        &[("XDG_RUNTIME_DIR", runtime_dir.path().to_str().unwrap())],
    );

    std::fs::write(
        runtime_dir.path().join("containers/auth.json"),
        "{ not json",
    )
    .unwrap();
    let broken = team.expect(
        1,
        &["pull", &reference],
        &[("XDG_RUNTIME_DIR", runtime_dir.path().to_str().unwrap())],
    );
    assert!(
        broken.contains("containers/auth.json is not a valid credentials file (JSON)"),
        "{broken}"
    );
}

fn base64_encode(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
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
