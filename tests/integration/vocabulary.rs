//! One policy under every agent: the destructive-guard example, built from source for
//! wasm32-wasip2 and configured as its hooks.toml says (its matcher: every agent's shell tool),
//! gets `rm -rf /` from each agent's shell tool through the real `hookhost agent-hook`, in the
//! shape each agent sends (`recorded`), and each agent reads a deny. Before hook-sdk's
//! `ToolCall::shell`, the guard read only Claude Code's `Bash` and let Copilot CLI's `bash`,
//! Gemini CLI's `run_shell_command` and Cursor's `Shell` through.

use serde_json::Value;

use crate::agents::agent_hook;
use crate::recorded::*;
use crate::support::{Project, example};

/// The example's hooks.toml entry, pointed at the built component, with a `deny` phrase; and
/// a second entry for Cursor's shell gate, an event that carries no tool name.
fn config() -> String {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let example_toml =
        std::fs::read_to_string(repo.join("example-hooks/destructive-guard/hooks.toml")).unwrap();
    let matcher = example_toml
        .lines()
        .find(|line| line.starts_with("matcher = "))
        .expect("the example's hooks.toml has a matcher");
    let wasm = example("destructive-guard");
    format!(
        "[[hooks]]\nname = \"destructive-guard\"\nevent = \"PreToolUse\"\n{matcher}\n\
         wasm = '{wasm}'\ntimeout_ms = 10000\n[hooks.config]\ndeny = [\"terraform destroy\"]\n\n\
         [[hooks]]\nname = \"destructive-guard\"\nevent = \"beforeShellExecution\"\n\
         on_failure = \"block\"\nwasm = '{wasm}'\ntimeout_ms = 10000\n\
         [hooks.config]\ndeny = [\"terraform destroy\"]\n"
    )
}

/// Whether the agent's reply is a deny, in that agent's words.
fn denied(format: &str, reply: &Value) -> bool {
    match format {
        "claude" | "codex" => reply["hookSpecificOutput"]["permissionDecision"] == "deny",
        "copilot" => reply["permissionDecision"] == "deny",
        "gemini" => reply["decision"] == "deny",
        "cursor" => reply["permission"] == "deny",
        other => panic!("no such agent: {other}"),
    }
}

#[test]
fn destructive_guard_blocks_rm_rf_under_every_agents_shell_tool() {
    #[rustfmt::skip]
    let cases: [(&str, &str, Option<&str>, &str, &str); 6] = [
        ("Claude Code's Bash", "claude", None, CLAUDE_PRE, "npm test"),
        ("Copilot CLI's bash", "copilot", Some("preToolUse"), COPILOT_PRE, "rm -rf dist"),
        ("Gemini CLI's run_shell_command", "gemini", None, GEMINI_BEFORE_TOOL, "npm test"),
        ("Codex CLI's Bash", "codex", None, CODEX_PRE, "npm test"),
        ("Cursor's Shell", "cursor", None, CURSOR_PRE, "npm install"),
        ("Cursor's beforeShellExecution", "cursor", None, CURSOR_SHELL, "git push --force origin main"),
    ];
    let project = Project::new();
    project.config(&config());
    for (name, format, event, recorded, command) in cases {
        assert!(
            recorded.contains(command),
            "{name}: the recording runs {command}"
        );
        let fire = |with: &str| {
            let reply = agent_hook(&project, format, event, &recorded.replace(command, with));
            assert_eq!(reply.code, 0, "{name}: stderr: {}", reply.stderr);
            reply
        };
        let reply = fire("rm -rf /");
        let json = reply.json();
        assert!(
            denied(format, &json),
            "{name}: {json} (stderr: {})",
            reply.stderr
        );
        assert!(
            json.to_string()
                .contains("blocked by destructive-guard: recursive delete of / (rm -r)"),
            "{name}: {json}"
        );
        // The config's deny phrases hold for every agent's shell tool too.
        let json = fire("Terraform  destroy -auto-approve").json();
        assert!(denied(format, &json), "{name}: {json}");
        assert!(
            json.to_string()
                .contains("command matches the deny pattern \\\"terraform destroy\\\""),
            "{name}: {json}"
        );
        // And an everyday command goes through.
        let json = fire("cargo test").json();
        assert!(!denied(format, &json), "{name}: {json}");
    }
}
