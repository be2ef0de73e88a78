//! Monitor mode (`mode = "monitor"`, `mode = "warn"`): a team ships a new policy, watches what
//! it would have blocked, then enforces it. Real scripts through the real runner; the CLI's
//! `fire` and `replay` say the same.

use hookhost::config::Mode;
use hookhost::{Decision, HookRunner, NativeHook, Outcome, Verdict};
use serde_json::json;

use crate::support::{Project, hook, pre_bash};

const BLOCKS: &str = r#"cat > /dev/null; echo '{"action":"block","reason":"no rm in this repo"}'"#;

/// A Claude Code script that rewrites the command.
const REWRITES: &str = r#"cat > /dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -1"}}}'"#;

/// A guard that records the input it was shown.
const RECORDS: &str = r#"cat > seen.json; echo '{"action":"allow"}'"#;

fn outcome_of(runner: &HookRunner) -> Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(pre_bash(runner, &json!({"command": "rm -rf build"})))
}

#[test]
fn a_monitored_policy_is_reported_and_enforces_nothing() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "mode = \"monitor\"\n\n{}{}{}{}",
        hook("PreToolUse", BLOCKS, "name = \"new-policy\""),
        hook(
            "PreToolUse",
            REWRITES,
            "name = \"rewriter\"\nprotocol = \"claude\""
        ),
        hook("PreToolUse", "exit 1", "name = \"broken\""),
        hook(
            "PreToolUse",
            RECORDS,
            "name = \"enforced\"\nmode = \"enforce\""
        ),
    ));
    let modes: Vec<Mode> = runner.hooks().map(|spec| spec.mode).collect();
    assert_eq!(
        modes,
        [Mode::Monitor, Mode::Monitor, Mode::Monitor, Mode::Enforce]
    );
    let outcome = outcome_of(&runner);
    assert_eq!(outcome.decision, Decision::Allow, "{outcome:?}");
    assert_eq!(
        outcome.updated_input, None,
        "a monitored rewrite is not applied"
    );
    // The guard after them saw the input as the agent sent it, and every hook ran.
    let seen: serde_json::Value = serde_json::from_str(&project.read("seen.json")).unwrap();
    assert_eq!(seen["input"], json!({"command": "rm -rf build"}));
    let ran: Vec<(&str, Mode)> = outcome
        .reports
        .iter()
        .map(|r| (r.name.as_str(), r.mode))
        .collect();
    assert_eq!(
        ran,
        [
            ("new-policy", Mode::Monitor),
            ("rewriter", Mode::Monitor),
            ("broken", Mode::Monitor),
            ("enforced", Mode::Enforce),
        ]
    );
    // What they would have decided, each alone: a block, the rewriter's explicit permission
    // (its rewrite is in its report), and the broken guard's fail-closed block.
    let monitored: Vec<String> = outcome
        .monitored
        .iter()
        .map(|decision| match decision {
            Decision::Block(block) => block.message(),
            Decision::Approve(notice) => format!("approved by {}", notice.by),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        monitored,
        [
            "blocked by new-policy: no rm in this repo",
            "approved by rewriter",
            "hook failed: broken exited with code 1 (tool blocked by default)",
        ]
    );
    let rewriter = outcome.reports[1].result.as_ref().unwrap();
    assert_eq!(rewriter.updated_input, Some(json!({"command": "ls -1"})));
}

#[test]
fn warn_mode_turns_a_block_into_a_warning_the_agent_shows() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}{}",
        hook("PreToolUse", BLOCKS, "name = \"soft\"\nmode = \"warn\""),
        hook(
            "PreToolUse",
            "exit 3",
            "name = \"soft-broken\"\nmode = \"warn\""
        ),
        hook("PreToolUse", RECORDS, "name = \"after\""),
    ));
    let outcome = outcome_of(&runner);
    let Decision::Warn(notice) = &outcome.decision else {
        panic!("a warn-mode block warns: {:?}", outcome.decision);
    };
    assert_eq!(notice.by, "soft");
    assert_eq!(notice.reason, "would block: no rm in this repo");
    assert!(
        outcome
            .notices
            .iter()
            .any(|n| n.by == "soft-broken" && n.reason == "would block: exited with code 3"),
        "{:?}",
        outcome.notices
    );
    assert!(outcome.monitored.is_empty());
    // The guard after them ran: a warning does not stop the gate.
    assert!(project.path("seen.json").exists());
}

#[test]
fn the_mode_is_checked_like_every_key() {
    #[rustfmt::skip]
    let cases = [
        ("mode = \"monitr\"\n", "hooks.toml:1:8: unknown mode \"monitr\"; did you mean \"monitor\"?"),
        ("mode = 1\n", "hooks.toml:1:1: `mode` must be a string"),
        ("[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"true\"\nmode = \"audit\"\n", "hooks.toml:4:8: hook #1 (true): unknown mode \"audit\"; a hook's mode is \"enforce\""),
    ];
    for (text, expected) in cases {
        let error = hookhost::Config::parse(text, "hooks.toml")
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{text}: {error}");
    }
    // A file without `mode` keeps its meaning: every hook is enforced.
    let config = hookhost::Config::parse(
        "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"true\"\n",
        "hooks.toml",
    )
    .unwrap();
    assert_eq!(config.hooks[0].mode, Mode::Enforce);
}

#[tokio::test]
async fn an_in_process_hook_can_be_monitored() {
    let project = Project::new();
    let runner = project.runner("");
    runner.register(
        NativeHook::new("candidate", "PreToolUse", |_| Verdict::ask("really?"))
            .unwrap()
            .with_mode(Mode::Monitor),
    );
    let outcome = pre_bash(&runner, &json!({"command": "ls"})).await;
    assert_eq!(outcome.decision, Decision::Allow);
    assert!(
        matches!(&outcome.monitored[..], [Decision::Ask(n)] if n.by == "candidate" && n.reason == "really?"),
        "{:?}",
        outcome.monitored
    );
}

#[cfg(feature = "cli")]
#[test]
fn fire_and_replay_show_what_would_have_been_blocked() {
    let project = Project::new();
    project.config(&hook(
        "PreToolUse",
        BLOCKS,
        "name = \"new-policy\"\nmode = \"monitor\"",
    ));
    let hookhost = |args: &[&str]| crate::cli::hookhost(&project, args);
    let out = hookhost(&[
        "fire",
        "PreToolUse",
        "--tool",
        "Bash",
        "--input",
        r#"{"command":"rm -rf build"}"#,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "allowed: {stdout}");
    assert!(
        stdout.contains("would block: no rm in this repo"),
        "the hook's row: {stdout}"
    );
    assert!(
        stdout.contains(
            "monitor mode, not enforced: new-policy would block: blocked by new-policy: no rm in this repo"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("=> ALLOWED"), "{stdout}");
    let out = hookhost(&["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("MONITOR: reported, not enforced"),
        "check says the hook is only monitored: {stdout}"
    );

    std::fs::write(
        project.path("session.jsonl"),
        "{\"tool\": \"Bash\", \"input\": {\"command\": \"rm -rf build\"}}\n{\"tool\": \"Bash\", \"input\": {\"command\": \"ls\"}}\n",
    )
    .unwrap();
    let out = hookhost(&["replay", "session.jsonl", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hook = &report["hooks"][0];
    assert_eq!(
        (&hook["name"], &hook["blocked"], &hook["would_block"]),
        (&json!("new-policy"), &json!(0), &json!(2)),
        "{report}"
    );
    assert_eq!(report["blocked_calls"], json!([]));
}
