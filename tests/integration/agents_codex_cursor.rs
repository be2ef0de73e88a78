//! Codex CLI and Cursor through the real binary: `hookhost agent-hook --format codex|cursor` on
//! their recorded events (`recorded`) with wasm and command guards, a configuration that does
//! not load, and `hookhost import` of `.codex/hooks.json`, `.codex/config.toml` and
//! `.cursor/hooks.json` with the agents' own hook scripts (jq, grep, exit 2).

use serde_json::{Value, json};

use crate::agents::{
    agent_hook, answerer, guard_script, hookhost, require_jq, script_stderr, write_script,
};
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

#[test]
fn a_wasm_guard_and_a_command_guard_both_act_under_codex_and_cursor() {
    let command_guard = r#"
[[hooks]]
name = "no-rm-rf"
event = "PreToolUse"
command = '''if grep -q 'rm -rf'; then echo '{"action":"block","reason":"recursive delete"}'; else echo '{"action":"allow"}'; fi'''
"#;
    #[rustfmt::skip]
    let agents = [
        ("codex", "apply_patch", CODEX_PRE, "Bash", "/hookSpecificOutput/permissionDecisionReason", Value::Null),
        ("cursor", "Write", CURSOR_PRE, "Shell", "/agent_message", json!({})),
    ];
    let project = Project::new();
    for (format, edit_tool, template, shell_tool, reason, nothing) in agents {
        project.config(&format!(
            "{}{command_guard}",
            answerer(
                "PreToolUse",
                Some(edit_tool),
                json!({"answer": "block", "reason": "edits are frozen"})
            )
        ));
        for (tool, command, blocked_by) in [
            (
                edit_tool,
                "x",
                Some("blocked by wasm-guard: edits are frozen"),
            ),
            (
                shell_tool,
                "rm -rf /",
                Some("blocked by no-rm-rf: recursive delete"),
            ),
            (shell_tool, "ls", None),
        ] {
            let stdin = template
                .replace(
                    &format!("\"tool_name\":\"{shell_tool}\""),
                    &format!("\"tool_name\":\"{tool}\""),
                )
                .replace("npm install", command)
                .replace("npm test", command);
            let reply = agent_hook(&project, format, None, &stdin);
            let json = reply.json();
            match blocked_by {
                Some(expected) => assert_eq!(
                    json.pointer(reason).and_then(Value::as_str),
                    Some(expected),
                    "{format} {tool} {command}: {}{}",
                    reply.stdout,
                    reply.stderr
                ),
                None => assert_eq!(json, nothing, "{format} {tool}: {}", reply.stderr),
            }
            assert_eq!(reply.code, 0, "{format}: {}", reply.stderr);
        }
    }
}

#[test]
fn a_configuration_that_does_not_load_denies_codex_and_cursor_tool_calls() {
    let project = Project::new();
    project.config("[[hooks]]\nevent = \"PreToolUse\"\ncomand = \"true\"\n");
    #[rustfmt::skip]
    let cases = [
        ("codex", CODEX_PRE, "/hookSpecificOutput/permissionDecision", "/hookSpecificOutput/permissionDecisionReason"),
        ("codex", CODEX_PERMISSION, "/hookSpecificOutput/decision/behavior", "/hookSpecificOutput/decision/message"),
        ("cursor", CURSOR_PRE, "/permission", "/agent_message"),
        // Cursor's own gates, custom events in hookhost, are refused too.
        ("cursor", CURSOR_SHELL, "/permission", "/agent_message"),
        ("cursor", CURSOR_READ, "/permission", "/agent_message"),
    ];
    for (format, stdin, decision, reason) in cases {
        let reply = agent_hook(&project, format, None, stdin);
        let json = reply.json();
        assert_eq!(
            json.pointer(decision),
            Some(&json!("deny")),
            "{format}: {}",
            reply.stdout
        );
        let reason = json.pointer(reason).and_then(Value::as_str).unwrap();
        assert!(
            reason.starts_with("hook failed: ")
                && reason
                    .contains("hooks.toml:1:1: hook #1: a hook needs exactly one of `command`")
                && reason.ends_with("(tool blocked by default)"),
            "{reason}"
        );
    }
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
    // An event that is not JSON: a deny where the event is named, exit 1 where nothing is.
    let broken = agent_hook(&project, "cursor", Some("preToolUse"), "{not json");
    assert_eq!(broken.json()["permission"], "deny", "{}", broken.stderr);
    let broken = agent_hook(&project, "codex", None, "{not json");
    assert_eq!((broken.code, broken.stdout.as_str()), (1, ""));
    assert!(
        broken
            .stderr
            .contains("the Codex CLI event on stdin is not JSON"),
        "{}",
        broken.stderr
    );
}

#[test]
fn imported_codex_and_cursor_hooks_block_as_their_agents_would() {
    require_jq();
    #[rustfmt::skip]
    let agents = [
        ("codex", ".codex/hooks/guard.sh", ".codex/hooks.json",
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ".codex/hooks/guard.sh", "timeout": 10, "statusMessage": "Checking Bash command"}]}]}}).to_string(),
            CODEX_PRE, "/hookSpecificOutput/permissionDecision", "/hookSpecificOutput/permissionDecisionReason", Value::Null),
        ("codex", ".codex/hooks/guard.sh", ".codex/config.toml",
            "model = \"gpt-5.5\"\n\n[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \".codex/hooks/guard.sh\"\ntimeout = 10\n".to_string(),
            CODEX_PRE, "/hookSpecificOutput/permissionDecision", "/hookSpecificOutput/permissionDecisionReason", Value::Null),
        ("cursor", ".cursor/hooks/guard.sh", ".cursor/hooks.json",
            json!({"version": 1, "hooks": {"preToolUse": [{"command": ".cursor/hooks/guard.sh", "matcher": "Shell", "timeout": 10, "failClosed": true}]}}).to_string(),
            CURSOR_PRE, "/permission", "/agent_message", json!({})),
    ];
    for (format, script, settings, text, recorded, decision, reason, nothing) in agents {
        let project = Project::new();
        write_script(&project, script, &guard_script(".tool_input.command"));
        std::fs::create_dir_all(project.path(settings).parent().unwrap()).unwrap();
        std::fs::write(project.path(settings), text).unwrap();

        let import = hookhost(&project, &["import", "--from", format], "");
        assert_eq!(import.code, 0, "{format}: {}", import.stderr);
        assert!(
            import
                .stderr
                .starts_with(&format!("wrote hooks.toml: 1 hook from {settings}\n")),
            "{}",
            import.stderr
        );
        let toml = project.read("hooks.toml");
        assert!(toml.contains(&format!("protocol = \"{format}\"")), "{toml}");

        // Fired through the imported hooks.toml, as the agent would fire it.
        let stdin = recorded
            .replace("npm test", "rm -rf /")
            .replace("npm install", "rm -rf /")
            .replace("PROJECT", &project.root().display().to_string());
        let reply = agent_hook(&project, format, None, &stdin);
        let answer = reply.json();
        assert_eq!(
            answer.pointer(decision),
            Some(&json!("deny")),
            "{format}: {}{}",
            reply.stdout,
            reply.stderr
        );
        // The reason the agent reads: the script's own stderr, which its agent would have read.
        let said = script_stderr(&project, script, &stdin);
        assert_eq!(
            answer.pointer(reason),
            Some(&json!(format!("blocked by guard.sh: {said}"))),
            "{format}"
        );

        // A harmless call goes through.
        let harmless = stdin.replace("rm -rf", "ls -l");
        let reply = agent_hook(&project, format, None, &harmless);
        assert_eq!(
            (reply.json(), reply.code),
            (nothing, 0),
            "{format}: {}",
            reply.stderr
        );
    }
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
