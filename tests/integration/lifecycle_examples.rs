//! The lifecycle examples, as their users run them: Ralph's two P0 hooks (built from
//! example-hooks/ for wasm32-wasip2, loaded through `HookRunner`), and the Fresher and
//! Code-Forge demos (copied from demo/ into a throwaway project and fired through the
//! `hookhost` binary, with the variables each agent passes).

use std::path::Path;
use std::process::Command;

use hookhost::{Decision, Event, HookRunner, Outcome, ToolCall};
use serde_json::{Value, json};

use crate::support::{Project, example};

const SESSION: &str = "260215-173319";
const INPUTS: &str = ".ralph-sessions/260215-173319/signals/inputs";

/// A hooks.toml entry for an example wasm hook.
fn wasm_entry(name: &str, settings: &str, config: &str) -> String {
    format!(
        "[[hooks]]\nname = \"{name}\"\nwasm = '{}'\n{settings}\n[hooks.config]\n{config}\n\n",
        example(name)
    )
}

async fn session_start(runner: &HookRunner, id: &str) -> Outcome {
    runner
        .fire(&Event::session_start("startup").with_session(id))
        .await
}

/// The merged decision in a few words: `allow`, `warn: ...`, `block: ...` (the message the
/// agent shows).
fn decided(outcome: &Outcome) -> String {
    match &outcome.decision {
        Decision::Allow => "allow".to_string(),
        Decision::Warn(notice) => format!("warn: {}", notice.reason),
        Decision::Block(block) => format!("block: {}", block.message()),
        other => panic!("these hooks only allow, warn or block, got {other:?}"),
    }
}

#[tokio::test]
async fn session_directory_guard_creates_checks_and_blocks() {
    let project = Project::new();
    // A grant names a directory that exists when the runner loads.
    std::fs::create_dir(project.path(".ralph-sessions")).unwrap();
    let runner = project.runner(&wasm_entry(
        "session-directory-guard",
        "event = \"SessionStart\"\nwrite = [\".ralph-sessions\"]\ntimeout_ms = 1000",
        "",
    ));

    let outcome = session_start(&runner, SESSION).await;
    assert_eq!(decided(&outcome), "allow");
    let notices: Vec<&str> = outcome.notices.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(
        notices,
        [
            "Created directory: .ralph-sessions/260215-173319/; Created scaffold: signals/inputs/, signals/processed/, logs/"
        ]
    );
    let session = project.path(".ralph-sessions").join(SESSION);
    for sub in ["signals/inputs", "signals/processed", "logs"] {
        assert!(session.join(sub).is_dir(), "{sub} created on the host");
    }
    assert!(
        outcome.reports[0]
            .stderr
            .contains("info: Created directory: .ralph-sessions/260215-173319/"),
        "{:?}",
        outcome.reports[0].stderr
    );

    // Resumed: everything is there.
    let outcome = session_start(&runner, SESSION).await;
    assert_eq!(
        (decided(&outcome), outcome.notices.len()),
        ("allow".into(), 0)
    );

    // A scaffold directory went missing: reported, not re-created.
    std::fs::remove_dir(session.join("logs")).unwrap();
    assert_eq!(
        decided(&session_start(&runner, SESSION).await),
        "warn: Session directory .ralph-sessions/260215-173319/ is missing scaffold directories: logs/ (left as they are: create them, or let the Orchestrator's Session Resolution do it)"
    );
    assert!(!session.join("logs").exists());

    #[rustfmt::skip]
    let blocked = [
        ("invalid-id", "block: blocked by session-directory-guard: Session ID 'invalid-id' does not match required format YYMMDD-HHmmss"),
        ("../../etc", "block: blocked by session-directory-guard: Session ID '../../etc' contains a path separator; it must be a single directory name of the form YYMMDD-HHmmss"),
        ("260215-17331", "block: blocked by session-directory-guard: Session ID '260215-17331' does not match required format YYMMDD-HHmmss"),
    ];
    for (id, expected) in blocked {
        assert_eq!(decided(&session_start(&runner, id).await), expected, "{id}");
    }
    let no_id = runner.fire(&Event::session_start("startup")).await;
    assert_eq!(
        decided(&no_id),
        "block: blocked by session-directory-guard: SessionStart without a session id: the agent must give one of the form YYMMDD-HHmmss"
    );
    // An agent that puts the id in the payload instead.
    let in_payload = Event::session_start("startup").with_field("session_id", "260215-180000");
    assert_eq!(decided(&runner.fire(&in_payload).await), "allow");
    assert!(project.path(".ralph-sessions/260215-180000/logs").is_dir());
}

#[tokio::test]
async fn session_directory_guard_without_its_grant_warns_and_says_how_to_fix_it() {
    let project = Project::new();
    let runner = project.runner(&wasm_entry(
        "session-directory-guard",
        "event = \"SessionStart\"",
        "sessions_dir = \"work/sessions\"",
    ));
    let outcome = session_start(&runner, SESSION).await;
    let decision = decided(&outcome);
    assert!(
        decision.starts_with("warn: cannot create work/sessions/260215-173319/: ")
            && decision.ends_with(
                "(grant the hook `write = [\"work/sessions\"]`; the directory must exist when the runner loads)"
            ),
        "{decision}"
    );
    assert!(!project.path("work").exists());

    // The signal check cannot tell "not granted" from "does not exist" below a missing grant,
    // so it checks that it sees the sessions directory at all.
    std::fs::create_dir(project.path(".ralph-sessions")).unwrap();
    let runner = project.runner(&wasm_entry(
        "signal-schema-check",
        "event = \"SessionStart\"",
        "",
    ));
    assert_eq!(
        decided(&session_start(&runner, SESSION).await),
        "warn: cannot see .ralph-sessions; signals were not checked (grant the hook `read = [\".ralph-sessions\"]`)"
    );
}

#[tokio::test]
async fn signal_schema_check_guards_writes_and_waiting_signals() {
    let project = Project::new();
    std::fs::create_dir(project.path(".ralph-sessions")).unwrap();
    // The documented setup: the directory guard first (it creates the scaffold), then the
    // signal check for both events, fail open as the seed asks.
    let runner = project.runner(&[
        wasm_entry("session-directory-guard", "event = \"SessionStart\"\nwrite = [\".ralph-sessions\"]", ""),
        wasm_entry("signal-schema-check", "event = [\"SessionStart\", \"PreToolUse\"]\nread = [\".ralph-sessions\"]\non_failure = \"allow\"\ntimeout_ms = 1000", ""),
    ].concat());
    assert_eq!(decided(&session_start(&runner, SESSION).await), "allow");
    assert!(project.path(INPUTS).is_dir());

    let signal = format!("{INPUTS}/signal.260215-180000.yaml");
    let write = |path: &str, content: &str| json!({ "file_path": path, "content": content });
    let fire = |tool: &'static str, input: Value| {
        let runner = runner.clone();
        async move {
            let outcome = runner
                .pre_tool_use(ToolCall {
                    tool,
                    input: &input,
                    tool_iterations: 1,
                })
                .await;
            decided(&outcome)
        }
    };
    let prefix = format!("block: blocked by signal-schema-check: {signal}: ");
    #[rustfmt::skip]
    let cases = [
        ("valid", "Write", write(&signal, "type: STEER\ntarget: ALL\nmessage: focus on the parser\n"), "allow".to_string()),
        ("the seed's invalid type", "Write", write(&signal, "type: INVALID\nmessage: test\ntarget: ALL\n"),
            format!("{prefix}Invalid signal type 'INVALID'. Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP")),
        ("the seed's empty message", "create_file", json!({"filePath": signal, "content": "type: STEER\nmessage: ''\n"}),
            format!("{prefix}Signal message must be non-empty; warning: Signal target is missing; it defaults to ALL")),
        ("invalid YAML", "Write", write(&signal, "type: STEER\nmessage: [unclosed\n"),
            format!("{prefix}Signal file is not valid YAML: ")),
        ("missing target", "Write", write(&signal, "type: PAUSE\nmessage: wait for review\n"),
            format!("warn: {signal}: Signal target is missing; it defaults to ALL")),
        ("non-positive iteration", "Write", write(&signal, "type: INFO\ntarget: ALL\nmessage: m\niteration: 0\n"),
            format!("warn: {signal}: Signal iteration must be a positive integer, found '0'")),
        ("odd filename", "Write", write(&format!("{INPUTS}/steer.yaml"), "type: INFO\ntarget: ALL\nmessage: m\n"),
            format!("warn: {INPUTS}/steer.yaml: Signal filename 'steer.yaml' does not match signal.<YYMMDD-HHmmss>.yaml (the signal is still processed)")),
        ("not a signal", "Write", write("notes.yaml", "::: not yaml"), "allow".to_string()),
        ("processed signals are not inputs", "Write", write(".ralph-sessions/260215-173319/signals/processed/x.yaml", "x"), "allow".to_string()),
    ];
    for (name, tool, input, expected) in cases {
        let got = fire(tool, input).await;
        assert!(got.starts_with(&expected), "{name}: {got}");
    }

    // An edit is checked on the file it leaves behind, read through the `read` grant.
    std::fs::write(
        project.path(&signal),
        "type: STEER\ntarget: ALL\nmessage: focus\n",
    )
    .unwrap();
    let edit =
        |old: &str, new: &str| json!({ "file_path": signal, "old_str": old, "new_str": new });
    assert_eq!(fire("Edit", edit("STEER", "PAUSE")).await, "allow");
    assert_eq!(
        fire("Edit", edit("STEER", "STOP")).await,
        format!(
            "{prefix}Invalid signal type 'STOP'. Must be one of: STEER, PAUSE, ABORT, INFO, APPROVE, SKIP"
        )
    );

    // At SessionStart, the signals already waiting are checked; a bad one blocks the start.
    assert_eq!(decided(&session_start(&runner, SESSION).await), "allow");
    std::fs::write(
        project.path(&format!("{INPUTS}/signal.260215-181500.yaml")),
        "type: ABORT\n",
    )
    .unwrap();
    let outcome = session_start(&runner, SESSION).await;
    assert_eq!(
        decided(&outcome),
        format!(
            "block: blocked by signal-schema-check: {INPUTS}/signal.260215-181500.yaml: Signal message must be non-empty; warning: Signal target is missing; it defaults to ALL"
        )
    );
    let ran: Vec<&str> = outcome.reports.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(ran, ["session-directory-guard", "signal-schema-check"]);
}

/// A copy of `demo/{name}` in a throwaway project (the demos' hooks write files).
fn demo_project(name: &str) -> Project {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                // Keeps the scripts' executable bits.
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
    let project = Project::new();
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("demo")
            .join(name),
        project.root(),
    );
    project
}

/// `hookhost fire EVENT ARGS... --json` in `project` with `config`: the exit status and the
/// JSON it printed.
fn fire_cli(project: &Project, config: &str, event: &str, args: &[&str]) -> (i32, Value) {
    let root = project.root().to_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["fire", event, "--config", config, "--cwd", root, "--json"])
        .args(args)
        .current_dir(project.root())
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), json)
}

#[test]
fn fresher_lifecycle_hooks_through_the_cli() {
    let project = demo_project("fresher");
    let fresher = |event: &str, env: &[&str]| {
        let mut args = vec![
            "--env".to_string(),
            format!("FRESHER_PROJECT_DIR={}", project.root().display()),
        ];
        for pair in env {
            args.extend(["--env".to_string(), pair.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fire_cli(&project, ".fresher/hooks.toml", event, &args)
    };

    // started, building mode, no plan: abort.
    let (status, json) = fresher("started", &["FRESHER_MODE=building"]);
    assert_eq!(status, 2, "{json:#}");
    assert_eq!(
        json["message"],
        "blocked by .fresher/hooks/started: ERROR: No IMPLEMENTATION_PLAN.md found. Run planning mode first."
    );
    assert!(
        json["hooks"][0]["stderr"]
            .as_str()
            .unwrap()
            .starts_with("Starting Fresher loop in building mode\n"),
        "the script's own output is kept: {json:#}"
    );
    // Planning mode needs no plan.
    let (status, json) = fresher("started", &["FRESHER_MODE=planning"]);
    assert_eq!(
        (status, &json["decision"]),
        (0, &json!("allow")),
        "{json:#}"
    );

    // next_iteration with nothing pending: skip, which is a warning.
    std::fs::write(project.path("IMPLEMENTATION_PLAN.md"), "- [x] task-1\n").unwrap();
    let (status, json) = fresher(
        "next_iteration",
        &[
            "FRESHER_MODE=building",
            "FRESHER_ITERATION=2",
            "FRESHER_LAST_EXIT_CODE=0",
        ],
    );
    assert_eq!(status, 0, "{json:#}");
    assert_eq!(json["decision"], "warn");
    assert_eq!(
        json["notices"],
        json!([{"by": ".fresher/hooks/next_iteration", "reason": "No pending tasks, skipping iteration"}])
    );
    // With a pending task, the iteration runs.
    std::fs::write(
        project.path("IMPLEMENTATION_PLAN.md"),
        "- [x] task-1\n  - [ ] task-2\n",
    )
    .unwrap();
    let (status, json) = fresher(
        "next_iteration",
        &["FRESHER_MODE=building", "FRESHER_ITERATION=3"],
    );
    assert_eq!(
        (status, &json["decision"]),
        (0, &json!("allow")),
        "{json:#}"
    );
    // With the plan in place, started goes on.
    let (status, _) = fresher("started", &["FRESHER_MODE=building"]);
    assert_eq!(status, 0);

    // finished: the summary, exit 0.
    let (status, json) = fresher(
        "finished",
        &[
            "FRESHER_FINISH_TYPE=complete",
            "FRESHER_TOTAL_ITERATIONS=4",
            "FRESHER_TOTAL_COMMITS=3",
            "FRESHER_DURATION=95",
        ],
    );
    assert_eq!(
        (status, &json["decision"]),
        (0, &json!("allow")),
        "{json:#}"
    );
    assert_eq!(
        json["hooks"][0]["stderr"],
        "Fresher loop finished\nFinish type: complete\nTotal iterations: 4\nTotal commits: 3\nDuration: 95s\nAll tasks completed successfully!\n"
    );
}

#[test]
fn code_forge_patterns_and_blocking_convention_through_the_cli() {
    let project = demo_project("code-forge");
    let forge = |event: &str, tool: Option<&str>, input: &str| {
        let mut args = vec![
            "--session-id".to_string(),
            "sess_abc123".to_string(),
            "--env".to_string(),
            format!("FORGE_EVENT={event}"),
            "--env".to_string(),
            "FORGE_SESSION_ID=sess_abc123".to_string(),
        ];
        if let Some(tool) = tool {
            args.extend(
                [
                    "--tool",
                    tool,
                    "--input",
                    input,
                    "--env",
                    &format!("FORGE_TOOL_NAME={tool}"),
                    "--env",
                    &format!("FORGE_TOOL_ARGS={input}"),
                ]
                .map(str::to_string),
            );
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (status, json) = fire_cli(&project, "hooks.toml", event, &args);
        let ran: Vec<String> = json["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hook| hook["name"].as_str().unwrap().to_string())
            .collect();
        (status, json, ran)
    };

    let (status, json, ran) = forge(
        "tool:pre_execute",
        Some("bash"),
        r#"{"command":"sudo rm -rf /"}"#,
    );
    assert_eq!(status, 2, "{json:#}");
    assert_eq!(
        json["message"],
        "blocked by no-sudo: Blocked: sudo commands not allowed"
    );
    assert_eq!(ran, ["tool-log", "no-sudo"]);

    let (status, _, ran) = forge("tool:pre_execute", Some("bash"), r#"{"command":"ls -la"}"#);
    assert_eq!(
        (status, ran),
        (0, vec!["tool-log".into(), "no-sudo".into()])
    );

    // tool:pre_execute:bash is for bash only; tool:*:write for write only.
    let (status, _, ran) = forge(
        "tool:pre_execute",
        Some("write"),
        r#"{"path":"a.txt","content":"sudo"}"#,
    );
    assert_eq!(
        (status, ran),
        (0, vec!["tool-log".into(), "write-log".into()])
    );
    let (_, _, ran) = forge(
        "tool:post_execute",
        Some("bash"),
        r#"{"command":"sudo ls"}"#,
    );
    assert_eq!(ran, ["tool-log"]);

    for event in ["session:start", "session:end"] {
        let (status, _, ran) = forge(event, None, "");
        assert_eq!(
            (status, ran),
            (0, vec!["session-log".to_string()]),
            "{event}"
        );
    }
    let (status, _, ran) = forge("llm:pre_request", None, "");
    assert_eq!((status, ran), (0, Vec::<String>::new()));

    // The scripts saw Code-Forge's variables.
    assert_eq!(
        project.read(".forge/events.log"),
        "tool:pre_execute tool=bash session=sess_abc123 hook=tool-log\n\
         tool:pre_execute tool=bash session=sess_abc123 hook=tool-log\n\
         tool:pre_execute tool=write session=sess_abc123 hook=tool-log\n\
         tool:pre_execute tool=write session=sess_abc123 hook=write-log\n\
         tool:post_execute tool=bash session=sess_abc123 hook=tool-log\n\
         session:start tool=- session=sess_abc123 hook=session-log\n\
         session:end tool=- session=sess_abc123 hook=session-log\n"
    );
}
