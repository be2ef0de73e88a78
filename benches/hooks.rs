//! What a hook costs, against its alternatives, measured side by side in one run.
//!
//! `cargo bench --bench hooks` runs every case, then prints one table of medians and the
//! ratios docs/benchmarks.md quotes (command/wasm, wasm/native, cold/warm load). Run it in release
//! (the default for `cargo bench`) on a quiet machine.
//!
//! Cases:
//! 1. `no_hooks`: PreToolUse on a runner without a configuration (the zero-overhead claim);
//! 2. `native`: the destructive-guard policy called as a Rust function in-process (the floor);
//! 3. `wasm`: the destructive-guard component through `HookRunner`, a fresh instance per call;
//!    `wasm_no_wasi`: the same hook built without WASI (`wasm32-unknown-unknown`, a core module
//!    hookhost wraps at load), which imports nothing but hookhost's own interfaces;
//! 4. `command`: the same policy as a `bash -c` hook that reads stdin and matches with grep;
//!    `wasm_logged`: `wasm` with the decision log on (`[log]`), a record appended per call;
//! 5. `load_cold` / `load_warm`: loading a config of 20 distinct wasm hooks with an empty
//!    compile cache, and again with a warm one (each artefact's MAC checked once, then
//!    recorded); `load_warm_full_check`: the warm load with every artefact's MAC checked over
//!    the whole artefact, as the first load after a compile does;
//! 6. `throughput`: 1024 destructive-guard calls from 64 concurrent tasks on a multi-thread
//!    runtime of 1 worker and of 2 workers (does a wasm call scale with cores?);
//! 7. `floor` / `trivial`: the bare-wasmtime floor (an `InstancePre`, a fresh `Store` with an
//!    empty WASI context, a call of `handle`; no runner) and the same trivial-guard component
//!    through `HookRunner`: what hookhost adds to a wasm call (`floor_default_pool`: the same
//!    floor on wasmtime's default pool, for reference; `floor_no_wasi`: the same floor for
//!    destructive-guard built without WASI, what wasmtime alone costs that policy);
//! 8. deadline precision: how long a guest that spins forever runs with `timeout_ms = 50`
//!    (the promise: within 10 % + 5 ms), printed with the summary;
//! 9. the two destructive-guard builds (WASI, without) alternated round by round, so that
//!    their ratio does not depend on how the machine drifted between criterion's two cases;
//!    and `wasm` with the decision log off and on, alternated the same way.

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
use wasm_build::{NO_WASI, WASIP2, build_wasm, build_wasm_for};

/// The same policy as destructive-guard's `rm -rf /` rule, written as people write hooks.
const COMMAND_GUARD: &str = r#"input=$(cat); if echo "$input" | grep -Eq '"command": *"[^"]*rm +-(rf|fr) +/'; then echo '{"action":"block","reason":"recursive delete of /"}'; else echo '{"action":"allow"}'; fi"#;

fn main() {
    let started = std::time::SystemTime::now();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let guard_wasm = build_destructive_guard(workspace, WASIP2);
    let guard_lean = build_destructive_guard(workspace, NO_WASI);
    // The warm cache of case 5, filled first: by the time it is measured its artefacts are
    // older than the compile cache's racy window, as in a real second session.
    let twenty = twenty_hooks(scratch.path(), &guard_wasm);
    let warm_dir = scratch.path().join("warm");
    drop(runner(scratch.path(), &twenty, keyed(&warm_dir)));
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
    let wasm_runner = runner(scratch.path(), &bash_guard(&guard_wasm), keyed(&cache));
    let lean_runner = runner(scratch.path(), &bash_guard(&guard_lean), keyed(&cache));
    let command_runner = runner(
        scratch.path(),
        &format!(
            "[[hooks]]\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\ncommand = '''{COMMAND_GUARD}'''\n"
        ),
        CacheMode::Disabled,
    );
    for (runner, expected) in [
        (&wasm_runner, true),
        (&lean_runner, true),
        (&command_runner, true),
    ] {
        assert_eq!(
            runtime.block_on(runner.pre_tool_use(call)).is_allowed(),
            expected,
            "the sample call is allowed"
        );
    }
    criterion.bench_function("wasm", |b| {
        b.iter(|| runtime.block_on(wasm_runner.pre_tool_use(call)))
    });
    criterion.bench_function("wasm_no_wasi", |b| {
        b.iter(|| runtime.block_on(lean_runner.pre_tool_use(call)))
    });
    // The same wasm hook with the decision log on: a record per call, appended under the log's
    // lock (issue 26 asks for at most 10 % more than `wasm`).
    let logged_runner = runner(
        scratch.path(),
        &format!(
            "[log]\npath = \"{}\"\nmax_bytes = 1073741824\n\n{}",
            scratch.path().join("decisions.jsonl").display(),
            bash_guard(&guard_wasm)
        ),
        keyed(&cache),
    );
    criterion.bench_function("wasm_logged", |b| {
        b.iter(|| runtime.block_on(logged_runner.pre_tool_use(call)))
    });

    // 7. The trivial guard through the runner, and the bare-wasmtime floor of the same
    //    component.
    let trivial_wasm = build_fixture(workspace, "trivial-guard");
    let trivial_runner = runner(scratch.path(), &bash_guard(&trivial_wasm), keyed(&cache));
    assert!(
        runtime
            .block_on(trivial_runner.pre_tool_use(call))
            .is_allowed()
    );
    criterion.bench_function("trivial", |b| {
        b.iter(|| runtime.block_on(trivial_runner.pre_tool_use(call)))
    });
    // The floor with the pool tuned as hookhost tunes it (the target's denominator), and with
    // wasmtime's default pool (which resets memory with `madvise`: page faults on every call).
    let floor = floor::Floor::new(&trivial_wasm, scratch.path(), &input, true);
    criterion.bench_function("floor", |b| b.iter(|| floor.call()));
    let floor_default = floor::Floor::new(&trivial_wasm, scratch.path(), &input, false);
    criterion.bench_function("floor_default_pool", |b| b.iter(|| floor_default.call()));
    let floor_lean = floor::Floor::new(&guard_lean, scratch.path(), &input, true);
    criterion.bench_function("floor_no_wasi", |b| b.iter(|| floor_lean.call()));
    let mut group = criterion.benchmark_group("slow");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("command", |b| {
        b.iter(|| runtime.block_on(command_runner.pre_tool_use(call)))
    });
    // A cold load compiles 20 components (seconds each time): criterion's fewest samples.
    group.sample_size(10);

    // 5. Loading 20 distinct wasm hooks, cold and warm.
    let cold_dir = scratch.path().join("cold");
    group.bench_function("load_cold", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let _ = std::fs::remove_dir_all(&cold_dir);
                let started = Instant::now();
                drop(runner(scratch.path(), &twenty, keyed(&cold_dir)));
                total += started.elapsed();
            }
            total
        })
    });
    group.finish();
    criterion.bench_function("load_warm", |b| {
        b.iter(|| runner(scratch.path(), &twenty, keyed(&warm_dir)))
    });
    let artefacts = artefacts(&warm_dir);
    assert_eq!(artefacts.len(), 20);
    criterion.bench_function("load_warm_full_check", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                // A fresh copy of each artefact (a new inode, a new ctime) has no record of an
                // earlier check: its MAC is checked over the whole artefact.
                for artefact in &artefacts {
                    let copy = artefact.with_extension("copy");
                    std::fs::copy(artefact, &copy).unwrap();
                    std::fs::rename(&copy, artefact).unwrap();
                }
                let started = Instant::now();
                drop(runner(scratch.path(), &twenty, keyed(&warm_dir)));
                total += started.elapsed();
            }
            total
        })
    });

    // 6. Throughput from many tasks, on 1 and on 2 worker threads.
    let shared = Arc::new(wasm_runner.clone());
    let mut group = criterion.benchmark_group("throughput");
    group.throughput(Throughput::Elements(TASKS * CALLS));
    for workers in [1, 2] {
        let multi = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .unwrap();
        group.bench_with_input(BenchmarkId::new("workers", workers), &workers, |b, _| {
            b.iter(|| multi.block_on(guard_calls(&shared)))
        });
    }
    group.finish();

    criterion.final_summary();
    let pair = side_by_side(&runtime, [&wasm_runner, &lean_runner], call);
    let logged = side_by_side(&runtime, [&wasm_runner, &logged_runner], call);
    report::print(workspace, started);
    deadline_precision(workspace, scratch.path(), &runtime);
    println!(
        "  {:<44} {:.2} / {:.2} µs per call ({:.2}x; median of {ROUNDS} alternated rounds of {ROUND_CALLS} calls)",
        "destructive-guard, WASI / without, alternated",
        pair[0].as_secs_f64() * 1e6,
        pair[1].as_secs_f64() * 1e6,
        pair[1].as_secs_f64() / pair[0].as_secs_f64(),
    );
    println!(
        "  {:<44} {:.2} / {:.2} µs per call ({:.2}x; median of {ROUNDS} alternated rounds of {ROUND_CALLS} calls)",
        "wasm guard, decision log off / on, alternated",
        logged[0].as_secs_f64() * 1e6,
        logged[1].as_secs_f64() * 1e6,
        logged[1].as_secs_f64() / logged[0].as_secs_f64(),
    );
}

/// Rounds and calls per round of [`side_by_side`].
const ROUNDS: usize = 15;
const ROUND_CALLS: u32 = 2000;

/// The per-call median over [`ROUNDS`] rounds in which each runner makes [`ROUND_CALLS`]
/// calls in turn: two cases that criterion measures a minute apart can drift apart with the
/// machine; alternated, they see the same machine.
fn side_by_side(
    runtime: &tokio::runtime::Runtime,
    runners: [&HookRunner; 2],
    call: ToolCall<'_>,
) -> [Duration; 2] {
    let mut rounds: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..ROUNDS {
        for (runner, times) in runners.iter().zip(rounds.iter_mut()) {
            let started = Instant::now();
            for _ in 0..ROUND_CALLS {
                std::hint::black_box(runtime.block_on(runner.pre_tool_use(call)));
            }
            times.push(started.elapsed() / ROUND_CALLS);
        }
    }
    rounds.map(|mut times| {
        times.sort();
        times[times.len() / 2]
    })
}

/// Concurrent tasks of the throughput case, and calls per task.
const TASKS: u64 = 64;
const CALLS: u64 = 16;

/// [`TASKS`] × [`CALLS`] guard calls from concurrent tasks, all allowed.
async fn guard_calls(runner: &Arc<HookRunner>) {
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..TASKS {
        let runner = runner.clone();
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
}

/// Runs a spinning guest with `timeout_ms = 50` twenty times and prints how late the deadline
/// fired.
fn deadline_precision(workspace: &Path, dir: &Path, runtime: &tokio::runtime::Runtime) {
    let probe = build_fixture(workspace, "probe");
    let config = format!(
        "[[hooks]]\nevent = \"PreToolUse\"\nwasm = '{}'\ntimeout_ms = 50\n[hooks.config]\nmode = \"spin\"\n",
        probe.display()
    );
    let spinner = runner(dir, &config, keyed(&dir.join("cache")));
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

/// The compile cache in `dir`, with its key beside it.
fn keyed(dir: &Path) -> CacheMode {
    CacheMode::Keyed {
        dir: dir.to_path_buf(),
        key: dir.with_extension("key"),
    }
}

/// The compiled artefacts in the cache at `dir`.
fn artefacts(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for engine in std::fs::read_dir(dir).unwrap().flatten() {
        if engine.file_name().to_string_lossy().starts_with("engine-") {
            for entry in std::fs::read_dir(engine.path()).unwrap().flatten() {
                if entry.path().extension().is_some_and(|ext| ext == "cwasm") {
                    found.push(entry.path());
                }
            }
        }
    }
    found
}

fn options(cwd: &Path, cache: CacheMode) -> RunnerOptions {
    let mut options = RunnerOptions::new(cwd);
    options.forward_stderr = false;
    options.cache = cache;
    options
}

/// A hooks.toml entry: the component at `wasm` guards Bash calls.
fn bash_guard(wasm: &Path) -> String {
    format!(
        "[[hooks]]\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\nwasm = '{}'\n\n",
        wasm.display()
    )
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
        config.push_str(&bash_guard(&path));
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

/// Builds the fixture crate `tests/fixtures/{name}` and returns its component.
fn build_fixture(workspace: &Path, name: &str) -> PathBuf {
    let manifest = workspace
        .join("tests/fixtures")
        .join(name)
        .join("Cargo.toml");
    build_wasm(&manifest, &[], &workspace.join("target/fixtures"))
        .join(format!("{}.wasm", name.replace('-', "_")))
}

/// destructive-guard built for `target`: a component for wasm32-wasip2, a core module without
/// WASI.
fn build_destructive_guard(workspace: &Path, target: &str) -> PathBuf {
    build_wasm_for(
        target,
        &workspace.join("Cargo.toml"),
        &["destructive-guard"],
        &workspace.join("target/fixtures"),
    )
    .join("destructive_guard.wasm")
}

/// The floor: what bare wasmtime costs for one call of a component, with nothing of
/// hookhost's. The same component, pooled instances (tuned as hookhost's engine tunes them, or
/// wasmtime's defaults), an `InstancePre` made once, then per call a fresh `Store` with an
/// empty WASI context and a call of `handle` with the event the runner would pass. No async,
/// no epoch deadline, no limiter: what a sandbox needs is hookhost's cost.
mod floor {
    use std::path::Path;

    use ::hookhost::wasm::deps::{wasmtime, wasmtime_wasi, wit_component};
    use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
    use wasmtime::{
        Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store,
    };
    use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

    wasmtime::component::bindgen!({
        world: "hook",
        path: "wit/hookhost.wit",
        wasmtime_crate: ::hookhost::wasm::deps::wasmtime,
    });
    use self::hookhost::hooks::{host, state, types};

    pub struct State {
        wasi: WasiCtx,
        table: ResourceTable,
    }

    impl WasiView for State {
        fn ctx(&mut self) -> WasiCtxView<'_> {
            WasiCtxView {
                ctx: &mut self.wasi,
                table: &mut self.table,
            }
        }
    }

    // The hook world's own imports, doing nothing (a hook that uses them pays for them).
    impl types::Host for State {}
    impl host::Host for State {
        fn log(&mut self, _level: host::LogLevel, _message: String) {}
        fn config(&mut self) -> String {
            "{}".to_string()
        }
    }
    impl state::Host for State {
        fn get(&mut self, _key: String) -> Option<Vec<u8>> {
            None
        }
        fn set(&mut self, _key: String, _value: Vec<u8>) -> Result<(), String> {
            Ok(())
        }
        fn delete(&mut self, _key: String) {}
    }

    pub struct Floor {
        engine: Engine,
        pre: HookPre<State>,
        event: types::Event,
    }

    impl Floor {
        /// `tuned`: the pool resets only the pages a call wrote (`PAGEMAP_SCAN`) and keeps
        /// them resident, as `hookhost::wasm`'s engine does; else wasmtime's default pool.
        pub fn new(wasm: &Path, cwd: &Path, input: &serde_json::Value, tuned: bool) -> Floor {
            let mut pool = PoolingAllocationConfig::new();
            if tuned {
                pool.pagemap_scan(Enabled::Yes)
                    .linear_memory_keep_resident(512 << 10)
                    .table_keep_resident(64 << 10);
            }
            let mut config = Config::new();
            config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
            let engine = Engine::new(&config).expect("a pooled engine (PAGEMAP_SCAN: Linux 6.7)");
            let bytes = std::fs::read(wasm).unwrap();
            // A hook built without WASI is a core module: wrapped as hookhost wraps it at load.
            let component = match bytes.get(4..8) {
                Some([1, 0, 0, 0]) => wit_component::ComponentEncoder::default()
                    .module(&bytes)
                    .and_then(|mut encoder| encoder.encode())
                    .unwrap(),
                _ => bytes,
            };
            let component = Component::new(&engine, &component).unwrap();
            let mut linker = Linker::<State>::new(&engine);
            wasmtime_wasi::p2::add_to_linker_sync(&mut linker).unwrap();
            Hook::add_to_linker::<State, HasSelf<State>>(&mut linker, |s| s).unwrap();
            let pre = HookPre::new(linker.instantiate_pre(&component).unwrap()).unwrap();
            let event = types::Event {
                name: "PreToolUse".to_string(),
                phase: types::Phase::Guard,
                session_id: None,
                cwd: cwd.display().to_string(),
                tool: Some(types::ToolCall {
                    tool: "Bash".to_string(),
                    input: input.to_string(),
                    tool_iterations: 1,
                }),
                payload: "{}".to_string(),
                observed: None,
            };
            let floor = Floor { engine, pre, event };
            assert!(matches!(floor.call().answer, types::Answer::Allow));
            floor
        }

        pub fn call(&self) -> types::Verdict {
            let state = State {
                wasi: WasiCtx::builder().build(),
                table: ResourceTable::new(),
            };
            let mut store = Store::new(&self.engine, state);
            let hook = self.pre.instantiate(&mut store).unwrap();
            hook.hookhost_hooks_handler()
                .call_handle(&mut store, &self.event)
                .unwrap()
        }
    }
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

    /// A ratio target: label, numerator, denominator, the target as text, whether a ratio
    /// meets it.
    type Target = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        fn(f64) -> bool,
    );

    pub fn print(workspace: &Path, since: std::time::SystemTime) {
        let cases = [
            ("no hooks configured (PreToolUse)", "no_hooks"),
            ("native closure (destructive-guard policy)", "native"),
            ("wasm hook through HookRunner", "wasm"),
            ("the same built without WASI", "wasm_no_wasi"),
            ("bash -c command hook (grep)", "slow/command"),
            ("bare-wasmtime floor (trivial guard)", "floor"),
            (
                "the floor with wasmtime's default pool",
                "floor_default_pool",
            ),
            ("trivial guard through HookRunner", "trivial"),
            ("floor of destructive-guard without WASI", "floor_no_wasi"),
            ("load 20 wasm hooks, cold cache", "slow/load_cold"),
            ("load 20 wasm hooks, warm cache", "load_warm"),
            (
                "the same, each artefact's MAC checked in full",
                "load_warm_full_check",
            ),
            (
                "1024 guard calls, 64 tasks, 1 worker",
                "throughput/workers/1",
            ),
            (
                "1024 guard calls, 64 tasks, 2 workers",
                "throughput/workers/2",
            ),
        ];
        println!("\nhookhost benchmark summary (medians, this run)\n");
        let mut medians = std::collections::HashMap::new();
        for (label, id) in cases {
            let median = median_ns(workspace, id, since);
            if let Some(m) = median {
                medians.insert(id, m);
            }
            let rate = match (id.starts_with("throughput/"), median) {
                (true, Some(m)) => format!(" ({:.0} calls/s)", 1024.0 / (m / 1e9)),
                _ => String::new(),
            };
            println!(
                "  {label:<44} {}{rate}",
                median.map_or("(not run)".to_string(), human)
            );
        }
        let ratio = |a: &str, b: &str| Some(medians.get(a)? / medians.get(b)?);
        let verdict = |met: bool| if met { "met" } else { "MISSED" };
        println!();
        let targets: [Target; 9] = [
            ("command / wasm", "slow/command", "wasm", ">= 300x", |r| {
                r >= 300.0
            }),
            ("wasm / native", "wasm", "native", "<= 10x", |r| r <= 10.0),
            (
                "command / wasm without WASI",
                "slow/command",
                "wasm_no_wasi",
                ">= 300x",
                |r| r >= 300.0,
            ),
            (
                "wasm without WASI / native",
                "wasm_no_wasi",
                "native",
                "<= 10x",
                |r| r <= 10.0,
            ),
            ("trivial guard / floor", "trivial", "floor", "<= 2x", |r| {
                r <= 2.0
            }),
            (
                "2 workers / 1 worker (calls/s)",
                "throughput/workers/1",
                "throughput/workers/2",
                ">= 1.7x",
                |r| r >= 1.7,
            ),
            (
                "cold / warm load",
                "slow/load_cold",
                "load_warm",
                "",
                |_| true,
            ),
            // What wasmtime alone allows: no runner, sandbox, deadline or fiber.
            (
                "command / floor without WASI",
                "slow/command",
                "floor_no_wasi",
                "",
                |_| true,
            ),
            (
                "floor without WASI / native",
                "floor_no_wasi",
                "native",
                "",
                |_| true,
            ),
        ];
        for (label, a, b, target, meets) in targets {
            if let Some(r) = ratio(a, b) {
                let status = if target.is_empty() {
                    ""
                } else {
                    verdict(meets(r))
                };
                println!("  {label:<44} {r:.2}x  {target} {status}");
            }
        }
        for (label, id, limit_ns) in [
            ("no hooks < 100 ns", "no_hooks", 100.0),
            ("warm load of 20 hooks < 50 ms", "load_warm", 50e6),
        ] {
            if let Some(m) = medians.get(id) {
                println!("  {label:<44} {}", verdict(*m < limit_ns));
            }
        }
    }
}
