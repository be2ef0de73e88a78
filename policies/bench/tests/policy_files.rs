//! Every policy's `hooks.test.toml`, run as `hookhost test policies/NAME` runs it (through
//! hookhost's `policy_test` library: the real loading, runtimes and merge), against the
//! components built from source into the workspace's `target/` (where each policy's hooks.toml
//! points).

use std::path::{Path, PathBuf};
use std::process::Command;

use hookhost::policy_test::{CaseFile, Status, run_file};

const POLICIES: &[(&str, &str)] = &[
    ("destructive", "policy-destructive"),
    ("secrets", "policy-secrets"),
    ("protected-paths", "policy-protected-paths"),
    ("egress", "policy-egress"),
    ("git-safety", "policy-git-safety"),
    ("ralph-single-mode", "policy-ralph-single-mode"),
    ("ralph-task-file", "policy-ralph-task-file"),
];

fn policies_dir() -> PathBuf {
    // Resolved: a hook's grants are real paths, and a cwd spelled through `bench/..` would
    // not lie inside them.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("policies/")
}

fn build_components() {
    let workspace = policies_dir().join("..");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--target-dir",
        ])
        .arg(workspace.join("target"))
        .current_dir(&workspace);
    for (_, package) in POLICIES {
        cargo.args(["-p", package]);
    }
    let output = cargo
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo build --release --target wasm32-wasip2 of the policies failed (rustup target add wasm32-wasip2?):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_policy_passes_its_own_test_file() {
    build_components();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let scratch = std::env::temp_dir().join(format!("policy-files-{}", std::process::id()));
    let mut failures = Vec::new();
    let mut passed = 0;
    for (name, _) in POLICIES {
        let path = policies_dir().join(name).join("hooks.test.toml");
        let file = CaseFile::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(file.cases.len() >= 5, "{name}: too few cases");
        let base = hookhost::RunnerOptions::new(".");
        let results = runtime.block_on(run_file(&file, &base, &scratch.join(name)));
        for result in results {
            match &result.status {
                Status::Passed => passed += 1,
                other => failures.push(format!(
                    "{name}: {}: {other:?} (came out: {:?})",
                    result.name, result.actual
                )),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        failures.is_empty(),
        "{} passed, {} failed:\n{}",
        passed,
        failures.len(),
        failures.join("\n")
    );
}
