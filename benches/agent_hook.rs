//! What one agent hook call costs: `hookhost agent-hook --format claude` running three wasm
//! guards, against the same three policies as `jq` scripts under Claude Code's contract.
//!
//! `cargo bench --bench agent_hook` spawns the release binary with the event on stdin, as
//! Claude Code does, N times (`HOOKHOST_BENCH_RUNS`, default 200), and reports the median and
//! the 90th percentile of wall time, per event:
//! - `hookhost`: one process, three wasm guards (destructive-guard, path-allowlist,
//!   progress-guard), warm compile cache;
//! - `jq, parallel`: the three policies as bash + jq + grep scripts, spawned at once as Claude
//!   Code spawns the hooks of an event, all awaited;
//! - `jq, sequential`: the same, one after the other, as Copilot CLI runs them;
//! - `hookhost, unconfigured` and `true`: the floors (hookhost's process start with nothing to
//!   load, and a process spawn);
//! - the same Bash call in Codex CLI's and Cursor's JSON (`--format codex`, `--format cursor`):
//!   what reading and answering another agent's dialect adds;
//! - what the decision log and OpenTelemetry export add to a `hookhost` call (issue 26: at
//!   most 1 ms, median, with a live collector): the same project with `[log]`, with `[log]` and
//!   export over OTLP/HTTP and gRPC to a live receiver on loopback (tests/common/otlp.rs), and
//!   to a dead one (a closed port) and a silent one (accepts, never answers: the exit bound),
//!   and with `spool = true` (records left in the log for `hookhost log --export`);
//!   calls alternated with the plain one so that all see the same machine.
//!
//! The budget (issue 11): at most 10 ms per hookhost call, and at least 5x less than the jq
//! scripts (compared with the parallel run, the cheaper of the two).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "agent_hook/daemon.rs"]
mod daemon;
#[path = "../tests/common/otlp.rs"]
mod otlp;
#[path = "../tests/common/wasm_build.rs"]
mod wasm_build;

const DESTRUCTIVE: &str = r#"command=$(jq -r '.tool_input.command // empty')
if printf '%s' "$command" | grep -Eqi 'rm +-[a-z]*r[a-z]* +(/|~)|git +push +.*(--force|-f)|git +clean +-[a-z]*f|mkfs|drop +table'; then
  echo "blocked: destructive command" >&2; exit 2
fi
exit 0
"#;

const PATHS: &str = r#"file=$(jq -r '.tool_input.file_path // empty')
[ -z "$file" ] && exit 0
case "$(realpath -m "$file")" in "$CLAUDE_PROJECT_DIR"/*) exit 0;; esac
echo "blocked: $file is outside the workspace" >&2; exit 2
"#;

const PROGRESS: &str = r#"input=$(cat)
file=$(printf '%s' "$input" | jq -r '.tool_input.file_path // empty')
case "$file" in *progress.md) ;; *) exit 0;; esac
if printf '%s' "$input" | jq -r '.tool_input.new_string // .tool_input.content // empty' | grep -Eq '^- \[[^ /PxFC]\]'; then
  echo "blocked: invalid task status" >&2; exit 2
fi
exit 0
"#;

fn main() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let runs: usize = std::env::var("HOOKHOST_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    assert!(
        Command::new("jq")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "the comparison runs jq scripts: install jq (apt-get install jq)"
    );
    let wasm = wasm_build::build_wasm(
        &workspace.join("Cargo.toml"),
        &["destructive-guard", "path-allowlist", "progress-guard"],
        &workspace.join("target/fixtures"),
    );
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let project = scratch.path().join("project");
    let setup = Setup::new(scratch.path(), &project, &wasm);

    let bash = event(
        &project,
        "Bash",
        serde_json::json!({"command": "cargo test --release -- --nocapture"}),
    );
    let edit = event(
        &project,
        "Edit",
        serde_json::json!({"file_path": project.join("progress.md"), "old_string": "- [ ] parser", "new_string": "- [x] parser"}),
    );
    let destructive = event(&project, "Bash", serde_json::json!({"command": "rm -rf /"}));
    // Warm the compile cache, and check that both sides decide alike.
    for (stdin, denied) in [(&bash, false), (&edit, false), (&destructive, true)] {
        let reply = setup.hookhost(stdin);
        assert_eq!(
            reply.contains("\"deny\""),
            denied,
            "hookhost on {stdin}: {reply}"
        );
        assert_eq!(setup.jq_parallel(stdin), denied, "jq on {stdin}");
    }

    println!("agent_hook: {runs} runs per case (median, p90 of wall time per call)\n");
    println!("| event | case | median | p90 |\n|---|---|---|---|");
    let mut verdicts = Vec::new();
    for (name, stdin) in [("Bash `cargo test`", &bash), ("Edit progress.md", &edit)] {
        let hookhost = measure(runs, || {
            setup.hookhost(stdin);
        });
        let parallel = measure(runs, || {
            setup.jq_parallel(stdin);
        });
        let sequential = measure(runs, || {
            setup.jq_sequential(stdin);
        });
        for (case, stats) in [
            ("hookhost agent-hook, 3 wasm guards", hookhost),
            ("3 jq scripts, parallel (Claude Code)", parallel),
            ("3 jq scripts, sequential (Copilot CLI)", sequential),
        ] {
            println!("| {name} | {case} | {} | {} |", ms(stats.0), ms(stats.1));
        }
        verdicts.push((name, hookhost.0, parallel.0));
    }
    // The Bash call as Codex CLI and Cursor send it (the guards see the same tool and input).
    let value: serde_json::Value = serde_json::from_str(&bash).expect("the event is JSON");
    let mut codex = value.clone();
    codex["turn_id"] = serde_json::json!("bench-turn");
    codex["model"] = serde_json::json!("gpt-5.5");
    let cursor = serde_json::json!({
        "conversation_id": "bench",
        "generation_id": "bench-generation",
        "hook_event_name": "preToolUse",
        "workspace_roots": [project],
        "cwd": project,
        "tool_name": "Bash",
        "tool_input": value["tool_input"],
        "tool_use_id": "bench-call",
    });
    for (format, stdin) in [("codex", codex.to_string()), ("cursor", cursor.to_string())] {
        let stats = measure(runs, || {
            setup.hookhost_in(format, &stdin, &setup.env[0].1);
        });
        println!(
            "| Bash `cargo test` | hookhost agent-hook --format {format}, 3 wasm guards | {} | {} |",
            ms(stats.0),
            ms(stats.1)
        );
    }
    let floor = measure(runs, || {
        setup.unconfigured(&bash);
    });
    let spawn = measure(runs, || {
        Command::new("true").status().expect("true runs");
    });
    println!(
        "| - | hookhost agent-hook, unconfigured | {} | {} |",
        ms(floor.0),
        ms(floor.1)
    );
    println!(
        "| - | `true` (a process spawn) | {} | {} |",
        ms(spawn.0),
        ms(spawn.1)
    );
    let served = daemon::Daemon::start(&setup);
    let medians = daemon::rows(
        &setup,
        &served,
        &[("Bash `cargo test`", &bash), ("Edit progress.md", &edit)],
        runs,
    );
    let concurrent = daemon::concurrent(&setup, &served, 100);
    let calls: usize = std::env::var("HOOKHOST_BENCH_DAEMON_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let (memory, rate) = daemon::memory(&setup, &served, calls);
    drop(served);
    println!("\n| the daemon | measured |\n|---|---|");
    println!("| 100 concurrent hookhost-client calls | {concurrent} |");
    for (done, kib) in &memory {
        println!(
            "| resident memory after {done} calls | {:.1} MiB |",
            *kib as f64 / 1024.0
        );
    }
    println!(
        "| {calls} calls through the socket (4 threads, each answer checked) | {rate:.0} calls/s |"
    );
    let extras = extras(&setup, &bash, runs);
    println!("\n| budget | measured | |\n|---|---|---|");
    let met = |ok: bool| if ok { "met" } else { "**missed**" };
    for ((name, client, spawn), (_, _, jq)) in medians.client.iter().zip(&verdicts) {
        let spawns = client.as_secs_f64() / spawn.as_secs_f64();
        let cheaper = jq.as_secs_f64() / client.as_secs_f64();
        println!(
            "| {name}: client with a warm daemon at most 2x `true` | {spawns:.2}x ({} / {}) | {} |",
            ms(*client),
            ms(*spawn),
            met(spawns <= 2.0)
        );
        println!(
            "| {name}: client at least 50x less than jq | {cheaper:.1}x | {} |",
            met(cheaper >= 50.0)
        );
    }
    // Flat: the last sample within 10% of the one after the first tenth (the pool and the
    // allocator's arenas are warm by then).
    if let (Some((first_at, first)), Some((last_at, last))) = (memory.first(), memory.last()) {
        let growth = (*last as f64 - *first as f64) / *first as f64 * 100.0;
        println!(
            "| daemon memory flat over {calls} calls | {:.1} MiB after {first_at}, {:.1} MiB after {last_at} ({growth:+.1}%) | {} |",
            *first as f64 / 1024.0,
            *last as f64 / 1024.0,
            met(growth < 10.0)
        );
    }
    for (name, hookhost, jq) in verdicts {
        let ratio = jq.as_secs_f64() / hookhost.as_secs_f64();
        let within = hookhost <= Duration::from_millis(10);
        println!(
            "| {name}: at most 10 ms | {} | {} |",
            ms(hookhost),
            if within { "met" } else { "**missed**" }
        );
        println!(
            "| {name}: at least 5x less than jq | {ratio:.1}x | {} |",
            if ratio >= 5.0 { "met" } else { "**missed**" }
        );
    }
    for (case, extra) in extras {
        println!(
            "| {case}: at most 1 ms more | {} | {} |",
            ms(extra),
            if extra <= Duration::from_millis(1) {
                "met"
            } else {
                "**missed**"
            }
        );
    }
}

/// The Bash call with `[log]` on (and with OTLP export), alternated call by call with the
/// plain project; prints the medians and returns each case's median extra time.
fn extras(setup: &Setup, bash: &str, runs: usize) -> Vec<(&'static str, Duration)> {
    let hooks =
        std::fs::read_to_string(setup.project.join(".forgeflare/hooks.toml")).expect("hooks.toml");
    let http = otlp::Receiver::http(otlp::Behaviour::Accept);
    let grpc = otlp::Receiver::grpc(otlp::Behaviour::Accept);
    let silent = otlp::Receiver::http(otlp::Behaviour::Hang);
    let log = "[log]\npath = \"decisions.jsonl\"\n";
    // (case, the project's table, the user's hooks.toml: where [telemetry] is read from)
    let telemetry = |url: String, protocol: &str| {
        format!("[telemetry]\nendpoint = \"{url}\"\nprotocol = \"{protocol}\"\n")
    };
    let cases: Vec<(&'static str, &str, String)> = vec![
        ("with the decision log", log, String::new()),
        (
            "with the log and OTLP/HTTP export (live collector)",
            log,
            telemetry(http.url(), "http/protobuf"),
        ),
        (
            "with the log and OTLP/gRPC export (live collector)",
            log,
            telemetry(grpc.url(), "grpc"),
        ),
        (
            "with the log and spool = true (sent later by `hookhost log --export`)",
            "",
            format!(
                "{log}\n[telemetry]\nendpoint = \"{}\"\nspool = true\n",
                http.url()
            ),
        ),
        (
            "with the log and OTLP/HTTP export (dead collector)",
            log,
            telemetry(format!("http://{}", otlp::closed_port()), "http/protobuf"),
        ),
    ];
    let silent_case = (
        "with the log and OTLP/HTTP export (silent collector)",
        log,
        telemetry(silent.url(), "http/protobuf"),
    );
    let projects: Vec<(PathBuf, PathBuf)> = cases
        .iter()
        .chain(std::iter::once(&silent_case))
        .enumerate()
        .map(|(n, (_, table, user))| {
            let project = setup.project.with_file_name(format!("project-{n}"));
            std::fs::create_dir_all(project.join(".forgeflare")).expect("project directory");
            std::fs::write(
                project.join(".forgeflare/hooks.toml"),
                format!("{table}\n{hooks}"),
            )
            .expect("hooks.toml");
            let user_dir = project.join("user-config");
            std::fs::create_dir_all(&user_dir).expect("user config directory");
            std::fs::write(user_dir.join("hooks.toml"), user).expect("user hooks.toml");
            (project, user_dir)
        })
        .collect();
    let stdins: Vec<String> = projects
        .iter()
        .map(|(project, _)| {
            bash.replace(
                &*setup.project.to_string_lossy(),
                &project.to_string_lossy(),
            )
        })
        .collect();
    let call = |n: usize| {
        let started = Instant::now();
        setup.hookhost_as(&stdins[n], &projects[n].1);
        started.elapsed()
    };
    let mut plain = Vec::new();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for _ in 0..runs {
        let started = Instant::now();
        setup.hookhost(bash);
        plain.push(started.elapsed());
        for (n, times) in times.iter_mut().enumerate() {
            times.push(call(n));
        }
    }
    // The silent collector costs the exit bound each time: a few runs say it.
    let silent_times: Vec<Duration> = (0..runs.clamp(1, 10)).map(|_| call(cases.len())).collect();
    assert!(
        http.with(|received| !received.traces.is_empty())
            && grpc.with(|received| !received.traces.is_empty()),
        "the live collectors received the calls' spans"
    );
    let plain = median(plain);
    println!(
        "\n| Bash `cargo test`, alternated | median | extra |\n|---|---|---|\n| hookhost agent-hook | {} | - |",
        ms(plain)
    );
    let silent_median = median(silent_times);
    println!(
        "| ... {} | {} | {} |",
        silent_case.0,
        ms(silent_median),
        ms(silent_median.saturating_sub(plain))
    );
    cases
        .iter()
        .zip(times)
        .map(|((case, _, _), times)| {
            let median = median(times);
            let extra = median.saturating_sub(plain);
            println!("| ... {case} | {} | {} |", ms(median), ms(extra));
            (*case, extra)
        })
        .filter(|(case, _)| !case.contains("dead"))
        .collect()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The project, its hooks.toml, the jq scripts and the environment of both sides.
struct Setup {
    project: PathBuf,
    scripts: Vec<PathBuf>,
    env: Vec<(&'static str, PathBuf)>,
    empty: PathBuf,
}

impl Setup {
    fn new(scratch: &Path, project: &Path, wasm: &Path) -> Setup {
        std::fs::create_dir_all(project.join(".forgeflare")).expect("project directory");
        std::fs::write(project.join("progress.md"), "- [ ] parser\n").expect("progress.md");
        // Every policy sees every call (no matchers), on both sides.
        let hooks = format!(
            r#"[[hooks]]
name = "destructive-guard"
event = "PreToolUse"
wasm = '{dir}/destructive_guard.wasm'

[[hooks]]
name = "path-allowlist"
event = "PreToolUse"
wasm = '{dir}/path_allowlist.wasm'
read = ["."]
# Anywhere inside the workspace, as the jq script allows.
config = {{ allow = ["**"] }}

[[hooks]]
name = "progress-guard"
event = "PreToolUse"
wasm = '{dir}/progress_guard.wasm'
"#,
            dir = wasm.display()
        );
        std::fs::write(project.join(".forgeflare/hooks.toml"), hooks).expect("hooks.toml");
        let scripts: Vec<PathBuf> = [
            ("destructive", DESTRUCTIVE),
            ("paths", PATHS),
            ("progress", PROGRESS),
        ]
        .iter()
        .map(|(name, body)| {
            let path = scratch.join(format!("{name}.sh"));
            std::fs::write(&path, format!("#!/bin/bash\n{body}")).expect("script");
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            path
        })
        .collect();
        let empty = scratch.join("empty");
        std::fs::create_dir_all(&empty).expect("empty directory");
        Setup {
            project: project.to_path_buf(),
            scripts,
            env: vec![
                ("HOOKHOST_CONFIG_DIR", scratch.join("no-user-config")),
                ("HOOKHOST_DATA_DIR", scratch.join("no-user-data")),
                ("HOOKHOST_CACHE_DIR", scratch.join("cache")),
                ("CLAUDE_PROJECT_DIR", project.to_path_buf()),
            ],
            empty,
        }
    }

    /// Spawns `command` with the setup's environment (where the command does not set a
    /// variable itself) and `stdin`.
    fn spawn(&self, mut command: Command, stdin: &str) -> Child {
        let own: Vec<std::ffi::OsString> = command
            .get_envs()
            .map(|(name, _)| name.to_owned())
            .collect();
        let mut child = command
            .envs(
                self.env
                    .iter()
                    .filter(|(k, _)| !own.iter().any(|name| name == k))
                    .map(|(k, v)| (k, v)),
            )
            .current_dir(&self.project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut pipe = child.stdin.take().expect("stdin");
        // A hook may exit without reading all of it.
        let _ = pipe.write_all(stdin.as_bytes());
        child
    }

    /// One hookhost call; its stdout.
    fn hookhost(&self, stdin: &str) -> String {
        self.hookhost_as(stdin, &self.env[0].1)
    }

    /// One hookhost call with `user_config` as the user's configuration directory.
    fn hookhost_as(&self, stdin: &str, user_config: &Path) -> String {
        self.hookhost_in("claude", stdin, user_config)
    }

    /// One hookhost call speaking `format`.
    fn hookhost_in(&self, format: &str, stdin: &str, user_config: &Path) -> String {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        command
            .args(["agent-hook", "--format", format])
            .env("HOOKHOST_CONFIG_DIR", user_config);
        let out = self
            .spawn(command, stdin)
            .wait_with_output()
            .expect("hookhost runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// hookhost where nothing is configured (the event's cwd has no hooks.toml).
    fn unconfigured(&self, stdin: &str) {
        let stdin = stdin.replace(
            &*self.project.to_string_lossy(),
            &self.empty.to_string_lossy(),
        );
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        command.args(["agent-hook", "--format", "claude"]);
        self.spawn(command, &stdin)
            .wait_with_output()
            .expect("hookhost runs");
    }

    fn script(&self, script: &Path) -> Command {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        command
    }

    /// The three scripts at once; true when any blocked (exit 2).
    fn jq_parallel(&self, stdin: &str) -> bool {
        let children: Vec<Child> = self
            .scripts
            .iter()
            .map(|s| self.spawn(self.script(s), stdin))
            .collect();
        // Every script is awaited (no short cut at the first block), as the agent awaits them.
        let blocked: Vec<bool> = children
            .into_iter()
            .map(|child| child.wait_with_output().expect("script runs").status.code() == Some(2))
            .collect();
        blocked.contains(&true)
    }

    /// The three scripts one after the other, stopping at a block.
    fn jq_sequential(&self, stdin: &str) -> bool {
        self.scripts.iter().any(|s| {
            self.spawn(self.script(s), stdin)
                .wait_with_output()
                .expect("script runs")
                .status
                .code()
                == Some(2)
        })
    }
}

fn event(project: &Path, tool: &str, input: serde_json::Value) -> String {
    serde_json::json!({
        "session_id": "bench",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_bench",
    })
    .to_string()
}

/// Median and 90th percentile of `runs` calls of `call`.
fn measure(runs: usize, mut call: impl FnMut()) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let started = Instant::now();
            call();
            started.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[times.len() * 9 / 10])
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}
