//! The destructive policy as a wasm component, run through hookhost's `HookRunner` as an agent
//! runs it, on every line.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::corpus::Case;

/// Builds the component and runs every case through `HookRunner`, as an agent would.
pub fn decisions(crate_dir: &Path, cases: &[Case]) -> Vec<bool> {
    let workspace = crate_dir.join("../..");
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "wasm32-wasip2",
            "-p",
            "policy-destructive",
            "--target-dir",
        ])
        .arg(&target_dir)
        .current_dir(&workspace)
        .env_remove("RUSTFLAGS")
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "cargo build --release --target wasm32-wasip2 -p policy-destructive failed (rustup target add wasm32-wasip2?)"
    );
    let wasm = target_dir.join("wasm32-wasip2/release/policy_destructive.wasm");
    let scratch = std::env::temp_dir().join(format!("policy-quality-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let config = scratch.join("hooks.toml");
    std::fs::write(
        &config,
        format!("[[hooks]]\nname = \"destructive\"\nevent = \"PreToolUse\"\nwasm = {:?}\ntimeout_ms = 5000\n", wasm.display().to_string()),
    )
    .expect("hooks.toml written");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let runner = hookhost::HookRunner::load(&config, hookhost::RunnerOptions::new(&scratch))
        .expect("the component loads");
    let decisions = cases
        .iter()
        .map(|case| {
            let input = serde_json::json!({ "command": case.command });
            let call = hookhost::ToolCall {
                tool: "Bash",
                input: &input,
                tool_iterations: 1,
            };
            let outcome = runtime.block_on(runner.fire(&hookhost::Event::pre_tool_use(call)));
            matches!(
                outcome.decision,
                hookhost::Decision::Block(_) | hookhost::Decision::Ask(_)
            )
        })
        .collect();
    let _ = std::fs::remove_dir_all(&scratch);
    decisions
}
