//! What each registry failure says (unreachable, 401, 404, 500, digest mismatch, cut
//! download, not a bundle), that none stores anything, and where credentials come from.

use std::path::PathBuf;
use std::process::Command;

use hookhost::oci::Digest;

use super::registry::{Fault, FaultProxy, PASSWORD, Registry, USER, skopeo};
use super::{Team, digest_of};
use crate::support::build_fixture;

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
