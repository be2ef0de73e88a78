//! `hookhost::embed`, what every language boundary builds on: foreign callbacks as hooks
//! (the JSON they get, the answers they give, deadlines, failures, cancel tokens), events and
//! outcomes as JSON, and a fire cancelled from another thread, with what that stops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hookhost::embed::{
    CallSite, CallbackError, CancelToken, ForeignCall, ForeignHookSpec, fire_cancellable,
    fire_json, foreign_hook,
};
use hookhost::{Event, HookRunner, NativeHook, Protocol, ToolCall, Verdict};
use serde_json::{Value, json};

use crate::support::{Project, hook, processes_with, wait_until_gone};

fn bash(command: &str) -> Value {
    json!({ "command": command })
}

async fn pre(runner: &HookRunner, command: &str) -> hookhost::Outcome {
    let input = bash(command);
    runner
        .fire(&Event::pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 2,
        }))
        .await
}

/// A blocking callback that records the JSON it got and answers `answer`.
fn recording(
    name: &str,
    events: &str,
    seen: &Arc<Mutex<Vec<Value>>>,
    answer: &'static str,
) -> NativeHook {
    let seen = seen.clone();
    foreign_hook(
        name,
        events,
        Protocol::Forgeflare,
        CallSite::Blocking,
        move |call: ForeignCall| {
            seen.lock()
                .unwrap()
                .push(serde_json::from_slice(call.event_json()).unwrap());
            call.answer(answer.as_bytes().to_vec());
        },
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callback_reads_what_a_command_hook_reads_and_answers_as_one() {
    let project = Project::new();
    // A command guard first rewrites the input; the callback sees the rewrite, then blocks.
    let runner = project.runner(&hook(
        "PreToolUse",
        r#"echo '{"action":"allow","updated_input":{"command":"rm -rf ./build"}}'"#,
        "name = \"rewriter\"",
    ));
    let seen = Arc::new(Mutex::new(Vec::new()));
    runner.register(recording(
        "cb-guard",
        "PreToolUse",
        &seen,
        r#"{"action":"block","reason":"no deletes"}"#,
    ));
    runner.register(recording("cb-audit", "PreToolUse", &seen, "garbage").observe());
    let outcome = pre(&runner, "rm -rf /").await;
    assert_eq!(
        outcome.block().unwrap().message(),
        "blocked by cb-guard: no deletes"
    );
    let cwd = project.root().display().to_string();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[0],
        json!({"event": "PreToolUse", "phase": "guard", "tool": "Bash",
               "input": {"command": "rm -rf ./build"}, "tool_iterations": 2, "cwd": cwd})
    );
    // The observer is told what the guards decided; its garbage answer is ignored (R4), as a
    // command observer's is.
    assert_eq!(seen[1]["phase"], "observe");
    assert_eq!(
        (
            &seen[1]["blocked"],
            &seen[1]["blocked_by"],
            &seen[1]["block_reason"]
        ),
        (&json!(true), &json!("cb-guard"), &json!("no deletes"))
    );
    assert!(outcome.reports[2].result.is_ok(), "{:?}", outcome.reports);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callback_answering_garbage_or_a_word_the_event_refuses_fails_closed() {
    let project = Project::new();
    let runner = project.runner("");
    let seen = Arc::new(Mutex::new(Vec::new()));
    runner.register(recording("cb", "PreToolUse", &seen, "allow please"));
    let outcome = pre(&runner, "ls").await;
    assert_eq!(
        outcome.block().unwrap().message(),
        "hook failed: cb returned invalid JSON (tool blocked by default)"
    );
    let runner = project.runner("");
    runner.register(recording("cb", "PreToolUse", &seen, r#"{"action":"deny"}"#));
    let outcome = pre(&runner, "ls").await;
    assert_eq!(
        outcome.reports[0].result.as_ref().unwrap_err().detailed(),
        "returned invalid JSON: unknown action \"deny\"; a guard answers \"allow\" or \"block\""
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_protocol_callback_gets_claude_json_and_its_answer_is_read_as_claudes() {
    let project = Project::new();
    let runner = project.runner("");
    let seen = Arc::new(Mutex::new(None));
    let record = seen.clone();
    let spec = ForeignHookSpec::parse(
        br#"{"name":"go-guard","event":"PreToolUse","matcher":"Bash","protocol":"claude","timeout_ms":2000}"#,
    )
    .unwrap();
    runner.register(
        spec.build(move |call| {
            *record.lock().unwrap() = Some(serde_json::from_slice::<Value>(call.event_json()).unwrap());
            call.answer(
                br#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}"#.to_vec(),
            );
        })
        .unwrap(),
    );
    let event = hookhost::embed::EventJson::parse(
        br#"{"event":"PreToolUse","session_id":"s1","tool":"Bash","input":{"command":"ls"},"transcript_path":"/t.jsonl","tool_use_id":"tu1"}"#,
    )
    .unwrap();
    let outcome = runner.fire(&event.event()).await;
    assert_eq!(
        outcome.block().unwrap().message(),
        "blocked by go-guard: not here"
    );
    assert_eq!(
        seen.lock().unwrap().take().unwrap(),
        json!({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": project.root(),
               "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
               "tool_use_id": "tu1"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_callback_times_out_learns_it_and_its_answer_is_discarded() {
    let project = Project::new();
    let runner = project.runner("");
    let told = Arc::new(AtomicBool::new(false));
    let (finished, finished_rx) = std::sync::mpsc::channel();
    let flag = told.clone();
    runner.register(
        foreign_hook(
            "slow",
            "PreToolUse",
            Protocol::Forgeflare,
            CallSite::Blocking,
            move |call| {
                let token = call.cancel_token().clone();
                let started = Instant::now();
                while !token.is_cancelled() && started.elapsed() < Duration::from_secs(10) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                flag.store(token.is_cancelled(), Ordering::SeqCst);
                call.answer(br#"{"action":"allow"}"#.to_vec());
                finished.send(()).unwrap();
            },
        )
        .unwrap()
        .with_timeout(Duration::from_millis(100)),
    );
    let started = Instant::now();
    let outcome = pre(&runner, "ls").await;
    assert_eq!(
        outcome.block().unwrap().message(),
        "hook failed: slow timed out after 100ms (tool blocked by default)"
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    finished_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(
        told.load(Ordering::SeqCst),
        "the callback was not told it was abandoned"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callback_that_fails_panics_or_drops_its_call_is_a_hook_failure() {
    type Callback = Arc<dyn Fn(ForeignCall) + Send + Sync>;
    let cases: Vec<(&str, Callback, &str)> = vec![
        (
            "fails",
            Arc::new(|call: ForeignCall| call.fail(CallbackError::Failed("db down".into()))),
            "hook failed: fails trapped: db down (tool blocked by default)",
        ),
        (
            "panics",
            Arc::new(|_call: ForeignCall| panic!("boom")),
            "hook failed: panics panicked: boom (tool blocked by default)",
        ),
        (
            "reports-a-panic",
            Arc::new(|call: ForeignCall| {
                call.fail(CallbackError::Panicked(
                    "runtime error: index out of range".into(),
                ))
            }),
            "hook failed: reports-a-panic panicked: runtime error: index out of range (tool blocked by default)",
        ),
        (
            "drops",
            Arc::new(drop),
            "hook failed: drops trapped: the callback dropped its call without answering (tool blocked by default)",
        ),
    ];
    for (name, callback, expected) in cases {
        for site in [CallSite::Blocking, CallSite::Deferred] {
            let project = Project::new();
            let runner = project.runner("");
            let callback = callback.clone();
            runner.register(
                foreign_hook(
                    name,
                    "PreToolUse",
                    Protocol::Forgeflare,
                    site,
                    move |call| callback(call),
                )
                .unwrap(),
            );
            let outcome = pre(&runner, "ls").await;
            assert_eq!(
                outcome.block().map(|b| b.message()).as_deref(),
                Some(expected),
                "{name} ({site:?})"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_callback_answers_later_from_another_thread() {
    let project = Project::new();
    let runner = project.runner("");
    let called_on = Arc::new(Mutex::new(None));
    let record = called_on.clone();
    runner.register(
        foreign_hook(
            "js-guard",
            "PreToolUse",
            Protocol::Forgeflare,
            CallSite::Deferred,
            move |call| {
                *record.lock().unwrap() = Some(std::thread::current().id());
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(20));
                    call.answer(
                        br#"{"action":"allow","updated_input":{"command":"ls -la"},"context":"listed"}"#
                            .to_vec(),
                    );
                });
            },
        )
        .unwrap(),
    );
    let outcome = pre(&runner, "ls").await;
    assert!(outcome.is_allowed());
    assert_eq!(outcome.updated_input, Some(bash("ls -la")));
    assert_eq!(outcome.context_text().as_deref(), Some("listed"));
    assert!(called_on.lock().unwrap().is_some());
}

#[test]
fn hook_specs_refuse_what_they_do_not_know() {
    #[rustfmt::skip]
    let cases: &[(&str, &str)] = &[
        (r#"{"name":"x"}"#, "invalid hook spec: missing field `event` at line 1 column 12"),
        (r#"{"name":"x","event":"PreToolUse","timeout":5}"#, "invalid hook spec: unknown field `timeout`, expected one of `name`, `event`, `matcher`, `timeout_ms`, `phase`, `async`, `on_failure`, `mode`, `protocol`, `call` at line 1 column 42"),
    ];
    for (json, expected) in cases {
        assert_eq!(
            &ForeignHookSpec::parse(json.as_bytes()).unwrap_err(),
            expected
        );
    }
    #[rustfmt::skip]
    let built: &[(&str, &str)] = &[
        (r#"{"name":"x","event":"PreToolUse","protocol":"exit-code"}"#, "invalid native hook x: a callback answers in JSON; the exit-code protocol reads an exit status: use forgeflare, claude, copilot or gemini"),
        (r#"{"name":"x","event":"PreToolUse","protocol":"bash"}"#, "invalid native hook x: unknown protocol \"bash\": use forgeflare, claude, copilot or gemini"),
        (r#"{"name":"x","event":"PreToolUse","call":"inline"}"#, "invalid native hook x: unknown `call` \"inline\": use blocking or deferred"),
        (r#"{"name":"x","event":"PreToolUse","phase":"after"}"#, "invalid native hook x: unknown `phase` \"after\": use guard or observe"),
        (r#"{"name":"x","event":"PreToolUse","mode":"audit"}"#, "invalid native hook x: unknown `mode` \"audit\": use enforce, monitor or warn"),
        (r#"{"name":"x","event":"PreToolUse","on_failure":"open"}"#, "invalid native hook x: unknown `on_failure` \"open\": use block or allow"),
        (r#"{"name":"x","event":"PreToolUse","timeout_ms":0}"#, "invalid native hook x: `timeout_ms` must be at least 1"),
    ];
    for (json, expected) in built {
        let spec = ForeignHookSpec::parse(json.as_bytes()).unwrap();
        assert_eq!(
            &spec.build(drop).unwrap_err().to_string(),
            expected,
            "{json}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fire_json_round_trips_an_event_with_env_and_a_forgeflare_stop_writes_final() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}",
        hook(
            "PreToolUse",
            r#"echo "{\"action\":\"warn\",\"reason\":\"step $AGENT_STEP\",\"context\":\"ctx\"}""#,
            "name = \"stepper\"",
        ),
        hook(
            "Stop",
            r#"echo '{"action":"continue"}'"#,
            "name = \"stop-hook\""
        ),
    ));
    let out = fire_json(
        &runner,
        br#"{"event":"PreToolUse","tool":"Bash","input":{"command":"ls"},"env":{"AGENT_STEP":"7"}}"#,
        None,
    )
    .await
    .unwrap();
    let out: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        (&out["decision"], &out["allowed"], &out["context_text"]),
        (
            &json!({"kind": "warn", "by": "stepper", "reason": "step 7", "message": null, "failure": null}),
            &json!(true),
            &json!("ctx")
        )
    );
    assert_eq!(out["reports"][0]["verdict"]["answer"], "warn");
    let stop = br#"{"event":"Stop","session_id":"s1","reason":"end_turn","tool_iterations":4,"total_tokens":900}"#;
    let out: Value =
        serde_json::from_slice(&fire_json(&runner, stop, None).await.unwrap()).unwrap();
    assert_eq!(out["final_written"], json!(true));
    assert_eq!(
        project.read_json(".forgeflare/convergence.json")["final"]["reason"],
        "end_turn"
    );
    // Refused before anything runs: the cwd of another project.
    let error = fire_json(&runner, br#"{"event":"Stop","cwd":"/elsewhere"}"#, None)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("the event's `cwd` \"/elsewhere\" is not the runner's directory"),
        "{error}"
    );
}

/// Cancels `token` once `marker`'s process runs (or after 10 s).
fn cancel_when_running(token: CancelToken, marker: &'static str) {
    std::thread::spawn(move || {
        let started = Instant::now();
        while processes_with(marker).is_empty() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(5));
        }
        token.cancel();
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_fire_kills_its_command_hooks_and_says_so() {
    let project = Project::new();
    let marker = "embed-cancel-marker-7731";
    let runner = project.runner(&hook(
        "PreToolUse",
        &format!("sleep 30 # {marker}\necho '{{\"action\":\"allow\"}}'"),
        "name = \"sleeper\"\ntimeout_ms = 60000",
    ));
    let token = CancelToken::new();
    cancel_when_running(token.clone(), marker);
    let input = bash("ls");
    let event = Event::pre_tool_use(ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    });
    let started = Instant::now();
    let result = fire_cancellable(&runner, &event, &token).await;
    assert_eq!(
        result.unwrap_err().to_string(),
        "the PreToolUse fire was cancelled before its hooks answered: there is no decision (do not act as if the hooks had allowed it)"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        wait_until_gone(marker),
        Vec::<String>::new(),
        "the hook's processes outlived the cancel"
    );
    // A token cancelled before the fire: nothing runs.
    let result = fire_cancellable(&runner, &event, &token).await;
    assert!(result.is_err());
    assert!(processes_with(marker).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_fire_aborts_async_closures_and_tells_callbacks() {
    let project = Project::new();
    let runner = project.runner("");
    let closure_finished = Arc::new(AtomicBool::new(false));
    let finished = closure_finished.clone();
    runner.register(
        NativeHook::new_async("slow-closure", "PreToolUse", move |_| {
            let finished = finished.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                finished.store(true, Ordering::SeqCst);
                Verdict::allow()
            }
        })
        .unwrap()
        .observe(),
    );
    let token_seen = Arc::new(Mutex::new(None::<CancelToken>));
    let record = token_seen.clone();
    runner.register(
        foreign_hook(
            "cb",
            "PreToolUse",
            Protocol::Forgeflare,
            CallSite::Deferred,
            move |call| {
                // Kept, never answered: the fire hangs here until cancelled.
                *record.lock().unwrap() = Some(call.cancel_token().clone());
                std::mem::forget(call);
            },
        )
        .unwrap()
        .with_timeout(Duration::from_secs(30)),
    );
    let token = CancelToken::new();
    let cancel = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        cancel.cancel();
    });
    let input = bash("ls");
    let event = Event::pre_tool_use(ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    });
    assert!(fire_cancellable(&runner, &event, &token).await.is_err());
    let callback_token = token_seen.lock().unwrap().clone().unwrap();
    assert!(callback_token.is_cancelled(), "the callback was not told");
    // The guard never answered, so the observer never ran: fire again with only the observer
    // reached, and cancel that.
    let runner = project.runner("");
    let finished = closure_finished.clone();
    runner.register(
        NativeHook::new_async("slow-closure", "PreToolUse", move |_| {
            let finished = finished.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                finished.store(true, Ordering::SeqCst);
                Verdict::allow()
            }
        })
        .unwrap(),
    );
    let token = CancelToken::new();
    let cancel = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        cancel.cancel();
    });
    assert!(fire_cancellable(&runner, &event, &token).await.is_err());
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(
        !closure_finished.load(Ordering::SeqCst),
        "the async closure ran on after its fire was cancelled"
    );
}

#[cfg(feature = "wasm")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_fire_frees_a_spinning_wasm_guards_instance() {
    use crate::support::probe_hook;
    let project = Project::new();
    let config = project.config(&probe_hook(
        "PreToolUse",
        "spin",
        "name = \"spinner\"\ntimeout_ms = 1000",
        "",
    ));
    let mut options = project.options();
    // One instance: a call left running would make the next one wait for ever.
    options.wasm_instances = 1;
    let runner = HookRunner::load(config, options).unwrap();
    let input = bash("ls");
    let event = Event::pre_tool_use(ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    });
    let token = CancelToken::new();
    let cancel = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        cancel.cancel();
    });
    let started = Instant::now();
    assert!(fire_cancellable(&runner, &event, &token).await.is_err());
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    let outcome = tokio::time::timeout(Duration::from_secs(10), runner.fire(&event))
        .await
        .expect("the next call never got the instance back");
    assert_eq!(
        outcome.block().unwrap().message(),
        "hook failed: spinner timed out after 1000ms (tool blocked by default)"
    );
}
