//! A throwaway project directory with hook scripts and a hooks.toml.

use std::path::{Path, PathBuf};

use hookhost::{HookRunner, RunnerOptions};

#[cfg(feature = "wasm")]
#[path = "../common/wasm_build.rs"]
mod wasm_build;
#[cfg(feature = "wasm")]
use wasm_build::build_wasm_for;
#[cfg(feature = "wasm")]
pub use wasm_build::{NO_WASI, WASIP2};

pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        Project {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root().join(relative)
    }

    /// Writes `.forgeflare/hooks.toml` and returns its path.
    pub fn config(&self, toml: &str) -> PathBuf {
        let path = self.path(".forgeflare/hooks.toml");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, toml).unwrap();
        path
    }

    pub fn options(&self) -> RunnerOptions {
        let mut options = RunnerOptions::new(self.root());
        options.forward_stderr = false;
        #[cfg(feature = "wasm")]
        {
            options.cache = test_cache();
        }
        options
    }

    /// A native runner over `toml`, panicking on configuration errors.
    pub fn runner(&self, toml: &str) -> HookRunner {
        let path = self.config(toml);
        HookRunner::load(path, self.options()).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative))
            .unwrap_or_else(|e| panic!("reading {relative}: {e}"))
    }

    pub fn read_json(&self, relative: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(relative)).unwrap()
    }
}

/// A hooks.toml entry for a command hook.
pub fn hook(event: &str, command: &str, extra: &str) -> String {
    format!("[[hooks]]\nevent = \"{event}\"\ncommand = '''{command}'''\n{extra}\n\n")
}

/// Processes whose command line contains `marker` (zombies have none, so are not counted).
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push(format!(
                    "{}: {cmdline}",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    found
}

/// Waits (up to a generous bound) until no process has `marker` in its command line.
pub fn wait_until_gone(marker: &str) -> Vec<String> {
    for _ in 0..100 {
        if processes_with(marker).is_empty() {
            return Vec::new();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    processes_with(marker)
}

/// The example hooks of the workspace, built together by [`build_fixture`].
#[cfg(feature = "wasm")]
pub const EXAMPLES: [&str; 8] = [
    "destructive-guard",
    "path-allowlist",
    "progress-guard",
    "audit-log",
    "convergence-check",
    "session-summary",
    "session-directory-guard",
    "signal-schema-check",
];

/// Builds a fixture crate (under tests/fixtures, or an example hook of the workspace) for
/// wasm32-wasip2, once per test binary, compiles it into the shared cache, and returns the
/// component's path.
#[cfg(feature = "wasm")]
pub fn build_fixture(name: &str) -> PathBuf {
    build_fixture_for(WASIP2, name)
}

/// [`build_fixture`] for `target`: for [`NO_WASI`], the path of a core module, which hookhost
/// wraps into a component at load.
#[cfg(feature = "wasm")]
pub fn build_fixture_for(target: &str, name: &str) -> PathBuf {
    type Built = Vec<(String, String, PathBuf)>;
    static BUILT: std::sync::Mutex<Built> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((.., path)) = built.iter().find(|(t, n, _)| t == target && n == name) {
        return path.clone();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../fixtures");
    let out_dir = if EXAMPLES.contains(&name) {
        // All examples in one build: they share the SDK. Without WASI only the one asked for:
        // few examples are built that way.
        let packages = if target == WASIP2 {
            &EXAMPLES[..]
        } else {
            &[name]
        };
        build_wasm_for(target, &root.join("Cargo.toml"), packages, &target_dir)
    } else {
        build_wasm_for(
            target,
            &root.join("tests/fixtures").join(name).join("Cargo.toml"),
            &[],
            &target_dir,
        )
    };
    let path = out_dir.join(format!("{}.wasm", name.replace('-', "_")));
    // Compile it into the shared cache now, once, instead of in every test that loads it.
    let config = format!("[[hooks]]\nevent = \"Stop\"\nwasm = '{}'\n", path.display());
    let config = hookhost::Config::parse(&config, "warm.toml").unwrap();
    let mut options = RunnerOptions::new(env!("CARGO_TARGET_TMPDIR"));
    options.cache = test_cache();
    HookRunner::new(config, options)
        .unwrap_or_else(|e| panic!("fixture {name} ({target}) does not load: {e}"));
    built.push((target.to_string(), name.to_string(), path.clone()));
    path
}

/// PreToolUse of a `Bash` call with `input`, at iteration 1.
pub async fn pre_bash(runner: &HookRunner, input: &serde_json::Value) -> hookhost::Outcome {
    runner
        .pre_tool_use(hookhost::ToolCall {
            tool: "Bash",
            input,
            tool_iterations: 1,
        })
        .await
}

/// A hooks.toml entry for the alloc-guard fixture (a hook-sdk guest, named `allocator`) built
/// for `target`, in `mode`.
#[cfg(feature = "wasm")]
pub fn alloc_guard(target: &str, mode: &str, settings: &str, config: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"PreToolUse\"\nname = \"allocator\"\nwasm = '{}'\n{settings}\n[hooks.config]\nmode = \"{mode}\"\n{config}\n",
        build_fixture_for(target, "alloc-guard").display()
    )
}

/// An example hook's component, for hooks.toml.
#[cfg(feature = "wasm")]
pub fn example(name: &str) -> String {
    build_fixture(name).display().to_string()
}

/// The probe fixture's path, for hooks.toml.
#[cfg(feature = "wasm")]
pub fn probe() -> String {
    build_fixture("probe").display().to_string()
}

/// A hooks.toml entry for the probe: `mode` selects its behaviour, `extra` adds TOML lines
/// (before the config table), `config` adds lines to `[hooks.config]`.
#[cfg(feature = "wasm")]
pub fn probe_hook(event: &str, mode: &str, extra: &str, config: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"{event}\"\nwasm = '{}'\n{extra}\n[hooks.config]\nmode = \"{mode}\"\n{config}\n\n",
        probe()
    )
}

/// The shared compile cache of this test binary: each fixture is compiled once. Its key lives
/// beside it (never the key of whoever runs the tests).
#[cfg(feature = "wasm")]
pub fn test_cache() -> hookhost::wasm::CacheMode {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    hookhost::wasm::CacheMode::Keyed {
        dir: tmp.join("compile-cache"),
        key: tmp.join("compile-cache.key"),
    }
}

/// The variables that point the `hookhost` binary at [`test_cache`].
#[cfg(feature = "wasm")]
pub fn test_cache_env() -> [(&'static str, PathBuf); 2] {
    let cache = test_cache();
    [
        ("HOOKHOST_CACHE_DIR", cache.resolve().unwrap()),
        (hookhost::wasm::CACHE_KEY_ENV, cache.key_path().unwrap()),
    ]
}

/// Runs one test of this binary alone in a child process, with `env_var` set (the test does
/// its work only then), and returns its stdout. For tests that need a process to themselves:
/// its memory, its threads, its real stderr.
#[cfg(feature = "wasm")]
pub fn run_child(test: &str, env_var: &str) -> String {
    run_child_with(test, &[(env_var, std::ffi::OsStr::new("1"))])
}

/// [`run_child`] with several variables set, to hand the child paths.
#[cfg(feature = "wasm")]
pub fn run_child_with(test: &str, env: &[(&str, &std::ffi::OsStr)]) -> String {
    run_child_with_within(test, env, std::time::Duration::from_secs(600))
}

/// [`run_child`], with a watchdog: a child still running after `limit` is killed and the test
/// fails, instead of hanging the run.
#[cfg(feature = "wasm")]
pub fn run_child_within(test: &str, env_var: &str, limit: std::time::Duration) -> String {
    run_child_with_within(test, &[(env_var, std::ffi::OsStr::new("1"))], limit)
}

#[cfg(feature = "wasm")]
fn run_child_with_within(
    test: &str,
    env: &[(&str, &std::ffi::OsStr)],
    limit: std::time::Duration,
) -> String {
    use std::io::Read as _;
    let mut child = child_test(test)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Drained on threads, so that a chatty child never blocks on a full pipe.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    match status {
        None => panic!("{test} still ran after {limit:?} (killed):\n{stdout}{stderr}"),
        Some(status) => assert!(status.success(), "{test} failed:\n{stdout}{stderr}"),
    }
    stdout
}

/// A command that runs one test of this binary alone; the caller sets the variable that makes
/// the test do its work, and spawns it (several at once, for tests that need many processes).
/// Such a test is `#[ignore]`d, so that a normal run does not count it as passed when it did
/// nothing: the child runs it with `--include-ignored`.
pub fn child_test(test: &str) -> std::process::Command {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command.args([
        "--exact",
        test,
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    command
}

/// Runs `call` on a single-threaded runtime next to a task that ticks every 10 ms, and returns
/// what it came to, how long it took, and how often the other task ran meanwhile (a guest or
/// host call that holds the executor starves it).
#[cfg(feature = "wasm")]
pub fn beside_a_ticker<T>(
    call: impl std::future::Future<Output = T>,
) -> (T, std::time::Duration, u32) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let ticks = Arc::new(AtomicU32::new(0));
        let counter = ticks.clone();
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        let started = std::time::Instant::now();
        let got = call.await;
        let elapsed = started.elapsed();
        ticker.abort();
        (got, elapsed, ticks.load(Ordering::SeqCst))
    })
}

#[cfg(feature = "cli")]
/// Makes `command` (a `hookhost` or `hookhost-client` process) hermetic in `project`: it runs
/// there, with no user configuration, approvals or compile cache of whoever runs the tests
/// (`.no-user-config`, where a test writes a user hooks.toml when it needs one; `.no-user-data`;
/// the tests' cache), no agent's variables (`*_PROJECT_DIR`, `HOOKHOST_AGENT`), no Codex trust
/// state or managed requirements, no daemon socket, no `OTEL_*` endpoint. A test sets more
/// after this call.
pub fn hermetic<'c>(
    command: &'c mut std::process::Command,
    project: &Project,
) -> &'c mut std::process::Command {
    command
        .current_dir(project.root())
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("HOOKHOST_DATA_DIR", project.path(".no-user-data"))
        .envs(test_cache_env())
        .env("CODEX_HOME", project.path(".no-codex-home"))
        .env(
            "HOOKHOST_CODEX_REQUIREMENTS",
            project.path(".no-codex-requirements.toml"),
        );
    for variable in [
        "CLAUDE_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
        "CURSOR_PROJECT_DIR",
        "HOOKHOST_AGENT",
        "HOOKHOST_SOCKET",
        "HOOKHOST_DAEMON",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_SDK_DISABLED",
    ] {
        command.env_remove(variable);
    }
    command
}

#[cfg(feature = "cli")]
/// `hookhost agent-hook --format claude` in `project`, [`hermetic`]; stdio piped. Set more,
/// then [`with_stdin`].
pub fn agent_hook_command(project: &Project) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"));
    hermetic(&mut command, project)
        .args(["agent-hook", "--format", "claude"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    command
}

#[cfg(feature = "cli")]
/// Claude Code's PreToolUse event of a Bash `command` in `project`, in `session`.
pub fn claude_bash_event(project: &Project, session: &str, command: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "cwd": project.root(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
}

#[cfg(feature = "cli")]
/// Spawns `command` and writes `stdin` to it from a thread of its own (a child may exit before
/// reading it all).
pub fn with_stdin(command: &mut std::process::Command, stdin: String) -> std::process::Child {
    use std::io::Write as _;
    let mut child = command.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let _ = pipe.write_all(stdin.as_bytes());
    });
    child
}
