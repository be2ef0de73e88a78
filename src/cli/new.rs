//! `hookhost new NAME`: scaffold a hook crate on hook-sdk that builds as generated.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};

#[derive(clap::Args)]
pub struct NewArgs {
    /// The hook's name: the crate's and the directory's (letters, digits, `-`, `_`)
    name: String,
    /// Where hook-sdk lives [default: the hook-sdk of the hookhost source this binary was
    /// built from]
    #[arg(long, value_name = "DIR")]
    sdk_path: Option<PathBuf>,
}

pub fn run(args: NewArgs) -> Result<ExitCode> {
    let name = args.name.as_str();
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        bail!(
            "`{name}` is not a valid hook name: use letters, digits, `-` and `_`, starting with a letter"
        );
    }
    let dir = Path::new(name);
    if dir.exists() {
        bail!(
            "{} already exists; pick another name or remove it",
            dir.display()
        );
    }
    let sdk = match &args.sdk_path {
        Some(path) => path.clone(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("hook-sdk"),
    };
    let sdk =
        std::path::absolute(&sdk).with_context(|| format!("cannot resolve {}", sdk.display()))?;
    if !sdk.join("Cargo.toml").is_file() {
        bail!(
            "hook-sdk not found at {} (this hookhost was built elsewhere); pass --sdk-path pointing at the hook-sdk directory of a hookhost checkout",
            sdk.display()
        );
    }

    let crate_ident = name.replace('-', "_");
    let files = [
        ("Cargo.toml", cargo_toml(name, &sdk)),
        ("src/lib.rs", lib_rs(name)),
        ("README.md", readme(name, &crate_ident)),
        ("hooks.toml", hooks_toml(name, &crate_ident)),
        (".gitignore", "/target\n".to_string()),
    ];
    // Write into a temporary directory and move it into place, so a failure leaves nothing half
    // written.
    let parent = std::path::absolute(dir)?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}-"))
        .tempdir_in(&parent)
        .with_context(|| format!("cannot create a directory in {}", parent.display()))?;
    for (file, content) in &files {
        let path = staging.path().join(file);
        std::fs::create_dir_all(path.parent().expect("files have a parent"))?;
        std::fs::write(&path, content)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    std::fs::rename(staging.keep(), dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;

    println!("created {name}/ with a guard that blocks `git push --force`:");
    for (file, _) in &files {
        println!("  {name}/{file}");
    }
    println!("\nnext:\n  cd {name}\n  cargo test\n  cargo build --release --target wasm32-wasip2");
    println!(
        "  hookhost fire PreToolUse --config hooks.toml --tool Bash --input '{{\"command\":\"git push --force\"}}'"
    );
    if !wasm_target_installed() {
        println!(
            "\nnote: the wasm32-wasip2 target is not installed; install it with:\n  rustup target add wasm32-wasip2"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether rustup reports the wasm32-wasip2 target as installed (true when rustup is absent:
/// then we cannot tell, and cargo will say).
fn wasm_target_installed() -> bool {
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

fn cargo_toml(name: &str, sdk: &Path) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
crate-type = ["cdylib", "rlib"]

[dependencies]
hook-sdk = {{ path = "{}" }}
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
"#,
        sdk.display()
    )
}

fn lib_rs(name: &str) -> String {
    let ty: String = name
        .split(['-', '_'])
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!(
        r#"//! {name}: a hookhost guard. Edit `guard` to enforce your own policy.

use hook_sdk::{{Guard, Hook, ToolCall}};
use serde::Deserialize;

/// The hook's `[hooks.config]` (see hooks.toml).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Config {{
    /// Extra phrases to block in Bash commands.
    pub deny: Vec<String>,
}}

/// The hook.
pub struct {ty};

impl Hook for {ty} {{
    fn guard(call: &ToolCall) -> Guard {{
        let Some(bash) = call.bash() else {{ return Guard::Allow }};
        let config: Config = match hook_sdk::config() {{
            Ok(config) => config,
            // A guard with a broken configuration blocks: it fails closed.
            Err(error) => return Guard::block(format!("{name} is misconfigured: {{error}}")),
        }};
        let command = bash.command.split_whitespace().collect::<Vec<_>>().join(" ");
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
}}
"#
    )
}

fn hooks_toml(name: &str, crate_ident: &str) -> String {
    format!(
        r#"# Try the hook: hookhost fire PreToolUse --config hooks.toml --tool Bash --input '{{"command":"git push --force"}}'
[[hooks]]
name = "{name}"
event = "PreToolUse"
match_tool = "Bash"
wasm = "target/wasm32-wasip2/release/{crate_ident}.wasm"
timeout_ms = 100

[hooks.config]
deny = ["terraform destroy"]
"#
    )
}

fn readme(name: &str, crate_ident: &str) -> String {
    format!(
        r#"# {name}

A hookhost guard for `Bash`, written with hook-sdk. It blocks force pushes and the phrases
listed in its config.

## Build and try

```sh
rustup target add wasm32-wasip2        # once
cargo test
cargo build --release --target wasm32-wasip2
hookhost fire PreToolUse --config hooks.toml --tool Bash --input '{{"command":"git push --force"}}'
```

## Use it

Copy `target/wasm32-wasip2/release/{crate_ident}.wasm` next to your project's
`.forgeflare/hooks.toml` (or point at it), and add:

```toml
[[hooks]]
name = "{name}"
event = "PreToolUse"
match_tool = "Bash"
wasm = "{crate_ident}.wasm"          # relative to hooks.toml
timeout_ms = 100

[hooks.config]
deny = ["terraform destroy"]
```

`hookhost check` validates the configuration and loads the hook.
"#
    )
}
