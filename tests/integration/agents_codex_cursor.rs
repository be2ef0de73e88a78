//! Codex CLI and Cursor through the real binary: `hookhost agent-hook --format codex|cursor` on
//! their recorded events (`recorded`) with a wasm guard's every answer, a configuration that
//! does not load, and what `hookhost import` reports of Codex's trust, Codex's managed hooks and
//! a file Cursor rejects. (The tables of `agents` run both agents' imported scripts, their
//! wasm and command guards and their fail-closed answers beside the other agents'.)

use serde_json::{Value, json};

use crate::agents::{agent_hook, answerer, hookhost};
use crate::recorded::*;
use crate::support::Project;

/// One round trip: a name, the agent, its event, hookhost's event, the wasm guard's answer,
/// and what the agent must read back.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Value,
    Value,
);

#[test]
fn codex_and_cursor_read_deny_ask_allow_rewrite_context_and_stop_in_their_own_format() {
    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        // Codex CLI.
        ("codex deny", "codex", CODEX_PRE, "PreToolUse", json!({"answer": "block", "reason": "no tests on Fridays"}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "blocked by wasm-guard: no tests on Fridays"}})),
        // Codex fails a hook that answers `ask`, and runs the tool: hookhost refuses instead.
        ("codex ask is a deny", "codex", CODEX_PRE, "PreToolUse", json!({"answer": "ask", "reason": "run it?"}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "hookhost: wasm-guard: run it? asks to confirm this call, which the agent cannot ask its user on PreToolUse; refused rather than run unconfirmed"}})),
        ("codex allow", "codex", CODEX_PRE, "PreToolUse", json!({"answer": "allow"}), Value::Null),
        // A bare `allow` would fail the hook: an approval is said by nothing at all.
        ("codex approve", "codex", CODEX_PRE, "PreToolUse", json!({"answer": "approve"}), Value::Null),
        ("codex rewrite", "codex", CODEX_PRE, "PreToolUse", json!({"updated_input": {"command": "npm test -- --bail"}}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "npm test -- --bail"}}})),
        ("codex apply_patch deny", "codex", CODEX_APPLY_PATCH, "PreToolUse", json!({"answer": "block", "reason": "src/ is frozen"}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "blocked by wasm-guard: src/ is frozen"}})),
        ("codex permission deny", "codex", CODEX_PERMISSION, "PermissionRequest", json!({"answer": "block", "reason": "not here"}),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "blocked by wasm-guard: not here"}}})),
        ("codex permission allow", "codex", CODEX_PERMISSION, "PermissionRequest", json!({"answer": "approve"}),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}})),
        ("codex post block", "codex", CODEX_POST, "PostToolUse", json!({"answer": "block", "reason": "review the output"}),
            json!({"decision": "block", "reason": "blocked by wasm-guard: review the output"})),
        ("codex prompt context", "codex", CODEX_PROMPT, "UserPromptSubmit", json!({"context": "the repo uses cargo"}),
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "the repo uses cargo"}})),
        ("codex stop continues", "codex", CODEX_STOP, "Stop", json!({"answer": "block", "reason": "run the tests first"}),
            json!({"decision": "block", "reason": "run the tests first"})),
        ("codex session context and a stop", "codex", CODEX_START, "SessionStart", json!({"context": "branch main", "stop": "budget spent", "message": "bye"}),
            json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch main"}, "continue": false, "stopReason": "wasm-guard: budget spent", "systemMessage": "wasm-guard: bye"})),
        ("codex compaction refused", "codex", CODEX_COMPACT, "PreCompact", json!({"answer": "block", "reason": "not now"}),
            json!({"continue": false, "stopReason": "blocked by wasm-guard: not now"})),
        // Cursor.
        ("cursor deny", "cursor", CURSOR_PRE, "PreToolUse", json!({"answer": "block", "reason": "no installs"}),
            json!({"permission": "deny", "user_message": "blocked by wasm-guard: no installs", "agent_message": "blocked by wasm-guard: no installs"})),
        // Cursor does not enforce `ask` on preToolUse: hookhost refuses instead.
        ("cursor ask is a deny", "cursor", CURSOR_PRE, "PreToolUse", json!({"answer": "ask", "reason": "sure?"}),
            json!({"permission": "deny", "user_message": "hookhost: wasm-guard: sure? asks to confirm this call, which the agent cannot ask its user on preToolUse; refused rather than run unconfirmed", "agent_message": "hookhost: wasm-guard: sure? asks to confirm this call, which the agent cannot ask its user on preToolUse; refused rather than run unconfirmed"})),
        ("cursor allow", "cursor", CURSOR_PRE, "PreToolUse", json!({"answer": "allow"}), json!({})),
        ("cursor approve", "cursor", CURSOR_PRE, "PreToolUse", json!({"answer": "approve"}), json!({"permission": "allow"})),
        ("cursor rewrite", "cursor", CURSOR_PRE, "PreToolUse", json!({"updated_input": {"command": "npm ci"}}), json!({"updated_input": {"command": "npm ci"}})),
        ("cursor shell ask", "cursor", CURSOR_SHELL, "beforeShellExecution", json!({"answer": "ask", "reason": "force push?"}),
            json!({"permission": "ask", "user_message": "wasm-guard: force push?", "agent_message": "wasm-guard: force push?"})),
        // The guard saw the MCP tool's input parsed out of its JSON string.
        ("cursor mcp input", "cursor", CURSOR_MCP, "beforeMCPExecution", json!({"answer": "block", "context_from_input": true}),
            json!({"permission": "deny", "user_message": "blocked by wasm-guard: configured", "agent_message": "blocked by wasm-guard: configured"})),
        ("cursor post context", "cursor", CURSOR_POST, "PostToolUse", json!({"context": "coverage 80%"}), json!({"additional_context": "coverage 80%"})),
        ("cursor post block is context", "cursor", CURSOR_POST, "PostToolUse", json!({"answer": "block", "reason": "a secret"}),
            json!({"additional_context": "blocked by wasm-guard: a secret"})),
        ("cursor prompt block", "cursor", CURSOR_PROMPT, "UserPromptSubmit", json!({"answer": "block", "reason": "no secrets"}),
            json!({"continue": false, "user_message": "blocked by wasm-guard: no secrets"})),
        ("cursor stop follow-up", "cursor", CURSOR_STOP, "Stop", json!({"answer": "block", "reason": "run the tests"}), json!({"followup_message": "run the tests"})),
        ("cursor session context", "cursor", CURSOR_START, "SessionStart", json!({"context": "branch main"}), json!({"additional_context": "branch main"})),
        ("cursor read deny", "cursor", CURSOR_READ, "beforeReadFile", json!({"answer": "block", "reason": "no .env"}),
            json!({"permission": "deny", "user_message": "blocked by wasm-guard: no .env", "agent_message": "blocked by wasm-guard: no .env"})),
    ];
    let project = Project::new();
    for (name, format, stdin, hookhost_event, config, expected) in cases {
        project.config(&answerer(hookhost_event, None, config));
        let reply = agent_hook(&project, format, None, stdin);
        assert_eq!(reply.json(), expected, "{name}: stderr: {}", reply.stderr);
        assert_eq!(reply.code, 0, "{name}: stderr: {}", reply.stderr);
    }
}

/// (Their tool calls are refused in `agents::a_configuration_that_does_not_load_...`.)
#[test]
fn without_a_loadable_configuration_codex_and_cursor_are_told_elsewhere() {
    let project = Project::new();
    project.config("[[hooks]]\nevent = \"PreToolUse\"\ncomand = \"true\"\n");
    // Elsewhere nothing is refused; the user is told on stderr (Cursor shows no message on
    // stop, Codex shows `systemMessage`).
    let stop = agent_hook(&project, "cursor", None, CURSOR_STOP);
    assert_eq!((stop.json(), stop.code), (json!({}), 0));
    assert!(
        stop.stderr.contains("no hook ran: could not be loaded"),
        "{}",
        stop.stderr
    );
    let stop = agent_hook(&project, "codex", None, CODEX_STOP);
    let message = stop.json()["systemMessage"].as_str().unwrap().to_string();
    assert!(
        message.contains("no hook ran: could not be loaded"),
        "{message}"
    );
    assert_eq!(stop.json().get("decision"), None);
    // An event that is not JSON: a deny where the event is named, exit 2 (a refusal to every
    // agent) where nothing is.
    let broken = agent_hook(&project, "cursor", Some("preToolUse"), "{not json");
    assert_eq!(broken.json()["permission"], "deny", "{}", broken.stderr);
    let broken = agent_hook(&project, "codex", None, "{not json");
    assert_eq!((broken.code, broken.stdout.as_str()), (2, ""));
    assert!(
        broken
            .stderr
            .contains("the Codex CLI event on stdin is not JSON"),
        "{}",
        broken.stderr
    );
}

#[test]
fn import_reports_what_codex_trusts_and_manages_and_what_cursor_refuses() {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".codex")).unwrap();
    std::fs::write(
        project.path(".codex/hooks.json"),
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}, {"type": "command", "command": "./never.sh"}]}]}}).to_string(),
    )
    .unwrap();
    // Codex's trust state: the first hook trusted, the second disabled.
    let source = project.path(".codex/hooks.json").display().to_string();
    std::fs::create_dir_all(project.path(".no-codex-home")).unwrap();
    std::fs::write(
        project.path(".no-codex-home/config.toml"),
        format!(
            "[hooks.state.\"{source}:stop:0:0\"]\ntrusted_hash = \"sha256:00ff\"\n\n[hooks.state.\"{source}:stop:0:1\"]\ntrusted_hash = \"sha256:ff00\"\nenabled = false\n"
        ),
    )
    .unwrap();
    std::fs::write(
        project.path(".no-codex-requirements.toml"),
        "allow_managed_hooks_only = true\n\n[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"python3 /enterprise/hooks/policy.py\"\n",
    )
    .unwrap();
    let dry = hookhost(&project, &["import", "--from", "codex", "--dry-run"], "");
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains(
            "command = \"./never.sh\"\nprotocol = \"codex\"\ntimeout_ms = 600000\nenabled = false\n"
        ),
        "{}",
        dry.stdout
    );
    assert!(!dry.stdout.contains("policy.py"), "{}", dry.stdout);
    for said in [
        "would write hooks.toml: 2 hooks from .codex/hooks.json, ",
        ".codex/hooks.json: Stop (group 1, hook 2): disabled in Codex (/hooks); imported with enabled = false",
        "not imported: a managed hook of requirements.toml",
        "allow_managed_hooks_only = true is not carried over",
        "Codex's per-hook trust (the hash of each definition, trusted in /hooks) is not carried over",
    ] {
        assert!(dry.stderr.contains(said), "{said} not in {}", dry.stderr);
    }
    // Into the organisation's file, the managed hooks are imported.
    let managed = project.path("managed/hooks.toml");
    let into = hookhost(
        &project,
        &[
            "import",
            "--from",
            "codex",
            "--dry-run",
            "--output",
            "managed/hooks.toml",
        ],
        "",
    );
    assert!(
        !into.stdout.contains("policy.py"),
        "only the organisation's own file takes them"
    );
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"));
    let out = command
        .args(["import", "--from", "codex", "--dry-run", "--output"])
        .arg(&managed)
        .current_dir(project.root())
        .env("HOOKHOST_MANAGED_CONFIG", &managed)
        .env("CODEX_HOME", project.path(".no-codex-home"))
        .env(
            "HOOKHOST_CODEX_REQUIREMENTS",
            project.path(".no-codex-requirements.toml"),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("command = \"python3 /enterprise/hooks/policy.py\"\nprotocol = \"codex\""),
        "{stdout}"
    );

    // Cursor rejects a whole file for an event it does not know, so nothing is imported.
    let cursor = Project::new();
    std::fs::create_dir_all(cursor.path(".cursor")).unwrap();
    std::fs::write(
        cursor.path(".cursor/hooks.json"),
        r#"{"version": 1, "hooks": {"stop": [{"command": "./a.sh"}], "beforeShellExec": [{"command": "./b.sh"}]}}"#,
    )
    .unwrap();
    let refused = hookhost(&cursor, &["import", "--dry-run"], "");
    assert_eq!(refused.code, 0, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("would write hooks.toml: 0 hooks from .cursor/hooks.json"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains(
            "not imported: Cursor rejects the whole file for the unknown event beforeShellExec"
        ),
        "{}",
        refused.stderr
    );
}

/// Every recorded Codex and Cursor event is read, reaches a guard of every event, and is
/// answered with only what its agent reads there: Codex fails a hook that answers a key it does
/// not read (and lets the action go on); Cursor reads one JSON object.
#[test]
fn every_codex_and_cursor_event_is_answered_in_what_its_agent_reads() {
    let project = Project::new();
    project.config(&answerer(
        "*",
        None,
        json!({"answer": "warn", "reason": "seen", "context": "noted"}),
    ));
    let mut seen = 0;
    for (format, event, stdin) in RECORDED {
        if !matches!(format, "codex" | "cursor") {
            continue;
        }
        let reply = agent_hook(&project, format, event, stdin);
        assert_eq!(reply.code, 0, "{stdin}: {}", reply.stderr);
        let json = reply.json();
        let name: Value = serde_json::from_str(stdin).unwrap();
        let name = name["hook_event_name"].as_str().unwrap();
        match format {
            "codex" => {
                let keys = hookhost::dialect::codex::output_keys(name);
                for key in json.as_object().into_iter().flat_map(|o| o.keys()) {
                    assert!(
                        keys.top(key),
                        "{name}: Codex does not read {key}: {}",
                        reply.stdout
                    );
                }
                if let Some(specific) = json.get("hookSpecificOutput") {
                    assert_eq!(specific["hookEventName"], name, "{}", reply.stdout);
                    for key in specific.as_object().unwrap().keys() {
                        assert!(keys.specific.contains(&key.as_str()), "{name}: {key}");
                    }
                }
            }
            _ => {
                assert!(json.is_object(), "{name}: {}", reply.stdout);
                assert_eq!(json.get("continue"), None, "{name}: {}", reply.stdout);
            }
        }
        // The warning reached the agent or stderr: no guard's answer is lost.
        assert!(
            reply.stdout.contains("wasm-guard: seen") || reply.stderr.contains("wasm-guard"),
            "{name}: {}{}",
            reply.stdout,
            reply.stderr
        );
        seen += 1;
    }
    assert_eq!(seen, 34);
}
