//! What a hook costs, against its alternatives, measured side by side in one run.
//!
//! `cargo bench --bench hooks` runs every case, then prints one table of medians and the
//! ratios the README quotes (command/wasm, wasm/native, cold/warm load). Run it in release
//! (the default for `cargo bench`) on a quiet machine.
//!
//! Cases:
//! 1. `no_hooks`: PreToolUse on a runner without a configuration (the zero-overhead claim);
//! 2. `native`: the destructive-guard policy called as a Rust function in-process (the floor);
//! 3. `wasm`: the destructive-guard component through `HookRunner`, a fresh instance per call;
//! 4. `command`: the same policy as a `bash -c` hook that reads stdin and matches with grep;
//! 5. `load_cold` / `load_warm`: loading a config of 20 distinct wasm hooks with an empty
//!    compile cache, and again with a warm one;
//! 6. `throughput`: guard calls per second from 64 concurrent tasks on a multi-thread runtime;
//! 7. deadline precision: how long a guest that spins forever runs with `timeout_ms = 50`
//!    (the promise: within 10 % + 5 ms), printed with the summary.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

#[path = "../tests/common/wasm_build.rs"]
mod wasm_build;

use criterion::{BenchmarkId, Criterion, Throughput};
use hookhost::wasm::CacheMode;
use hookhost::{HookRunner, RunnerOptions, ToolCall};
use serde_json::json;
use wasm_build::build_wasm;

/// The same policy as destructive-guard's `rm -rf /` rule, written as people write hooks.
const COMMAND_GUARD: &str = r#"input=$(cat); if echo "$input" | grep -Eq '"command": *"[^"]*rm +-(rf|fr) +/'; then echo '{"action":"block","reason":"recursive delete of /"}'; else echo '{"action":"allow"}'; fi"#;

fn main() {
    let started = std::time::SystemTime::now();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let guard_wasm = build_destructive_guard(workspace);
    let input = json!({"command": "cargo test --release -- --nocapture"});
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    };

    let mut criterion = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    // 1. No configuration: the future is ready on its first poll; poll it directly so that the
    //    measurement is the runner's, not an executor's.
    let empty = HookRunner::load(
        scratch.path().join("missing.toml"),
        options(scratch.path(), CacheMode::Disabled),
    )
    .unwrap();
    criterion.bench_function("no_hooks", |b| {
        b.iter(|| poll_ready(empty.pre_tool_use(std::hint::black_box(call))))
    });

    // 2. The policy as a native closure.
    let config = destructive_guard::Config::default();
    criterion.bench_function("native", |b| {
        b.iter(|| {
            destructive_guard::check(
                std::hint::black_box("cargo test --release -- --nocapture"),
                &config,
            )
        })
    });

    // 3. The policy as a wasm hook, and 4. as a command hook.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let cache = scratch.path().join("cache");
    let wasm_runner = runner(
        scratch.path(),
        &format!(
            "[[hooks]]\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\nwasm = '{}'\n",
            guard_wasm.display()
        ),
        CacheMode::Dir(cache.clone()),
    );
    let command_runner = runner(
        scratch.path(),
        &format!(
            "[[hooks]]\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\ncommand = '''{COMMAND_GUARD}'''\n"
        ),
        CacheMode::Disabled,
    );
    for (runner, expected) in [(&wasm_runner, true), (&command_runner, true)] {
        assert_eq!(
            runtime.block_on(runner.pre_tool_use(call)).is_allowed(),
            expected,
            "the sample call is allowed"
        );
    }
    criterion.bench_function("wasm", |b| {
        b.iter(|| runtime.block_on(wasm_runner.pre_tool_use(call)))
    });
    let mut group = criterion.benchmark_group("slow");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("command", |b| {
        b.iter(|| runtime.block_on(command_runner.pre_tool_use(call)))
    });

    // 5. Loading 20 distinct wasm hooks, cold and warm.
    let twenty = twenty_hooks(scratch.path(), &guard_wasm);
    let cold_dir = scratch.path().join("cold");
    group.bench_function("load_cold", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let _ = std::fs::remove_dir_all(&cold_dir);
                let started = Instant::now();
                drop(runner(
                    scratch.path(),
                    &twenty,
                    CacheMode::Dir(cold_dir.clone()),
                ));
                total += started.elapsed();
            }
            total
        })
    });
    group.finish();
    let warm_dir = scratch.path().join("warm");
    drop(runner(
        scratch.path(),
        &twenty,
        CacheMode::Dir(warm_dir.clone()),
    ));
    criterion.bench_function("load_warm", |b| {
        b.iter(|| runner(scratch.path(), &twenty, CacheMode::Dir(warm_dir.clone())))
    });

    // 6. Throughput from many tasks on a multi-thread runtime.
    let multi = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let shared = Arc::new(wasm_runner.clone());
    let mut group = criterion.benchmark_group("throughput");
    const TASKS: u64 = 64;
    const CALLS: u64 = 16;
    group.throughput(Throughput::Elements(TASKS * CALLS));
    group.bench_with_input(
        BenchmarkId::new("wasm_guard_calls", TASKS * CALLS),
        &(),
        |b, ()| {
            b.iter(|| {
                multi.block_on(async {
                    let mut tasks = tokio::task::JoinSet::new();
                    for _ in 0..TASKS {
                        let runner = shared.clone();
                        tasks.spawn(async move {
                            let input = json!({"command": "cargo test --release -- --nocapture"});
                            for i in 0..CALLS {
                                let call = ToolCall {
                                    tool: "Bash",
                                    input: &input,
                                    tool_iterations: i as usize,
                                };
                                assert!(runner.pre_tool_use(call).await.is_allowed());
                            }
                        });
                    }
                    while tasks.join_next().await.is_some() {}
                })
            })
        },
    );
    group.finish();

    criterion.final_summary();
    report::print(workspace, started);
    deadline_precision(workspace, scratch.path(), &runtime);
}

/// Runs a spinning guest with `timeout_ms = 50` twenty times and prints how late the deadline
/// fired.
fn deadline_precision(workspace: &Path, dir: &Path, runtime: &tokio::runtime::Runtime) {
    let target = workspace.join("target/fixtures");
    let probe = build_wasm(
        &workspace.join("tests/fixtures/probe/Cargo.toml"),
        &[],
        &target,
    )
    .join("probe.wasm");
    let config = format!(
        "[[hooks]]\nevent = \"PreToolUse\"\nwasm = '{}'\ntimeout_ms = 50\n[hooks.config]\nmode = \"spin\"\n",
        probe.display()
    );
    let spinner = runner(dir, &config, CacheMode::Dir(dir.join("cache")));
    let input = json!({});
    let mut late: Vec<Duration> = (0..20)
        .map(|_| {
            let started = Instant::now();
            let outcome = runtime.block_on(spinner.pre_tool_use(ToolCall {
                tool: "Bash",
                input: &input,
                tool_iterations: 0,
            }));
            assert!(!outcome.is_allowed());
            started.elapsed().saturating_sub(Duration::from_millis(50))
        })
        .collect();
    late.sort();
    println!(
        "  {:<44} median {:.2} ms, max {:.2} ms past 50 ms (allowed: 10 ms)",
        "deadline of a spinning guest",
        late[late.len() / 2].as_secs_f64() * 1000.0,
        late[late.len() - 1].as_secs_f64() * 1000.0
    );
}

fn options(cwd: &Path, cache: CacheMode) -> RunnerOptions {
    let mut options = RunnerOptions::new(cwd);
    options.forward_stderr = false;
    options.cache = cache;
    options
}

fn runner(cwd: &Path, config: &str, cache: CacheMode) -> HookRunner {
    let config = hookhost::Config::parse(config, cwd.join("hooks.toml")).unwrap();
    HookRunner::new(config, options(cwd, cache)).unwrap_or_else(|e| panic!("{e}"))
}

/// A config of 20 wasm hooks, each a distinct file (a distinct custom section), so that a cold
/// load compiles 20 components.
fn twenty_hooks(dir: &Path, wasm: &Path) -> String {
    let bytes = std::fs::read(wasm).unwrap();
    let mut config = String::new();
    for i in 0..20 {
        let path = dir.join(format!("hook-{i}.wasm"));
        let distinct =
            hookhost::bundle::sections::with_custom(&bytes, "bench-copy", i.to_string().as_bytes());
        std::fs::write(&path, distinct).unwrap();
        config.push_str(&format!(
            "[[hooks]]\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\nwasm = '{}'\n\n",
            path.display()
        ));
    }
    config
}

fn poll_ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("expected a future that is ready at once"),
    }
}

fn build_destructive_guard(workspace: &Path) -> PathBuf {
    let target = workspace.join("target/fixtures");
    build_wasm(
        &workspace.join("Cargo.toml"),
        &["destructive-guard"],
        &target,
    )
    .join("destructive_guard.wasm")
}

/// The summary table, from criterion's own estimates.
mod report {
    use std::path::Path;

    /// The median criterion recorded for `id` in this run (an estimate older than the run,
    /// left by an earlier one, does not count: the table compares one run only).
    fn median_ns(workspace: &Path, id: &str, since: std::time::SystemTime) -> Option<f64> {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| workspace.join("target"), Into::into);
        let path = target.join("criterion").join(id).join("new/estimates.json");
        if std::fs::metadata(&path).ok()?.modified().ok()? < since {
            return None;
        }
        let json: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        json["median"]["point_estimate"].as_f64()
    }

    fn human(ns: f64) -> String {
        if ns < 1_000.0 {
            format!("{ns:.1} ns")
        } else if ns < 1_000_000.0 {
            format!("{:.2} µs", ns / 1_000.0)
        } else {
            format!("{:.2} ms", ns / 1_000_000.0)
        }
    }

    pub fn print(workspace: &Path, since: std::time::SystemTime) {
        let cases = [
            ("no hooks configured (PreToolUse)", "no_hooks"),
            ("native closure (destructive-guard policy)", "native"),
            ("wasm hook through HookRunner", "wasm"),
            ("bash -c command hook (grep)", "slow/command"),
            ("load 20 wasm hooks, cold cache", "slow/load_cold"),
            ("load 20 wasm hooks, warm cache", "load_warm"),
            (
                "1024 guard calls from 64 tasks",
                "throughput/wasm_guard_calls/1024",
            ),
        ];
        println!("\nhookhost benchmark summary (medians, this run)\n");
        let mut medians = std::collections::HashMap::new();
        for (label, id) in cases {
            let median = median_ns(workspace, id, since);
            if let Some(m) = median {
                medians.insert(id, m);
            }
            println!(
                "  {label:<44} {}",
                median.map_or("(not run)".to_string(), human)
            );
        }
        if let Some(t) = medians.get("throughput/wasm_guard_calls/1024") {
            println!("  {:<44} {:.0} calls/s", "throughput", 1024.0 / (t / 1e9));
        }
        let ratio = |a: &str, b: &str| Some(medians.get(a)? / medians.get(b)?);
        println!();
        for (label, a, b, target) in [
            ("command / wasm", "slow/command", "wasm", "target >= 100x"),
            ("wasm / native", "wasm", "native", "target <= 20x"),
            ("cold / warm load", "slow/load_cold", "load_warm", ""),
        ] {
            if let Some(r) = ratio(a, b) {
                println!("  {label:<44} {r:.1}x  {target}");
            }
        }
        for (label, id, limit_ns) in [
            ("no hooks < 100 ns", "no_hooks", 100.0),
            ("warm load of 20 hooks < 50 ms", "load_warm", 50e6),
        ] {
            if let Some(m) = medians.get(id) {
                println!(
                    "  {label:<44} {}",
                    if *m < limit_ns { "met" } else { "MISSED" }
                );
            }
        }
    }
}
