//! Building wasm32-wasip2 components from source, shared by the integration tests and the
//! benchmarks (each includes this file with `#[path]`).

use std::path::{Path, PathBuf};

/// Builds `packages` of the crate or workspace at `manifest` for wasm32-wasip2 in release, into
/// `target_dir`, and returns the directory the `.wasm` files land in. Panics with cargo's
/// output (and the install hint) if the build fails.
pub fn build_wasm(manifest: &Path, packages: &[&str], target_dir: &Path) -> PathBuf {
    let mut cargo =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--manifest-path",
        ])
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir);
    for package in packages {
        cargo.args(["-p", package]);
    }
    let output = cargo
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "building {} for wasm32-wasip2 failed{}:\n{stderr}",
        manifest.display(),
        if stderr.contains("wasm32-wasip2") {
            " (is the target installed? rustup target add wasm32-wasip2)"
        } else {
            ""
        }
    );
    target_dir.join("wasm32-wasip2/release")
}
