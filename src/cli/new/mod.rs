//! `hookhost new NAME [--lang rust|python|js]`: scaffold a hook project that builds as
//! generated, with a guard that blocks `git push --force` and the phrases of its config, a
//! unit test, a hooks.toml and a README.
//!
//! - Rust: a crate depending on hook-sdk by version (`--sdk-path` for a local checkout).
//! - Python (componentize-py) and JavaScript (componentize-qjs): the SDK file and the WIT are
//!   written into the project, from the copies this binary was built with, so the project does
//!   not depend on where hookhost's sources are.

mod js;
mod python;
mod rust;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};

/// The WIT every new hook is written against (the current version).
const WIT: &str = include_str!("../../../wit/hookhost.wit");

#[derive(clap::Args)]
pub struct NewArgs {
    /// The hook's name: the project's and the directory's (letters, digits, `-`, `_`)
    name: String,
    /// The language of the hook
    #[arg(long, value_enum, default_value_t = Lang::Rust)]
    lang: Lang,
    /// Rust: depend on the hook-sdk in this directory (a hookhost checkout's `hook-sdk`)
    /// instead of the published crate
    #[arg(long, value_name = "DIR")]
    sdk_path: Option<PathBuf>,
}

/// The languages `hookhost new` scaffolds.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Lang {
    Rust,
    Python,
    /// JavaScript
    Js,
}

/// A scaffolded project: its files, and what to run next.
struct Scaffold {
    files: Vec<(&'static str, String)>,
    next: Vec<String>,
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
    if args.sdk_path.is_some() && args.lang != Lang::Rust {
        bail!(
            "--sdk-path is for Rust hooks (it points at hook-sdk); Python and JavaScript hooks get the SDK file written into the project"
        );
    }
    let scaffold = match args.lang {
        Lang::Rust => rust::scaffold(name, args.sdk_path.as_deref())?,
        Lang::Python => python::scaffold(name),
        Lang::Js => js::scaffold(name),
    };

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
    for (file, content) in &scaffold.files {
        let path = staging.path().join(file);
        std::fs::create_dir_all(path.parent().expect("files have a parent"))?;
        std::fs::write(&path, content)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    std::fs::rename(staging.keep(), dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;

    println!("created {name}/ with a guard that blocks `git push --force`:");
    for (file, _) in &scaffold.files {
        println!("  {name}/{file}");
    }
    println!("\nnext:\n  cd {name}");
    for step in &scaffold.next {
        println!("  {step}");
    }
    println!(
        "  hookhost fire PreToolUse --config hooks.toml --tool Bash --input '{{\"command\":\"git push --force\"}}'"
    );
    println!("  hookhost test     # the cases of hooks.test.toml");
    if args.lang == Lang::Rust && !rust::wasm_target_installed() {
        println!(
            "\nnote: the wasm32-wasip2 target is not installed; install it with:\n  rustup target add wasm32-wasip2"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `template` with `{{name}}` (the hook's name) and `{{Type}}` (its name in CamelCase)
/// filled in.
fn fill(template: &str, name: &str) -> String {
    template
        .replace("{{name}}", name)
        .replace("{{Type}}", &camel_case(name))
}

/// `no-force_push` → `NoForcePush`.
fn camel_case(name: &str) -> String {
    name.split(['-', '_'])
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The `[[hooks]]` entry of a new hook: a guard of every agent's shell (`@shell`) that denies
/// `terraform destroy` too.
fn hooks_toml(name: &str, wasm: &str, timeout_ms: u32) -> String {
    format!(
        r#"# Try the hook: hookhost fire PreToolUse --config hooks.toml --tool Bash --input '{{"command":"git push --force"}}'
[[hooks]]
name = "{name}"
event = "PreToolUse"
matcher = "@shell"   # every agent's shell tool: Bash, Copilot CLI's bash, Gemini CLI's run_shell_command, ...
wasm = "{wasm}"
timeout_ms = {timeout_ms}

[hooks.config]
deny = ["terraform destroy"]
"#
    )
}

/// The policy tests of a new hook (`hookhost test`): what it must block and what it must let
/// through, run through the built component.
fn hooks_test_toml(name: &str) -> String {
    format!(
        r#"# Policy tests: `hookhost test` runs each case through the hooks of hooks.toml (the
# built component, for real) and checks what comes out. Add a case for every command the
# guard must block or let through; docs/testing.md has every key.
[[cases]]
name = "a force push is blocked"
event = "PreToolUse"
tool = "Bash"
input = {{ command = "git push --force origin main" }}
expect = {{ decision = "block", by = "{name}", reason = "force pushes rewrite shared history" }}

[[cases]]
name = "a phrase of its config is blocked"
event = "PreToolUse"
tool = "Bash"
input = {{ command = "terraform destroy -auto-approve" }}
expect = {{ decision = "block", reason = "`terraform destroy` is not allowed here" }}

[[cases]]
name = "a plain push goes through"
event = "PreToolUse"
tool = "Bash"
input = {{ command = "git push origin main" }}
expect = {{ decision = "allow", ran = ["{name}"] }}

[[cases]]
name = "Claude Code reads the block as a deny"
agent = "claude"
event = "PreToolUse"
tool = "Bash"
input = {{ command = "git push -f" }}
expect.decision = "block"
expect.reply = {{ exit_code = 0, json = {{ hookSpecificOutput = {{ permissionDecision = "deny" }} }} }}

[[cases]]
name = "the same guard holds for Gemini CLI's shell"
agent = "gemini"
event = "BeforeTool"
tool = "run_shell_command"
input = {{ command = "git push --force origin main" }}
expect = {{ decision = "block", by = "{name}" }}
"#
    )
}

/// The README of a new hook: how to build and try it, and how to use it in a project.
fn readme(name: &str, sdk: &str, build: &str, wasm: &str, timeout_ms: u32) -> String {
    let file = Path::new(wasm)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        r#"# {name}

A hookhost guard for every agent's shell tool (Claude Code's `Bash`, Copilot CLI's `bash`,
Gemini CLI's `run_shell_command`, ...), written with {sdk}. It blocks force pushes and the phrases
listed in its config.

## Build and try

```sh
{build}
hookhost fire PreToolUse --config hooks.toml --tool Bash --input '{{"command":"git push --force"}}'
hookhost test     # the policy tests of hooks.test.toml
```

## Use it

Copy `{wasm}` next to your project's `.forgeflare/hooks.toml` (or point at it), and add:

```toml
[[hooks]]
name = "{name}"
event = "PreToolUse"
matcher = "@shell"       # every agent's shell tool
wasm = "{file}"          # relative to hooks.toml
timeout_ms = {timeout_ms}

[hooks.config]
deny = ["terraform destroy"]
```

`hookhost check` validates the configuration, loads the hook, and lists what it imports.
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_filled_in() {
        let cases = [
            ("my-guard", "MyGuard"),
            ("no_force-push", "NoForcePush"),
            ("x", "X"),
        ];
        for (name, ty) in cases {
            assert_eq!(camel_case(name), ty, "{name}");
            assert_eq!(fill("{{name}}: {{Type}}", name), format!("{name}: {ty}"));
        }
    }
}
