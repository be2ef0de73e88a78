//! What each shipped policy costs per call as a wasm component, as hookhost runs it (through
//! `HookRunner`: a fresh instance per call, the compiled component cached), beside
//! example-hooks/destructive-guard, the example policy the README's speed figures quote, and
//! the destructive engine called natively (the floor).
//!
//! `cargo bench -p policy-bench --bench policies` builds the components (release,
//! wasm32-wasip2), runs every case, then prints one table of medians. Each case is a call the
//! policy lets through after doing its whole work (the common case), plus a blocked one for
//! the destructive policy.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::Criterion;
use hookhost::{Event, HookRunner, RunnerOptions, ToolCall};
use serde_json::{Value, json};

/// A command line of the length agents write, with the constructs the parser walks.
const COMMAND: &str = "cd web && npm ci && npm run build -- --prod 2>&1 | tee build.log && git add -A && git commit -m 'build: rm -rf of dist is safe' && git push origin feature/x";

struct Case {
    name: &'static str,
    wasm: &'static str,
    config: &'static str,
    event: fn(&Value) -> Event<'_>,
    input: Value,
}

fn pre(input: &Value) -> Event<'_> {
    Event::pre_tool_use(ToolCall {
        tool: "Bash",
        input,
        tool_iterations: 1,
    })
}

fn pre_task(input: &Value) -> Event<'_> {
    Event::pre_tool_use(ToolCall {
        tool: "Task",
        input,
        tool_iterations: 1,
    })
    .with_session("260215-173319")
}

fn pre_read(input: &Value) -> Event<'_> {
    Event::pre_tool_use(ToolCall {
        tool: "Read",
        input,
        tool_iterations: 1,
    })
}

fn prompt(input: &Value) -> Event<'_> {
    Event::user_prompt_submit(input["prompt"].as_str().unwrap_or_default())
}

fn main() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = build(&workspace);
    let scratch = std::env::temp_dir().join(format!("policy-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let bash = json!({ "command": COMMAND });
    let long_prompt = json!({ "prompt": "Refactor the parser so that heredocs are read after the line ends; keep the tests green. ".repeat(12) });
    let cases = vec![
        Case {
            name: "destructive-guard (example)",
            wasm: "destructive_guard",
            config: "",
            event: pre,
            input: bash.clone(),
        },
        Case {
            name: "destructive",
            wasm: "policy_destructive",
            config: "",
            event: pre,
            input: bash.clone(),
        },
        Case {
            name: "destructive (blocks)",
            wasm: "policy_destructive",
            config: "",
            event: pre,
            input: json!({"command": "echo ok && sudo env X=1 bash -c 'rm -rf --no-preserve-root /'"}),
        },
        Case {
            name: "secrets (tool input)",
            wasm: "policy_secrets",
            config: "",
            event: pre,
            input: bash.clone(),
        },
        Case {
            name: "secrets (1 KB prompt)",
            wasm: "policy_secrets",
            config: "",
            event: prompt,
            input: long_prompt,
        },
        Case {
            name: "protected-paths (shell)",
            wasm: "policy_protected_paths",
            config: "",
            event: pre,
            input: bash.clone(),
        },
        Case {
            name: "protected-paths (Read)",
            wasm: "policy_protected_paths",
            config: "",
            event: pre_read,
            input: json!({"file_path": "src/main.rs"}),
        },
        Case {
            name: "egress",
            wasm: "policy_egress",
            config: "",
            event: pre,
            input: json!({"command": "curl -fsSL https://api.github.com/repos/o/r/releases | jq -r '.[0].tag_name'"}),
        },
        Case {
            name: "git-safety",
            wasm: "policy_git_safety",
            config: "",
            event: pre,
            input: bash.clone(),
        },
        Case {
            name: "ralph-single-mode",
            wasm: "policy_ralph_single_mode",
            config: "",
            event: pre_task,
            input: json!({"subagent_type": "Ralph-v2-Executor", "prompt": "MODE: EXECUTE\nTASK_ID: task-1\nITERATION: 1"}),
        },
        Case {
            name: "ralph-task-file",
            wasm: "policy_ralph_task_file",
            config: "read = [\".\"]\n",
            event: pre_task,
            input: json!({"subagent_type": "Ralph-v2-Executor", "prompt": "MODE: EXECUTE\nTASK_ID: task-1\nITERATION: 1"}),
        },
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut criterion = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let mut medians: Vec<(String, Duration)> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let dir = scratch.join(format!("case{i}"));
        std::fs::create_dir_all(&dir).expect("a case directory");
        let wasm = target.join(format!("{}.wasm", case.wasm));
        std::fs::write(
            dir.join("hooks.toml"),
            format!("[[hooks]]\nname = \"p\"\nevent = [\"PreToolUse\", \"UserPromptSubmit\"]\nwasm = {:?}\ntimeout_ms = 5000\n{}", wasm.display().to_string(), case.config),
        )
        .expect("hooks.toml written");
        let runner = HookRunner::load(dir.join("hooks.toml"), RunnerOptions::new(&dir))
            .expect("the component loads");
        // Compiled and warmed before timing.
        let outcome = runtime.block_on(runner.fire(&(case.event)(&case.input)));
        eprintln!("{}: {}", case.name, outcome.decision.kind());
        criterion.bench_function(case.name, |b| {
            b.iter(|| runtime.block_on(runner.fire(&(case.event)(&case.input))))
        });
        medians.push((
            case.name.to_string(),
            median(|| {
                runtime.block_on(runner.fire(&(case.event)(&case.input)));
            }),
        ));
    }
    let policy = policy_destructive::Policy::default();
    criterion.bench_function("destructive (native engine)", |b| {
        b.iter(|| policy.check(COMMAND))
    });
    medians.push((
        "destructive (native engine)".into(),
        median(|| {
            policy.check(COMMAND);
        }),
    ));
    criterion.final_summary();
    println!("\n| case | median per call |\n|---|---:|");
    for (name, time) in &medians {
        println!("| {name} | {:.1} µs |", time.as_secs_f64() * 1e6);
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The median of 501 timed calls, after criterion's own run (the table's figure).
fn median(mut call: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..501)
        .map(|_| {
            let start = Instant::now();
            call();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Builds every policy and the example guard for wasm32-wasip2 in release; returns where the
/// `.wasm` files are.
fn build(workspace: &Path) -> PathBuf {
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--target-dir",
        ])
        .arg(&target_dir)
        .current_dir(workspace);
    for package in [
        "destructive-guard",
        "policy-destructive",
        "policy-secrets",
        "policy-protected-paths",
        "policy-egress",
        "policy-git-safety",
        "policy-ralph-single-mode",
        "policy-ralph-task-file",
    ] {
        cargo.args(["-p", package]);
    }
    let status = cargo.env_remove("RUSTFLAGS").status().expect("cargo runs");
    assert!(
        status.success(),
        "building the policies for wasm32-wasip2 failed (rustup target add wasm32-wasip2?)"
    );
    target_dir.join("wasm32-wasip2/release")
}
