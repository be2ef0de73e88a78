//! Writes the hand-written seeds of the fuzz corpus (`fuzz/corpus/TARGET/seed-*`) from what the
//! repository already holds: the agents' recorded events (tests/integration/recorded.rs), the
//! hook answers of the protocols' unit tests, the repository's hooks.toml and hooks.test.toml
//! files, the Sigstore and cosign fixtures, and documents as hookhost writes them (frames, lock
//! files, convergence.json, decision records, manifests, bundles). Each file is the target's raw
//! mode (first byte 0) and its header, then the document.
//!
//!     cargo run -p hookhost-fuzz-harness --example seeds
//!
//! Run it again after a format gains a case worth seeding; `scripts/fuzz` keeps `seed-*` files
//! when it minimises.

use std::path::{Path, PathBuf};

use hookhost::agent::AgentFormat;
use hookhost::bundle::cosign;
use hookhost::oci::{Digest, LockFile, LockedBundle, LockedSignature, LockedSigstoreBundle};
use hookhost::serve::wire::{Answer, Reply, Request, write_frame};
use hookhost::{Protocol, bundle};
use hookhost_fuzz_harness::{agent, protocol};
use serde_json::{Value, json};

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpus = repo.join("fuzz/corpus");
    let mut seeds = Seeds { corpus, written: 0 };
    agent_seeds(&repo, &mut seeds);
    protocol_seeds(&repo, &mut seeds);
    wire_seeds(&mut seeds);
    toml_seeds(&repo, &mut seeds);
    lock_seeds(&repo, &mut seeds);
    convergence_seeds(&mut seeds);
    decision_log_seeds(&mut seeds);
    oci_seeds(&repo, &mut seeds);
    cosign_seeds(&repo, &mut seeds);
    keyless_seeds(&repo, &mut seeds);
    minisign_seeds(&mut seeds);
    println!(
        "wrote {} seeds under {}",
        seeds.written,
        seeds.corpus.display()
    );
}

struct Seeds {
    corpus: PathBuf,
    written: usize,
}

impl Seeds {
    /// `fuzz/corpus/TARGET/seed-NAME`: mode 0, `header`, then `body`.
    fn write(&mut self, target: &str, name: &str, header: &[u8], body: &[u8]) {
        let dir = self.corpus.join(target);
        std::fs::create_dir_all(&dir).expect("the corpus directory");
        let name: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let mut bytes = vec![0];
        bytes.extend_from_slice(header);
        bytes.extend_from_slice(body);
        std::fs::write(dir.join(format!("seed-{name}")), bytes).expect("a seed");
        self.written += 1;
    }
}

fn read(path: impl AsRef<Path>) -> Vec<u8> {
    std::fs::read(path.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()))
}

fn compact(json: &[u8]) -> Vec<u8> {
    serde_json::from_slice::<Value>(json)
        .expect("a JSON fixture")
        .to_string()
        .into_bytes()
}

fn agent_seeds(repo: &Path, seeds: &mut Seeds) {
    let source = String::from_utf8(read(repo.join("tests/integration/recorded.rs"))).unwrap();
    let mut n = 0;
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("pub(crate) const ") else {
            continue;
        };
        let Some((name, _)) = rest.split_once(':') else {
            continue;
        };
        let Some(start) = line.find("r#\"") else {
            continue;
        };
        let Some(len) = line[start + 3..].find("\"#") else {
            continue;
        };
        let event = line[start + 3..start + 3 + len].replace("PROJECT", ".");
        let format = match name.split('_').next().unwrap() {
            "CLAUDE" => AgentFormat::Claude,
            "COPILOT" => AgentFormat::Copilot,
            "GEMINI" => AgentFormat::Gemini,
            "CODEX" => AgentFormat::Codex,
            "CURSOR" => AgentFormat::Cursor,
            _ => continue,
        };
        let index = |agent_name: &str| {
            agent::events(format)
                .iter()
                .position(|spec| spec.agent == agent_name)
                .map_or(0, |i| i as u8 + 1)
        };
        // Copilot's payloads name no event: `--event` does, as its settings entry passes it.
        let copilot_event = match name {
            "COPILOT_PRE" => "preToolUse",
            "COPILOT_POST" => "postToolUse",
            "COPILOT_FAILURE" => "postToolUseFailure",
            "COPILOT_START" => "sessionStart",
            "COPILOT_STOP" => "agentStop",
            _ => "",
        };
        let event_index = index(copilot_event);
        let format_index = agent::FORMATS.iter().position(|f| *f == format).unwrap() as u8;
        // One verdict per event, in turn: none, block, a rewrite, context (`agent::canned`).
        let (verdict, what) = [(0u8, "none"), (5, "block"), (6, "rewrite"), (7, "context")][n % 4];
        n += 1;
        seeds.write(
            "agent",
            &format!("{name}-{what}").to_lowercase(),
            &[format_index, event_index, verdict],
            event.as_bytes(),
        );
    }
}

fn protocol_seeds(repo: &Path, seeds: &mut Seeds) {
    let names = protocol::event_names();
    let event = |name: &str| names.iter().position(|n| *n == name).unwrap() as u8;
    for (index, (protocol, spelled)) in Protocol::ALL.iter().enumerate() {
        let file = match protocol {
            Protocol::ExitCode => "exit_code",
            _ => spelled,
        };
        let source = String::from_utf8(read(repo.join(format!("src/protocol/{file}.rs")))).unwrap();
        let mut n = 0;
        for line in source.lines() {
            // A case: `("name", event, out(CODE, r#"stdout"#, "stderr"), expected)`.
            let Some(at) = line.find("out(") else {
                continue;
            };
            let rest = &line[at + 4..];
            let Some((code, rest)) = rest.split_once(',') else {
                continue;
            };
            let Ok(code) = code.trim().parse::<i8>() else {
                continue;
            };
            let stdout = match rest.trim_start().strip_prefix("r#\"") {
                Some(body) => body.split("\"#").next().unwrap_or_default(),
                None => match rest.trim_start().strip_prefix('"') {
                    Some(body) => body.split('"').next().unwrap_or_default(),
                    None => continue,
                },
            };
            let name = match line[..at]
                .split(',')
                .nth(1)
                .map(|v| v.trim().trim_start_matches('&'))
            {
                Some("post") => "PostToolUse",
                Some("stop") => "Stop",
                Some("prompt") => "UserPromptSubmit",
                Some("permission") => "PermissionRequest",
                Some("start") => "SessionStart",
                Some("failure") => "PostToolUseFailure",
                Some("compact") => "PreCompact",
                _ => "PreToolUse",
            };
            n += 1;
            seeds.write(
                "protocol",
                &format!("{spelled}-{n}"),
                &[index as u8, event(name), code as u8],
                stdout.as_bytes(),
            );
        }
    }
}

fn wire_seeds(seeds: &mut Seeds) {
    let request = Request {
        format: "claude".into(),
        event: Some("PreToolUse".into()),
        cwd: Ok("/home/dev/project".into()),
        env: vec![
            ("PATH".into(), "/usr/bin".into()),
            ("HOME".into(), "/home/dev".into()),
        ],
    };
    let mut connection = Vec::new();
    write_frame(&mut connection, &request.encode()).unwrap();
    write_frame(
        &mut connection,
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#,
    )
    .unwrap();
    seeds.write("wire", "request", &[2], &connection);
    let failed = Request {
        cwd: Err("No such file or directory".into()),
        event: None,
        ..request
    };
    let mut connection = Vec::new();
    write_frame(&mut connection, &failed.encode()).unwrap();
    write_frame(&mut connection, b"").unwrap();
    seeds.write("wire", "request-no-cwd", &[1], &connection);
    for (name, answer) in [
        (
            "reply",
            Answer::Reply(Reply {
                exit_code: 0,
                stdout: r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#.into(),
                stderr: "warning\n".into(),
            }),
        ),
        ("error", Answer::Error("not a hookhost request".into())),
    ] {
        let mut frame = Vec::new();
        write_frame(&mut frame, &answer.encode()).unwrap();
        seeds.write("wire", name, &[0], &frame);
    }
    seeds.write("wire", "huge-length", &[2], &[0xff, 0xff, 0xff, 0xff, 0, 1]);
    seeds.write("wire", "answer-bound", &[0], &(64u32 << 20).to_be_bytes());
}

fn toml_seeds(repo: &Path, seeds: &mut Seeds) {
    let mut files = vec![
        repo.join("demo/hooks.toml"),
        repo.join("demo/code-forge/hooks.toml"),
    ];
    let mut tests = Vec::new();
    for entry in std::fs::read_dir(repo.join("example-hooks")).unwrap() {
        let dir = entry.unwrap().path();
        files.push(dir.join("hooks.toml"));
        tests.push(dir.join("hooks.test.toml"));
    }
    for (target, list) in [("config", files), ("policy_test", tests)] {
        for path in list.into_iter().filter(|p| p.is_file()) {
            let parent = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            seeds.write(target, &parent, &[], &read(&path));
        }
    }
    // The docs' hooks.toml examples: every ```toml block of docs/hooks-toml.md.
    let docs = String::from_utf8(read(repo.join("docs/hooks-toml.md"))).unwrap();
    for (n, block) in docs.split("```toml\n").skip(1).enumerate() {
        let block = block.split("```").next().unwrap_or_default();
        seeds.write("config", &format!("docs-{n}"), &[], block.as_bytes());
    }
}

fn lock_seeds(repo: &Path, seeds: &mut Seeds) {
    let manifest = read(repo.join("tests/fixtures/sigstore/server_image.sig.manifest.json"));
    let manifest: Value = serde_json::from_slice(&manifest).unwrap();
    let annotations = &manifest["layers"][0]["annotations"];
    let text = |key: &str| annotations[key].as_str().map(str::to_string);
    let payload = read(repo.join("tests/fixtures/cosign/containers-image.payload.json"));
    let bundle = compact(&read(
        repo.join("tests/fixtures/sigstore/bundle_v3_github.whl.sigstore.json"),
    ));
    let lock = LockFile {
        version: 1,
        bundles: vec![
            LockedBundle {
                reference: "oci://registry.example/team/guard:1.2.0".into(),
                manifest: Digest::of(b"manifest"),
                wasm: Digest::of(b"wasm"),
                size: 181_234,
                signers: vec!["8A1B36A4C2F01D9E".into()],
                signatures: vec![
                    LockedSignature {
                        payload: String::from_utf8(payload).unwrap(),
                        signature: String::from_utf8(read(repo.join("tests/fixtures/cosign/containers-image.sig"))).unwrap(),
                        key: Some("8A1B36A4C2F01D9E".into()),
                        ..LockedSignature::default()
                    },
                    LockedSignature {
                        payload: "{}".into(),
                        signature: text("dev.cosignproject.cosign/signature").unwrap_or_default(),
                        key: Some("3F0A".into()),
                        certificate: text("dev.sigstore.cosign/certificate"),
                        chain: text("dev.sigstore.cosign/chain"),
                        rekor_bundle: text("dev.sigstore.cosign/bundle"),
                        identity: Some("https://github.com/acme/policies/.github/workflows/release.yml@refs/heads/main".into()),
                        issuer: Some("https://token.actions.githubusercontent.com".into()),
                    },
                ],
                sigstore_bundles: vec![LockedSigstoreBundle {
                    bundle: String::from_utf8(bundle).unwrap(),
                    key: Some("3F0A".into()),
                    identity: None,
                    issuer: None,
                }],
            },
            LockedBundle {
                reference: "oci://localhost:5000/guard@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into(),
                manifest: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".parse().unwrap(),
                wasm: Digest::of(b""),
                size: 0,
                signers: Vec::new(),
                signatures: Vec::new(),
                sigstore_bundles: Vec::new(),
            },
        ],
    };
    seeds.write("lock", "signed", &[], lock.to_text().as_bytes());
    seeds.write("lock", "empty", &[], LockFile::new().to_text().as_bytes());
    seeds.write("lock", "version-2", &[], b"version = 2\n");
}

fn convergence_seeds(seeds: &mut Seeds) {
    let state = json!({
        "observations": [
            {"signal": "converged", "reason": "all tests pass", "tool_iterations": 4},
            {"signal": "progress", "reason": "3 of 5", "tool_iterations": 9}
        ],
        "final": {"reason": "end_turn", "tool_iterations": 12, "total_tokens": 45000,
                  "timestamp": "2026-02-13T19:30:00Z"}
    });
    let pretty = serde_json::to_vec_pretty(&state).unwrap();
    seeds.write("convergence", "state", &[1, 1], &pretty);
    let dropped = json!({"observations": [{"signal": "s", "reason": "r", "tool_iterations": 0}],
                         "dropped_observations": 18446744073709551615u64});
    seeds.write(
        "convergence",
        "dropped-max",
        &[3, 0],
        dropped.to_string().as_bytes(),
    );
    seeds.write("convergence", "corrupt", &[1, 0], b"{\"observations\": [");
    seeds.write("convergence", "empty", &[0, 1], b"");
}

fn decision_log_seeds(seeds: &mut Seeds) {
    let record = json!({"id": "019ab8e2-52d0-7c41-9f0e-2b8d5c7a1e30", "time": "2026-11-25T07:30:12.481Z",
        "agent": "claude", "session": "s-1", "cwd": "/home/dev/project", "event": "PreToolUse",
        "tool": "Bash", "decision": "block", "decided_by": "no-rm", "reason": "blocked by no-rm: no rm",
        "input": {"command": "rm -rf /"},
        "hooks": [{"name": "no-rm", "layer": "project", "kind": "wasm",
                   "source": "oci://ghcr.io/acme/policies/no-rm:1.0.0", "sha256": "9f2c",
                   "signers": ["team"], "phase": "guard", "mode": "enforce", "verdict": "block",
                   "reason": "no rm", "us": 41}],
        "monitored": [{"by": "new-policy", "would": "block", "reason": "blocked by new-policy: x"}]});
    let failed = json!({"id": "019ab8e2-52d0-7c41-9f0e-2b8d5c7a1e31", "time": "2026-11-25T07:30:13Z",
        "event": "Stop", "decision": "allow", "us": 1500,
        "hooks": [{"name": "slow", "kind": "command", "phase": "observe", "mode": "monitor",
                   "verdict": "failed", "failure": "timed_out", "reason": "timed out after 5000ms", "us": 5000000}]});
    let mut log = format!("{record}\n{failed}\n").into_bytes();
    seeds.write("decision_log", "records", &[], &log);
    log.extend_from_slice(b"not a record\n{\"id\":\"x\",\"hooks\":");
    seeds.write("decision_log", "torn", &[], &log);
}

fn oci_seeds(repo: &Path, seeds: &mut Seeds) {
    let sig = compact(&read(
        repo.join("tests/fixtures/sigstore/server_image.sig.manifest.json"),
    ));
    seeds.write("oci", "sig-manifest", &[], &sig);
    let wasm = Digest::of(b"\0asm\x0d\0\x01\0");
    let config = Digest::of(b"{}");
    let bundle = json!({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.wasm.config.v0+json", "digest": config.to_string(), "size": 2},
        "layers": [{"mediaType": "application/wasm", "digest": wasm.to_string(), "size": 8,
                    "annotations": {"org.opencontainers.image.title": "guard.wasm"}}],
        "annotations": {"org.opencontainers.image.version": "1.0.0"}});
    seeds.write("oci", "bundle-manifest", &[], bundle.to_string().as_bytes());
    let referrers = json!({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": wasm.to_string(), "size": 400,
             "artifactType": "application/vnd.dev.cosign.artifact.sig.v1+json"},
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": config.to_string(), "size": 500,
             "artifactType": "application/vnd.dev.sigstore.bundle.v0.3+json"}]});
    seeds.write("oci", "referrers", &[], referrers.to_string().as_bytes());
    let sigstore = json!({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "artifactType": "application/vnd.dev.sigstore.bundle.v0.3+json",
        "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": config.to_string(), "size": 2},
        "layers": [{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json", "digest": wasm.to_string(), "size": 9000}],
        "subject": {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": config.to_string(), "size": 600}});
    seeds.write(
        "oci",
        "sigstore-bundle-manifest",
        &[],
        sigstore.to_string().as_bytes(),
    );
    let index = json!({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": wasm.to_string(),
                       "size": 7143, "platform": {"architecture": "amd64", "os": "linux"}}]});
    seeds.write("oci", "image-index", &[], index.to_string().as_bytes());
    for (n, reference) in [
        "oci://registry.example/team/guard:1.0.0",
        "oci://localhost:5000/a/b/c@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "oci://[::1]:5000/guard:latest",
    ]
    .iter()
    .enumerate()
    {
        seeds.write("oci", &format!("reference-{n}"), &[], reference.as_bytes());
    }
}

fn cosign_seeds(repo: &Path, seeds: &mut Seeds) {
    let fixture = |name: &str| read(repo.join("tests/fixtures/cosign").join(name));
    let mut body = fixture("containers-image.payload.json");
    for part in [
        fixture("containers-image.sig"),
        fixture("containers-image.pub"),
        b"192.168.64.2:5000/cosign-signed-single-sample".to_vec(),
    ] {
        body.push(0);
        body.extend_from_slice(&part);
    }
    seeds.write("cosign", "containers-image", &[], &body);
    let mut other = cosign::payload("registry.example/team/guard", &Digest::of(b"m"));
    other.extend_from_slice(b"\0MEUCIQ==\0");
    other.extend_from_slice(&fixture("containers-image-2.pub"));
    other.extend_from_slice(b"\0registry.example/team/guard");
    seeds.write("cosign", "other-key", &[], &other);
}

fn keyless_seeds(repo: &Path, seeds: &mut Seeds) {
    let dir = repo.join("tests/fixtures/sigstore");
    for name in [
        "bundle_v3_github.whl.sigstore.json",
        "python-3.12.5.tgz.sigstore.json",
        "sigstore.js-2.0.0-provenance.sigstore.json",
        "staging_bundle_v3.txt.sigstore.json",
    ] {
        seeds.write("keyless", name, &[0], &compact(&read(dir.join(name))));
    }
    for name in ["trusted_root.json", "staging_trusted_root.json"] {
        seeds.write("keyless", name, &[2], &compact(&read(dir.join(name))));
    }
    // The `.sig` layer: its payload is cosign's for the image it signs (the fixture's README).
    let manifest: Value =
        serde_json::from_slice(&read(dir.join("server_image.sig.manifest.json"))).unwrap();
    let annotations = &manifest["layers"][0]["annotations"];
    let digest: Digest = "sha256:120ef883bd7612aee0a100297def41014bf3e1aa321a0eaf4d0ebd9855d39a11"
        .parse()
        .unwrap();
    let payload = cosign::payload("index.docker.io/salrashid123/server_image", &digest);
    assert_eq!(
        Some(Digest::of(&payload).to_string().as_str()),
        manifest["layers"][0]["digest"].as_str(),
        "the fixture's payload"
    );
    let mut body = payload;
    for key in [
        "dev.cosignproject.cosign/signature",
        "dev.sigstore.cosign/certificate",
        "dev.sigstore.cosign/bundle",
    ] {
        body.push(0);
        body.extend_from_slice(annotations[key].as_str().unwrap_or_default().as_bytes());
    }
    seeds.write("keyless", "sig-layer", &[1], &body);
}

fn minisign_seeds(seeds: &mut Seeds) {
    let component = b"\0asm\x0d\0\x01\0".to_vec();
    let metadata = bundle::Metadata {
        name: "guard".into(),
        version: "1.0.0".into(),
        description: "blocks rm -rf".into(),
        events: vec!["PreToolUse/guard".into()],
        default_config: Some(json!({"paths": ["/"]})),
        config_schema: None,
    };
    let with_metadata = bundle::with_metadata(&component, &metadata).unwrap();
    let pair = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let signed = bundle::sign(&with_metadata, &pair.sk, "name:guard version:1.0.0").unwrap();
    let twice = bundle::sign(&signed, &pair.sk, "security team").unwrap();
    seeds.write("minisign", "component", &[0], &component);
    seeds.write("minisign", "metadata", &[1], &with_metadata);
    seeds.write("minisign", "signed", &[0], &signed);
    seeds.write("minisign", "signed-twice", &[2], &twice);
    let mut edited = signed.clone();
    let last = edited.len() - 3;
    edited[last] ^= 1;
    seeds.write("minisign", "signature-edited", &[0], &edited);
    seeds.write(
        "minisign",
        "module",
        &[1],
        b"\0asm\x01\0\0\0\x01\x04\x01\x60\0\0",
    );
}
