//! Wasm hooks: the same contract as command hooks, inside a sandbox their config grants.

use std::time::{Duration, Instant};

use hookhost::{Decision, HookFailure, HookRunner, StopReason, ToolCall, Verdict};
use serde_json::json;

use crate::support::{NO_WASI, Project, WASIP2, alloc_guard, probe_hook};

async fn guard(runner: &HookRunner, input: serde_json::Value) -> hookhost::Outcome {
    runner
        .pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 4,
        })
        .await
}

/// The block reason of a guard the probe blocks on purpose (its way of answering).
async fn answer(runner: &HookRunner) -> String {
    match guard(runner, json!({"command": "ls"})).await.decision {
        Decision::Block(block) if block.failure.is_none() => block.reason,
        other => panic!("expected the probe to answer with a block, got {other:?}"),
    }
}

async fn failure_message(runner: &HookRunner) -> String {
    match guard(runner, json!({})).await.decision {
        Decision::Block(block) if block.failure.is_some() => block.message(),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[tokio::test]
async fn guard_decides_like_a_command_hook() {
    let project = Project::new();
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "block-pattern",
        "name = \"wasm-guard\"\nmatch_tool = \"Bash\"",
        "pattern = \"rm -rf\"",
    ));
    let outcome = guard(&runner, json!({"command": "rm -rf /"})).await;
    let Decision::Block(block) = outcome.decision else {
        panic!()
    };
    assert_eq!(
        block.message(),
        "blocked by wasm-guard: input matches rm -rf"
    );
    assert_eq!(outcome.reports[0].kind, "wasm");
    assert!(
        guard(&runner, json!({"command": "cargo test"}))
            .await
            .is_allowed()
    );

    let runner = project.runner(&probe_hook("PreToolUse", "echo", "", ""));
    let seen: serde_json::Value = serde_json::from_str(&answer(&runner).await).unwrap();
    let cwd = project.root().to_string_lossy();
    assert_eq!(
        seen,
        json!({"tool": "Bash", "input": "{\"command\":\"ls\"}", "tool_iterations": 4, "cwd": cwd})
    );
}

#[tokio::test]
async fn sees_nothing_by_default() {
    let project = Project::new();
    std::fs::write(project.path("secret.txt"), "s3cret").unwrap();
    let secret = project.path("secret.txt").display().to_string();
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "read",
        "",
        &format!("path = '{secret}'"),
    ));
    assert!(
        answer(&runner).await.starts_with("read failed:"),
        "no file access without a grant"
    );

    let runner = project.runner(&probe_hook("PreToolUse", "env", "", ""));
    assert_eq!(answer(&runner).await, "env=[] args=0 stdin=Ok(\"\")");
}

#[tokio::test]
async fn grants_directories_read_only_or_read_write_at_the_host_path() {
    let project = Project::new();
    for dir in ["ro", "rw"] {
        std::fs::create_dir(project.path(dir)).unwrap();
        std::fs::write(project.path(&format!("{dir}/a.txt")), format!("in {dir}")).unwrap();
    }
    std::fs::write(project.path("outside.txt"), "outside").unwrap();
    std::os::unix::fs::symlink(project.path("outside.txt"), project.path("ro/link")).unwrap();
    std::os::unix::fs::symlink(project.path("outside.txt"), project.path("rw/link")).unwrap();
    std::os::unix::fs::symlink("/etc", project.path("ro/etc")).unwrap();
    let grants = "read = [\"ro\"]\nwrite = [\"rw\"]";
    let case = |mode: &str, path: String| {
        probe_hook("PreToolUse", mode, grants, &format!("path = '{path}'"))
    };
    let p = |rel: &str| project.path(rel).display().to_string();

    let cases = [
        (
            "read granted ro",
            case("read", p("ro/a.txt")),
            "read ok: in ro",
        ),
        (
            "read granted rw",
            case("read", p("rw/a.txt")),
            "read ok: in rw",
        ),
        (
            "write to ro",
            case("write", p("ro/new.txt")),
            "write failed",
        ),
        ("write to rw", case("write", p("rw/new.txt")), "write ok"),
        (
            "read outside",
            case("read", p("outside.txt")),
            "read failed",
        ),
        (
            "dot-dot escape",
            case("read", p("ro/../outside.txt")),
            "read failed",
        ),
        (
            "relative path",
            case("read", "ro/a.txt".into()),
            "read failed",
        ),
    ];
    for (name, config, expected) in cases {
        let runner = project.runner(&config);
        let got = answer(&runner).await;
        assert!(got.starts_with(expected), "{name}: {got}");
    }
    assert_eq!(
        std::fs::read_to_string(project.path("rw/new.txt")).unwrap(),
        "written by probe"
    );
    assert!(!project.path("ro/new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(project.path("outside.txt")).unwrap(),
        "outside"
    );
}

#[tokio::test]
async fn passes_only_the_variables_it_names() {
    let project = Project::new();
    // HOME is set on every machine that runs these tests; PATH must stay hidden.
    let home = std::env::var("HOME").expect("HOME is set");
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "env",
        "env = [\"HOME\", \"HOOKHOST_TEST_UNSET_VARIABLE\"]",
        "",
    ));
    assert_eq!(
        answer(&runner).await,
        format!("env=[HOME={home}] args=0 stdin=Ok(\"\")")
    );
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "env",
        "env = { LEVEL = \"strict\" }",
        "",
    ));
    assert_eq!(
        answer(&runner).await,
        "env=[LEVEL=strict] args=0 stdin=Ok(\"\")"
    );
}

/// A guest granted no directories gets its WASI context only at its first WASI call, one
/// granted directories at once: either way it sees exactly its grants, on every call.
#[tokio::test]
async fn a_lazily_built_wasi_context_sees_exactly_the_grants() {
    let project = Project::new();
    std::fs::create_dir(project.path("ro")).unwrap();
    let home = std::env::var("HOME").expect("HOME is set");
    let cases = [
        ("lazy, nothing granted", "", "env=[]".to_string()),
        (
            "lazy, one variable set",
            "env = { LEVEL = \"strict\" }",
            "env=[LEVEL=strict]".to_string(),
        ),
        (
            "lazy, one variable inherited",
            "env = [\"HOME\"]",
            format!("env=[HOME={home}]"),
        ),
        (
            "eager (a directory), one variable set",
            "env = { LEVEL = \"strict\" }\nread = [\"ro\"]",
            "env=[LEVEL=strict]".to_string(),
        ),
    ];
    for (name, grants, expected) in cases {
        let runner = project.runner(&probe_hook("PreToolUse", "env", grants, ""));
        // Twice: the second call builds its own context, from the grants alone.
        for call in 1..=2 {
            assert_eq!(
                answer(&runner).await,
                format!("{expected} args=0 stdin=Ok(\"\")"),
                "{name}, call {call}"
            );
        }
    }
}

#[tokio::test]
async fn missing_granted_directory_is_a_config_error() {
    let project = Project::new();
    let config = project.config(&probe_hook("PreToolUse", "allow", "read = [\"nope\"]", ""));
    let error = HookRunner::load(config, project.options())
        .unwrap_err()
        .to_string();
    assert!(error.contains("hook #1"), "{error}");
    assert!(
        error.contains("`read` directory") && error.contains("nope does not exist"),
        "{error}"
    );
}

#[test]
fn a_spinning_guest_times_out_without_blocking_the_runtime() {
    let project = Project::new();
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "spin",
        "name = \"spinner\"\ntimeout_ms = 200",
        "",
    ));
    let (message, elapsed, ticks) = crate::support::beside_a_ticker(failure_message(&runner));
    assert_eq!(
        message,
        "hook failed: spinner timed out after 200ms (tool blocked by default)"
    );
    assert!(
        elapsed >= Duration::from_millis(200) && elapsed < Duration::from_secs(2),
        "{elapsed:?}"
    );
    assert!(
        ticks >= 5,
        "the timer task ran only {ticks} times while the guest spun"
    );
}

#[tokio::test]
async fn a_guest_blocked_in_a_host_sleep_times_out_too() {
    let project = Project::new();
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "sleep",
        "name = \"sleeper\"\ntimeout_ms = 100",
        "ms = 30000",
    ));
    let started = Instant::now();
    assert_eq!(
        failure_message(&runner).await,
        "hook failed: sleeper timed out after 100ms (tool blocked by default)"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn fuel_is_a_deterministic_budget() {
    let project = Project::new();
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "work",
        "name = \"busy\"\nfuel = 100000",
        "iterations = 100000000",
    ));
    assert_eq!(
        failure_message(&runner).await,
        "hook failed: busy ran out of fuel (tool blocked by default)"
    );
    // The same budget is plenty for a small job, and gives the same answer every time.
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "work",
        "fuel = 10000000",
        "iterations = 1000",
    ));
    let first = answer(&runner).await;
    assert!(first.starts_with("worked "), "{first}");
    assert_eq!(answer(&runner).await, first);
}

#[tokio::test]
async fn memory_is_capped() {
    let project = Project::new();
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "alloc",
        "name = \"hog\"\nmax_memory_mb = 16",
        "mb = 64",
    ));
    assert_eq!(
        failure_message(&runner).await,
        "hook failed: hog exceeded its memory limit of 16 MiB (tool blocked by default)"
    );
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "alloc",
        "max_memory_mb = 32",
        "mb = 8",
    ));
    assert_eq!(answer(&runner).await, "allocated 8 MiB");
}

/// hook-sdk's allocator, in the guest it is built for (its unit tests run natively): thousands
/// of allocations, frees and reallocations of every size class, beyond them and overaligned,
/// each block checked for its contents; call after call on the same pool slots. Built with
/// WASI and without (where the host's `cabi_realloc` is served from the size classes too).
#[tokio::test]
async fn the_sdk_allocator_keeps_every_block_intact() {
    let project = Project::new();
    for target in [WASIP2, NO_WASI] {
        let runner = project.runner(&alloc_guard(
            target,
            "churn",
            "max_memory_mb = 16",
            "ops = 20000",
        ));
        for _ in 0..3 {
            let answer = answer(&runner).await;
            assert!(answer.starts_with("churn ok: "), "{target}: {answer}");
        }
    }
}

/// Freed blocks are reused: 200,000 allocations (95 MiB in all) fit in a 2 MiB memory. And a
/// guest that keeps allocating small blocks fails at its memory limit, named as such.
#[tokio::test]
async fn the_sdk_allocator_reuses_freed_blocks_and_stops_at_the_memory_limit() {
    let project = Project::new();
    for target in [WASIP2, NO_WASI] {
        let runner = project.runner(&alloc_guard(target, "reuse", "max_memory_mb = 2", ""));
        for _ in 0..3 {
            assert_eq!(answer(&runner).await, "reuse ok: 95 MiB allocated in all");
        }
        let runner = project.runner(&alloc_guard(
            target,
            "small-forever",
            "max_memory_mb = 4",
            "",
        ));
        for _ in 0..2 {
            assert_eq!(
                failure_message(&runner).await,
                "hook failed: allocator exceeded its memory limit of 4 MiB (tool blocked by default)"
            );
        }
    }
}

/// An event too large for the hook's memory: the SDK's `cabi_realloc` cannot place it, and the
/// call fails at the memory limit, named as such, before any guest code runs.
#[tokio::test]
async fn an_event_larger_than_the_memory_limit_fails_at_the_limit() {
    let project = Project::new();
    for target in [WASIP2, NO_WASI] {
        let runner = project.runner(&alloc_guard(target, "reuse", "max_memory_mb = 2", ""));
        let outcome = guard(&runner, json!({"command": "x".repeat(3 << 20)})).await;
        let Decision::Block(block) = outcome.decision else {
            panic!("{target}: expected a failure, got {:?}", outcome.decision)
        };
        assert_eq!(
            block.message(),
            "hook failed: allocator exceeded its memory limit of 2 MiB (tool blocked by default)"
        );
    }
}

#[tokio::test]
async fn a_panic_is_a_named_trap_with_its_message_on_stderr() {
    let project = Project::new();
    let runner = project.runner(&probe_hook("PreToolUse", "panic", "name = \"crashy\"", ""));
    let outcome = guard(&runner, json!({})).await;
    let Decision::Block(block) = &outcome.decision else {
        panic!()
    };
    assert_eq!(
        block.message(),
        "hook failed: crashy trapped: wasm `unreachable` instruction executed (tool blocked by default)"
    );
    assert!(
        outcome.reports[0]
            .stderr
            .contains("probe panicked on purpose"),
        "{:?}",
        outcome.reports[0].stderr
    );

    // WASI preview 2's exit carries only success or failure: exit(3) arrives as 1.
    let runner = project.runner(&probe_hook("PreToolUse", "exit", "name = \"quitter\"", ""));
    assert_eq!(
        failure_message(&runner).await,
        "hook failed: quitter exited with code 1 (tool blocked by default)"
    );
}

#[tokio::test]
async fn output_is_captured_under_a_cap_and_logging_is_tagged() {
    let project = Project::new();
    let runner = project.runner(&probe_hook("PreToolUse", "log", "", ""));
    let outcome = guard(&runner, json!({})).await;
    assert!(outcome.is_allowed());
    assert_eq!(
        outcome.reports[0].stderr,
        "info: hello from the probe\nwarn: careful\nto stdout\nto stderr\n"
    );

    // 20 MB through 20,000 host calls: a generous budget, this is about the cap, not speed.
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "print",
        "timeout_ms = 60000",
        "bytes = 10000000",
    ));
    let outcome = guard(&runner, json!({})).await;
    assert!(
        outcome.is_allowed(),
        "a chatty guest is not a failing guest: {:?}",
        outcome.reports[0].result
    );
    assert!(outcome.reports[0].stderr_truncated);
    assert!(outcome.reports[0].stderr.len() <= 2 * 64 * 1024);
}

#[tokio::test]
async fn every_call_gets_a_fresh_instance_and_state_persists_only_through_the_state_interface() {
    let project = Project::new();
    let runner = project.runner(&probe_hook("PreToolUse", "counter", "", ""));
    for n in 1..=3 {
        assert_eq!(answer(&runner).await, format!("state={n} statics=1"));
    }
    // Another runner (another session) starts with empty state.
    let runner = project.runner(&probe_hook("PreToolUse", "counter", "", ""));
    assert_eq!(answer(&runner).await, "state=1 statics=1");

    let runner = project.runner(&probe_hook("PreToolUse", "state-limits", "", ""));
    assert_eq!(
        answer(&runner).await,
        "state value is 66560 bytes; the limit is 65536 | state key is 300 bytes; the limit is 256 | gone=None"
    );
}

#[tokio::test]
async fn config_table_reaches_the_guest_as_json() {
    let project = Project::new();
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "config",
        "",
        "deny = [\"rm -rf\", \"mkfs\"]\nlevel = 3\n[hooks.config.nested]\non = true",
    ));
    let config: serde_json::Value = serde_json::from_str(&answer(&runner).await).unwrap();
    assert_eq!(
        config,
        json!({"mode": "config", "deny": ["rm -rf", "mkfs"], "level": 3, "nested": {"on": true}})
    );
}

#[tokio::test]
async fn observe_post_and_stop_follow_the_contract_and_fail_open() {
    let project = Project::new();
    let observed = project.path("observed.json").display().to_string();
    let stopped = project.path("stopped.txt").display().to_string();
    let root = project.root().display().to_string();
    let runner = project.runner(
        &[
            probe_hook(
                "PreToolUse",
                "block-pattern",
                "name = \"g\"",
                "pattern = \"rm\"",
            ),
            probe_hook("PreToolUse", "panic", "phase = \"observe\"", ""),
            probe_hook(
                "PreToolUse",
                "record",
                &format!("phase = \"observe\"\nwrite = ['{root}']"),
                &format!("path = '{observed}'"),
            ),
            probe_hook("PostToolUse", "spin", "timeout_ms = 50", ""),
            probe_hook("PostToolUse", "signal", "", "signal = \"\""),
            probe_hook("PostToolUse", "signal", "", "signal = \"converged\""),
            probe_hook(
                "Stop",
                "record",
                &format!("write = ['{root}']"),
                &format!("path = '{stopped}'"),
            ),
        ]
        .concat(),
    );

    let outcome = guard(&runner, json!({"command": "rm -rf /"})).await;
    assert!(!outcome.is_allowed());
    assert!(
        matches!(outcome.reports[1].result, Err(HookFailure::Trapped { .. })),
        "observer failure is reported"
    );
    let seen: serde_json::Value = serde_json::from_str(&project.read("observed.json")).unwrap();
    assert_eq!(
        seen,
        json!({"tool": "Bash", "blocked": true, "blocked_by": "g", "block_reason": "input matches rm"})
    );
    guard(&runner, json!({"command": "ls"})).await;
    let seen: serde_json::Value = serde_json::from_str(&project.read("observed.json")).unwrap();
    assert_eq!(
        seen,
        json!({"tool": "Bash", "blocked": false, "blocked_by": null, "block_reason": null})
    );

    let input = json!({});
    let result = "x".repeat(10_000);
    let post = runner
        .post_tool_use(
            ToolCall {
                tool: "Bash",
                input: &input,
                tool_iterations: 9,
            },
            &result,
            true,
        )
        .await;
    assert!(matches!(
        post.reports[0].result,
        Err(HookFailure::TimedOut { timeout_ms: 50 })
    ));
    assert!(
        matches!(&post.reports[1].result, Err(HookFailure::InvalidVerdict { detail }) if detail == "a signal with an empty name")
    );
    let signal = post.signal().cloned().expect("the valid signal wins");
    assert_eq!(signal.signal, "converged");
    // The guest saw the capped result (5120 bytes + the marker), flagged as an error.
    assert_eq!(
        signal.reason,
        format!(
            "result of {} bytes, is_error=true",
            hookhost::event::cap_result(&result).len()
        )
    );

    let stop = runner.stop(StopReason::BlockLimitTotal, 9, 777).await;
    assert_eq!(stop.reports[0].result, Ok(Verdict::allow()));
    assert_eq!(
        project.read("stopped.txt"),
        format!("block_limit_total 9 777 {root}\n")
    );
    assert_eq!(
        project.read_json(".forgeflare/convergence.json")["observations"][0]["signal"],
        "converged"
    );
}

#[tokio::test]
async fn an_advisory_wasm_guard_allows_on_failure() {
    let project = Project::new();
    let runner = project.runner(&probe_hook(
        "PreToolUse",
        "panic",
        "on_failure = \"allow\"",
        "",
    ));
    let outcome = guard(&runner, json!({})).await;
    assert!(outcome.is_allowed());
    assert!(outcome.reports[0].result.is_err());
}

/// One misbehaving guest per line: the failure a guard reports (fail closed), which observe
/// and PostToolUse hooks report too but ignore (fail open).
const MISBEHAVING: &[(&str, &str, &str, &str)] = &[
    // (mode, hook settings, [hooks.config] lines, failure)
    ("spin", "timeout_ms = 100", "", "timed out after 100ms"),
    (
        "work",
        "fuel = 50000",
        "iterations = 100000000",
        "ran out of fuel",
    ),
    (
        "bomb",
        "max_memory_mb = 16",
        "",
        "exceeded its memory limit of 16 MiB",
    ),
    ("recurse", "", "", "trapped: call stack exhausted"),
    (
        "panic",
        "",
        "",
        "trapped: wasm `unreachable` instruction executed",
    ),
    (
        "unreachable",
        "",
        "",
        "trapped: wasm `unreachable` instruction executed",
    ),
];

#[tokio::test]
async fn misbehaving_guards_fail_closed() {
    let project = Project::new();
    for (mode, settings, config, failure) in MISBEHAVING {
        let runner = project.runner(&probe_hook(
            "PreToolUse",
            mode,
            &format!("name = \"bad\"\n{settings}"),
            config,
        ));
        assert_eq!(
            failure_message(&runner).await,
            format!("hook failed: bad {failure} (tool blocked by default)"),
            "mode {mode}"
        );
    }
}

#[tokio::test]
async fn misbehaving_observers_and_post_hooks_fail_open() {
    let project = Project::new();
    let input = json!({});
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    };
    for (mode, settings, config, failure) in MISBEHAVING {
        let runner = project.runner(
            &[
                probe_hook(
                    "PreToolUse",
                    mode,
                    &format!("phase = \"observe\"\n{settings}"),
                    config,
                ),
                probe_hook("PostToolUse", mode, settings, config),
                probe_hook("PostToolUse", "signal", "", "signal = \"after\""),
            ]
            .concat(),
        );
        let pre = runner.pre_tool_use(call).await;
        assert!(pre.is_allowed(), "mode {mode}");
        assert_eq!(
            pre.reports[0].result.as_ref().unwrap_err().to_string(),
            *failure,
            "mode {mode}"
        );
        let post = runner.post_tool_use(call, "ok", false).await;
        assert_eq!(
            post.reports[0].result.as_ref().unwrap_err().to_string(),
            *failure,
            "mode {mode}"
        );
        assert_eq!(
            post.signal().cloned().map(|s| s.signal).as_deref(),
            Some("after"),
            "later hooks still run"
        );
    }
}

#[tokio::test]
async fn wasm_and_command_hooks_run_in_declaration_order() {
    let project = Project::new();
    let runner = project.runner(
        &[
            crate::support::hook(
                "PreToolUse",
                r#"echo '{"action":"allow"}'"#,
                "name = \"first-command\"",
            ),
            probe_hook("PreToolUse", "allow", "name = \"second-wasm\"", ""),
            crate::support::hook(
                "PreToolUse",
                r#"echo '{"action":"block","reason":"third"}'"#,
                "name = \"third-command\"",
            ),
            probe_hook(
                "PreToolUse",
                "block-pattern",
                "name = \"fourth-wasm\"",
                "pattern = \"\"",
            ),
            probe_hook(
                "PreToolUse",
                "allow",
                "name = \"observer-wasm\"\nphase = \"observe\"",
                "",
            ),
        ]
        .concat(),
    );
    let outcome = guard(&runner, json!({"command": "ls"})).await;
    let order: Vec<(&str, &str)> = outcome
        .reports
        .iter()
        .map(|r| (r.name.as_str(), r.kind))
        .collect();
    assert_eq!(
        order,
        [
            ("first-command", "command"),
            ("second-wasm", "wasm"),
            ("third-command", "command"),
            ("observer-wasm", "wasm")
        ]
    );
    let Decision::Block(block) = outcome.decision else {
        panic!()
    };
    assert_eq!(block.message(), "blocked by third-command: third");
}

/// Runs in a child process started by the next test, so that nothing else moves its memory.
#[ignore = "a child process the test after it starts (support::child_test)"]
#[test]
fn repeated_calls_child() {
    if std::env::var_os("HOOKHOST_MEMORY_CHILD").is_none() {
        return;
    }
    let project = Project::new();
    let runner = project.runner(&probe_hook("PreToolUse", "log", "", ""));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let input = json!({"command": "cargo test"});
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    };
    let rss = || {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
        statm
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 4096
    };
    runtime.block_on(async {
        for _ in 0..1000 {
            assert!(runner.pre_tool_use(call).await.is_allowed());
        }
        let before = rss();
        for _ in 0..10_000 {
            assert!(runner.pre_tool_use(call).await.is_allowed());
        }
        let grown = rss().saturating_sub(before);
        println!("rss grew by {grown} bytes over 10000 calls");
        assert!(
            grown < 16 << 20,
            "resident memory grew by {grown} bytes over 10,000 calls"
        );
    });
}

#[test]
fn ten_thousand_calls_do_not_grow_host_memory() {
    let stdout = crate::support::run_child("wasm::repeated_calls_child", "HOOKHOST_MEMORY_CHILD");
    assert!(stdout.contains("rss grew by"), "the child ran: {stdout}");
}

/// Threads of this process named like the epoch ticker.
fn epoch_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| name.trim() == "hookhost-epoch")
        })
        .count()
}

/// Runs in a child process started by the next test, so that no other runner's ticker counts.
#[ignore = "a child process the test after it starts (support::child_test)"]
#[test]
fn ticker_child() {
    if std::env::var_os("HOOKHOST_TICKER_CHILD").is_none() {
        return;
    }
    let project = Project::new();
    // Building the fixture warms the compile cache with a runner of its own: wait until its
    // ticker is gone, so that only the runner under test counts.
    crate::support::probe();
    for _ in 0..100 {
        if epoch_threads() == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let runner = project.runner(&probe_hook("PreToolUse", "allow", "", ""));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    assert!(runtime.block_on(guard(&runner, json!({}))).is_allowed());
    // A new thread names itself once it first runs, which on a loaded machine can be after the
    // call: until then it is not seen as the ticker.
    for _ in 0..100 {
        if epoch_threads() > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(epoch_threads(), 1, "one ticker per runner");
    drop(runner);
    // A parked ticker looks every second whether its engine is gone.
    for _ in 0..100 {
        if epoch_threads() == 0 {
            println!("ticker gone");
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the epoch ticker outlived its runner");
}

#[test]
fn the_epoch_ticker_stops_with_its_runner() {
    let stdout = crate::support::run_child("wasm::ticker_child", "HOOKHOST_TICKER_CHILD");
    assert!(stdout.contains("ticker gone"), "the child ran: {stdout}");
}
