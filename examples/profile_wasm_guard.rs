//! Calls the destructive-guard wasm hook in a loop, for profiling the per-call path:
//! `valgrind --tool=callgrind target/release/examples/profile_wasm_guard 2000`.
//! Build the component first: `cargo build --release --target wasm32-wasip2 -p destructive-guard --target-dir target/fixtures`.

use hookhost::wasm::CacheMode;
use hookhost::{HookRunner, RunnerOptions, ToolCall};

fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let wasm = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/fixtures/wasm32-wasip2/release/destructive_guard.wasm"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = format!("[[hooks]]\nevent = \"PreToolUse\"\nwasm = '{wasm}'\n");
    let config = hookhost::Config::parse(&config, dir.path().join("hooks.toml")).unwrap();
    let mut options = RunnerOptions::new(dir.path());
    options.cache = CacheMode::Dir(dir.path().join("cache"));
    let runner = HookRunner::new(config, options).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let input = serde_json::json!({"command": "cargo test --release -- --nocapture"});
    let call = ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    };
    for _ in 0..100 {
        runtime.block_on(runner.pre_tool_use(call));
    }
    let faults = || {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        fields[7].parse::<u64>().unwrap()
    };
    let (started, before) = (std::time::Instant::now(), faults());
    for _ in 0..calls {
        assert!(runtime.block_on(runner.pre_tool_use(call)).is_allowed());
    }
    println!(
        "{calls} calls, {:?} per call, {:.1} minor page faults per call",
        started.elapsed() / calls as u32,
        (faults() - before) as f64 / calls as f64
    );
}
