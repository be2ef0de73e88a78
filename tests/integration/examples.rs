//! The example hooks, built from source for wasm32-wasip2 and loaded through `HookRunner` from
//! a hooks.toml, making real decisions.

use hookhost::{Decision, HookRunner, StopReason, ToolCall};
use serde_json::json;

use crate::support::{Project, example};

fn wasm_hook(event: &str, name: &str, settings: &str, config: &str) -> String {
    format!(
        "[[hooks]]\nname = \"{name}\"\nevent = \"{event}\"\nwasm = '{}'\n{settings}\n[hooks.config]\n{config}\n\n",
        example(name)
    )
}

async fn decide(runner: &HookRunner, tool: &str, input: serde_json::Value) -> Result<(), String> {
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool,
            input: &input,
            tool_iterations: 1,
        })
        .await;
    match outcome.decision {
        Decision::Allow => Ok(()),
        Decision::Block(block) => Err(block.message()),
        other => panic!("a guard of this example only allows or blocks, got {other:?}"),
    }
}

#[tokio::test]
async fn destructive_guard_blocks_destructive_commands_and_their_disguises() {
    let project = Project::new();
    let runner = project.runner(&wasm_hook(
        "PreToolUse",
        "destructive-guard",
        "match_tool = \"Bash\"\ntimeout_ms = 1000",
        "deny = [\"terraform destroy\"]",
    ));
    let blocked = [
        "rm -rf /",
        "RM  -RF /",
        "rm -rf -- /",
        "rm -fr /",
        "rm -r -f ~",
        "sudo /bin/rm -rf \"$HOME\"",
        "echo done && rm -rf .",
        "bash -c 'rm -rf /'",
        "git push --force origin main",
        "git push origin +main",
        "git reset --hard origin/main",
        "git clean -fdx",
        "kubectl delete namespace prod",
        "kubectl delete pods --all",
        "mkfs.ext4 /dev/sdb1",
        "dd if=/dev/zero of=/dev/sda",
        "chmod -R 777 /",
        "psql -c 'DROP TABLE users;'",
        "Terraform  Destroy -auto-approve",
    ];
    for command in blocked {
        let decision = decide(&runner, "Bash", json!({ "command": command })).await;
        let message = decision.expect_err(command);
        assert!(
            message.starts_with("blocked by destructive-guard: "),
            "{command}: {message}"
        );
    }
    for command in [
        "cargo test",
        "rm -rf target",
        "git push",
        "git reset --hard HEAD~1",
        "ls -la /",
    ] {
        assert_eq!(
            decide(&runner, "Bash", json!({ "command": command })).await,
            Ok(()),
            "{command}"
        );
    }
    assert_eq!(
        decide(&runner, "Bash", json!({ "command": "rm -rf -- /" })).await,
        Err("blocked by destructive-guard: recursive delete of / (rm -r)".to_string())
    );
    // Other tools never reach it (match_tool), and it ignores them anyway.
    assert_eq!(
        decide(&runner, "Read", json!({ "file_path": "/" })).await,
        Ok(())
    );
}

#[tokio::test]
async fn path_allowlist_keeps_writes_inside_the_allowlist() {
    let project = Project::new();
    for dir in [".ralph-sessions/s1", "agents", "src", "../outside"] {
        std::fs::create_dir_all(project.path(dir)).unwrap();
    }
    // A directory inside the workspace that is really somewhere else.
    std::os::unix::fs::symlink(project.path("../outside"), project.path("agents/ralph-v2"))
        .unwrap();
    std::os::unix::fs::symlink(project.path("src"), project.path(".ralph-sessions/s1/code"))
        .unwrap();
    let runner = project.runner(&wasm_hook(
        "PreToolUse",
        "path-allowlist",
        "read = [\".\"]",
        "allow = [\".ralph-sessions/*/**\", \".ralph-sessions/*.instructions.md\", \"agents/ralph-v2/**\"]",
    ));
    let root = project.root().display().to_string();
    let edit = |path: &str| json!({ "file_path": path, "old_str": "a", "new_str": "b" });
    let cases = [
        ("session file", edit(".ralph-sessions/s1/progress.md"), true),
        (
            "session instructions",
            edit(".ralph-sessions/s1.instructions.md"),
            true,
        ),
        (
            "absolute path inside",
            edit(&format!("{root}/.ralph-sessions/s1/notes.md")),
            true,
        ),
        (
            "double slashes",
            edit(".ralph-sessions//s1//notes.md"),
            true,
        ),
        ("source file", edit("src/main.rs"), false),
        ("dot-dot escape", edit("../../etc/passwd"), false),
        (
            "dot-dot out of an allowed dir",
            edit(".ralph-sessions/s1/../../src/main.rs"),
            false,
        ),
        (
            "symlinked directory leading out",
            edit("agents/ralph-v2/planner.md"),
            false,
        ),
        (
            "symlinked directory leading to src",
            edit(".ralph-sessions/s1/code/main.rs"),
            false,
        ),
        ("system file", edit("/etc/passwd"), false),
    ];
    for (name, input, allowed) in cases {
        let decision = decide(&runner, "Edit", input).await;
        assert_eq!(decision.is_ok(), allowed, "{name}: {decision:?}");
    }
    assert_eq!(
        decide(&runner, "Read", json!({ "file_path": "/etc/passwd" })).await,
        Ok(()),
        "reads are exempt"
    );
    let message = decide(&runner, "Edit", edit("src/main.rs"))
        .await
        .unwrap_err();
    assert!(
        message.starts_with("blocked by path-allowlist: src/main.rs is outside the allowlist"),
        "{message}"
    );
}

#[tokio::test]
async fn progress_guard_names_the_task_and_the_bad_status() {
    let project = Project::new();
    let runner = project.runner(&wasm_hook(
        "PreToolUse",
        "progress-guard",
        "match_tool = \"Edit\"",
        "",
    ));
    let edit = |path: &str, new: &str| json!({ "file_path": path, "old_str": "- [/] task-3: build", "new_str": new });
    assert_eq!(
        decide(&runner, "Edit", edit(".ralph-sessions/s1/progress.md", "- [?] task-3: build")).await,
        Err("blocked by progress-guard: .ralph-sessions/s1/progress.md: task-3 has status [?]; allowed statuses are [ ] [/] [P] [x] [F] [C]".to_string())
    );
    assert_eq!(
        decide(
            &runner,
            "Edit",
            edit(".ralph-sessions/s1/progress.md", "- [P] task-3: build")
        )
        .await,
        Ok(())
    );
    assert_eq!(
        decide(&runner, "Edit", edit("notes.md", "- [?] task-3")).await,
        Ok(())
    );
    let input = edit("progress.md", "- [x] task-3: build");
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Edit",
            input: &input,
            tool_iterations: 1,
        })
        .await;
    assert!(outcome.is_allowed());
    assert_eq!(
        outcome.reports[0].stderr,
        "warn: task-3: unusual transition [/] -> [x]\n"
    );
}

#[test]
fn audit_log_writes_one_line_per_call_even_under_concurrency() {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".forgeflare/audit")).unwrap();
    let runner = project.runner(&[
        crate::support::hook("PreToolUse", r#"if grep -q forbidden; then echo '{"action":"block","reason":"forbidden word"}'; else echo '{"action":"allow"}'; fi"#, "name = \"word-guard\""),
        wasm_hook("PreToolUse", "audit-log", "phase = \"observe\"\nwrite = [\".forgeflare/audit\"]", "path = \".forgeflare/audit/calls.jsonl\""),
    ].concat());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..50usize {
            let runner = runner.clone();
            tasks.spawn(async move {
                let word = if i % 5 == 0 { "forbidden" } else { "fine" };
                let input = json!({ "command": format!("echo {word} {i}") });
                runner
                    .pre_tool_use(ToolCall {
                        tool: "Bash",
                        input: &input,
                        tool_iterations: i,
                    })
                    .await
            });
        }
        while let Some(outcome) = tasks.join_next().await {
            let outcome = outcome.unwrap();
            assert!(
                outcome.reports[1].result.is_ok(),
                "{:?}",
                outcome.reports[1]
            );
        }
    });
    let log = project.read(".forgeflare/audit/calls.jsonl");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 50);
    let mut iterations: Vec<u64> = lines
        .iter()
        .map(|l| l["tool_iterations"].as_u64().unwrap())
        .collect();
    iterations.sort();
    assert_eq!(
        iterations,
        (0..50).collect::<Vec<u64>>(),
        "every call exactly once"
    );
    for line in &lines {
        let i = line["tool_iterations"].as_u64().unwrap();
        assert_eq!(line["blocked"], json!(i % 5 == 0));
        if i % 5 == 0 {
            assert_eq!(line["blocked_by"], "word-guard");
            assert_eq!(line["block_reason"], "forbidden word");
        }
        assert_eq!(line["input_sha256"].as_str().unwrap().len(), 64);
        assert!(line["time"].as_str().unwrap().ends_with('Z'));
    }
}

#[tokio::test]
async fn convergence_check_signals_after_consecutive_clean_runs() {
    let project = Project::new();
    let runner = project.runner(&wasm_hook(
        "PostToolUse",
        "convergence-check",
        "match_tool = \"Bash\"",
        "command = \"cargo test\"\nthreshold = 3",
    ));
    let run = |command: &str| json!({ "command": command });
    let steps = [
        ("cargo test", false, None),
        ("cargo test", true, None),
        ("cargo test", false, None),
        ("ls", false, None),
        ("cargo test --release", false, None),
        (
            "cargo test",
            false,
            Some("3 consecutive clean runs of `cargo test`"),
        ),
    ];
    for (i, (command, is_error, signal)) in steps.into_iter().enumerate() {
        let input = run(command);
        let outcome = runner
            .post_tool_use(
                ToolCall {
                    tool: "Bash",
                    input: &input,
                    tool_iterations: i,
                },
                "test result: ok",
                is_error,
            )
            .await;
        assert_eq!(
            outcome
                .signal()
                .cloned()
                .as_ref()
                .map(|s| s.reason.as_str()),
            signal,
            "step {i}"
        );
    }
    let state = project.read_json(".forgeflare/convergence.json");
    assert_eq!(
        state["observations"],
        json!([{"signal": "converged", "reason": "3 consecutive clean runs of `cargo test`", "tool_iterations": 5}])
    );
}

#[tokio::test]
async fn session_summary_appends_a_line_per_run() {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".forgeflare")).unwrap();
    let runner = project.runner(&wasm_hook(
        "Stop",
        "session-summary",
        "write = [\".forgeflare\"]",
        "path = \".forgeflare/sessions.log\"",
    ));
    runner.stop(StopReason::EndTurn, 7, 45_000).await;
    runner.clear_convergence_state().unwrap();
    runner.stop(StopReason::BlockLimitTotal, 9, 50_000).await;
    let log = project.read(".forgeflare/sessions.log");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2);
    let root = project.root().display().to_string();
    assert!(
        lines[0].ends_with(&format!(
            " reason=end_turn tool_iterations=7 total_tokens=45000 cwd={root}"
        )),
        "{log}"
    );
    assert!(
        lines[1].contains(" reason=block_limit_total tool_iterations=9 "),
        "{log}"
    );

    // Without a grant it cannot write, and says why, without failing the run.
    let project = Project::new();
    let runner = project.runner(&wasm_hook("Stop", "session-summary", "", ""));
    let outcome = runner.stop(StopReason::EndTurn, 1, 1).await;
    assert!(outcome.reports[0].result.is_ok());
    assert!(
        outcome.reports[0]
            .stderr
            .contains("is its directory granted with `write`?"),
        "{:?}",
        outcome.reports[0].stderr
    );
}
