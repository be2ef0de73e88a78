//! `policy = "NAME"`: a policy of hookhost's catalogue, built into the binary, runs as any
//! guard: `hookhost fire` and `hookhost agent-hook` (Copilot CLI's `bash` tool here) block
//! `rm -rf /` with the destructive policy, let `ls` through, and a misconfigured policy is a
//! located configuration error that blocks every call (fail closed).

use serde_json::Value;

use crate::agents::{Reply, agent_hook, hookhost};
use crate::support::Project;

const DESTRUCTIVE: &str = r#"
[[hooks]]
event = "PreToolUse"
policy = "destructive"

[hooks.config]
packs = ["filesystem", "git"]
"#;

/// Copilot CLI's preToolUse event for its `bash` tool running `command`.
fn copilot_bash(command: &str) -> String {
    let args = serde_json::json!({"command": command, "description": "a command"}).to_string();
    serde_json::json!({"sessionId": "s1", "timestamp": 1704614600000u64, "cwd": "PROJECT", "toolName": "bash", "toolArgs": args})
        .to_string()
}

fn all(reply: &Reply) -> String {
    format!("{}{}", reply.stdout, reply.stderr)
}

#[test]
fn the_destructive_policy_blocks_rm_rf_under_fire_and_copilot() {
    let project = Project::new();
    project.config(DESTRUCTIVE);
    let out = hookhost(&project, &["check"], "");
    assert_eq!(out.code, 0, "{}", all(&out));

    let fire = |command: &str| {
        let input = serde_json::json!({ "command": command }).to_string();
        hookhost(
            &project,
            &["fire", "PreToolUse", "--tool", "Bash", "--input", &input],
            "",
        )
    };
    let out = fire("rm -rf /");
    assert_eq!(out.code, 2, "{}", all(&out));
    assert!(
        all(&out).contains(
            "=> BLOCKED: blocked by destructive: filesystem/rm-recursive: recursive delete of /"
        ),
        "{}",
        all(&out)
    );
    let out = fire("ls -la");
    assert_eq!(out.code, 0, "{}", all(&out));

    let out = agent_hook(
        &project,
        "copilot",
        Some("preToolUse"),
        &copilot_bash("sudo rm -rf /"),
    );
    assert_eq!(out.code, 0, "{}", all(&out));
    assert_eq!(out.json()["permissionDecision"], "deny", "{}", all(&out));
    let reason = out.json()["permissionDecisionReason"].clone();
    assert!(
        reason
            .as_str()
            .is_some_and(|r| r.starts_with("blocked by destructive: filesystem/rm-recursive")),
        "{reason}"
    );
    let out = agent_hook(&project, "copilot", Some("preToolUse"), &copilot_bash("ls"));
    assert_eq!(out.code, 0, "{}", all(&out));
    assert_eq!(out.json(), Value::Null, "{}", all(&out));
    // A pack the configuration leaves out is not checked.
    let out = agent_hook(
        &project,
        "copilot",
        Some("preToolUse"),
        &copilot_bash("kubectl delete namespace prod"),
    );
    assert_eq!(out.json(), Value::Null, "{}", all(&out));
}

#[test]
fn a_misconfigured_policy_is_a_located_error_and_blocks_every_call() {
    let project = Project::new();
    project.config(
        "[[hooks]]\nevent = \"PreToolUse\"\npolicy = \"destructive\"\n\n[hooks.config]\npacks = [\"filesystem\", \"gti\"]\n",
    );
    let out = hookhost(&project, &["check"], "");
    assert_eq!(out.code, 1, "{}", all(&out));
    assert!(
        all(&out).contains(
            ".forgeflare/hooks.toml:6:24: hook #1 (destructive): policy destructive: [hooks.config]: unknown pack `gti` in `packs` (did you mean `git`?)"
        ),
        "{}",
        all(&out)
    );
    let out = agent_hook(&project, "copilot", Some("preToolUse"), &copilot_bash("ls"));
    assert_eq!(out.json()["permissionDecision"], "deny", "{}", all(&out));

    project.config("[[hooks]]\nevent = \"PreToolUse\"\npolicy = \"destrutive\"\n");
    let out = hookhost(&project, &["check"], "");
    assert!(
        all(&out).contains(":3:10: hook #1 (destrutive): unknown policy \"destrutive\" (did you mean \"destructive\"?)"),
        "{}",
        all(&out)
    );
    // The agent's call is refused (fail closed), saying why.
    let out = agent_hook(&project, "copilot", Some("preToolUse"), &copilot_bash("ls"));
    assert_eq!(out.json()["permissionDecision"], "deny", "{}", all(&out));
    assert!(
        out.json()["permissionDecisionReason"]
            .as_str()
            .is_some_and(|reason| reason.contains("unknown policy \"destrutive\"")),
        "{}",
        all(&out)
    );
}

#[test]
fn hookhost_policies_lists_and_shows_the_catalogue() {
    let project = Project::new();
    let out = hookhost(&project, &["policies"], "");
    assert_eq!(out.code, 0, "{}", all(&out));
    for name in [
        "destructive",
        "protected-paths",
        "secrets",
        "git-safety",
        "egress",
        "ralph-single-mode",
        "ralph-task-file",
    ] {
        assert!(
            out.stdout
                .lines()
                .any(|line| line.starts_with(&format!("{name} "))),
            "{name} is listed: {}",
            out.stdout
        );
    }
    let out = hookhost(&project, &["policies", "show", "destructive"], "");
    assert_eq!(out.code, 0, "{}", all(&out));
    assert!(
        out.stdout.contains("(sha256 ")
            && out
                .stdout
                .contains("options: packs, allow, ask, skip_rules)\n\n# destructive\n"),
        "{}",
        out.stdout
    );
    let out = hookhost(&project, &["policies", "show", "egres"], "");
    assert_eq!(out.code, 1, "{}", all(&out));
    assert!(
        out.stderr
            .contains("unknown policy \"egres\" (did you mean \"egress\"?)"),
        "{}",
        out.stderr
    );
}
