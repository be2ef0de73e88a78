//! What embedding from another language costs on the Rust side: the same three fires the Go
//! package's benchmarks make (go/bench_test.go), through the Rust API, then through
//! `hookhost::embed::fire_json` (the event's JSON in, the outcome's JSON out: what the C ABI
//! does between its cgo call and its return). The difference to the Go figures is the cgo
//! boundary and Go's side of the JSON.
//!
//! `cargo bench --bench embed`; every fire runs as the C ABI runs it: `block_on` of a
//! multi-thread runtime, on the calling thread.
//!
//! Cases, each a PreToolUse of Bash `cargo test --release -- --nocapture` (allowed):
//! 1. `rust/no_hooks`, `json/no_hooks`: a runner without hooks;
//! 2. `rust/closure`, `json/callback`: one in-process hook that allows: a Rust closure, and a
//!    deferred foreign callback answering Claude Code's `{}` at once (the Go package's shape,
//!    without cgo or a goroutine);
//! 3. `rust/wasm`, `json/wasm`: the destructive-guard component.

use std::path::Path;
use std::time::Duration;

#[path = "../tests/common/wasm_build.rs"]
mod wasm_build;

use criterion::Criterion;
use hookhost::embed::{CallSite, fire_json, foreign_hook};
use hookhost::wasm::CacheMode;
use hookhost::{Event, HookRunner, NativeHook, Protocol, RunnerOptions, ToolCall, Verdict};
use serde_json::json;

fn main() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let guard = wasm_build::build_wasm_for(
        wasm_build::WASIP2,
        &workspace.join("Cargo.toml"),
        &["destructive-guard"],
        &workspace.join("target/fixtures"),
    )
    .join("destructive_guard.wasm");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let _entered = runtime.enter();

    let runner = |config: &str| {
        let mut options = RunnerOptions::new(scratch.path());
        options.forward_stderr = false;
        options.cache = CacheMode::Keyed {
            dir: scratch.path().join("cache"),
            key: scratch.path().join("cache.key"),
        };
        let config = hookhost::Config::parse(config, scratch.path().join("hooks.toml")).unwrap();
        HookRunner::new(config, options).unwrap_or_else(|e| panic!("{e}"))
    };
    let empty = runner("");
    let closure = runner("");
    closure.register(
        NativeHook::new("allow", "PreToolUse", |_| Verdict::allow())
            .unwrap()
            .with_matcher("Bash")
            .unwrap(),
    );
    let callback = runner("");
    callback.register(
        foreign_hook(
            "allow",
            "PreToolUse",
            Protocol::Claude,
            CallSite::Deferred,
            |call| call.answer(b"{}".to_vec()),
        )
        .unwrap()
        .with_matcher("Bash")
        .unwrap(),
    );
    let wasm = runner(&format!(
        "[[hooks]]\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\nwasm = '{}'\n",
        guard.display()
    ));

    let input = json!({"command": "cargo test --release -- --nocapture"});
    let event_json =
        br#"{"event":"PreToolUse","tool":"Bash","input":{"command":"cargo test --release -- --nocapture"}}"#;
    for runner in [&empty, &closure, &callback, &wasm] {
        let outcome = runtime
            .block_on(fire_json(runner, event_json, None))
            .unwrap();
        let outcome: serde_json::Value = serde_json::from_slice(&outcome).unwrap();
        assert_eq!(outcome["allowed"], true, "{outcome}");
    }

    let mut criterion = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, runner) in [("no_hooks", &empty), ("closure", &closure), ("wasm", &wasm)] {
        criterion.bench_function(&format!("rust/{name}"), |b| {
            b.iter(|| {
                let call = ToolCall {
                    tool: "Bash",
                    input: &input,
                    tool_iterations: 0,
                };
                runtime.block_on(runner.fire(&Event::pre_tool_use(std::hint::black_box(call))))
            })
        });
    }
    for (name, runner) in [
        ("no_hooks", &empty),
        ("callback", &callback),
        ("wasm", &wasm),
    ] {
        criterion.bench_function(&format!("json/{name}"), |b| {
            b.iter(|| runtime.block_on(fire_json(runner, std::hint::black_box(event_json), None)))
        });
    }
    criterion.final_summary();
}
