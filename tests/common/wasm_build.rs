#![allow(dead_code)] // Each includer uses a part of it.

//! Building wasm hooks from source, shared by the integration tests and the benchmarks (each
//! includes this file with `#[path]`).

use std::path::{Path, PathBuf};

/// The target hook-sdk builds components for.
pub const WASIP2: &str = "wasm32-wasip2";
/// The target of a hook that needs no WASI: a core module hookhost wraps at load.
pub const NO_WASI: &str = "wasm32-unknown-unknown";

/// Builds `packages` of the crate or workspace at `manifest` for wasm32-wasip2 in release, into
/// `target_dir`, and returns the directory the `.wasm` files land in. Panics with cargo's
/// output (and the install hint) if the build fails.
pub fn build_wasm(manifest: &Path, packages: &[&str], target_dir: &Path) -> PathBuf {
    build_wasm_for(WASIP2, manifest, packages, target_dir)
}

/// [`build_wasm`] for `target`.
pub fn build_wasm_for(
    target: &str,
    manifest: &Path,
    packages: &[&str],
    target_dir: &Path,
) -> PathBuf {
    let mut cargo =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            target,
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
        "building {} for {target} failed{}:\n{stderr}",
        manifest.display(),
        if stderr.contains(target) {
            format!(" (is the target installed? rustup target add {target})")
        } else {
            String::new()
        }
    );
    target_dir.join(target).join("release")
}
