//! What a user tries is what the agent does: `fire`, `replay` and `agent-hook` give a script
//! written for an agent the variables that agent gives it (`CLAUDE_PROJECT_DIR`,
//! `HOOKHOST_AGENT`), and `check` says when a hook's script cannot be found, before a guard that
//! fails open allows everything in silence.

use std::os::unix::fs::PermissionsExt as _;
use std::process::Command;

use crate::agents::{Reply, hookhost};
use crate::support::Project;

fn all(out: &Reply) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

/// A Claude Code project whose PreToolUse guard is a script named by `$CLAUDE_PROJECT_DIR`,
/// as Claude Code's documentation writes it: it denies `rm -rf` (exit 2) and notes which
/// agent it ran under.
fn claude_project() -> Project {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".claude/hooks")).unwrap();
    std::fs::write(
        project.path(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/deny-destructive.sh"}
        ]}]}}"#,
    )
    .unwrap();
    let script = project.path(".claude/hooks/deny-destructive.sh");
    std::fs::write(
        &script,
        "#!/bin/bash\n\
         echo \"$HOOKHOST_AGENT\" >> \"$CLAUDE_PROJECT_DIR/agents.txt\"\n\
         if grep -q 'rm -rf'; then echo 'destructive command' >&2; exit 2; fi\n\
         exit 0\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    project
}

const RM_RF: &str = r#"{"command":"rm -rf /"}"#;

#[test]
fn an_imported_guard_blocks_under_fire_replay_and_agent_hook_alike() {
    let project = claude_project();
    let out = hookhost(&project, &["import"], "");
    assert_eq!(out.code, 0, "{}", all(&out));
    let out = hookhost(&project, &["check"], "");
    assert_eq!(out.code, 0, "{}", all(&out));

    let out = hookhost(
        &project,
        &["fire", "PreToolUse", "--tool", "Bash", "--input", RM_RF],
        "",
    );
    assert_eq!(out.code, 2, "{}", all(&out));
    assert!(
        all(&out).contains("=> BLOCKED: blocked by "),
        "{}",
        all(&out)
    );
    assert!(all(&out).contains("destructive command"), "{}", all(&out));
    let out = hookhost(
        &project,
        &[
            "fire",
            "PreToolUse",
            "--tool",
            "Bash",
            "--input",
            r#"{"command":"ls"}"#,
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", all(&out));

    std::fs::write(
        project.path("session.jsonl"),
        format!("{{\"tool\": \"Bash\", \"input\": {RM_RF}}}\n"),
    )
    .unwrap();
    let out = hookhost(&project, &["replay", "session.jsonl"], "");
    assert!(
        all(&out).contains("line 1: Bash {\"command\":\"rm -rf /\"}\n    blocked by deny-destructive.sh: destructive command"),
        "{}",
        all(&out)
    );

    let event = serde_json::json!({
        "hook_event_name": "PreToolUse",
        "cwd": project.root(),
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    });
    let out = hookhost(
        &project,
        &["agent-hook", "--format", "claude"],
        &event.to_string(),
    );
    assert_eq!(out.code, 0, "{}", all(&out));
    assert!(
        all(&out).contains(r#""permissionDecision":"deny""#),
        "{}",
        all(&out)
    );
    // Every run saw the agent its protocol belongs to.
    assert_eq!(
        project.read("agents.txt"),
        "claude\nclaude\nclaude\nclaude\n"
    );
}

#[test]
fn the_callers_own_project_directory_wins() {
    let project = claude_project();
    hookhost(&project, &["import"], "");
    // Run inside Claude Code, `CLAUDE_PROJECT_DIR` is already set: as under agent-hook, it is
    // kept.
    let elsewhere = Project::new();
    std::fs::create_dir_all(elsewhere.path(".claude/hooks")).unwrap();
    let script = elsewhere.path(".claude/hooks/deny-destructive.sh");
    std::fs::write(&script, "#!/bin/bash\necho 'from elsewhere' >&2\nexit 2\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["fire", "PreToolUse", "--input", r#"{"command":"ls"}"#])
        .current_dir(project.root())
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("CLAUDE_PROJECT_DIR", elsewhere.root())
        .envs(crate::support::test_cache_env())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("from elsewhere"), "{text}");
}

#[test]
fn check_reports_a_script_that_cannot_run() {
    let project = claude_project();
    hookhost(&project, &["import"], "");
    let script = project.path(".claude/hooks/deny-destructive.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = hookhost(&project, &["check"], "");
    assert_eq!(out.code, 1, "{}", all(&out));
    let expected = format!(
        "hook #1 (deny-destructive.sh): its command runs {}, which is not executable",
        script.display()
    );
    assert!(all(&out).contains(&expected), "{}", all(&out));

    std::fs::remove_file(&script).unwrap();
    let out = hookhost(&project, &["check"], "");
    assert_eq!(out.code, 1, "{}", all(&out));
    let stderr = &out.stderr;
    let expected = format!(
        "error: {}:5:1: hook #1 (deny-destructive.sh): its command runs {}, which does not exist",
        project.path("hooks.toml").display(),
        script.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(
        stderr.contains("(the project-directory variables hold the agent's directory, "),
        "{stderr}"
    );
    assert!(
        all(&out).contains("1 hook (1 enabled), 1 cannot run"),
        "{}",
        all(&out)
    );

    // A program this machine does not have is a warning: another machine may have it.
    std::fs::write(
        project.path("hooks.toml"),
        "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"no-such-program-hookhost --check | jq .\"\n",
    )
    .unwrap();
    let out = hookhost(&project, &["check"], "");
    assert_eq!(out.code, 0, "{}", all(&out));
    let expected = format!(
        "warning: {}:1:1: hook #1 (no-such-program-hookhost --check | jq .): its command runs `no-such-program-hookhost`, which is not on PATH",
        project.path("hooks.toml").display()
    );
    assert!(all(&out).contains(&expected), "{}", all(&out));
}
