//! `hookhost new NAME`: a hook crate on hook-sdk.

use std::path::Path;

use anyhow::{Context as _, Result, bail};

use super::Scaffold;

/// The hook-sdk a new crate depends on: the published release for this version of the WIT.
pub(super) const HOOK_SDK_VERSION: &str = "0.2";

/// A hook crate on hook-sdk: by version, or at `sdk_path` (a checkout's `hook-sdk`).
pub(super) fn scaffold(name: &str, sdk_path: Option<&Path>) -> Result<Scaffold> {
    let dependency = match sdk_path {
        None => format!("\"{HOOK_SDK_VERSION}\""),
        Some(path) => {
            let sdk = std::path::absolute(path)
                .with_context(|| format!("cannot resolve {}", path.display()))?;
            let manifest = std::fs::read_to_string(sdk.join("Cargo.toml")).unwrap_or_default();
            let package = toml::from_str::<toml::Table>(&manifest)
                .ok()
                .and_then(|t| t.get("package")?.get("name")?.as_str().map(str::to_string));
            if package.as_deref() != Some("hook-sdk") {
                bail!(
                    "hook-sdk not found at {}: pass --sdk-path pointing at the hook-sdk directory of a hookhost checkout, or leave it out to use the published hook-sdk {HOOK_SDK_VERSION}",
                    sdk.display()
                );
            }
            // A TOML basic string: escape what it cannot hold as is.
            let quoted = sdk
                .display()
                .to_string()
                .replace('\\', "\\\\")
                .replace('"', "\\\"");
            format!("{{ path = \"{quoted}\" }}")
        }
    };
    let crate_ident = name.replace('-', "_");
    Ok(Scaffold {
        files: vec![
            ("Cargo.toml", cargo_toml(name, &dependency)),
            ("src/lib.rs", lib_rs(name)),
            (
                "README.md",
                super::readme(
                    name,
                    "hook-sdk (Rust)",
                    &format!(
                        "rustup target add wasm32-wasip2        # once\ncargo test\n\
                         cargo build --release --target wasm32-wasip2\n\
                         # The guard reads no files, environment or clock, so it also builds \
                         without WASI, which is\n\
                         # cheaper per call and can reach nothing of the machine (point `wasm` \
                         in hooks.toml at\n\
                         # target/wasm32-unknown-unknown/release/{crate_ident}.wasm):\n\
                         #   rustup target add wasm32-unknown-unknown\n\
                         #   cargo build --release --target wasm32-unknown-unknown"
                    ),
                    &format!("target/wasm32-wasip2/release/{crate_ident}.wasm"),
                    100,
                ),
            ),
            (
                "hooks.toml",
                super::hooks_toml(
                    name,
                    &format!("target/wasm32-wasip2/release/{crate_ident}.wasm"),
                    100,
                ),
            ),
            ("hooks.test.toml", super::hooks_test_toml(name)),
            (".gitignore", "/target\n".to_string()),
        ],
        next: vec![
            "cargo test".to_string(),
            "cargo build --release --target wasm32-wasip2".to_string(),
        ],
    })
}

/// Whether rustup reports the wasm32-wasip2 target as installed (true when rustup is absent:
/// then we cannot tell, and cargo will say).
pub(super) fn wasm_target_installed() -> bool {
    match std::process::Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
    {
        Ok(output) => String::from_utf8_lossy(&output.stdout)
            .lines()
            .any(|l| l.trim() == "wasm32-wasip2"),
        Err(_) => true,
    }
}

fn cargo_toml(name: &str, dependency: &str) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
crate-type = ["cdylib", "rlib"]

[dependencies]
hook-sdk = {dependency}
serde = {{ version = "1", features = ["derive"] }}

[dev-dependencies]
serde_json = "1"

[profile.release]
opt-level = "s"
lto = true
strip = true
codegen-units = 1

# A standalone crate, even when created inside another workspace.
[workspace]
"#
    )
}

fn lib_rs(name: &str) -> String {
    let ty = super::camel_case(name);
    format!(
        r#"//! {name}: a hookhost guard. Edit `guard` to enforce your own policy.

use hook_sdk::{{Guard, Hook, ToolCall}};
use serde::Deserialize;

/// The hook's `[hooks.config]` (see hooks.toml).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Config {{
    /// Extra phrases to block in shell commands.
    pub deny: Vec<String>,
}}

/// The hook.
pub struct {ty};

impl Hook for {ty} {{
    fn guard(call: &ToolCall) -> Guard {{
        // Every agent's shell tool (Claude Code's `Bash`, Copilot CLI's `bash`, Gemini CLI's
        // `run_shell_command`, ...); `call.bash()` would see Claude Code's name only.
        let Some(shell) = call.shell() else {{ return Guard::Allow }};
        let config: Config = match hook_sdk::config() {{
            Ok(config) => config,
            // A guard with a broken configuration blocks: it fails closed.
            Err(error) => return Guard::block(format!("{name} is misconfigured: {{error}}")),
        }};
        let command = shell.command.split_whitespace().collect::<Vec<_>>().join(" ");
        if command.contains("git push") && (command.contains("--force") || command.contains(" -f")) {{
            return Guard::block("force pushes rewrite shared history");
        }}
        match config.deny.iter().find(|phrase| command.contains(phrase.as_str())) {{
            Some(phrase) => Guard::block(format!("`{{phrase}}` is not allowed here")),
            None => Guard::Allow,
        }}
    }}
}}

hook_sdk::export!({ty});

#[cfg(test)]
mod tests {{
    use super::*;
    use hook_sdk::testing;

    #[test]
    fn blocks_force_pushes_and_configured_phrases() {{
        testing::set_config(serde_json::json!({{ "deny": ["terraform destroy"] }}));
        assert!(matches!({ty}::guard(&ToolCall::bash_command("git push --force")), Guard::Block(_)));
        assert!(matches!({ty}::guard(&ToolCall::bash_command("terraform destroy")), Guard::Block(_)));
        assert_eq!({ty}::guard(&ToolCall::bash_command("git push")), Guard::Allow);
        assert_eq!({ty}::guard(&ToolCall::read_file("README.md")), Guard::Allow);
    }}

    #[test]
    fn holds_for_every_agents_shell() {{
        testing::set_config(serde_json::json!({{}}));
        for tool in ["bash", "run_shell_command", "Shell"] {{
            let call = ToolCall::new(tool, serde_json::json!({{ "command": "git push -f" }}));
            assert!(matches!({ty}::guard(&call), Guard::Block(_)), "{{tool}}");
        }}
    }}
}}
"#
    )
}
