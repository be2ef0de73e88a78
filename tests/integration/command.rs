//! The command runtime: what forgeflare's own runner gets wrong, each with a test.

use std::time::{Duration, Instant};

use hookhost::{Decision, HookFailure, HookRunner, ToolCall, Verdict};
use serde_json::json;

use crate::support::{Project, hook, processes_with, wait_until_gone};

async fn guard_block_message(runner: &HookRunner, input: serde_json::Value) -> String {
    let outcome = runner.pre_tool_use(bash(&input)).await;
    match outcome.decision {
        Decision::Block(block) => block.message(),
        other => panic!(
            "expected a block, got {other:?}, reports: {:?}",
            outcome.reports
        ),
    }
}

/// A Bash tool call with `input`.
fn bash(input: &serde_json::Value) -> ToolCall<'_> {
    ToolCall {
        tool: "Bash",
        input,
        tool_iterations: 1,
    }
}

/// Fails when a process with `marker` in its command line outlives the bound.
fn assert_all_gone(marker: &str, what: &str) {
    assert_eq!(
        wait_until_gone(marker),
        Vec::<String>::new(),
        "{what}: processes left behind"
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group_without_waiting_for_orphans() {
    let project = Project::new();
    let marker = "31.4159265";
    let runner = project.runner(&hook(
        "PreToolUse",
        &format!("sleep {marker} & sleep {marker}"),
        "name = \"slow\"\ntimeout_ms = 300",
    ));
    let started = Instant::now();
    let message = guard_block_message(&runner, json!({"command": "ls"})).await;
    assert_eq!(
        message,
        "hook failed: slow timed out after 300ms (tool blocked by default)"
    );
    // Generous bound: the runner must not wait for the background sleep's pipe (30 s).
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_all_gone(marker, "the hook");
}

#[tokio::test]
async fn background_process_holding_stdout_does_not_stall_a_finished_hook() {
    let project = Project::new();
    let marker = "32.7182818";
    let runner = project.runner(&hook(
        "PreToolUse",
        &format!("sleep {marker} & echo '{{\"action\":\"block\",\"reason\":\"done early\"}}'"),
        "name = \"leaky\"",
    ));
    let started = Instant::now();
    let message = guard_block_message(&runner, json!({"command": "ls"})).await;
    assert_eq!(message, "blocked by leaky: done early");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "took {:?}",
        started.elapsed()
    );
    assert_all_gone(marker, "the hook");
}

#[tokio::test]
async fn hook_that_ignores_a_huge_stdin_is_not_a_failure() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}",
        hook(
            "PreToolUse",
            r#"echo '{"action":"allow"}'"#,
            "name = \"ignores\""
        ),
        hook(
            "PreToolUse",
            r#"n=$(wc -c); echo "{\"action\":\"block\",\"reason\":\"read $n bytes\"}""#,
            "name = \"reads\""
        ),
    ));
    let new_str = "x".repeat(1024 * 1024);
    let input = json!({"file_path": "a.txt", "old_str": "a", "new_str": new_str});
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Edit",
            input: &input,
            tool_iterations: 2,
        })
        .await;
    assert_eq!(
        outcome.reports[0].result,
        Ok(Verdict::allow()),
        "{:?}",
        outcome.reports[0]
    );
    let Decision::Block(block) = outcome.decision else {
        panic!("second guard blocks")
    };
    let expected_len = serde_json::to_vec(&json!({
        "event": "PreToolUse", "phase": "guard", "tool": "Edit", "input": input,
        "tool_iterations": 2, "cwd": project.root().to_string_lossy(),
    }))
    .unwrap()
    .len();
    assert_eq!(block.reason, format!("read {expected_len} bytes"));
}

#[tokio::test]
async fn stdout_over_the_cap_is_a_failure_that_says_so() {
    let project = Project::new();
    let runner = project.runner(&hook(
        "PreToolUse",
        "head -c 3000000 /dev/zero | tr '\\0' a",
        "name = \"flood\"",
    ));
    let message = guard_block_message(&runner, json!({})).await;
    assert_eq!(
        message,
        "hook failed: flood printed more than 1048576 bytes on stdout (tool blocked by default)"
    );
}

#[tokio::test]
async fn distinct_messages_for_not_found_signal_and_missing_shell() {
    let project = Project::new();
    let runner = project.runner(&hook(
        "PreToolUse",
        "definitely-not-a-command-5521",
        "name = \"typo\"",
    ));
    assert_eq!(
        guard_block_message(&runner, json!({})).await,
        "hook failed: typo exited with code 127: command not found (check the path in hooks.toml) (tool blocked by default)"
    );

    let runner = project.runner(&hook("PreToolUse", "kill -9 $$", "name = \"killed\""));
    assert_eq!(
        guard_block_message(&runner, json!({})).await,
        "hook failed: killed killed by signal 9 (SIGKILL) (tool blocked by default)"
    );

    let runner = project.runner(&hook("PreToolUse", "exit 3", "name = \"crash\""));
    assert_eq!(
        guard_block_message(&runner, json!({})).await,
        "hook failed: crash exited with code 3 (tool blocked by default)"
    );

    let mut options = project.options();
    options.shell = "/nonexistent/bin/bash".into();
    let config = project.config(&hook("PreToolUse", "true", "name = \"noshell\""));
    let runner = HookRunner::load(config, options).unwrap();
    assert_eq!(
        guard_block_message(&runner, json!({})).await,
        "hook failed: noshell could not be started: /nonexistent/bin/bash: No such file or directory (os error 2) (tool blocked by default)"
    );
}

#[tokio::test]
async fn environment_and_working_directory() {
    let project = Project::new();
    std::fs::create_dir(project.path("scripts")).unwrap();
    let report = r#"echo "{\"action\":\"block\",\"reason\":\"$HOOKHOST_EVENT|$HOOKHOST_PHASE|$HOOKHOST_TOOL|$HOOKHOST_HOOK|$LEVEL|$PWD|${HOME:+home}\"}""#;
    let runner = project.runner(&format!(
        "{}{}",
        hook(
            "PreToolUse",
            report,
            "name = \"env-a\"\nenv = { LEVEL = \"strict\" }"
        ),
        hook("PreToolUse", report, "name = \"env-b\"\ncwd = \"scripts\""),
    ));
    let root = project.root().canonicalize().unwrap();
    let input = json!({});
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Grep",
            input: &input,
            tool_iterations: 0,
        })
        .await;
    let Decision::Block(block) = outcome.decision else {
        panic!()
    };
    assert_eq!(
        block.reason,
        format!("PreToolUse|guard|Grep|env-a|strict|{}|home", root.display())
    );

    let runner = project.runner(&hook(
        "PreToolUse",
        report,
        "name = \"env-b\"\ncwd = \"scripts\"",
    ));
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Grep",
            input: &input,
            tool_iterations: 0,
        })
        .await;
    let Decision::Block(block) = outcome.decision else {
        panic!()
    };
    assert_eq!(
        block.reason,
        format!(
            "PreToolUse|guard|Grep|env-b||{}/scripts|home",
            root.display()
        )
    );

    // A Stop hook has no tool.
    let runner = project.runner(&hook(
        "Stop",
        r#"echo "$HOOKHOST_EVENT|${HOOKHOST_TOOL-unset}" > stop.env; echo '{"action":"continue"}'"#,
        "",
    ));
    runner.stop(hookhost::StopReason::EndTurn, 1, 2).await;
    assert_eq!(project.read("stop.env"), "Stop|unset\n");
}

#[tokio::test]
async fn a_hook_starts_with_default_signal_handling() {
    let project = Project::new();
    // With SIGPIPE at its default, `yes` dies of it (141) when `head` stops reading; the host
    // ignores SIGPIPE, and an ignored signal would survive exec.
    let runner = project.runner(&hook(
        "PreToolUse",
        r#"yes | head -n1 >/dev/null; echo "{\"action\":\"block\",\"reason\":\"${PIPESTATUS[0]}\"}""#,
        "name = \"signals\"",
    ));
    let message = guard_block_message(&runner, json!({})).await;
    assert_eq!(message, "blocked by signals: 141");
}

#[tokio::test]
async fn missing_cwd_is_a_config_error_at_load() {
    let project = Project::new();
    let config = project.config(&hook("PreToolUse", "true", "cwd = \"nope\""));
    let error = HookRunner::load(&config, project.options()).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("hooks.toml:1:1: hook #1 (true): `cwd`"),
        "{text}"
    );
    assert!(text.contains("nope is not a directory"), "{text}");
}

#[tokio::test]
async fn stderr_is_captured_per_hook_and_capped() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}",
        hook("PreToolUse", r#"echo "checking $HOOKHOST_TOOL" >&2; printf 'no newline' >&2; echo '{"action":"allow"}'"#, "name = \"talky\""),
        hook("PreToolUse", r#"head -c 200000 /dev/zero | tr '\0' e >&2; echo '{"action":"allow"}'"#, "name = \"noisy\""),
    ));
    let input = json!({});
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Read",
            input: &input,
            tool_iterations: 0,
        })
        .await;
    assert!(outcome.is_allowed());
    assert_eq!(outcome.reports[0].stderr, "checking Read\nno newline");
    assert!(!outcome.reports[0].stderr_truncated);
    assert_eq!(outcome.reports[1].stderr.len(), 64 * 1024);
    assert!(outcome.reports[1].stderr_truncated);
}

#[tokio::test]
async fn failure_kinds_are_typed_in_reports() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}{}",
        hook(
            "PreToolUse",
            "echo nope",
            "phase = \"guard\"\non_failure = \"allow\"\nname = \"advisory\""
        ),
        hook(
            "PreToolUse",
            r#"echo '{"action":"deny"}'"#,
            "on_failure = \"allow\"\nname = \"unknown-action\""
        ),
        hook(
            "PreToolUse",
            "exit 0",
            "on_failure = \"allow\"\nname = \"silent\""
        ),
    ));
    let input = json!({});
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Read",
            input: &input,
            tool_iterations: 0,
        })
        .await;
    assert!(outcome.is_allowed(), "advisory guards allow on failure");
    let details: Vec<String> = outcome
        .reports
        .iter()
        .map(|r| match &r.result {
            Err(failure @ HookFailure::InvalidOutput { .. }) => failure.detailed(),
            other => format!("{other:?}"),
        })
        .collect();
    assert!(
        details[0].starts_with("returned invalid JSON: expected"),
        "{details:?}"
    );
    assert_eq!(
        details[1],
        "returned invalid JSON: unknown action \"deny\"; a guard answers \"allow\" or \"block\""
    );
    assert!(details[2].contains("stdout was empty"), "{details:?}");
}

/// The shapes of real hook scripts that leave processes in other process groups of the hook's
/// session. Each runs as a guard; `{m}` is the case's marker, in every sleeping command's
/// argv, and nothing with it may outlive the call.
#[tokio::test]
async fn everything_the_hook_started_in_its_session_is_killed() {
    const ALLOW: &str = r#"echo '{"action":"allow"}'"#;
    let cases = [
        // coreutils timeout moves itself into its own process group (bash forks it here: it
        // is not the last command).
        (
            "timeout(1) when the hook times out",
            "timeout 60 sleep {m}; {allow}",
            "timed out after 300ms",
        ),
        (
            "timeout(1) left in the background",
            "timeout 60 sleep {m} >/dev/null 2>&1 & {allow}",
            "Allow",
        ),
        ("job control", "set -m; sleep {m} & {allow}", "Allow"),
        (
            "job control in a subshell",
            "(set -m; sleep {m} &) ; exit 0",
            "returned invalid JSON: stdout was empty",
        ),
        ("nested bash", "bash -c 'sleep {m} &'; {allow}", "Allow"),
        (
            "timed out with children in other groups",
            "set -m; sleep {m} & (set -m; sleep {m} >/dev/null &); timeout 60 sleep {m} & sleep {m}",
            "timed out after 300ms",
        ),
    ];
    let project = Project::new();
    let input = json!({});
    for (i, (name, command, expected)) in cases.into_iter().enumerate() {
        let marker = format!("33.{i}0577");
        let command = command.replace("{m}", &marker).replace("{allow}", ALLOW);
        let runner = project.runner(&hook(
            "PreToolUse",
            &command,
            "name = \"h\"\ntimeout_ms = 300",
        ));
        let outcome = runner.pre_tool_use(bash(&input)).await;
        let result = match &outcome.reports[0].result {
            Ok(verdict) => format!("{:?}", verdict.answer),
            Err(failure) => failure.detailed(),
        };
        assert!(result.starts_with(expected), "{name}: {result}");
        assert_all_gone(&marker, name);
    }
}

#[tokio::test]
async fn a_hook_whose_call_is_dropped_leaves_nothing_behind() {
    let project = Project::new();
    let marker = "33.9130577";
    let runner = project.runner(&hook(
        "PreToolUse",
        &format!("set -m; sleep {marker} & timeout 60 sleep {marker}"),
        "name = \"abandoned\"",
    ));
    let input = json!({});
    let call = runner.pre_tool_use(bash(&input));
    // The agent gives up on the call (its own deadline): the future is dropped mid-hook.
    assert!(
        tokio::time::timeout(Duration::from_millis(300), call)
            .await
            .is_err()
    );
    assert_all_gone(marker, "the hook");
}

#[tokio::test]
async fn work_detached_with_setsid_survives_the_hook() {
    let project = Project::new();
    let marker = "33.8130577";
    // The detached process says when it is in its own session, so the hook ends after that.
    let runner = project.runner(&hook(
        "PreToolUse",
        &format!(
            "setsid sh -c 'touch detached; exec sleep {marker}' >/dev/null 2>&1 &
             while [ ! -e detached ]; do sleep 0.01; done
             sleep {marker} &
             echo '{{\"action\":\"allow\"}}'"
        ),
        "name = \"detacher\"",
    ));
    let input = json!({});
    let outcome = runner.pre_tool_use(bash(&input)).await;
    assert!(outcome.is_allowed(), "{:?}", outcome.reports);
    // The plain background sleep goes; the detached one stays.
    let mut left = processes_with(marker);
    for _ in 0..100 {
        if left.len() <= 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        left = processes_with(marker);
    }
    let pids: Vec<&str> = left.iter().map(|p| p.split(':').next().unwrap()).collect();
    for pid in &pids {
        let _ = std::process::Command::new("kill")
            .args(["-9", pid])
            .status();
    }
    assert_eq!(left.len(), 1, "only the detached sleep survives: {left:?}");
    assert!(left[0].contains(&format!("sleep {marker}")), "{left:?}");
    assert!(!left[0].contains("bash"), "{left:?}");
    assert_all_gone(marker, "cleaning up");
}
