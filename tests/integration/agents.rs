//! `hookhost agent-hook` and `hookhost import` through the real binary, with recorded events of
//! Claude Code, Copilot CLI and Gemini CLI (the shapes of their hooks references, in
//! `recorded`), wasm and command guards, and the agents' own hook scripts (jq, grep, exit 2).
//! Codex CLI and Cursor: in these tables too, and in `agents_codex_cursor`. Longer than the
//! house's ~500 lines: one table per behaviour, a row per agent.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::recorded::*;
use crate::support::{Project, build_fixture};

/// What the binary answered: stdout, stderr, exit status.
pub(crate) struct Reply {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) code: i32,
}

impl Reply {
    /// stdout as JSON (`null` when empty).
    pub(crate) fn json(&self) -> Value {
        if self.stdout.trim().is_empty() {
            return Value::Null;
        }
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }
}

pub(crate) fn hookhost(project: &Project, args: &[&str], stdin: &str) -> Reply {
    let mut child =
        crate::support::hermetic(&mut Command::new(env!("CARGO_BIN_EXE_hookhost")), project)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Reply {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Runs `hookhost agent-hook --format FORMAT [--event EVENT]` with `stdin`, after putting the
/// project's directory in the event's `cwd`.
pub(crate) fn agent_hook(
    project: &Project,
    format: &str,
    event: Option<&str>,
    stdin: &str,
) -> Reply {
    let stdin = stdin.replace("PROJECT", &project.root().display().to_string());
    let mut args = vec!["agent-hook", "--format", format];
    if let Some(event) = event {
        args.extend(["--event", event]);
    }
    hookhost(project, &args, &stdin)
}

/// jq is how people write these hooks; the tests need it (CI installs it).
pub(crate) fn require_jq() {
    let found = Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "these tests run hook scripts that use jq: install it (apt-get install jq)"
    );
}

/// The answerer fixture as a guard of `event`, answering what `config` says.
pub(crate) fn answerer(event: &str, matcher: Option<&str>, config: Value) -> String {
    let mut table = String::new();
    for (key, value) in config.as_object().unwrap() {
        table.push_str(&format!("{key} = {}\n", toml_value(value)));
    }
    format!(
        "[[hooks]]\nname = \"wasm-guard\"\nevent = \"{event}\"\n{}wasm = '{}'\n[hooks.config]\n{table}\n",
        matcher
            .map(|m| format!("matcher = {{ exact = \"{m}\" }}\n"))
            .unwrap_or_default(),
        build_fixture("answerer").display()
    )
}

fn toml_value(value: &Value) -> String {
    match value {
        Value::Object(object) => format!(
            "{{ {} }}",
            object
                .iter()
                .map(|(k, v)| format!("{k} = {}", toml_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// One round trip: the agent, its event, hookhost's event, the wasm guard's answer, and what
/// the agent must read back.
type Case = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
    &'static str,
    Value,
    Value,
    i32,
);

#[test]
fn every_agent_reads_deny_ask_allow_rewrite_context_and_stop_in_its_own_format() {
    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        // Claude Code.
        ("claude deny", "claude", None, CLAUDE_PRE, "PreToolUse", json!({"answer": "block", "reason": "no tests on Fridays"}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "blocked by wasm-guard: no tests on Fridays"}}), 0),
        ("claude ask", "claude", None, CLAUDE_PRE, "PreToolUse", json!({"answer": "ask", "reason": "run it?"}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "wasm-guard: run it?"}}), 0),
        ("claude allow", "claude", None, CLAUDE_PRE, "PreToolUse", json!({"answer": "allow"}), Value::Null, 0),
        ("claude approved rewrite", "claude", None, CLAUDE_PRE, "PreToolUse", json!({"answer": "approve", "updated_input": {"command": "npm test -- --bail"}}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "npm test -- --bail"}}}), 0),
        ("claude permission deny", "claude", None, CLAUDE_PERMISSION, "PermissionRequest", json!({"answer": "block", "reason": "not here"}),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "blocked by wasm-guard: not here"}}}), 0),
        ("claude prompt context", "claude", None, CLAUDE_PROMPT, "UserPromptSubmit", json!({"context": "the repo uses cargo"}),
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "the repo uses cargo"}}), 0),
        ("claude post context", "claude", None, CLAUDE_POST, "PostToolUse", json!({"context": "file written"}),
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "file written"}}), 0),
        ("claude stop block", "claude", None, CLAUDE_STOP, "Stop", json!({"answer": "block", "reason": "run the tests first"}),
            json!({"decision": "block", "reason": "run the tests first"}), 0),
        ("claude stop", "claude", None, CLAUDE_PRE, "PreToolUse", json!({"stop": "budget spent", "message": "bye"}),
            json!({"continue": false, "stopReason": "wasm-guard: budget spent", "systemMessage": "wasm-guard: bye"}), 0),
        ("claude session context", "claude", None, CLAUDE_START, "SessionStart", json!({"context": "branch main"}),
            json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch main"}}), 0),
        // Copilot CLI.
        ("copilot deny", "copilot", Some("preToolUse"), COPILOT_PRE, "PreToolUse", json!({"answer": "block", "reason": "no rm"}),
            json!({"permissionDecision": "deny", "permissionDecisionReason": "blocked by wasm-guard: no rm"}), 0),
        ("copilot ask", "copilot", Some("preToolUse"), COPILOT_PRE, "PreToolUse", json!({"answer": "ask", "reason": "sure?"}),
            json!({"permissionDecision": "ask", "permissionDecisionReason": "wasm-guard: sure?"}), 0),
        ("copilot allow", "copilot", Some("preToolUse"), COPILOT_PRE, "PreToolUse", json!({"answer": "allow"}), Value::Null, 0),
        ("copilot rewrite", "copilot", Some("preToolUse"), COPILOT_PRE, "PreToolUse", json!({"updated_input": {"command": "rm -r dist"}}),
            json!({"modifiedArgs": {"command": "rm -r dist"}}), 0),
        // The wasm guard saw `toolArgs` parsed into an object.
        ("copilot post context", "copilot", Some("postToolUse"), COPILOT_POST, "PostToolUse", json!({"context_from_input": true}),
            json!({"additionalContext": "{\"command\":\"npm test\"}"}), 0),
        // Copilot CLI 1.0.102 reads this context as `additionalContext` at exit 0.
        ("copilot failure context", "copilot", Some("postToolUseFailure"), COPILOT_FAILURE, "PostToolUseFailure", json!({"context": "the port is taken"}),
            json!({"additionalContext": "the port is taken"}), 0),
        ("copilot pre context", "copilot", Some("preToolUse"), COPILOT_PRE, "PreToolUse", json!({"context": "the tests take 5 min"}),
            json!({"additionalContext": "the tests take 5 min"}), 0),
        ("copilot session context", "copilot", Some("sessionStart"), COPILOT_START, "SessionStart", json!({"context": "branch main"}),
            json!({"additionalContext": "branch main"}), 0),
        ("copilot stop block", "copilot", Some("agentStop"), COPILOT_STOP, "Stop", json!({"answer": "block", "reason": "tests are red"}),
            json!({"decision": "block", "reason": "tests are red"}), 0),
        // Gemini CLI.
        ("gemini deny", "gemini", None, GEMINI_BEFORE_TOOL, "PreToolUse", json!({"answer": "block", "reason": "no"}),
            json!({"decision": "deny", "reason": "blocked by wasm-guard: no"}), 0),
        // `gemini -p` would wait for ever for a confirmation.
        ("gemini ask", "gemini", None, GEMINI_BEFORE_TOOL, "PreToolUse", json!({"answer": "ask", "reason": "sure?"}),
            json!({"decision": "deny", "reason": "hookhost: wasm-guard: sure? asks to confirm this call, which the agent cannot ask its user on BeforeTool; refused rather than run unconfirmed"}), 0),
        // Never an empty stdout: Gemini would read stderr as the answer.
        ("gemini allow", "gemini", None, GEMINI_BEFORE_TOOL, "PreToolUse", json!({"answer": "allow"}), json!({}), 0),
        ("gemini rewrite", "gemini", None, GEMINI_BEFORE_TOOL, "PreToolUse", json!({"updated_input": {"command": "npm test -- --bail", "description": "tests", "dir_path": "."}}),
            json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "npm test -- --bail", "description": "tests", "dir_path": "."}}}), 0),
        // Gemini CLI 0.61 replaces the input with `tool_input`.
        ("gemini rewrite that drops a key", "gemini", None, GEMINI_BEFORE_TOOL, "PreToolUse", json!({"updated_input": {"command": "npm test"}}),
            json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "npm test"}}}), 0),
        ("gemini prompt context", "gemini", None, GEMINI_BEFORE_AGENT, "UserPromptSubmit", json!({"context": "branch main"}),
            json!({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "branch main"}}), 0),
        ("gemini after tool hides output", "gemini", None, GEMINI_AFTER_TOOL, "PostToolUse", json!({"answer": "block", "reason": "a secret"}),
            json!({"decision": "deny", "reason": "blocked by wasm-guard: a secret"}), 0),
        ("gemini after agent retry", "gemini", None, GEMINI_AFTER_AGENT, "Stop", json!({"answer": "block", "reason": "add a test"}),
            json!({"decision": "deny", "reason": "add a test"}), 0),
        ("gemini stop", "gemini", None, GEMINI_AFTER_AGENT, "Stop", json!({"stop": "done for today"}),
            json!({"continue": false, "stopReason": "wasm-guard: done for today"}), 0),
    ];
    let project = Project::new();
    for (name, format, event, stdin, hookhost_event, config, expected, code) in cases {
        project.config(&answerer(hookhost_event, None, config));
        let reply = agent_hook(&project, format, event, stdin);
        let got = match code {
            2 => Value::String(reply.stdout.clone()),
            _ => reply.json(),
        };
        assert_eq!(got, expected, "{name}: stderr: {}", reply.stderr);
        assert_eq!(reply.code, code, "{name}: stderr: {}", reply.stderr);
    }
}

#[test]
fn a_wasm_guard_and_a_command_guard_both_act_for_every_agent() {
    let command_guard = r#"
[[hooks]]
name = "no-rm-rf"
event = "PreToolUse"
command = '''if grep -q 'rm -rf'; then echo '{"action":"block","reason":"recursive delete"}'; else echo '{"action":"allow"}'; fi'''
"#;
    #[rustfmt::skip]
    let agents = [
        ("claude", None, "Edit", r#"{"session_id":"s","cwd":"PROJECT","hook_event_name":"PreToolUse","tool_name":"TOOL","tool_input":{"command":"COMMAND"}}"#, "Bash"),
        ("copilot", Some("preToolUse"), "edit", r#"{"sessionId":"s","timestamp":1,"cwd":"PROJECT","toolName":"TOOL","toolArgs":"{\"command\":\"COMMAND\"}"}"#, "bash"),
        ("gemini", None, "replace", r#"{"session_id":"s","cwd":"PROJECT","hook_event_name":"BeforeTool","timestamp":"t","tool_name":"TOOL","tool_input":{"command":"COMMAND"}}"#, "run_shell_command"),
        ("codex", None, "apply_patch", r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"PROJECT","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"TOOL","tool_input":{"command":"COMMAND"},"tool_use_id":"c"}"#, "Bash"),
        ("cursor", None, "Write", r#"{"conversation_id":"c","generation_id":"g","hook_event_name":"preToolUse","workspace_roots":["PROJECT"],"tool_name":"TOOL","tool_input":{"command":"COMMAND"},"tool_use_id":"t","cwd":"PROJECT"}"#, "Shell"),
    ];
    let project = Project::new();
    for (format, event, edit_tool, template, shell_tool) in agents {
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
            let stdin = template.replace("TOOL", tool).replace("COMMAND", command);
            let reply = agent_hook(&project, format, event, &stdin);
            let json = reply.json();
            let reason = json["permissionDecisionReason"]
                .as_str()
                .or(json["reason"].as_str())
                .or(json["hookSpecificOutput"]["permissionDecisionReason"].as_str())
                .or(json["agent_message"].as_str());
            assert_eq!(
                reason, blocked_by,
                "{format} {tool} {command}: {}{}",
                reply.stdout, reply.stderr
            );
            assert_eq!(reply.code, 0, "{format}: {}", reply.stderr);
        }
    }
}

#[test]
fn a_configuration_that_does_not_load_denies_tool_calls_and_says_why() {
    let project = Project::new();
    project.config("[[hooks]]\nevent = \"PreToolUse\"\ncomand = \"true\"\n");
    #[rustfmt::skip]
    let cases = [
        ("claude", None, CLAUDE_PRE, "/hookSpecificOutput/permissionDecision", "deny", "/hookSpecificOutput/permissionDecisionReason"),
        ("copilot", Some("preToolUse"), COPILOT_PRE, "/permissionDecision", "deny", "/permissionDecisionReason"),
        ("gemini", None, GEMINI_BEFORE_TOOL, "/decision", "deny", "/reason"),
        ("claude", None, CLAUDE_PERMISSION, "/hookSpecificOutput/decision/behavior", "deny", "/hookSpecificOutput/decision/message"),
        ("codex", None, CODEX_PRE, "/hookSpecificOutput/permissionDecision", "deny", "/hookSpecificOutput/permissionDecisionReason"),
        ("codex", None, CODEX_PERMISSION, "/hookSpecificOutput/decision/behavior", "deny", "/hookSpecificOutput/decision/message"),
        ("cursor", None, CURSOR_PRE, "/permission", "deny", "/agent_message"),
        // Cursor's own gates, custom events in hookhost, are refused too.
        ("cursor", None, CURSOR_SHELL, "/permission", "deny", "/agent_message"),
        ("cursor", None, CURSOR_READ, "/permission", "deny", "/agent_message"),
    ];
    for (format, event, stdin, decision, expected, reason) in cases {
        let reply = agent_hook(&project, format, event, stdin);
        let json = reply.json();
        assert_eq!(
            json.pointer(decision),
            Some(&json!(expected)),
            "{format}: {}",
            reply.stdout
        );
        let reason = json.pointer(reason).and_then(Value::as_str).unwrap();
        assert!(
            reason.starts_with("hook failed: ")
                && reason.contains("hooks.toml could not be loaded: "),
            "{reason}"
        );
        assert!(
            reason.contains("hooks.toml:1:1: hook #1: a hook needs exactly one of `command`")
                && reason.contains("(and 1 more)"),
            "{reason}"
        );
        assert!(reason.ends_with("(tool blocked by default)"), "{reason}");
    }
    // Elsewhere nothing is refused, but the user is told.
    let stop = agent_hook(&project, "claude", None, CLAUDE_STOP);
    let message = stop.json()["systemMessage"].as_str().unwrap().to_string();
    assert!(
        message.contains("no hook ran: could not be loaded"),
        "{message}"
    );
    assert_eq!(stop.json().get("decision"), None);
}

#[test]
fn an_event_that_cannot_be_read_is_refused_on_a_tool_call() {
    let project = Project::new();
    project.config(&answerer("PreToolUse", None, json!({"answer": "allow"})));
    let copilot = agent_hook(&project, "copilot", Some("preToolUse"), "{not json");
    assert_eq!(
        copilot.json()["permissionDecision"],
        "deny",
        "{}",
        copilot.stderr
    );
    assert!(
        copilot.json()["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .starts_with(
                "blocked by hookhost agent-hook: the Copilot CLI event on stdin is not JSON"
            )
    );
    // Nothing says which event this is: exit 2, which every agent reads as a refusal of a
    // tool call (exit 1 is a non-blocking error to Claude Code: the tool would run).
    let claude = agent_hook(&project, "claude", None, "{not json");
    assert_eq!((claude.code, claude.stdout.as_str()), (2, ""));
    assert!(
        claude
            .stderr
            .contains("the Claude Code event on stdin is not JSON"),
        "{}",
        claude.stderr
    );
    // A misspelt --event names no event: exit 2, which Copilot CLI reads as a deny on
    // preToolUse (it fails closed there).
    let typo = agent_hook(&project, "copilot", Some("preToolUs"), COPILOT_PRE);
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr
            .contains("unknown Copilot CLI event \"preToolUs\": did you mean preToolUse?"),
        "{}",
        typo.stderr
    );
    let unconfigured = Project::new();
    let reply = agent_hook(&unconfigured, "claude", None, CLAUDE_PRE);
    assert_eq!(
        (reply.code, reply.stdout.as_str(), reply.stderr.as_str()),
        (0, "", "")
    );
}

/// forgeflare's style of guard: jq reads the command, grep judges it, exit 2 with a JSON
/// message on stderr. `JQ_PATH` is where the agent puts the command.
pub(crate) fn guard_script(jq_path: &str) -> String {
    format!(
        r#"#!/bin/bash
command=$(jq -r '{jq_path}')
if echo "$command" | grep -Eq 'rm +-(rf|fr)'; then
  echo '{{"decision":"block","reason":"destructive command detected"}}' >&2
  exit 2
fi
exit 0
"#
    )
}

pub(crate) fn write_script(project: &Project, relative: &str, text: &str) {
    let path = project.path(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// What the script itself prints on stderr for `stdin`: what the agent would read.
pub(crate) fn script_stderr(project: &Project, relative: &str, stdin: &str) -> String {
    let mut child = Command::new(project.path(relative))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8(out.stderr).unwrap().trim().to_string()
}

#[test]
fn imported_hooks_block_as_their_agents_would() {
    require_jq();
    #[rustfmt::skip]
    let agents = [
        ("claude", ".claude/hooks/guard.sh", ".tool_input.command", ".claude/settings.json",
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh", "timeout": 10}]}]}}).to_string(),
            None, CLAUDE_PRE.replace("npm test", "rm -rf /"), "/hookSpecificOutput/permissionDecision", "deny", "/hookSpecificOutput/permissionDecisionReason"),
        ("copilot", ".github/hooks/guard.sh", ".toolArgs | fromjson | .command", ".github/hooks/guard.json",
            json!({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./.github/hooks/guard.sh", "timeoutSec": 10, "matcher": "bash|edit"}]}}).to_string(),
            Some("preToolUse"), COPILOT_PRE.to_string(), "/permissionDecision", "deny", "/permissionDecisionReason"),
        ("gemini", ".gemini/hooks/guard.sh", ".tool_input.command", ".gemini/settings.json",
            json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"name": "guard", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh", "timeout": 10000}]}]}}).to_string(),
            None, GEMINI_BEFORE_TOOL.replace("npm test", "rm -rf /"), "/decision", "deny", "/reason"),
        ("codex", ".codex/hooks/guard.sh", ".tool_input.command", ".codex/hooks.json",
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ".codex/hooks/guard.sh", "timeout": 10, "statusMessage": "Checking Bash command"}]}]}}).to_string(),
            None, CODEX_PRE.replace("npm test", "rm -rf /"), "/hookSpecificOutput/permissionDecision", "deny", "/hookSpecificOutput/permissionDecisionReason"),
        ("codex", ".codex/hooks/guard.sh", ".tool_input.command", ".codex/config.toml",
            "model = \"gpt-5.5\"\n\n[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \".codex/hooks/guard.sh\"\ntimeout = 10\n".to_string(),
            None, CODEX_PRE.replace("npm test", "rm -rf /"), "/hookSpecificOutput/permissionDecision", "deny", "/hookSpecificOutput/permissionDecisionReason"),
        ("cursor", ".cursor/hooks/guard.sh", ".tool_input.command", ".cursor/hooks.json",
            json!({"version": 1, "hooks": {"preToolUse": [{"command": ".cursor/hooks/guard.sh", "matcher": "Shell", "timeout": 10, "failClosed": true}]}}).to_string(),
            None, CURSOR_PRE.replace("npm install", "rm -rf /"), "/permission", "deny", "/agent_message"),
    ];
    for (format, script, jq_path, settings, text, event, stdin, decision, expected, reason) in
        agents
    {
        let project = Project::new();
        write_script(&project, script, &guard_script(jq_path));
        std::fs::create_dir_all(project.path(settings).parent().unwrap()).unwrap();
        std::fs::write(project.path(settings), text).unwrap();

        let import = hookhost(&project, &["import", "--from", format], "");
        assert_eq!(import.code, 0, "{format}: {}", import.stderr);
        assert!(
            import.stderr.starts_with("wrote hooks.toml: 1 hook from "),
            "{}",
            import.stderr
        );
        let toml = project.read("hooks.toml");
        assert!(toml.contains(&format!("protocol = \"{format}\"")), "{toml}");

        // Fired through the imported hooks.toml, as the agent would fire it.
        let stdin = stdin.replace("PROJECT", &project.root().display().to_string());
        let reply = agent_hook(&project, format, event, &stdin);
        let answer = reply.json();
        assert_eq!(
            answer.pointer(decision),
            Some(&json!(expected)),
            "{format}: {}{}",
            reply.stdout,
            reply.stderr
        );
        // The reason the agent reads: the script's own stderr, which its agent would have read,
        // named by the hook that said it.
        let name = if format == "gemini" {
            "guard"
        } else {
            "guard.sh"
        };
        let said = script_stderr(&project, script, &stdin);
        assert_eq!(
            said,
            r#"{"decision":"block","reason":"destructive command detected"}"#
        );
        assert_eq!(
            answer.pointer(reason),
            Some(&json!(format!("blocked by {name}: {said}"))),
            "{format}"
        );

        // A harmless call goes through (Cursor reads `{}` as no objection; Gemini gets `{}`
        // too, since it reads stderr as the hook's answer when stdout is empty).
        let harmless = stdin.replace("rm -rf", "ls -l");
        let reply = agent_hook(&project, format, event, &harmless);
        let nothing = if format == "cursor" || format == "gemini" {
            json!({})
        } else {
            Value::Null
        };
        assert_eq!(
            (reply.code, reply.json()),
            (0, nothing),
            "{format}: {}",
            reply.stderr
        );
    }
}

#[test]
fn import_never_replaces_a_file_without_force_and_dry_run_writes_nothing() {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".claude")).unwrap();
    std::fs::write(
        project.path(".claude/settings.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}, {"type": "prompt", "prompt": "done?"}]}]}}"#,
    )
    .unwrap();
    let dry = hookhost(&project, &["import", "--dry-run"], "");
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stdout.contains("event = \"Stop\"\ncommand = \"./stop.sh\"\nprotocol = \"claude\"\ntimeout_ms = 600000\n"), "{}", dry.stdout);
    assert!(
        dry.stderr
            .contains("would write hooks.toml: 1 hook from .claude/settings.json"),
        "{}",
        dry.stderr
    );
    assert!(
        dry.stderr.contains("not imported: a `prompt` hook"),
        "{}",
        dry.stderr
    );
    assert!(!project.path("hooks.toml").exists());

    std::fs::write(project.path("hooks.toml"), "# mine\n").unwrap();
    let refused = hookhost(&project, &["import"], "");
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("hooks.toml already exists; pass --force to replace it"),
        "{}",
        refused.stderr
    );
    assert_eq!(project.read("hooks.toml"), "# mine\n");
    let forced = hookhost(&project, &["import", "--force"], "");
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(project.read("hooks.toml").contains("./stop.sh"));
    // The script is not there yet: check says so rather than let the hook fail at every call.
    let check = hookhost(&project, &["check"], "");
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    assert!(
        check.stderr.contains("stop.sh, which does not exist"),
        "{}",
        check.stderr
    );
    std::fs::write(project.path("stop.sh"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(
        project.path("stop.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let check = hookhost(&project, &["check"], "");
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);

    let nothing = hookhost(&Project::new(), &["import"], "");
    assert_eq!(nothing.code, 1);
    assert!(
        nothing.stderr.contains("no agent hook settings found in"),
        "{}",
        nothing.stderr
    );
}
