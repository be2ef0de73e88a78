//! Calls a wasm guard in a loop through `HookRunner`, for profiling the per-call path:
//! `valgrind --tool=callgrind target/release/examples/profile_wasm_guard 2000 [component.wasm]`.
//! The component defaults to destructive-guard; build it first:
//! `cargo build --release --target wasm32-wasip2 -p destructive-guard --target-dir target/fixtures`
//! (the trivial guard: `--manifest-path tests/fixtures/trivial-guard/Cargo.toml`, same target
//! directory, then pass `target/fixtures/wasm32-wasip2/release/trivial_guard.wasm`).

use hookhost::wasm::CacheMode;
use hookhost::{HookRunner, RunnerOptions, ToolCall};

fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let wasm = std::env::args().nth(2).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/target/fixtures/wasm32-wasip2/release/destructive_guard.wasm"
        )
        .to_string()
    });
    let dir = tempfile::tempdir().unwrap();
    let config = format!("[[hooks]]\nevent = \"PreToolUse\"\nwasm = '{wasm}'\n");
    let config = hookhost::Config::parse(&config, dir.path().join("hooks.toml")).unwrap();
    let mut options = RunnerOptions::new(dir.path());
    // A lasting cache: under valgrind, compiling the component would take minutes.
    options.cache = CacheMode::Keyed {
        dir: concat!(env!("CARGO_MANIFEST_DIR"), "/target/profile-cache").into(),
        key: concat!(env!("CARGO_MANIFEST_DIR"), "/target/profile-cache.key").into(),
    };
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
    // CPU time of the whole process (the epoch ticker included): on a loaded machine it moves
    // much less than wall time.
    let cpu = || {
        // SAFETY: getrusage writes into the struct it is given, nothing else.
        let usage = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_SELF, &mut usage);
            usage
        };
        let micros = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
        (micros(usage.ru_utime), micros(usage.ru_stime))
    };
    let (started, before, cpu_before) = (std::time::Instant::now(), faults(), cpu());
    for _ in 0..calls {
        assert!(runtime.block_on(runner.pre_tool_use(call)).is_allowed());
    }
    println!(
        "{calls} calls, {:?} per call (wall), CPU per call {:.1} µs user + {:.1} µs system, {:.1} minor page faults per call",
        started.elapsed() / calls as u32,
        (cpu().0 - cpu_before.0) / calls as f64,
        (cpu().1 - cpu_before.1) / calls as f64,
        (faults() - before) as f64 / calls as f64
    );
}
