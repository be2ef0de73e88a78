//! The contract of seed 000 (R1–R8) through the native runner.

use hookhost::{Decision, HookRunner, Signal, StopReason, ToolCall, Verdict};
use serde_json::json;

use crate::support::{Project, hook};

/// A guard that blocks commands containing "rm -rf" and logs its stdin to `log`.
fn logging_guard(log: &str) -> String {
    format!(
        r#"input=$(cat); echo "$input" >> {log}; if echo "$input" | grep -q 'rm -rf'; then echo '{{"action":"block","reason":"destructive command detected"}}'; else echo '{{"action":"allow"}}'; fi"#
    )
}

#[tokio::test]
async fn guards_run_in_order_and_short_circuit_but_observers_always_run() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}{}{}",
        hook(
            "PreToolUse",
            "cat > observe1.json",
            "phase = \"observe\"\nname = \"audit\""
        ),
        hook(
            "PreToolUse",
            &logging_guard("guard1.log"),
            "name = \"ralph-guard.sh\"\nmatch_tool = \"Bash\""
        ),
        hook(
            "PreToolUse",
            &logging_guard("guard2.log"),
            "name = \"second\""
        ),
        hook(
            "PreToolUse",
            "cat > observe2.json; exit 1",
            "phase = \"observe\"\nname = \"broken-audit\""
        ),
    ));

    let input = json!({"command": "rm -rf /"});
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 3,
        })
        .await;
    let Decision::Block(block) = &outcome.decision else {
        panic!("blocked")
    };
    assert_eq!(
        block.message(),
        "blocked by ralph-guard.sh: destructive command detected"
    );
    assert_eq!(block.blocked_by, "ralph-guard.sh");
    assert!(
        !project.path("guard2.log").exists(),
        "a block short-circuits later guards"
    );
    let order: Vec<&str> = outcome.reports.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        order,
        ["ralph-guard.sh", "audit", "broken-audit"],
        "guards first, then observers in order"
    );
    assert!(
        outcome.reports[2].result.is_err(),
        "observe failure is reported..."
    );

    let cwd = project.root().to_string_lossy().into_owned();
    assert_eq!(
        project.read_json("observe1.json"),
        json!({
            "event": "PreToolUse", "phase": "observe", "tool": "Bash", "input": {"command": "rm -rf /"},
            "blocked": true, "blocked_by": "ralph-guard.sh", "block_reason": "destructive command detected",
            "tool_iterations": 3, "cwd": cwd,
        })
    );
    assert_eq!(project.read_json("observe2.json")["blocked"], json!(true));

    // Allowed: both guards ran (the first only matches Bash), observers see blocked: false.
    let input = json!({"command": "cargo test"});
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 4,
        })
        .await;
    assert_eq!(
        outcome.decision,
        Decision::Allow,
        "...but does not affect the decision"
    );
    assert_eq!(project.read("guard2.log").lines().count(), 1);
    let observed = project.read_json("observe1.json");
    assert_eq!(observed["blocked"], json!(false));
    assert!(observed.get("blocked_by").is_none() && observed.get("block_reason").is_none());
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(
            project.read("guard1.log").lines().nth(1).unwrap()
        )
        .unwrap(),
        json!({"event": "PreToolUse", "phase": "guard", "tool": "Bash", "input": {"command": "cargo test"}, "tool_iterations": 4, "cwd": cwd})
    );
}

#[tokio::test]
async fn match_tool_is_exact_and_no_matching_guard_allows() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}",
        hook(
            "PreToolUse",
            r#"echo '{"action":"block","reason":"no"}'"#,
            "match_tool = \"Bash\""
        ),
        hook(
            "PreToolUse",
            "cat > observed.json",
            "phase = \"observe\"\nmatch_tool = \"BashScript\""
        ),
    ));
    let input = json!({});
    for tool in ["BashScript", "bash", "Read"] {
        let outcome = runner
            .pre_tool_use(ToolCall {
                tool,
                input: &input,
                tool_iterations: 0,
            })
            .await;
        assert_eq!(outcome.decision, Decision::Allow, "{tool}");
    }
    let observed = project.read_json("observed.json");
    assert_eq!(
        (observed["tool"].as_str(), observed["blocked"].as_bool()),
        (Some("BashScript"), Some(false))
    );
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 0,
        })
        .await;
    assert!(!outcome.is_allowed());
}

#[tokio::test]
async fn guard_failure_context_reaches_observers() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}",
        hook("PreToolUse", "exit 7", "name = \"crashy\""),
        hook("PreToolUse", "cat > observed.json", "phase = \"observe\""),
    ));
    let input = json!({});
    runner
        .pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 0,
        })
        .await;
    let observed = project.read_json("observed.json");
    assert_eq!(observed["blocked_by"], "crashy");
    assert_eq!(
        observed["block_reason"],
        "hook failed: crashy exited with code 7 (tool blocked by default)"
    );
}

#[tokio::test]
async fn disabled_hooks_do_not_run() {
    let project = Project::new();
    let runner = project.runner(&hook(
        "PreToolUse",
        r#"echo '{"action":"block","reason":"x"}'"#,
        "enabled = false",
    ));
    assert!(!runner.has_hooks());
    let input = json!({});
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 0,
        })
        .await;
    assert!(outcome.is_allowed() && outcome.reports.is_empty());
}

const SIGNAL_TESTS: &str = r#"if grep -q '"is_error":false'; then echo '{"action":"signal","signal":"tests_pass","reason":"clean run"}'; else echo '{"action":"continue"}'; fi"#;

#[tokio::test]
async fn post_tool_use_first_signal_wins_every_signal_recorded_in_one_write() {
    let project = Project::new();
    // The third hook looks at convergence.json while it runs: the write happens after all hooks.
    let runner = project.runner(&format!(
        "{}{}{}{}{}",
        hook("PostToolUse", SIGNAL_TESTS, "name = \"tests\""),
        hook("PostToolUse", "exit 9", "name = \"broken\""),
        hook("PostToolUse", r#"test -e .forgeflare/convergence.json && echo seen > early-write; echo '{"action":"signal","signal":"lint_clean","reason":"no warnings"}'"#, "name = \"lint\""),
        hook("PostToolUse", "sleep 5", "name = \"slow\"\ntimeout_ms = 100"),
        hook("PostToolUse", "cat > post.json; echo '{\"action\":\"continue\"}'", "match_tool = \"Bash\""),
    ));
    let input = json!({"command": "cargo test --release"});
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 12,
    };
    let outcome = runner
        .post_tool_use(call, "test result: ok. 42 passed; 0 failed", false)
        .await;
    assert_eq!(
        outcome.signal().cloned(),
        Some(Signal {
            signal: "tests_pass".into(),
            reason: "clean run".into()
        })
    );
    assert_eq!(outcome.signals.len(), 2);
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    assert!(
        !project.path("early-write").exists(),
        "convergence.json written before all hooks finished"
    );
    assert_eq!(outcome.reports.len(), 5, "failures do not stop later hooks");
    assert!(matches!(
        outcome.reports[3].result,
        Err(hookhost::HookFailure::TimedOut { timeout_ms: 100 })
    ));

    let state = project.read_json(".forgeflare/convergence.json");
    assert_eq!(
        state,
        json!({"observations": [
            {"signal": "tests_pass", "reason": "clean run", "tool_iterations": 12},
            {"signal": "lint_clean", "reason": "no warnings", "tool_iterations": 12},
        ]})
    );
    let cwd = project.root().to_string_lossy().into_owned();
    assert_eq!(
        project.read_json("post.json"),
        json!({"event": "PostToolUse", "tool": "Bash", "input": {"command": "cargo test --release"},
               "result": "test result: ok. 42 passed; 0 failed", "is_error": false, "tool_iterations": 12, "cwd": cwd})
    );

    // A second call appends (JSON-level), keeping the earlier observations.
    runner
        .post_tool_use(
            ToolCall {
                tool: "Read",
                input: &input,
                tool_iterations: 13,
            },
            "x",
            false,
        )
        .await;
    let observations = project.read_json(".forgeflare/convergence.json")["observations"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(observations, 4);
}

#[tokio::test]
async fn post_tool_use_hook_sees_a_capped_result() {
    let project = Project::new();
    let runner = project.runner(&hook(
        "PostToolUse",
        "cat > post.json; echo '{\"action\":\"continue\"}'",
        "",
    ));
    let result = format!("{}{}", "h".repeat(4000), "t".repeat(4000));
    let input = json!({});
    let outcome = runner
        .post_tool_use(
            ToolCall {
                tool: "Read",
                input: &input,
                tool_iterations: 1,
            },
            &result,
            true,
        )
        .await;
    assert_eq!(outcome.signal().cloned(), None);
    let seen = project.read_json("post.json");
    assert_eq!(
        seen["result"].as_str().unwrap(),
        format!(
            "{}\n... (truncated for hook, full result: 8000 bytes)\n{}",
            "h".repeat(2560),
            "t".repeat(2560)
        )
    );
    assert_eq!(seen["is_error"], json!(true));
    assert!(
        !project.path(".forgeflare/convergence.json").exists(),
        "no signal, no write"
    );
}

#[tokio::test]
async fn post_tool_use_failures_fail_open() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}{}{}",
        hook("PostToolUse", "sleep 5", "timeout_ms = 100"),
        hook("PostToolUse", "exit 1", ""),
        hook("PostToolUse", "echo garbage", ""),
        hook("PostToolUse", r#"echo '{"action":"signal"}'"#, ""),
    ));
    let input = json!({});
    let outcome = runner
        .post_tool_use(
            ToolCall {
                tool: "Bash",
                input: &input,
                tool_iterations: 1,
            },
            "ok",
            false,
        )
        .await;
    assert_eq!(outcome.signal().cloned(), None);
    assert!(
        outcome.reports.iter().all(|r| r.result.is_err()),
        "{:?}",
        outcome.reports
    );
}

#[tokio::test]
async fn convergence_write_failure_is_a_warning_that_changes_nothing() {
    let project = Project::new();
    let config = project.config(&format!(
        "{}{}",
        hook(
            "PostToolUse",
            r#"echo '{"action":"signal","signal":"done","reason":"r"}'"#,
            ""
        ),
        hook("Stop", r#"echo '{"action":"continue"}'"#, ""),
    ));
    let mut options = project.options();
    std::fs::write(project.path("not-a-dir"), "").unwrap();
    options.state_dir = Some(project.path("not-a-dir"));
    let runner = HookRunner::load(config, options).unwrap();
    let input = json!({});
    let outcome = runner
        .post_tool_use(
            ToolCall {
                tool: "Bash",
                input: &input,
                tool_iterations: 1,
            },
            "ok",
            false,
        )
        .await;
    assert_eq!(
        outcome.signal().cloned().map(|s| s.signal),
        Some("done".to_string())
    );
    assert_eq!(outcome.warnings.len(), 1);
    assert!(
        outcome.warnings[0].starts_with("cannot create directory"),
        "{:?}",
        outcome.warnings
    );
    let stop = runner.stop(StopReason::EndTurn, 1, 1).await;
    assert_eq!(stop.reports[0].result, Ok(Verdict::allow()));
    assert!(
        !stop.final_written && stop.warnings.len() == 1,
        "{:?}",
        stop.warnings
    );
}

#[tokio::test]
async fn stop_hooks_fail_open_and_final_is_written_once() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}{}{}",
        hook(
            "Stop",
            "cat >> stop.jsonl; echo '{\"action\":\"signal\"}'",
            "name = \"odd\""
        ),
        hook("Stop", "exit 4", "name = \"crashes\""),
        hook("Stop", "sleep 5", "name = \"hangs\"\ntimeout_ms = 100"),
        hook(
            "Stop",
            "echo '{\"action\":\"continue\"}'",
            "name = \"good\""
        ),
    ));
    runner.clear_convergence_state().unwrap();
    let outcome = runner.stop(StopReason::ConvergenceSignal, 22, 45000).await;
    let results: Vec<_> = outcome.reports.iter().map(|r| r.result.clone()).collect();
    assert_eq!(
        results[0],
        Ok(Verdict {
            note: Some("returned unrecognized action \"signal\"; treated as continue".into()),
            ..Verdict::allow()
        })
    );
    assert_eq!(results[1], Err(hookhost::HookFailure::Exited { code: 4 }));
    assert_eq!(
        results[2],
        Err(hookhost::HookFailure::TimedOut { timeout_ms: 100 })
    );
    assert_eq!(results[3], Ok(Verdict::allow()));
    assert!(outcome.final_written);

    let cwd = project.root().to_string_lossy().into_owned();
    assert_eq!(
        project.read_json("stop.jsonl"),
        json!({"event": "Stop", "reason": "convergence_signal", "tool_iterations": 22, "total_tokens": 45000, "cwd": cwd})
    );
    let state = project.read_json(".forgeflare/convergence.json");
    assert_eq!(state["final"]["reason"], "convergence_signal");
    assert_eq!(state["final"]["tool_iterations"], 22);
    assert_eq!(state["observations"], json!([]));

    let again = runner.stop(StopReason::EndTurn, 30, 50000).await;
    assert!(!again.final_written);
    assert_eq!(
        project.read_json(".forgeflare/convergence.json")["final"]["reason"],
        "convergence_signal"
    );
}

#[tokio::test]
async fn no_config_means_nothing_runs_and_nothing_is_written() {
    let project = Project::new();
    let runner = HookRunner::load(project.path("missing/hooks.toml"), project.options()).unwrap();
    assert!(!runner.has_hooks());
    let input = json!({});
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 0,
    };
    assert!(runner.pre_tool_use(call).await.reports.is_empty());
    assert_eq!(
        runner
            .post_tool_use(call, "ok", false)
            .await
            .signal()
            .cloned(),
        None
    );
    let stop = runner.stop(StopReason::EndTurn, 0, 0).await;
    assert!(stop.reports.is_empty() && !stop.final_written);
    assert!(!project.path(".forgeflare").exists());
}

#[tokio::test]
async fn clear_convergence_state_removes_a_stale_file() {
    let project = Project::new();
    let runner = project.runner(&hook("Stop", "true", ""));
    std::fs::write(
        project.path(".forgeflare/convergence.json"),
        "{\"observations\":[]}",
    )
    .unwrap();
    runner.clear_convergence_state().unwrap();
    assert!(!project.path(".forgeflare/convergence.json").exists());
    runner.clear_convergence_state().unwrap();
}

#[test]
fn fifty_concurrent_calls_get_their_own_results() {
    let project = Project::new();
    // Echoes the call's own command back as the block reason, after a random-ish delay.
    let runner = project.runner(&format!(
        "{}{}",
        hook("PreToolUse", r#"input=$(cat); sleep 0.0$((RANDOM % 5)); cmd=$(echo "$input" | sed -E 's/.*"command":"([^"]*)".*/\1/'); echo "{\"action\":\"block\",\"reason\":\"$cmd\"}""#, "name = \"echo\""),
        hook("PostToolUse", r#"input=$(cat); n=$(echo "$input" | sed -E 's/.*"result":"([^"]*)".*/\1/'); echo "{\"action\":\"signal\",\"signal\":\"s$n\",\"reason\":\"r\"}""#, ""),
    ));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..50 {
            let runner = runner.clone();
            // tokio::spawn requires the runner's futures to be Send.
            tasks.spawn(async move {
                let input = json!({"command": format!("call-{i}")});
                let pre = runner
                    .pre_tool_use(ToolCall {
                        tool: "Bash",
                        input: &input,
                        tool_iterations: i,
                    })
                    .await;
                let post = runner
                    .post_tool_use(
                        ToolCall {
                            tool: "Bash",
                            input: &input,
                            tool_iterations: i,
                        },
                        &i.to_string(),
                        false,
                    )
                    .await;
                (i, pre.decision, post.signal().cloned())
            });
        }
        let mut seen = 0;
        while let Some(joined) = tasks.join_next().await {
            let (i, decision, signal) = joined.unwrap();
            let Decision::Block(block) = decision else {
                panic!("call {i} allowed")
            };
            assert_eq!(block.reason, format!("call-{i}"));
            assert_eq!(signal.unwrap().signal, format!("s{i}"));
            seen += 1;
        }
        assert_eq!(seen, 50);
    });
    // Kept, or dropped to keep the file bounded and counted (issue 32): never lost.
    let state = project.read_json(".forgeflare/convergence.json");
    assert_eq!(
        state["observations"].as_array().unwrap().len() as u64
            + state["dropped_observations"].as_u64().unwrap_or(0),
        50,
        "no observation lost to a race"
    );
}
