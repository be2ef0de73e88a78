//! The daemon's rows of `cargo bench --bench agent_hook` (issue 28): the same three wasm
//! guards answered through `hookhost serve`, by the `hookhost-client` binary (what an agent's
//! settings name) and by `hookhost agent-hook --daemon`, beside a process spawn (`true`) and the
//! jq scripts; 100 clients at once, every answer checked against its own request; and the
//! daemon's memory over 100,000 calls (`HOOKHOST_BENCH_DAEMON_CALLS`).
//!
//! Targets: the client at most 2x `true` (median) and at least 50x less than the jq scripts;
//! no error and no answer mixed up among 100 concurrent clients; the daemon's memory flat.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Setup, ms};

/// A `hookhost serve` on a private socket, with the bench's environment; killed when dropped.
pub struct Daemon {
    child: Child,
    pub socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Daemon {
    pub fn start(setup: &Setup) -> Daemon {
        let dir = tempfile::tempdir().expect("a socket directory");
        // The daemon creates its directory private (0700); a tempdir is 0755.
        let socket = dir.path().join("hookhost").join("agent.sock");
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        command
            .args([
                "serve",
                "--idle-exit",
                "0",
                "--evict-after",
                "0",
                "--socket",
            ])
            .arg(&socket)
            .envs(setup.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        let mut child = command.spawn().expect("hookhost serve starts");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            let exited = child.try_wait().expect("the daemon's status");
            assert!(exited.is_none(), "hookhost serve exited: {exited:?}");
            assert!(Instant::now() < deadline, "hookhost serve did not listen");
            std::thread::sleep(Duration::from_millis(10));
        }
        Daemon {
            child,
            socket,
            _dir: dir,
        }
    }

    /// The daemon's resident memory, in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the daemon's /proc status");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Setup {
    /// One call through `hookhost-client` and the daemon on `socket`; its stdout. `trace`:
    /// where the client says who answered.
    pub fn client(&self, socket: &Path, stdin: &str, trace: Option<&Path>) -> String {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost-client"));
        command
            .args(["--format", "claude", "--no-start", "--socket"])
            .arg(socket)
            .env("HOOKHOST_BIN", env!("CARGO_BIN_EXE_hookhost"));
        if let Some(trace) = trace {
            command.env("HOOKHOST_CLIENT_LOG", trace);
        }
        let out = self
            .spawn(command, stdin)
            .wait_with_output()
            .expect("hookhost-client runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// One call through `hookhost agent-hook --daemon` (the whole binary as the client).
    fn agent_hook_daemon(&self, socket: &Path, stdin: &str) -> String {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        command
            .args(["agent-hook", "--format", "claude", "--daemon", "--socket"])
            .arg(socket);
        let out = self
            .spawn(command, stdin)
            .wait_with_output()
            .expect("hookhost runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Each event's medians, measured alternated call by call so that all three see the same
/// machine: the client, `true` spawned the same way (stdin piped in, stdout and stderr read),
/// and `agent-hook --daemon`.
pub struct Medians {
    pub client: Vec<(&'static str, Duration, Duration)>,
}

/// Prints the client's rows for each event and returns their medians.
pub fn rows(
    setup: &Setup,
    daemon: &Daemon,
    events: &[(&'static str, &String)],
    runs: usize,
) -> Medians {
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let trace = scratch.path().join("trace");
    // Warm the daemon, and check that it (not the fallback) answers, as agent-hook does.
    for (_, stdin) in events {
        let through = setup.client(&daemon.socket, stdin, Some(&trace));
        assert_eq!(
            through,
            setup.hookhost(stdin),
            "the client's answer is agent-hook's"
        );
    }
    let who = std::fs::read_to_string(&trace).expect("the client's trace");
    assert!(who.lines().all(|line| line == "daemon"), "{who}");
    let mut medians = Medians { client: Vec::new() };
    for (name, stdin) in events {
        let mut times: [Vec<Duration>; 3] = Default::default();
        for _ in 0..runs.max(1) {
            let mut time = |slot: usize, call: &mut dyn FnMut()| {
                let started = Instant::now();
                call();
                times[slot].push(started.elapsed());
            };
            time(0, &mut || {
                setup.client(&daemon.socket, stdin, None);
            });
            time(1, &mut || {
                let child = setup.spawn(Command::new("true"), stdin);
                child.wait_with_output().expect("true runs");
            });
            time(2, &mut || {
                setup.agent_hook_daemon(&daemon.socket, stdin);
            });
        }
        let [client, spawn, whole] = times.map(|mut times| {
            times.sort();
            (times[times.len() / 2], times[times.len() * 9 / 10])
        });
        for (case, (median, p90)) in [
            ("hookhost-client, warm daemon, 3 wasm guards", client),
            (
                "`true`, spawned the same way (stdin piped, output read)",
                spawn,
            ),
            ("hookhost agent-hook --daemon, warm daemon", whole),
        ] {
            println!("| {name} | {case} | {} | {} |", ms(median), ms(p90));
        }
        medians.client.push((name, client.0, spawn.0));
    }
    medians
}

/// An Edit of `file` in the project: path-allowlist denies it, naming the path, when `file`
/// is outside the project.
fn edit(project: &Path, file: &str) -> String {
    super::event(
        project,
        "Edit",
        serde_json::json!({"file_path": file, "old_string": "a", "new_string": "b"}),
    )
}

/// 100 clients spawned at once, each with its own file: every one must be answered by the
/// daemon, those outside the project denied naming their own file, those inside allowed.
pub fn concurrent(setup: &Setup, daemon: &Daemon, clients: usize) -> String {
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let started = Instant::now();
    let children: Vec<(usize, Child)> = (0..clients)
        .map(|n| {
            let trace = scratch.path().join(format!("trace-{n}"));
            let file = match n % 2 {
                0 => format!("/outside/client-{n}.txt"),
                _ => setup
                    .project
                    .join(format!("client-{n}.txt"))
                    .display()
                    .to_string(),
            };
            let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost-client"));
            command
                .args(["--format", "claude", "--no-start", "--socket"])
                .arg(&daemon.socket)
                .env("HOOKHOST_BIN", env!("CARGO_BIN_EXE_hookhost"))
                .env("HOOKHOST_CLIENT_LOG", &trace);
            (n, setup.spawn(command, &edit(&setup.project, &file)))
        })
        .collect();
    let mut problems = Vec::new();
    for (n, child) in children {
        let out = child.wait_with_output().expect("hookhost-client runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let who =
            std::fs::read_to_string(scratch.path().join(format!("trace-{n}"))).unwrap_or_default();
        let denied = stdout.contains("\"deny\"");
        let own = stdout.contains(&format!("client-{n}.txt"));
        let right = match n % 2 {
            0 => denied && own,
            _ => !denied,
        };
        if !out.status.success() || who.trim() != "daemon" || !right {
            problems.push(format!("client {n}: {who:?} {stdout}"));
        }
    }
    let wall = started.elapsed();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    format!(
        "{clients} answered by the daemon, 0 errors, 0 mixed up ({} for all)",
        ms(wall)
    )
}

/// `calls` calls through the socket from this process (4 threads), each answer checked; the
/// daemon's resident memory (KiB) after each tenth, and the calls per second.
pub fn memory(setup: &Setup, daemon: &Daemon, calls: usize) -> (Vec<(usize, u64)>, f64) {
    let outside = edit(&setup.project, "/outside/memory.txt");
    let inside = edit(
        &setup.project,
        &setup.project.join("memory.txt").display().to_string(),
    );
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
        .filter(|(name, _)| !setup.env.iter().any(|(k, _)| name == k))
        .collect();
    env.extend(
        setup
            .env
            .iter()
            .map(|(k, v)| (k.into(), v.clone().into_os_string())),
    );
    let request = hookhost_client::Request {
        format: "claude".into(),
        event: None,
        cwd: Ok(setup.project.clone()),
        env,
    };
    let threads = 4;
    let step = (calls / 10).max(threads);
    let mut samples = Vec::new();
    let mut done = 0;
    let started = Instant::now();
    while done < calls {
        let batch = step.min(calls - done);
        std::thread::scope(|scope| {
            for thread in 0..threads {
                let (request, outside, inside) = (&request, &outside, &inside);
                scope.spawn(move || {
                    for n in (thread..batch).step_by(threads) {
                        let (stdin, denied) = match n % 2 {
                            0 => (outside, true),
                            _ => (inside, false),
                        };
                        let reply = hookhost_client::ask(
                            &daemon.socket,
                            request,
                            stdin.as_bytes(),
                            Duration::from_secs(30),
                        )
                        .expect("the daemon answers");
                        assert_eq!(
                            reply.stdout.contains("\"deny\""),
                            denied,
                            "{}",
                            reply.stdout
                        );
                    }
                });
            }
        });
        done += batch;
        samples.push((done, daemon.rss_kib()));
    }
    (samples, calls as f64 / started.elapsed().as_secs_f64())
}
