//! What a guard costs by the language it is written in: destructive-guard in Rust (hook-sdk),
//! Python (componentize-py) and JavaScript (componentize-qjs, QuickJS), the same policy rule
//! for rule, each built from source and run through `HookRunner`.
//!
//! `cargo bench --bench languages` prints one table: component size; load time with an empty
//! compile cache (cranelift compiles the component), with a warm one right after (the cached
//! artefact's MAC is checked over the whole artefact, and it is mapped), and with a warm one in
//! a later session (the record of that check spares reading the artefact); and the time of one
//! guard call (a fresh instance per call), p50 and p99. Run it in release (the default for `cargo bench`) on a quiet machine. It needs
//! componentize-py and componentize-qjs (`.ci/run` installs them).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "../tests/common/lang_build.rs"]
mod lang_build;
#[path = "../tests/common/wasm_build.rs"]
mod wasm_build;

use hookhost::wasm::CacheMode;
use hookhost::{HookRunner, RunnerOptions, ToolCall};
use serde_json::json;

/// Loads measured per component (each cold load compiles it again, from an empty cache).
const LOADS: usize = 3;
/// Guard calls measured per component, after one warm-up call.
const CALLS: usize = 500;

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` does not, and gets no builds.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = repo.join("target/bench-languages");
    let guards: [(&str, PathBuf); 3] = [
        (
            "Rust (hook-sdk)",
            wasm_build::build_wasm(
                &repo.join("Cargo.toml"),
                &["destructive-guard"],
                &repo.join("target/fixtures"),
            )
            .join("destructive_guard.wasm"),
        ),
        (
            "Python (componentize-py 0.25.1)",
            lang_build::python_component(
                repo,
                &out,
                "destructive-guard-py",
                &repo.join("sdk/python/examples/destructive-guard"),
                "app",
            ),
        ),
        (
            "JavaScript (componentize-qjs 0.4.5)",
            lang_build::js_component(
                repo,
                &out,
                "destructive-guard-js",
                &repo.join("sdk/js/examples/destructive-guard/component.js"),
                &repo.join("sdk/js"),
                &[repo.join("sdk/js/examples/destructive-guard/hook.js")],
            ),
        ),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let input = json!({"command": "cargo test --release -- --nocapture"});
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    };

    println!(
        "| guard | component | load, cold cache | load, warm cache (first: artefact checked in full) | load, warm cache (later) | call p50 | call p99 |\n|---|---|---|---|---|---|---|"
    );
    for (name, wasm) in &guards {
        let size = std::fs::metadata(wasm).unwrap().len();
        let config = format!(
            "[[hooks]]\nname = \"guard\"\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\n\
             wasm = '{}'\ntimeout_ms = 10000\n",
            wasm.display()
        );
        let load = |cache: &Path| {
            let config =
                hookhost::Config::parse(&config, scratch.path().join("hooks.toml")).unwrap();
            let mut options = RunnerOptions::new(scratch.path());
            options.forward_stderr = false;
            options.cache = CacheMode::Keyed {
                dir: cache.to_path_buf(),
                key: scratch.path().join("cache.key"),
            };
            let started = Instant::now();
            let runner = HookRunner::new(config, options).unwrap_or_else(|e| panic!("{e}"));
            (started.elapsed(), runner)
        };
        let mut cold = Vec::new();
        let mut warm = Vec::new();
        for i in 0..LOADS {
            let cache = scratch.path().join(format!("cache-{i}"));
            cold.push(load(&cache).0);
            warm.push(load(&cache).0);
            if i + 1 < LOADS {
                std::fs::remove_dir_all(&cache).unwrap();
            }
        }
        // A later session: the artefact is past the compile cache's racy window, its check
        // recorded at the first of these loads and trusted by the others.
        std::thread::sleep(Duration::from_millis(3100));
        let last = scratch.path().join(format!("cache-{}", LOADS - 1));
        let mut later = Vec::new();
        let mut runner = None;
        for _ in 0..=LOADS {
            let (elapsed, loaded) = load(&last);
            later.push(elapsed);
            runner = Some(loaded);
        }
        later.remove(0);
        let runner = runner.unwrap();
        let mut calls = Vec::with_capacity(CALLS);
        runtime.block_on(async {
            let outcome = runner.pre_tool_use(call).await;
            assert!(
                matches!(outcome.decision, hookhost::Decision::Allow),
                "{name}: {:?}",
                outcome.reports
            );
            for _ in 0..CALLS {
                let started = Instant::now();
                runner.pre_tool_use(call).await;
                calls.push(started.elapsed());
            }
        });
        println!(
            "| {name} | {:.2} MB | {} | {} | {} | {} | {} |",
            size as f64 / 1e6,
            show(median(&mut cold)),
            show(median(&mut warm)),
            show(median(&mut later)),
            show(percentile(&mut calls, 50)),
            show(percentile(&mut calls, 99)),
        );
    }
    println!(
        "\n(loads: median of {LOADS}; calls: {CALLS} after one warm-up, a fresh instance each; release build)"
    );
}

fn median(samples: &mut [Duration]) -> Duration {
    percentile(samples, 50)
}

fn percentile(samples: &mut [Duration], p: usize) -> Duration {
    samples.sort();
    samples[(samples.len() - 1) * p / 100]
}

fn show(duration: Duration) -> String {
    let micros = duration.as_secs_f64() * 1e6;
    if micros >= 1e6 {
        format!("{:.2} s", micros / 1e6)
    } else if micros >= 1e3 {
        format!("{:.2} ms", micros / 1e3)
    } else {
        format!("{micros:.1} µs")
    }
}
