//! Each agent's settings, imported: the hooks.toml written, and the notes.
//!
//! Longer than 400 lines: each agent's settings imported, one test per agent and shape, sharing
//! the expected hooks.toml's helpers.

use serde_json::json;

use super::{Found, claude, codex, copilot, cursor, gemini, name_hooks, write_toml};
use crate::Config;

/// The hooks.toml of one settings file (validated), and its notes.
fn imported(mut found: Found) -> (String, Vec<String>) {
    name_hooks(&mut found.hooks);
    let toml = write_toml(&found.hooks, &["settings".to_string()]);
    if let Err(error) = Config::parse(&toml, "hooks.toml") {
        panic!("{error}\n{toml}");
    }
    // The comments say where each hook came from; the tests look at the keys.
    let keys: Vec<&str> = toml
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    (keys.join("\n"), found.notes)
}

#[test]
fn hookhosts_own_entries_are_never_imported() {
    for command in [
        "hookhost agent-hook --format claude",
        "/usr/local/bin/hookhost agent-hook --format gemini",
        "hookhost-client --format claude",
        "HOOKHOST_LOG=debug ~/.cargo/bin/hookhost-client --format copilot --event preToolUse",
        "bash -c 'hookhost agent-hook --format codex'",
    ] {
        assert!(super::entry::is_hookhost(command), "{command}");
    }
    for command in ["hookhost check", "./hooks/hookhost-clientele.sh", "lint"] {
        assert!(!super::entry::is_hookhost(command), "{command}");
    }
}

#[test]
fn claude_settings() {
    let settings = json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", "timeout": 30, "if": "Bash(rm *)"},
                {"type": "http", "url": "https://example.com/hook"},
            ]},
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "lint", "args": ["--file", "a b"]}]},
            {"matcher": "*", "hooks": [{"type": "command", "command": "hookhost agent-hook --format claude"}]},
        ],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "inject.sh"}]}],
        "Stop": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "log.sh", "async": true}]}],
        "ConfigChange": [{"matcher": "user_settings", "hooks": [{"type": "command", "command": "audit.sh"}]}],
        "PreToolUSE": [{"hooks": [{"type": "command", "command": "typo.sh"}]}],
    }});
    let (toml, notes) = imported(claude::hooks(&settings, ".claude/settings.json"));
    assert_eq!(
        toml,
        r#"[[hooks]]
name = "audit.sh"
event = "ConfigChange"
command = "audit.sh"
protocol = "claude"
timeout_ms = 600000
[[hooks]]
name = "block-rm.sh"
event = "PreToolUse"
matcher = "Bash"
command = "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh"
protocol = "claude"
timeout_ms = 30000
on_failure = "allow"           # its agent goes on when it fails or times out
[[hooks]]
name = "claude-PreToolUse"
event = "PreToolUse"
matcher = "Edit|Write"
command = "lint --file 'a b'"
protocol = "claude"
timeout_ms = 600000
on_failure = "allow"           # its agent goes on when it fails or times out
[[hooks]]
name = "log.sh"
event = "Stop"
command = "log.sh"
protocol = "claude"
timeout_ms = 600000
async = true
[[hooks]]
name = "inject.sh"
event = "UserPromptSubmit"
command = "inject.sh"
protocol = "claude"
timeout_ms = 30000"#
    );
    #[rustfmt::skip]
    let expected = [
        "ConfigChange matcher \"user_settings\": the matcher is not carried over",
        "PreToolUse matcher \"Bash\" (group 1, hook 1): the condition `if: Bash(rm *)` is not carried over",
        "PreToolUse matcher \"Bash\" (group 1, hook 2): not imported: a `http` hook",
        "(group 3, hook 1): skipped: it runs hookhost itself",
        "unknown Claude Code event \"PreToolUSE\": did you mean PreToolUse?",
        "Stop matcher \"ignored\" (group 1, hook 1): async: runs in the background",
    ];
    for text in expected {
        assert!(
            notes.iter().any(|n| n.contains(text)),
            "{text} not in {notes:#?}"
        );
    }
    assert_eq!(notes.len(), expected.len(), "{notes:#?}");
}

#[test]
fn claude_disable_all_hooks_keeps_them_off() {
    let settings = json!({"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}});
    let (toml, notes) = imported(claude::hooks(&settings, "s"));
    assert!(toml.ends_with("enabled = false"), "{toml}");
    assert!(notes[0].contains("disableAllHooks is true"));
}

#[test]
fn copilot_hook_files() {
    let settings = json!({"version": 1, "hooks": {
        "preToolUse": [
            {"type": "command", "bash": "./scripts/check.sh", "powershell": "./scripts/check.ps1", "cwd": ".", "env": {"LOG_LEVEL": "INFO", "HOME_DIR": "$HOME"}, "timeoutSec": 10, "matcher": "bash|edit"},
            {"type": "command", "powershell": "./only.ps1"},
            {"exec": "node", "args": ["guard.js", "--strict"]},
        ],
        "agentStop": [{"type": "command", "command": "./stop.sh", "matcher": "x"}],
        "PreToolUse": [{"type": "command", "bash": "./claude-style.sh"}],
        "sessionStart": [{"type": "prompt", "prompt": "hello"}],
    }});
    let (toml, notes) = imported(copilot::hooks(&settings, ".github/hooks/guard.json"));
    assert_eq!(
        toml,
        r#"[[hooks]]
name = "stop.sh"
event = "Stop"
command = "./stop.sh"
protocol = "copilot"
timeout_ms = 30000
[[hooks]]
name = "check.sh"
event = "PreToolUse"
matcher = { regex = "^(?:bash|edit)$" }
command = "./scripts/check.sh"
protocol = "copilot"
timeout_ms = 10000
on_failure = "allow"           # its agent goes on when it fails or times out
cwd = "."
env = { "HOME_DIR" = "$HOME", "LOG_LEVEL" = "INFO" }
[[hooks]]
name = "guard.js"
event = "PreToolUse"
command = "node guard.js --strict"
protocol = "copilot"
timeout_ms = 30000
on_failure = "allow"           # its agent goes on when it fails or times out"#
    );
    #[rustfmt::skip]
    let expected = [
        "the matcher \"x\" is left out: Copilot CLI matches nothing on agentStop",
        "PreToolUse: not imported: under this PascalCase name",
        "env HOME_DIR = \"$HOME\" is passed literally",
        "preToolUse (hook 2): not imported: only a `powershell` command",
        "sessionStart (hook 1): not imported: a `prompt` hook",
    ];
    for text in expected {
        assert!(
            notes.iter().any(|n| n.contains(text)),
            "{text} not in {notes:#?}"
        );
    }
    assert_eq!(notes.len(), expected.len(), "{notes:#?}");
    let (_, notes) = imported(copilot::hooks(
        &json!({"version": 2, "hooks": {}}),
        "f.json",
    ));
    assert!(notes[0].contains("`version` is 2, not 1"), "{notes:?}");
}

#[test]
fn gemini_settings() {
    let settings = json!({
        "hooksConfig": {"enabled": true, "disabled": ["noisy"]},
        "hooks": {
            "BeforeTool": [{"matcher": "write_file|replace", "sequential": true, "hooks": [
                {"name": "security-check", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/security.sh", "timeout": 5000},
                {"name": "noisy", "type": "command", "command": "noisy.sh"},
            ]}, {"matcher": "(?<=x)y", "hooks": [{"name": "security-check", "command": "look.sh"}]}],
            "SessionStart": [{"matcher": "startup", "hooks": [{"command": "ctx.sh"}]}],
            "AfterAgent": [{"matcher": "x", "hooks": [{"command": "retry.sh", "timeout": 7200000}]}],
            "enabled": true,
        }
    });
    let (toml, notes) = imported(gemini::hooks(&settings, ".gemini/settings.json"));
    assert_eq!(
        toml,
        r#"[[hooks]]
name = "retry.sh"
event = "Stop"
command = "retry.sh"
protocol = "gemini"
timeout_ms = 3600000
[[hooks]]
name = "security-check"
event = "PreToolUse"
matcher = { regex = "write_file|replace" }
command = "$GEMINI_PROJECT_DIR/.gemini/hooks/security.sh"
protocol = "gemini"
timeout_ms = 5000
on_failure = "allow"           # its agent goes on when it fails or times out
[[hooks]]
name = "noisy"
event = "PreToolUse"
matcher = { regex = "write_file|replace" }
command = "noisy.sh"
protocol = "gemini"
timeout_ms = 60000
on_failure = "allow"           # its agent goes on when it fails or times out
enabled = false
[[hooks]]
name = "security-check (2)"
event = "PreToolUse"
matcher = { exact = "(?<=x)y" }
command = "look.sh"
protocol = "gemini"
timeout_ms = 60000
on_failure = "allow"           # its agent goes on when it fails or times out
[[hooks]]
name = "ctx.sh"
event = "SessionStart"
matcher = { exact = "startup" }
command = "ctx.sh"
protocol = "gemini"
timeout_ms = 60000"#
    );
    #[rustfmt::skip]
    let expected = [
        "AfterAgent matcher \"x\" (group 1): the matcher \"x\" is left out",
        "timeout of 7200000 ms is capped at hookhost's maximum, 3600000 ms",
        "\"(?<=x)y\" is not a regular expression hookhost reads; compared as an exact tool name",
        "hooks.enabled is not a list of hook groups",
    ];
    for text in expected {
        assert!(
            notes.iter().any(|n| n.contains(text)),
            "{text} not in {notes:#?}"
        );
    }
    assert_eq!(notes.len(), expected.len(), "{notes:#?}");
}

#[test]
fn codex_hooks_json_and_config_toml() {
    let settings = json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 .codex/hooks/guard.py", "timeout": 30, "statusMessage": "Checking"}]},
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "lint.sh"}]},
            {"matcher": "^Wr.*", "hooks": [{"type": "command", "command": "regex.sh"}]},
            {"matcher": "[", "hooks": [{"type": "command", "command": "broken.sh"}]},
        ],
        "PermissionRequest": [{"hooks": [{"type": "prompt", "prompt": "ok?"}, {"type": "command", "command": "approve.sh", "async": true}]}],
        "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "ctx.sh"}]}],
        "Stop": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "hookhost agent-hook --format codex"}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "bye.sh", "timeout": 30}]}],
        "PostCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": "after.sh"}]}],
        "OnError": [{"hooks": [{"type": "command", "command": "x.sh"}]}],
        "state": {"/p/.codex/hooks.json:session_start:0:0": {"trusted_hash": "sha256:ab", "enabled": false}},
    }});
    let state = codex::TrustState {
        file: Some("/home/u/.codex/config.toml".into()),
        entries: serde_json::from_value(json!({
            "/p/.codex/hooks.json:pre_tool_use:0:0": {"trusted_hash": "sha256:01"},
            "/p/.codex/hooks.json:pre_tool_use:1:0": {"trusted_hash": "sha256:02"},
            "/p/.codex/hooks.json:pre_tool_use:2:0": {"trusted_hash": "sha256:03"},
            "/p/.codex/hooks.json:permission_request:0:1": {"trusted_hash": "sha256:04"},
            "/p/.codex/hooks.json:session_start:0:0": {"trusted_hash": "sha256:05", "enabled": false},
            "/p/.codex/hooks.json:session_end:0:0": {"trusted_hash": "sha256:06"},
        }))
        .unwrap(),
    };
    let found = codex::hooks(
        &settings,
        ".codex/hooks.json",
        "/p/.codex/hooks.json",
        codex::CodexFile::Layer,
        &state,
    );
    let (toml, notes) = imported(found);
    assert_eq!(
        toml,
        r#"[[hooks]]
name = "approve.sh"
event = "PermissionRequest"
command = "approve.sh"
protocol = "codex"
timeout_ms = 600000
enabled = false
[[hooks]]
name = "after.sh"
event = "PostCompact"
command = "after.sh"
protocol = "codex"
timeout_ms = 600000
[[hooks]]
name = "guard.py"
event = "PreToolUse"
matcher = "Bash"
command = "python3 .codex/hooks/guard.py"
protocol = "codex"
timeout_ms = 30000
on_failure = "allow"           # its agent goes on when it fails or times out
[[hooks]]
name = "lint.sh"
event = "PreToolUse"
matcher = "Edit|Write|apply_patch"
command = "lint.sh"
protocol = "codex"
timeout_ms = 600000
on_failure = "allow"           # its agent goes on when it fails or times out
[[hooks]]
name = "regex.sh"
event = "PreToolUse"
matcher = { regex = "(?:^Wr.*)|^apply_patch$" }
command = "regex.sh"
protocol = "codex"
timeout_ms = 600000
on_failure = "allow"           # its agent goes on when it fails or times out
[[hooks]]
name = "bye.sh"
event = "SessionEnd"
command = "bye.sh"
protocol = "codex"
timeout_ms = 3000
[[hooks]]
name = "ctx.sh"
event = "SessionStart"
matcher = "startup|resume"
command = "ctx.sh"
protocol = "codex"
timeout_ms = 600000
enabled = false"#
    );
    #[rustfmt::skip]
    let expected = [
        "OnError\"", // unknown event
        "PreToolUse matcher \"Edit|Write\": the matcher also names apply_patch",
        "PreToolUse matcher \"^Wr.*\": the matcher also reaches apply_patch",
        "PreToolUse matcher \"[\": not imported: ",
        "(group 1, hook 1): not imported: a `prompt` hook",
        "(group 1, hook 2): async: Codex skips async hooks",
        "PostCompact matcher \"auto\": the matcher on the compaction's trigger is not carried over",
        "SessionEnd (group 1, hook 1): timeout of 30 s is capped at 3 s",
        "SessionStart matcher \"startup|resume\" (group 1, hook 1): disabled in Codex (/hooks)",
        "PostCompact matcher \"auto\" (group 1, hook 1): not trusted in Codex (/hooks)",
        "Stop matcher \"ignored\" (group 1, hook 1): skipped: it runs hookhost itself",
        "Codex's per-hook trust (the hash of each definition, trusted in /hooks) is not carried over",
    ];
    for text in expected {
        assert!(
            notes.iter().any(|n| n.contains(text)),
            "{text} not in {notes:#?}"
        );
    }
    assert_eq!(notes.len(), expected.len(), "{notes:#?}");
}

#[test]
fn codex_requirements_are_the_organisations() {
    let requirements = json!({
        "allow_managed_hooks_only": true,
        "features": {"hooks": true},
        "hooks": {
            "managed_dir": "/enterprise/hooks",
            "PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "python3 /enterprise/hooks/policy.py", "timeout": 30}]}],
        },
    });
    let state = codex::TrustState::default();
    let project = codex::hooks(
        &requirements,
        "/etc/codex/requirements.toml",
        "/etc/codex/requirements.toml",
        codex::CodexFile::Requirements {
            into_managed: false,
        },
        &state,
    );
    let (toml, notes) = imported(project);
    assert_eq!(toml, "");
    assert_eq!(notes.len(), 2, "{notes:#?}");
    assert!(notes[0].contains("allow_managed_hooks_only = true is not carried over: its hookhost equivalent is managed_only = true"));
    assert!(notes[1].contains("PreToolUse matcher \"^Bash$\" (group 1, hook 1): not imported: a managed hook of requirements.toml"), "{notes:#?}");
    let managed = codex::hooks(
        &requirements,
        "/etc/codex/requirements.toml",
        "/etc/codex/requirements.toml",
        codex::CodexFile::Requirements { into_managed: true },
        &state,
    );
    let (toml, _) = imported(managed);
    assert!(toml.contains("matcher = { regex = \"^Bash$\" }\ncommand = \"python3 /enterprise/hooks/policy.py\"\nprotocol = \"codex\""), "{toml}");
}

#[test]
fn cursor_hooks_json() {
    let settings = json!({"version": 1, "hooks": {
        "preToolUse": [
            {"command": ".cursor/hooks/guard.sh", "matcher": "Shell|Write", "timeout": 10, "failClosed": true},
            {"type": "prompt", "prompt": "safe?"},
        ],
        "beforeShellExecution": [{"command": ".cursor/hooks/net.sh", "matcher": "curl|wget"}],
        "beforeSubmitPrompt": [{"command": "audit.sh", "matcher": "Nope"}],
        "stop": [{"command": "./again.sh", "loop_limit": 10}],
        "subagentStart": [{"command": "sub.sh", "matcher": "explore", "failClosed": true}],
        "afterFileEdit": [{"command": "hookhost agent-hook --format cursor"}],
    }});
    let (toml, notes) = imported(cursor::hooks(&settings, ".cursor/hooks.json"));
    assert_eq!(
        toml,
        r#"[[hooks]]
name = "net.sh"
event = "beforeShellExecution"
command = ".cursor/hooks/net.sh"
protocol = "cursor"
timeout_ms = 60000
[[hooks]]
name = "audit.sh"
event = "UserPromptSubmit"
command = "audit.sh"
protocol = "cursor"
timeout_ms = 60000
enabled = false
[[hooks]]
name = "guard.sh"
event = "PreToolUse"
matcher = { regex = "Shell|Write" }
command = ".cursor/hooks/guard.sh"
protocol = "cursor"
timeout_ms = 10000
on_failure = "block"           # its agent blocked the action when it failed (failClosed)
[[hooks]]
name = "again.sh"
event = "Stop"
command = "./again.sh"
protocol = "cursor"
timeout_ms = 60000
[[hooks]]
name = "sub.sh"
event = "SubagentStart"
matcher = { regex = "explore" }
command = "sub.sh"
protocol = "cursor"
timeout_ms = 60000"#
    );
    #[rustfmt::skip]
    let expected = [
        "afterFileEdit (hook 1): skipped: it runs hookhost itself",
        "beforeShellExecution (hook 1): the matcher \"curl|wget\" is not carried over",
        "beforeSubmitPrompt (hook 1): the matcher \"Nope\" never matches \"UserPromptSubmit\"",
        "preToolUse (hook 2): not imported: a `prompt` hook",
        "stop (hook 1): loop_limit 10 is Cursor's own",
        "subagentStart (hook 1): failClosed is not carried over",
    ];
    for text in expected {
        assert!(
            notes.iter().any(|n| n.contains(text)),
            "{text} not in {notes:#?}"
        );
    }
    assert_eq!(notes.len(), expected.len(), "{notes:#?}");
    let (_, notes) = imported(cursor::hooks(
        &json!({"version": 1, "hooks": {"stop": [{"command": "a"}], "beforeShellExec": [{"command": "b"}]}}),
        ".cursor/hooks.json",
    ));
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].contains(
            "not imported: Cursor rejects the whole file for the unknown event beforeShellExec"
        ),
        "{notes:?}"
    );
}
