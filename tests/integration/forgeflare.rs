//! `hookhost::forgeflare`: the facade forgeflare switches to with one `use` line, driven the
//! way forgeflare's loop drives it.

use hookhost::forgeflare::{HookRunner, PostToolResult, PreToolResult};
use hookhost::{BlockCounters, StopReason};
use serde_json::{Value, json};

use crate::support::{Project, hook};

const GUARD: &str = r#"if grep -q 'rm -rf'; then echo '{"action":"block","reason":"destructive command detected"}'; else echo '{"action":"allow"}'; fi"#;
const CONVERGENCE: &str = r#"input=$(cat); if echo "$input" | grep -q '"result":"test result: ok'; then echo '{"action":"signal","signal":"converged","reason":"tests pass"}'; else echo '{"action":"continue"}'; fi"#;

fn forgeflare_config() -> String {
    format!(
        "{}{}{}{}",
        hook(
            "PreToolUse",
            GUARD,
            "phase = \"guard\"\nmatch_tool = \"Bash\"\nname = \"ralph-guard.sh\""
        ),
        hook(
            "PreToolUse",
            "cat >> audit.jsonl; echo >> audit.jsonl",
            "phase = \"observe\"\ntimeout_ms = 3000"
        ),
        hook("PostToolUse", CONVERGENCE, "match_tool = \"Bash\""),
        hook(
            "Stop",
            "cat >> stops.jsonl; echo >> stops.jsonl; echo '{\"action\":\"continue\"}'",
            "timeout_ms = 3000"
        ),
    )
}

/// One scripted tool call: (tool, input, result the tool would return).
type Call = (&'static str, Value, &'static str);

/// forgeflare's sequential inner loop (seed 000, R6, R7, R9), reduced to what touches hooks.
/// Returns the Stop reason and the final `tool_iterations`.
async fn inner_loop(hooks: &HookRunner, batches: Vec<Vec<Call>>) -> (StopReason, usize) {
    let mut counters = BlockCounters::new();
    let mut tool_iterations = 0;
    let mut conversation: Vec<String> = Vec::new();
    for batch in batches {
        conversation.push("assistant: tool_use batch".into());
        let mut signal_break = false;
        let mut tripped = None;
        let mut results = Vec::new();
        for (tool, input, result) in &batch {
            match hooks.run_pre_tool_use(tool, input, tool_iterations).await {
                PreToolResult::Block { reason, .. } => {
                    results.push(reason);
                    if let Some(reason) = counters.record_block() {
                        tripped = Some(reason);
                        break;
                    }
                    continue;
                }
                PreToolResult::Allow => counters.record_allow(),
            }
            results.push(result.to_string());
            if let PostToolResult::Signal { .. } = hooks
                .run_post_tool_use(tool, input, result, false, tool_iterations)
                .await
            {
                signal_break = true;
            }
        }
        if let Some(reason) = tripped {
            conversation.pop(); // R6: the batch is abandoned, tool_iterations not incremented.
            hooks.run_stop(reason.as_str(), tool_iterations, 1000).await;
            return (reason, tool_iterations);
        }
        conversation.push(format!("user: {} tool results", results.len()));
        tool_iterations += 1;
        if signal_break {
            hooks
                .run_stop(
                    StopReason::ConvergenceSignal.as_str(),
                    tool_iterations,
                    1000,
                )
                .await;
            return (StopReason::ConvergenceSignal, tool_iterations);
        }
    }
    hooks
        .run_stop(StopReason::EndTurn.as_str(), tool_iterations, 1000)
        .await;
    (StopReason::EndTurn, tool_iterations)
}

fn bash(command: &str) -> Value {
    json!({"command": command})
}

#[tokio::test]
async fn scripted_agent_session_through_the_facade() {
    let project = Project::new();
    let config = project.config(&forgeflare_config());
    let cwd = project.root().to_str().unwrap();
    let hooks = HookRunner::load(config.to_str().unwrap(), cwd);
    assert!(hooks.has_hooks());
    assert_eq!(hooks.hooks().len(), 4);

    // Session 1: allowed calls, one block (counters below threshold), then convergence.
    hooks.clear_convergence_state();
    let (reason, iterations) = inner_loop(
        &hooks,
        vec![
            vec![
                ("Read", json!({"file_path": "src/main.rs"}), "fn main() {}"),
                ("Bash", bash("ls"), "src"),
            ],
            vec![
                ("Bash", bash("rm -rf /"), ""),
                ("Bash", bash("cargo build"), "Finished"),
            ],
            vec![
                (
                    "Bash",
                    bash("cargo test"),
                    "test result: ok. 42 passed; 0 failed",
                ),
                ("Read", json!({"file_path": "x"}), "y"),
            ],
            vec![("Bash", bash("never reached"), "")],
        ],
    )
    .await;
    assert_eq!((reason, iterations), (StopReason::ConvergenceSignal, 3));
    let state = project.read_json(".forgeflare/convergence.json");
    assert_eq!(
        state["observations"],
        json!([{"signal": "converged", "reason": "tests pass", "tool_iterations": 2}])
    );
    assert_eq!(state["final"]["reason"], "convergence_signal");
    assert_eq!(state["final"]["tool_iterations"], 3);

    // Session 2: the model retries a destructive command three times in a row.
    hooks.clear_convergence_state();
    assert!(
        !project.path(".forgeflare/convergence.json").exists(),
        "stale file deleted at startup"
    );
    let (reason, iterations) = inner_loop(
        &hooks,
        vec![
            vec![("Bash", bash("ls"), "ok")],
            vec![
                ("Bash", bash("rm -rf /"), ""),
                ("Bash", bash("rm -rf /*"), ""),
                ("Bash", bash("rm -rf ~"), ""),
                ("Bash", bash("ls"), ""),
            ],
        ],
    )
    .await;
    assert_eq!(
        (reason, iterations),
        (StopReason::BlockLimitConsecutive, 1),
        "aborted batch does not count"
    );

    // Session 3: alternating blocked/allowed calls trip the total counter at 10.
    hooks.clear_convergence_state();
    let alternating: Vec<Vec<Call>> = (0..12)
        .map(|_| {
            vec![
                ("Bash", bash("rm -rf build"), ""),
                ("Bash", bash("ls"), "ok"),
            ]
        })
        .collect();
    let (reason, iterations) = inner_loop(&hooks, alternating).await;
    assert_eq!((reason, iterations), (StopReason::BlockLimitTotal, 9));
    let state = project.read_json(".forgeflare/convergence.json");
    assert_eq!(state["final"]["reason"], "block_limit_total");
    assert_eq!(state["observations"], json!([]));

    // The remaining reasons come from forgeflare's loop, not from hooks: each ends a session.
    for reason in [
        StopReason::EndTurn,
        StopReason::IterationLimit,
        StopReason::ApiError,
        StopReason::ContinuationCap,
    ] {
        hooks.clear_convergence_state();
        hooks.run_stop(reason.as_str(), 50, 123_456).await;
        assert_eq!(
            project.read_json(".forgeflare/convergence.json")["final"]["reason"],
            reason.as_str()
        );
    }

    let stops: Vec<String> = project
        .read("stops.jsonl")
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["reason"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let expected: Vec<String> = [
        "convergence_signal",
        "block_limit_consecutive",
        "block_limit_total",
        "end_turn",
        "iteration_limit",
        "api_error",
        "continuation_cap",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(stops, expected, "every Stop reason reached the Stop hook");
    let final_state = project.read_json(".forgeflare/convergence.json");
    assert_eq!(final_state["final"]["total_tokens"], 123_456);

    // The audit trail saw every guarded call, blocked or not, with the guard's outcome.
    let audit: Vec<Value> = project
        .read("audit.jsonl")
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let blocked = audit.iter().filter(|a| a["blocked"] == json!(true)).count();
    assert_eq!(blocked, 1 + 3 + 10);
    assert!(
        audit
            .iter()
            .filter(|a| a["blocked"] == json!(true))
            .all(|a| a["blocked_by"] == "ralph-guard.sh")
    );
}

#[tokio::test]
async fn facade_block_reasons_are_the_messages_the_model_sees() {
    let project = Project::new();
    let config = project.config(&format!(
        "{}{}",
        hook("PreToolUse", GUARD, "match_tool = \"Bash\""),
        hook(
            "PreToolUse",
            "sleep 5",
            "match_tool = \"Edit\"\ntimeout_ms = 100"
        ),
    ));
    let hooks = HookRunner::load(config.to_str().unwrap(), project.root().to_str().unwrap());
    assert_eq!(
        hooks.run_pre_tool_use("Bash", &bash("rm -rf /"), 0).await,
        PreToolResult::Block {
            reason: format!("blocked by {GUARD}: destructive command detected"),
            blocked_by: GUARD.to_string()
        }
    );
    assert_eq!(
        hooks.run_pre_tool_use("Edit", &json!({}), 0).await,
        PreToolResult::Block {
            reason: "hook failed: sleep 5 timed out after 100ms (tool blocked by default)".into(),
            blocked_by: "sleep 5".into()
        }
    );
    assert_eq!(
        hooks.run_pre_tool_use("Read", &json!({}), 0).await,
        PreToolResult::Allow
    );
}

#[tokio::test]
async fn broken_config_fails_closed_for_guards_and_open_for_the_rest() {
    let project = Project::new();
    let config = project.config(&format!(
        "{}[[hooks]]\nevent = \"PostToolUse\"\ncommnd = \"x\"\n",
        forgeflare_config()
    ));
    let hooks = HookRunner::load(config.to_str().unwrap(), project.root().to_str().unwrap());
    assert!(hooks.has_hooks(), "a broken config is not 'no hooks'");
    let path = config.display().to_string();
    for tool in ["Bash", "Read"] {
        let PreToolResult::Block { reason, blocked_by } =
            hooks.run_pre_tool_use(tool, &json!({}), 0).await
        else {
            panic!("a broken config must block");
        };
        assert_eq!(blocked_by, path);
        let header_line = forgeflare_config().lines().count() + 1;
        assert!(
            reason.starts_with(&format!("hook failed: {path} could not be loaded: {path}:{header_line}:1: hook #5: a hook needs exactly one of `command`")),
            "{reason}"
        );
        assert!(
            reason.ends_with("(and 1 more) (tool blocked by default)"),
            "{reason}"
        );
    }
    assert_eq!(
        hooks
            .run_post_tool_use("Bash", &json!({}), "test result: ok", false, 0)
            .await,
        PostToolResult::Continue
    );
    hooks.run_stop("end_turn", 0, 0).await;
    assert!(!project.path(".forgeflare/convergence.json").exists());
    assert!(
        !project.path("stops.jsonl").exists(),
        "no hook of a broken file runs"
    );
}

#[tokio::test]
async fn missing_config_is_a_silent_no_op() {
    let project = Project::new();
    let hooks = HookRunner::load(
        ".forgeflare/does-not-exist.toml",
        project.root().to_str().unwrap(),
    );
    assert!(!hooks.has_hooks());
    assert_eq!(
        hooks.run_pre_tool_use("Bash", &bash("rm -rf /"), 0).await,
        PreToolResult::Allow
    );
    assert_eq!(
        hooks
            .run_post_tool_use("Bash", &json!({}), "", false, 0)
            .await,
        PostToolResult::Continue
    );
    hooks.run_stop("end_turn", 0, 0).await;
    hooks.clear_convergence_state();
    assert!(!project.path(".forgeflare").exists());
}

#[test]
fn facade_futures_are_send_and_the_runner_is_sync() {
    fn assert_send<T: Send>(_: T) {}
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<HookRunner>();
    assert_send_sync::<hookhost::HookRunner>();
    let hooks = HookRunner::load("/nonexistent", "/");
    let input = json!({});
    assert_send(hooks.run_pre_tool_use("Bash", &input, 0));
    assert_send(hooks.run_post_tool_use("Bash", &input, "", false, 0));
    assert_send(hooks.run_stop("end_turn", 0, 0));
}
