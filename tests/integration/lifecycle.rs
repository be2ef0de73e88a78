//! Every agent's lifecycle through the native runner: protocols with real scripts, matchers,
//! the merge of answers, rewrites, invalid verdicts, in-process and async hooks, and both WIT
//! versions side by side.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hookhost::{
    Decision, Event, HookFailure, HookRunner, NativeHook, Outcome, RunnerOptions, ToolCall, Verdict,
};
use serde_json::{Value, json};

use crate::support::{Project, build_fixture, hook, probe};

fn bash(command: &str) -> Value {
    json!({ "command": command })
}

async fn pre(runner: &HookRunner, tool: &str, input: &Value) -> Outcome {
    runner
        .fire(&Event::pre_tool_use(ToolCall {
            tool,
            input,
            tool_iterations: 1,
        }))
        .await
}

fn answerer() -> String {
    build_fixture("answerer").display().to_string()
}

fn answerer_hook(event: &str, extra: &str, config: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"{event}\"\nwasm = '{}'\n{extra}\n[hooks.config]\n{config}\n\n",
        answerer()
    )
}

/// What the answerer logged it saw, per call.
fn seen(outcome: &Outcome) -> Vec<Value> {
    outcome
        .reports
        .iter()
        .flat_map(|r| r.stderr.lines())
        .filter_map(|line| line.strip_prefix("info: "))
        .map(|json| serde_json::from_str(json).unwrap())
        .collect()
}

#[tokio::test]
async fn claude_code_hook_scripts_run_unchanged() {
    let project = Project::new();
    // The shapes of hook scripts people write for Claude Code: jq on stdin and exit 2 with the
    // reason on stderr; and JSON answers in hookSpecificOutput.
    let jq_guard = r#"command=$(jq -r '.tool_input.command'); if echo "$command" | grep -q 'rm -rf'; then echo "Blocked: recursive delete" >&2; exit 2; fi; exit 0"#;
    let json_guard = r#"input=$(cat); command=$(echo "$input" | jq -r '.tool_input.command');
case "$command" in
  "git push"*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "pushing needs a human"}}' ;;
  "ls") jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", updatedInput: {command: "ls -1"}, additionalContext: "listed one per line"}}' ;;
  *) echo '{}' ;;
esac"#;
    let runner = project.runner(&format!(
        "{}{}{}{}",
        hook(
            "PreToolUse",
            jq_guard,
            "name = \"no-rm\"\nprotocol = \"claude\"\nmatcher = \"Bash\""
        ),
        hook(
            "PreToolUse",
            json_guard,
            "name = \"json\"\nprotocol = \"claude\"\nmatcher = \"Bash\""
        ),
        hook(
            "UserPromptSubmit",
            "cat > prompt.json; echo 'Remember: the tests live in tests/'",
            "name = \"ctx\"\nprotocol = \"claude\""
        ),
        hook(
            "PreToolUse",
            "exit 1",
            "name = \"broken\"\nprotocol = \"claude\"\nmatcher = \"Read\""
        ),
    ));

    let outcome = pre(&runner, "Bash", &bash("rm -rf build")).await;
    assert_eq!(
        outcome.block().map(|b| b.message()),
        Some("blocked by no-rm: Blocked: recursive delete".to_string())
    );

    let outcome = pre(&runner, "Bash", &bash("git push origin main")).await;
    assert!(
        matches!(&outcome.decision, Decision::Ask(n) if n.by == "json" && n.reason == "pushing needs a human"),
        "{:?}",
        outcome.decision
    );

    let outcome = pre(&runner, "Bash", &bash("ls")).await;
    assert!(outcome.is_allowed());
    assert_eq!(outcome.updated_input, Some(bash("ls -1")));
    assert_eq!(
        outcome.context_text().as_deref(),
        Some("listed one per line")
    );

    let prompt = runner
        .fire(&Event::user_prompt_submit("fix the bug").with_session("abc123"))
        .await;
    assert_eq!(
        prompt.context_text().as_deref(),
        Some("Remember: the tests live in tests/")
    );
    let stdin = project.read_json("prompt.json");
    assert_eq!(
        stdin,
        json!({"session_id": "abc123", "cwd": project.root(), "hook_event_name": "UserPromptSubmit", "prompt": "fix the bug"})
    );

    // A Claude hook that fails is a non-blocking error in Claude Code; a hookhost PreToolUse
    // guard fails closed unless it says `on_failure = "allow"`.
    let outcome = pre(&runner, "Read", &json!({"file_path": "x"})).await;
    assert_eq!(
        outcome.block().map(|b| b.message()),
        Some("hook failed: broken exited with code 1 (tool blocked by default)".to_string())
    );
}

#[tokio::test]
async fn exit_code_protocol_with_the_agents_environment() {
    let project = Project::new();
    let script = r#"echo "$FRESHER_MODE $FRESHER_ITERATION $HOOKHOST_EVENT $HOOKHOST_SESSION_ID" >> env.log
case "$FRESHER_ITERATION" in
  1) exit 0 ;;
  2) echo "No pending tasks, skipping iteration"; exit 1 ;;
  *) echo "ERROR: too many iterations" >&2; exit 2 ;;
esac"#;
    let config = project.config(&hook(
        "next_iteration",
        script,
        "name = \"next\"\nprotocol = \"exit-code\"",
    ));
    let mut options = project.options();
    options.env = vec![("FRESHER_MODE".into(), "building".into())];
    let runner = HookRunner::load(config, options).unwrap();
    let fire = |iteration: &'static str| {
        let runner = runner.clone();
        async move {
            runner
                .fire(
                    &Event::new("next_iteration")
                        .with_session("s1")
                        .with_env("FRESHER_ITERATION", iteration),
                )
                .await
        }
    };
    assert!(matches!(fire("1").await.decision, Decision::Allow));
    let warned = fire("2").await;
    assert!(
        matches!(&warned.decision, Decision::Warn(n) if n.reason == "No pending tasks, skipping iteration"),
        "{:?}",
        warned.decision
    );
    let aborted = fire("3").await;
    assert_eq!(
        aborted.block().map(|b| b.reason.as_str()),
        Some("ERROR: too many iterations")
    );
    assert_eq!(
        project.read("env.log"),
        "building 1 next_iteration s1\nbuilding 2 next_iteration s1\nbuilding 3 next_iteration s1\n"
    );
}

#[tokio::test]
async fn matchers_select_hooks_by_tool_and_by_field() {
    let project = Project::new();
    let logging = |name: &str| format!("echo {name} >> fired.log; echo '{{\"action\":\"allow\"}}'");
    let runner = project.runner(&format!(
        "{}{}{}{}{}{}",
        hook("PreToolUse", &logging("exact"), "match_tool = \"Bash\""),
        hook("PreToolUse", &logging("list"), "matcher = \"Edit|Write\""),
        hook("PreToolUse", &logging("regex"), "matcher = \"Notebook.*\""),
        hook(
            "PreToolUse",
            &logging("glob"),
            "matcher = { glob = \"mcp__*\" }"
        ),
        hook("PreToolUse", &logging("all"), "matcher = \"*\""),
        hook("SessionStart", &logging("resumed"), "matcher = \"resume\""),
    ));
    let cases = [
        ("Bash", "exact all"),
        ("Write", "list all"),
        ("NotebookEdit", "regex all"),
        ("mcp__memory__read", "glob all"),
        ("BashOutput", "all"),
    ];
    for (tool, expected) in cases {
        let _ = std::fs::remove_file(project.path("fired.log"));
        pre(&runner, tool, &json!({})).await;
        let fired = project
            .read("fired.log")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(fired, expected, "{tool}");
    }
    let _ = std::fs::remove_file(project.path("fired.log"));
    runner.fire(&Event::session_start("startup")).await;
    assert!(
        !project.path("fired.log").exists(),
        "source=startup does not match resume"
    );
    runner.fire(&Event::session_start("resume")).await;
    assert_eq!(project.read("fired.log"), "resumed\n");
}

#[tokio::test]
async fn answers_merge_by_precedence_and_rewrites_chain() {
    let project = Project::new();
    let answer = |json: &str| format!("cat >> seen.jsonl; echo >> seen.jsonl; echo '{json}'");
    let runner = project.runner(&format!(
        "{}{}{}{}{}",
        hook(
            "PreToolUse",
            &answer(r#"{"action":"warn","reason":"careful"}"#),
            "name = \"warner\""
        ),
        hook(
            "PreToolUse",
            &answer(r#"{"action":"allow","updated_input":{"command":"ls -1"}}"#),
            "name = \"rewriter\"\nmatch_tool = \"Bash\""
        ),
        hook(
            "PreToolUse",
            &answer(r#"{"action":"ask","reason":"sure?"}"#),
            "name = \"asker\"\nmatch_tool = \"Bash\""
        ),
        hook(
            "PreToolUse",
            &answer(r#"{"action":"block","reason":"no"}"#),
            "name = \"blocker\"\nmatch_tool = \"Edit\""
        ),
        hook(
            "PreToolUse",
            "cat >> seen.jsonl; echo >> seen.jsonl",
            "name = \"auditor\"\nphase = \"observe\""
        ),
    ));

    let outcome = pre(&runner, "Bash", &bash("ls")).await;
    // Ask beats warn; every warning and ask is a notice; the rewrite is the outcome's.
    assert!(matches!(&outcome.decision, Decision::Ask(n) if n.by == "asker"));
    let notices: Vec<&str> = outcome.notices.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(notices, ["careful", "sure?"]);
    assert_eq!(outcome.updated_input, Some(bash("ls -1")));
    // Every guard saw the input that runs: the warner, before the rewrite, saw it again.
    let order: Vec<&str> = outcome.reports.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        order,
        [
            "warner", "rewriter", "asker", "warner", "rewriter", "auditor"
        ]
    );
    let seen: Vec<Value> = project
        .read("seen.jsonl")
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let commands: Vec<&str> = seen
        .iter()
        .map(|s| s["input"]["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, ["ls", "ls", "ls -1", "ls -1", "ls -1", "ls -1"]);
    // The observer sees the decision.
    let observer = seen.last().unwrap();
    assert_eq!(
        (
            &observer["blocked"],
            &observer["decision"],
            &observer["decided_by"]
        ),
        (&json!(false), &json!("ask"), &json!("asker"))
    );

    // Block beats everything and stops the guards after it (R4).
    std::fs::remove_file(project.path("seen.jsonl")).unwrap();
    let outcome = pre(&runner, "Edit", &json!({"file_path": "a"})).await;
    assert_eq!(outcome.block().unwrap().message(), "blocked by blocker: no");
    assert!(matches!(outcome.notices.as_slice(), [n] if n.reason == "careful"));
}

#[tokio::test]
async fn an_answer_the_event_cannot_take_is_an_invalid_verdict() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}",
        hook(
            "PostToolUse",
            r#"echo '{"action":"continue","updated_input":{"command":"x"}}'"#,
            "name = \"rewrites-too-late\""
        ),
        hook(
            "Notification",
            r#"echo '{"action":"block","reason":"no"}'"#,
            "name = \"cannot-block\""
        ),
    ));
    let input = bash("ls");
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    };
    let outcome = runner.fire(&Event::post_tool_use(call, "ok", false)).await;
    assert_eq!(
        outcome.reports[0].result,
        Err(HookFailure::InvalidVerdict {
            detail: "a PostToolUse hook cannot answer updated input (it may answer: allow, block, warn, context, stop, signal)".into()
        })
    );
    assert_eq!(outcome.updated_input, None, "nothing of it is applied");
    let outcome = runner
        .fire(&Event::notification("idle", "idle_prompt"))
        .await;
    let Err(failure) = &outcome.reports[0].result else {
        panic!("{:?}", outcome.reports[0].result)
    };
    assert_eq!(
        failure.detailed(),
        "returned invalid JSON: unknown action \"block\"; a Notification hook answers \"allow\", \"continue\" or \"warn\""
    );
    assert!(outcome.is_allowed(), "a Notification hook fails open");
}

#[tokio::test]
async fn native_hooks_run_beside_configured_ones_and_their_panics_are_failures() {
    let project = Project::new();
    let runner = project.runner(&hook(
        "PreToolUse",
        r#"echo '{"action":"allow"}'"#,
        "name = \"file-guard\"",
    ));
    runner.register(
        NativeHook::new("no-sudo", "PreToolUse", |input| {
            match input.tool_call().and_then(|c| c.input["command"].as_str()) {
                Some(command) if command.starts_with("sudo") => Verdict::block("no sudo"),
                _ => Verdict::allow(),
            }
        })
        .unwrap()
        .with_matcher("Bash")
        .unwrap(),
    );
    runner.register(
        NativeHook::new_async("slow-context", "UserPromptSubmit", |input| async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let prompt = input.event().field("prompt").cloned().unwrap_or_default();
            Verdict::allow().with_context(format!("prompt was {prompt}"))
        })
        .unwrap(),
    );
    runner.register(
        NativeHook::new("buggy", "PreToolUse", |_| panic!("index out of bounds"))
            .unwrap()
            .with_matcher("Read")
            .unwrap(),
    );
    runner.register(
        NativeHook::new_async("hangs", "PreCompact", |_| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Verdict::allow()
        })
        .unwrap()
        .with_timeout(Duration::from_millis(50))
        .with_on_failure(hookhost::OnFailure::Block),
    );

    let outcome = pre(&runner, "Bash", &bash("sudo rm x")).await;
    assert_eq!(
        outcome.block().unwrap().message(),
        "blocked by no-sudo: no sudo"
    );
    let order: Vec<(&str, &str)> = outcome
        .reports
        .iter()
        .map(|r| (r.name.as_str(), r.kind))
        .collect();
    assert_eq!(order, [("file-guard", "command"), ("no-sudo", "native")]);

    let outcome = runner.fire(&Event::user_prompt_submit("hi")).await;
    assert_eq!(outcome.context_text().as_deref(), Some("prompt was \"hi\""));

    let outcome = pre(&runner, "Read", &json!({})).await;
    assert_eq!(
        outcome.block().unwrap().message(),
        "hook failed: buggy panicked: index out of bounds (tool blocked by default)"
    );

    let outcome = runner.fire(&Event::pre_compact("auto")).await;
    assert_eq!(
        outcome.block().unwrap().message(),
        "hook failed: hangs timed out after 50ms (tool blocked by default)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_hooks_run_in_the_background_bounded_and_are_drained() {
    let project = Project::new();
    let config = project.config(&format!(
        "{}{}",
        hook(
            "PreToolUse",
            "sleep 1; cat >> audit.jsonl",
            "name = \"slow-audit\"\nasync = true"
        ),
        hook(
            "PreToolUse",
            r#"echo '{"action":"allow"}'"#,
            "name = \"guard\""
        ),
    ));
    let mut options = project.options();
    options.background_limit = 2;
    let runner = HookRunner::load(config, options).unwrap();

    // The guard answers without waiting for the slow audit.
    let outcome = pre(&runner, "Bash", &bash("ls")).await;
    let names: Vec<&str> = outcome.reports.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["guard"]);
    assert!(
        !project.path("audit.jsonl").exists(),
        "the async hook is still running when the guard's answer is back"
    );
    // SessionEnd drains it: no audit line is lost.
    let end = runner.fire(&Event::session_end("other")).await;
    assert_eq!(project.read("audit.jsonl").lines().count(), 1);
    let drained: Vec<(&str, bool)> = end
        .reports
        .iter()
        .map(|r| (r.name.as_str(), r.background))
        .collect();
    assert_eq!(drained, [("slow-audit", true)]);
    assert!(end.reports[0].result.is_ok());

    // At most `background_limit` async hooks run at once; the rest wait, none is lost.
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let (r, p, d) = (running.clone(), peak.clone(), done.clone());
    runner.register(
        NativeHook::new_async("telemetry", "Notification", move |_| {
            let (running, peak, done) = (r.clone(), p.clone(), d.clone());
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(50)).await;
                running.fetch_sub(1, Ordering::SeqCst);
                done.fetch_add(1, Ordering::SeqCst);
                Verdict::allow()
            }
        })
        .unwrap()
        .background(),
    );
    for _ in 0..8 {
        runner.fire(&Event::notification("n", "idle_prompt")).await;
    }
    let flushed = runner.flush(Duration::from_secs(30)).await;
    assert_eq!(flushed.pending, 0);
    assert_eq!(flushed.reports.len(), 8);
    assert_eq!(done.load(Ordering::SeqCst), 8);
    assert_eq!(peak.load(Ordering::SeqCst), 2, "the bound holds");
}

#[tokio::test]
async fn wit_0_1_and_0_2_components_run_side_by_side() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}",
        crate::support::probe_hook("PreToolUse", "allow", "name = \"old\"", ""),
        answerer_hook(
            "PreToolUse",
            "name = \"new\"",
            "answer = \"warn\"\nreason = \"from 0.2\""
        ),
    ));
    let interfaces: Vec<String> = runner
        .wasm_hooks()
        .into_iter()
        .map(|(spec, info)| format!("{} {}", spec.name, info.interface))
        .collect();
    assert_eq!(
        interfaces,
        ["old hookhost:hooks@0.1.0", "new hookhost:hooks@0.2.0"]
    );
    let outcome = pre(&runner, "Bash", &bash("ls")).await;
    assert!(
        matches!(&outcome.decision, Decision::Warn(n) if n.by == "new" && n.reason == "from 0.2")
    );
    assert!(
        outcome.reports.iter().all(|r| r.result.is_ok()),
        "{:?}",
        outcome.reports
    );

    // A 0.1.0 component has no export for the new events: refused at load, with what to do.
    let error = HookRunner::load(
        project.config(&format!(
            "[[hooks]]\nevent = \"SessionStart\"\nwasm = '{}'\n",
            probe()
        )),
        project.options(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("is built against hookhost:hooks@0.1.0, which has exports only for PreToolUse, PostToolUse and Stop, but this hook is configured for SessionStart; rebuild it against hookhost:hooks@0.2.0"),
        "{error}"
    );
}

#[tokio::test]
async fn a_0_2_component_sees_every_event_and_answers_richly() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "{}{}{}{}{}",
        answerer_hook(
            "SessionStart",
            "name = \"start\"",
            "answer = \"allow\"\ncontext = \"sessions live in .ralph-sessions\""
        ),
        answerer_hook(
            "PreToolUse",
            "name = \"rewrite\"",
            "updated_input = { command = \"ls -1\" }"
        ),
        answerer_hook("PreToolUse", "name = \"observer\"\nphase = \"observe\"", ""),
        answerer_hook(
            "PostToolUse",
            "name = \"late-rewrite\"",
            "updated_input = { command = \"x\" }"
        ),
        answerer_hook(
            "llm:pre_request",
            "name = \"huge\"",
            "answer = \"block\"\nreason_bytes = 1000000"
        ),
    ));
    let start = runner
        .fire(&Event::session_start("startup").with_session("260215-173319"))
        .await;
    assert_eq!(
        start.context_text().as_deref(),
        Some("sessions live in .ralph-sessions")
    );
    assert_eq!(
        seen(&start),
        [json!({
            "name": "SessionStart", "phase": "Guard", "session_id": "260215-173319",
            "cwd": project.root(), "tool": null, "input": null,
            "payload": {"source": "startup"}, "observed": null,
        })]
    );

    let outcome = pre(&runner, "Bash", &bash("ls")).await;
    assert_eq!(outcome.updated_input, Some(bash("ls -1")));
    let views = seen(&outcome);
    // rewrite (sees ls), rewrite again (re-check, sees ls -1), observer (sees ls -1 and the
    // decision).
    assert_eq!(views.len(), 3, "{views:?}");
    assert_eq!(views[1]["input"], bash("ls -1"));
    assert_eq!(views[2]["phase"], "Observe");
    assert_eq!(views[2]["input"], bash("ls -1"));
    assert_eq!(
        views[2]["observed"],
        json!({"decision": "allow", "by": null, "reason": null})
    );

    let input = bash("ls");
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 2,
    };
    let post = runner
        .fire(&Event::post_tool_use(call, "a\nb", false))
        .await;
    assert!(
        matches!(&post.reports[0].result, Err(HookFailure::InvalidVerdict { detail }) if detail.contains("cannot answer updated input")),
        "{:?}",
        post.reports[0].result
    );
    assert_eq!(
        seen(&post)[0]["payload"],
        json!({"result": "a\nb", "is_error": false})
    );

    // A 1 MB reason reaches the agent cut, saying so.
    let huge = runner
        .fire(&Event::new("llm:pre_request").with_field("model", "m"))
        .await;
    let reason = &huge.block().unwrap().reason;
    assert!(reason.len() < 9 * 1024, "{}", reason.len());
    assert!(
        reason.ends_with("more bytes)"),
        "{}",
        &reason[reason.len() - 60..]
    );
}

#[tokio::test]
async fn code_forge_patterns_reach_custom_events() {
    let project = Project::new();
    let log = |name: &str| format!("echo {name} >> fired.log");
    let runner = project.runner(&format!(
        "{}{}{}",
        hook("tool:*", &log("any-tool-event"), "protocol = \"exit-code\""),
        hook(
            "session:start,session:end",
            &log("session"),
            "protocol = \"exit-code\""
        ),
        hook(
            "tool:pre_execute:bash",
            r#"echo "Blocked: sudo commands not allowed"; exit 1"#,
            "name = \"no-sudo\"\nprotocol = \"exit-code\"\nexit_codes = { 1 = \"block\" }"
        ),
    ));
    let input = bash("sudo ls");
    let outcome = runner
        .fire(&Event::new("tool:pre_execute").with_tool(ToolCall {
            tool: "bash",
            input: &input,
            tool_iterations: 0,
        }))
        .await;
    assert_eq!(
        outcome.block().unwrap().message(),
        "blocked by no-sudo: Blocked: sudo commands not allowed"
    );
    runner.fire(&Event::new("session:end")).await;
    runner.fire(&Event::new("llm:pre_request")).await;
    assert_eq!(project.read("fired.log"), "any-tool-event\nsession\n");
}

#[tokio::test]
async fn runner_options_env_reaches_command_hooks() {
    let project = Project::new();
    let config = project.config(&hook(
        "started",
        "echo \"$FORGE_SESSION_ID\" > env.txt",
        "protocol = \"exit-code\"",
    ));
    let mut options: RunnerOptions = project.options();
    options.env = vec![("FORGE_SESSION_ID".into(), "sess_abc123".into())];
    let runner = HookRunner::load(config, options).unwrap();
    runner.fire(&Event::new("started")).await;
    assert_eq!(project.read("env.txt"), "sess_abc123\n");
}

#[tokio::test]
async fn a_stop_hook_with_a_tool_matcher_still_fires() {
    // forgeflare ignores `match_tool` on Stop hooks (there is no tool); so does hookhost.
    let project = Project::new();
    let runner = project.runner(&hook("Stop", "touch stopped", "match_tool = \"Bash\""));
    runner.stop(hookhost::StopReason::EndTurn, 1, 1).await;
    assert!(project.path("stopped").exists());
}
