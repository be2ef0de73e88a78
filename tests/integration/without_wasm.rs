//! A build without the `wasm` feature (`cargo test --no-default-features`): a hooks.toml that
//! needs the wasm runtime is a configuration error naming the feature, never a hook skipped in
//! silence, and an agent that runs with it fails closed.

use hookhost::forgeflare::{HookRunner as ForgeflareRunner, PreToolResult};
use hookhost::{Decision, HookRunner, ToolCall};
use serde_json::json;

use crate::support::{Project, hook};

const WASM_HOOK: &str = "a `wasm` hook needs hookhost's `wasm` cargo feature, which this build of \
    hookhost leaves out: turn it on where the agent depends on hookhost \
    (`features = [\"wasm\"]`), or make this hook a `command` hook";
const TRUST: &str = "`[trust]` (keys for signed wasm bundles) needs hookhost's `wasm` cargo \
    feature, which this build of hookhost leaves out: turn it on where the agent depends on \
    hookhost (`features = [\"wasm\"]`), or remove the `[trust]` table";

#[test]
fn what_needs_the_wasm_feature_is_a_configuration_error() {
    let guard = hook(
        "PreToolUse",
        "echo '{\"action\":\"allow\"}'",
        "name = \"sh\"",
    );
    // (case, hooks.toml, every problem as `line:column: message`)
    let cases: &[(&str, String, &[&str])] = &[
        (
            "a wasm hook",
            "[[hooks]]\nname = \"guard\"\nevent = \"PreToolUse\"\nwasm = \"guard.wasm\"\n".into(),
            &["1:1: hook #1 (guard): {WASM_HOOK}"],
        ),
        (
            "a wasm hook after a command hook",
            format!("{guard}[[hooks]]\nevent = \"Stop\"\nwasm = \"stop.wasm\"\n"),
            &["6:1: hook #2 (stop.wasm): {WASM_HOOK}"],
        ),
        (
            "a disabled wasm hook",
            "[[hooks]]\nevent = \"Stop\"\nwasm = \"stop.wasm\"\nenabled = false\n".into(),
            &["1:1: hook #1 (stop.wasm): {WASM_HOOK}"],
        ),
        (
            "[trust] with require_signed",
            format!("[trust]\nrequire_signed = true\n\n{guard}"),
            &["1:1: {TRUST}"],
        ),
        (
            "[[trust.keys]] only",
            format!("{guard}[[trust.keys]]\nid = \"team\"\nkey = \"RWQ\"\n"),
            &["6:3: {TRUST}"], // at `trust` in `[[trust.keys]]`
        ),
        (
            "[trust] and a wasm hook",
            "[trust]\nrequire_signed = false\n[[hooks]]\nevent = \"Stop\"\nwasm = \"s.wasm\"\n"
                .into(),
            &["1:1: {TRUST}", "3:1: hook #1 (s.wasm): {WASM_HOOK}"],
        ),
    ];
    for (case, toml, expected) in cases {
        let project = Project::new();
        let path = project.config(toml);
        let error = HookRunner::load(&path, project.options())
            .err()
            .unwrap_or_else(|| panic!("{case}: loads without the wasm feature"));
        let problems: Vec<String> = error.problems().iter().map(|p| p.to_string()).collect();
        let expected: Vec<String> = expected
            .iter()
            .map(|line| {
                line.replace("{WASM_HOOK}", WASM_HOOK)
                    .replace("{TRUST}", TRUST)
            })
            .collect();
        assert_eq!(problems, expected, "{case}");
        // Every problem is also in the error's text, under the file's name.
        let text = error.to_string();
        for line in &expected {
            assert!(
                text.contains(&format!("{}:{line}", path.display())),
                "{case}: {text}"
            );
        }
    }
}

#[tokio::test]
async fn an_agent_with_a_wasm_guard_and_no_wasm_feature_blocks_instead_of_skipping_it() {
    let project = Project::new();
    let path = project.config(
        "[[hooks]]\nname = \"destructive-guard\"\nevent = \"PreToolUse\"\nwasm = \"guard.wasm\"\n",
    );
    let input = json!({ "command": "rm -rf /" });
    let call = || ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    };

    // The native API: the agent runs with `fail_closed`, as docs/library.md says.
    let error = HookRunner::load(&path, project.options()).unwrap_err();
    let runner = HookRunner::fail_closed(error, project.options());
    let outcome = runner.pre_tool_use(call()).await;
    let Decision::Block(block) = &outcome.decision else {
        panic!("not blocked: {:?}", outcome.decision);
    };
    assert!(block.message().contains(WASM_HOOK), "{}", block.message());

    // The forgeflare facade fails closed by itself.
    let hooks = ForgeflareRunner::load(path.to_str().unwrap(), project.root().to_str().unwrap());
    match hooks.run_pre_tool_use("Bash", &input, 1).await {
        PreToolResult::Block { reason, .. } => {
            assert!(reason.contains("`wasm` cargo feature"), "{reason}")
        }
        other => panic!("not blocked: {other:?}"),
    }
}
