//! `hookhost serve` with its two clients, `hookhost-client` and `agent-hook --daemon`, through
//! the real binaries: every recorded event answered byte for byte as `agent-hook` answers it,
//! `rm -rf /` denied whether the daemon is there, killed before the call or killed during it,
//! or hookhost cannot be run at all, configurations reloaded and failing closed, the caller's
//! environment and cwd reaching command hooks, bad requests answered with an error at no
//! lasting cost, and concurrent clients each getting their own answer.
//!
//! Longer than 500 lines on purpose: each test drives a real daemon and real clients, and they
//! share the harness above them (the daemon started and killed, the client's trace); split,
//! that harness would move to support.rs for this file alone.
//!
//! SO_PEERCRED's refusal of another uid needs a second user: the test runs a client as nobody,
//! which needs root, and fails saying so elsewhere (`another_user_is_refused`; the client's
//! side of the same checks: `second_user`).

use std::io::{Read as _, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::agents::answerer;
use crate::recorded::RECORDED;
use crate::support::{Project, hook};

/// What a hook command answered: stdout, stderr, exit status, as bytes.
#[derive(Debug, PartialEq, Eq)]
struct Reply {
    stdout: String,
    stderr: String,
    code: i32,
}

/// The environment every process here runs with (the daemon's and the client's must locate
/// the same files): hermetic, as `agents.rs` runs agent-hook.
fn hermetic(command: &mut Command, project: &Project) {
    crate::support::hermetic(command, project);
}

/// A `hookhost serve` on a socket of its own, killed when dropped.
struct Daemon {
    child: Child,
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Daemon {
    fn start(project: &Project) -> Daemon {
        Daemon::start_with(project, &["--idle-exit", "0"])
    }

    fn start_with(project: &Project, args: &[&str]) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = dir.path().join("agent.sock");
        let log = dir.path().join("serve.log");
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        hermetic(&mut command, project);
        let child = command
            // Elsewhere than its callers: what is relative is the caller's.
            .current_dir("/")
            .args(["serve", "--read-timeout", "1s"])
            .args(args)
            .arg("--socket")
            .arg(&socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut daemon = Daemon {
            child,
            socket,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while UnixStream::connect(&daemon.socket).is_err() {
            assert!(
                daemon.child.try_wait().unwrap().is_none(),
                "hookhost serve exited at start: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            assert!(Instant::now() < deadline, "hookhost serve did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        daemon
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `agent-hook --format FORMAT [--event E]`, in process, or through the daemon on `socket`
/// (the client's trace appended to `trace`).
fn agent_hook(
    project: &Project,
    format: &str,
    event: Option<&str>,
    daemon: Option<(&Path, &Path)>,
) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
    hermetic(&mut command, project);
    command.args(["agent-hook", "--format", format]);
    if let Some(event) = event {
        command.args(["--event", event]);
    }
    if let Some((socket, trace)) = daemon {
        command
            .arg("--daemon")
            .arg("--socket")
            .arg(socket)
            .env("HOOKHOST_CLIENT_LOG", trace);
    }
    command
}

/// The two clients of the daemon.
#[derive(Debug, Clone, Copy)]
enum Via {
    /// `hookhost-client`, the small binary agents' settings name.
    Client,
    /// `hookhost agent-hook --daemon`.
    AgentHook,
}

const VIAS: [Via; 2] = [Via::Client, Via::AgentHook];

/// A call through the daemon on `socket` by `via`, its trace appended to `trace`; the client
/// never starts a daemon here.
fn through(
    via: Via,
    project: &Project,
    format: &str,
    event: Option<&str>,
    socket: &Path,
    trace: &Path,
) -> Command {
    match via {
        Via::AgentHook => agent_hook(project, format, event, Some((socket, trace))),
        Via::Client => {
            let mut command = client(project, format, event);
            command
                .arg("--no-start")
                .arg("--socket")
                .arg(socket)
                .env("HOOKHOST_CLIENT_LOG", trace);
            command
        }
    }
}

/// `hookhost-client --format FORMAT [--event E]`, finding hookhost through `HOOKHOST_BIN`.
fn client(project: &Project, format: &str, event: Option<&str>) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost-client"));
    hermetic(&mut command, project);
    command
        .args(["--format", format])
        .args(event.iter().flat_map(|event| ["--event", event]))
        .env("HOOKHOST_BIN", env!("CARGO_BIN_EXE_hookhost"));
    command
}

fn run(mut command: Command, stdin: &str) -> Reply {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    std::thread::spawn(move || {
        let _ = pipe.write_all(stdin.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    Reply {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Who answered each call so far, per the client's trace.
fn answered_by(trace: &Path) -> Vec<String> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn in_project(project: &Project, stdin: &str) -> String {
    stdin.replace("PROJECT", &project.root().display().to_string())
}

const RM_RF: &str = r#"{"session_id":"s","cwd":"PROJECT","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#;

const NO_RM_RF: &str = r#"
[[hooks]]
name = "no-rm-rf"
event = "PreToolUse"
command = '''if grep -q 'rm -rf'; then echo '{"action":"block","reason":"recursive delete"}'; else echo '{"action":"allow"}'; fi'''
"#;

fn assert_denied(reply: &Reply, what: &str) {
    let json: serde_json::Value = serde_json::from_str(&reply.stdout)
        .unwrap_or_else(|e| panic!("{what}: stdout is not JSON ({e}): {reply:?}"));
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "deny",
        "{what}: {reply:?}"
    );
    assert_eq!(reply.code, 0, "{what}: {reply:?}");
}

#[test]
fn every_recorded_event_is_answered_byte_for_byte_as_agent_hook_answers_it() {
    let project = Project::new();
    project.config(&format!(
        "{}{NO_RM_RF}{}",
        answerer(
            "PreToolUse",
            Some("Bash"),
            json!({"answer": "ask", "reason": "run it?"})
        ),
        hook(
            "PostToolUse",
            "cat > /dev/null; echo 'a warning' >&2; exit 1",
            "name = \"noisy\""
        )
    ));
    let daemon = Daemon::start(&project);
    for via in VIAS {
        let trace = project.path(&format!("trace-{via:?}"));
        for (format, event, stdin) in RECORDED {
            let stdin = in_project(&project, stdin);
            let direct = run(agent_hook(&project, format, event, None), &stdin);
            let served = run(
                through(via, &project, format, event, &daemon.socket, &trace),
                &stdin,
            );
            assert_eq!(served, direct, "{via:?}: {format} {stdin}");
        }
        let by = answered_by(&trace);
        assert_eq!(by, vec!["daemon"; RECORDED.len()], "{via:?}: {by:?}");
    }
}

#[test]
fn rm_rf_is_denied_without_the_daemon_and_when_it_is_killed_before_or_during_a_call() {
    let project = Project::new();
    // A slow guard: the daemon is killed while it runs.
    project.config(&format!(
        "{}{NO_RM_RF}",
        hook("PreToolUse", "sleep 1", "name = \"slow\"")
    ));
    let stdin = in_project(&project, RM_RF);
    for via in VIAS {
        let trace = project.path(&format!("trace-{via:?}"));
        let call = |socket: &Path| through(via, &project, "claude", None, socket, &trace);

        let absent = project.path("no-daemon/agent.sock");
        assert_denied(&run(call(&absent), &stdin), "no daemon");

        let mut daemon = Daemon::start(&project);
        assert_denied(&run(call(&daemon.socket), &stdin), "daemon running");

        let child = call(&daemon.socket);
        let during = std::thread::spawn({
            let stdin = stdin.clone();
            move || run(child, &stdin)
        });
        std::thread::sleep(Duration::from_millis(400));
        daemon.kill();
        assert_denied(&during.join().unwrap(), "daemon killed during the call");

        // Killed after the calls above: the next one finds the socket dead.
        assert_denied(
            &run(call(&daemon.socket), &stdin),
            "daemon killed before the call",
        );

        let by = answered_by(&trace);
        assert_eq!(by.len(), 4, "{via:?}: {by:?}");
        assert!(by[0].starts_with("in process: cannot connect"), "{by:?}");
        assert_eq!(by[1], "daemon");
        assert!(by[2].starts_with("in process: no answer"), "{by:?}");
        assert!(by[3].starts_with("in process: cannot connect"), "{by:?}");
    }
}

#[test]
fn a_client_that_cannot_run_hookhost_blocks_the_call() {
    let project = Project::new();
    project.config(NO_RM_RF);
    let absent = project.path("no-daemon/agent.sock");
    let mut command = client(&project, "claude", None);
    command
        .arg("--no-start")
        .arg("--socket")
        .arg(&absent)
        .env("HOOKHOST_BIN", project.path("no-such-hookhost"));
    let reply = run(command, &in_project(&project, RM_RF));
    assert_eq!((reply.code, reply.stdout.as_str()), (2, ""), "{reply:?}");
    assert!(
        reply.stderr.starts_with(&format!(
            "hookhost-client: no daemon answered and `{}/no-such-hookhost agent-hook` cannot be \
             run: No such file or directory",
            project.root().display()
        )),
        "{reply:?}"
    );
    assert!(reply.stderr.contains("the call is blocked"), "{reply:?}");
}

#[test]
fn the_clients_usage_errors_block_and_say_what_to_fix() {
    let project = Project::new();
    #[rustfmt::skip]
    let cases: [(&[&str], &str); 3] = [
        (&[], "hookhost-client: --format AGENT is required (claude, copilot, gemini, ...)"),
        (&["--format", "claude", "--timeout", "soon"], "hookhost-client: --timeout: \"soon\" is not a duration (say 30s, 500ms or 2m)"),
        (&["--format", "claude", "--bogus"], "hookhost-client: unexpected argument \"--bogus\""),
    ];
    for (args, expected) in cases {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost-client"));
        hermetic(&mut command, &project);
        command.args(args);
        let reply = run(command, "{}");
        assert_eq!(reply.code, 2, "{args:?}: {reply:?}");
        assert!(reply.stderr.starts_with(expected), "{args:?}: {reply:?}");
        assert!(
            reply
                .stderr
                .contains("usage: hookhost-client --format AGENT"),
            "{reply:?}"
        );
    }
}

#[test]
fn a_configuration_edited_between_calls_is_reloaded_and_a_broken_one_fails_closed() {
    let project = Project::new();
    project.config(&hook(
        "PreToolUse",
        r#"cat > /dev/null; echo '{"action":"allow"}'"#,
        "",
    ));
    let daemon = Daemon::start(&project);
    let trace = project.path("trace");
    let call = || {
        run(
            agent_hook(&project, "claude", None, Some((&daemon.socket, &trace))),
            &in_project(&project, RM_RF),
        )
    };
    let allowed = call();
    assert_eq!(
        (allowed.stdout.as_str(), allowed.code),
        ("", 0),
        "{allowed:?}"
    );
    // Twice: the second call uses the cached runner.
    assert_eq!(call(), allowed);

    project.config(NO_RM_RF);
    assert_denied(&call(), "after the edit");

    project.config("[[hooks]]\nevent = \"PreToolUse\"\ncomand = \"true\"\n");
    let broken = call();
    assert_denied(&broken, "broken configuration");
    assert!(broken.stdout.contains("could not be loaded"), "{broken:?}");
    let direct = run(
        agent_hook(&project, "claude", None, None),
        &in_project(&project, RM_RF),
    );
    assert_eq!(broken, direct);
    assert_eq!(answered_by(&trace), vec!["daemon"; 4]);
}

#[test]
fn approvals_hold_a_changed_or_created_script_through_a_warm_daemon() {
    let project = Project::new();
    // The user's policy (the hermetic environment's configuration directory).
    std::fs::create_dir_all(project.path(".no-user-config")).unwrap();
    std::fs::write(
        project.path(".no-user-config/hooks.toml"),
        "[projects]\npolicy = \"approve\"\n",
    )
    .unwrap();
    project.config(&hook(
        "PreToolUse",
        "bash ./check.sh; if [ -f ./late.sh ]; then bash ./late.sh; fi",
        "name = \"guard\"",
    ));
    let script = |name: &str, tag: &str| {
        std::fs::write(
            project.path(name),
            format!("cat > /dev/null; echo {tag} >> ran.log; echo '{{\"action\":\"allow\"}}'\n"),
        )
        .unwrap();
    };
    let allow = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        hermetic(&mut command, &project);
        let out = command.arg("allow").output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let ran = || std::fs::read_to_string(project.path("ran.log")).unwrap_or_default();
    script("check.sh", "v1");
    let listed = allow();
    assert!(
        listed.contains("late.sh"),
        "late.sh is approved as absent: {listed}"
    );
    let daemon = Daemon::start(&project);
    let ls = in_project(&project, RM_RF).replace("rm -rf /", "ls");
    for via in VIAS {
        let trace = project.path(&format!("trace-{via:?}"));
        let call = || {
            run(
                through(via, &project, "claude", None, &daemon.socket, &trace),
                &ls,
            )
        };
        std::fs::remove_file(project.path("ran.log")).ok();
        // Twice: the second call is answered by the cached runner.
        for _ in 0..2 {
            let allowed = call();
            assert_eq!(
                (allowed.stdout.as_str(), allowed.code),
                ("", 0),
                "{via:?}: {allowed:?}"
            );
        }
        assert_eq!(ran(), "v1\nv1\n", "{via:?}");

        // The approved script changes (a `git pull`): held, as agent-hook holds it.
        script("check.sh", "v2");
        let held = call();
        assert_denied(&held, "a changed script");
        assert!(
            held.stdout.contains("check.sh changed since"),
            "{via:?}: {held:?}"
        );
        assert_eq!(ran(), "v1\nv1\n", "{via:?}: the changed script did not run");
        let direct = run(agent_hook(&project, "claude", None, None), &ls);
        assert_eq!(held, direct, "{via:?}: the daemon answers as agent-hook");
        script("check.sh", "v1");
        allow();
        assert_eq!(call().code, 0);

        // A script approved as absent appears: held too.
        script("late.sh", "late");
        let held = call();
        assert_denied(&held, "a script approved as absent, created");
        assert!(
            !ran().contains("late"),
            "{via:?}: the new script did not run"
        );
        std::fs::remove_file(project.path("late.sh")).unwrap();
        assert_eq!(answered_by(&trace), vec!["daemon"; 5], "{via:?}");
    }
}

#[test]
fn command_hooks_see_the_callers_environment_and_cwd_not_the_daemons() {
    let project = Project::new();
    project.config(&hook(
        "PreToolUse",
        r#"cat > /dev/null; bytes=$(printf %s "$SERVE_BYTES" | od -An -tx1 | tr -d ' \n'); echo "{\"action\":\"block\",\"reason\":\"mark=$SERVE_MARK pwd=$(pwd) dir=$CLAUDE_PROJECT_DIR bytes=$bytes\"}""#,
        "",
    ));
    let daemon = Daemon::start(&project);
    for via in VIAS {
        callers_context(via, &project, &daemon);
    }
}

fn callers_context(via: Via, project: &Project, daemon: &Daemon) {
    let trace = project.path(&format!("trace-{via:?}"));
    // No cwd in the event: the caller's.
    let stdin = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    let mut command = through(via, project, "claude", None, &daemon.socket, &trace);
    // A value that is not UTF-8 crosses as the bytes it is.
    use std::os::unix::ffi::OsStrExt as _;
    command
        .env("SERVE_MARK", "client-only")
        .env("SERVE_BYTES", std::ffi::OsStr::from_bytes(b"\xff\xfe"));
    let reply = run(command, stdin);
    let expected = format!(
        "mark=client-only pwd={root} dir={root} bytes=fffe",
        root = project.root().display()
    );
    assert!(reply.stdout.contains(&expected), "{via:?}: {reply:?}");
    // Without the variable, the next caller's hook does not see the first caller's.
    let reply = run(
        through(via, project, "claude", None, &daemon.socket, &trace),
        stdin,
    );
    assert!(reply.stdout.contains("mark= pwd="), "{reply:?}");
    // A relative cwd in the event is the caller's, not the daemon's (`/`).
    let relative = stdin.replace("{", r#"{"cwd":".","#);
    let mut command = through(via, project, "claude", None, &daemon.socket, &trace);
    command.env("SERVE_MARK", "relative");
    let reply = run(command, &relative);
    assert!(
        reply
            .stdout
            .contains(&format!("mark=relative pwd={}", project.root().display())),
        "{reply:?}"
    );
    assert_eq!(answered_by(&trace), vec!["daemon"; 3]);
}

/// Sends `bytes` raw and reads what the daemon answers before it closes.
fn raw(socket: &Path, bytes: &[u8]) -> String {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let _ = stream.write_all(bytes);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

#[test]
fn garbage_half_requests_and_huge_headers_get_an_error_and_cost_nothing() {
    let project = Project::new();
    project.config(NO_RM_RF);
    let daemon = Daemon::start(&project);
    #[rustfmt::skip]
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("garbage", b"GET / HTTP/1.1\r\n\r\n".to_vec(), "frame is 1195725856 bytes, over the limit of 1048576"),
        ("half a request", [&[0, 0, 0, 50][..], b"{\"version\""].concat(), "ended early"),
        ("a huge header", [0xff, 0xff, 0xff, 0xff, b'{'].to_vec(), "over the limit of 1048576"),
        ("a header that is not one", [&[0, 0, 0, 2][..], b"{}"].concat(), "not a hookhost request"),
    ];
    for (name, bytes, expected) in cases {
        let answer = raw(&daemon.socket, &bytes);
        assert!(answer.contains(expected), "{name}: {answer:?}");
    }
    // A client that sends nothing and waits is dropped at the read deadline (1 s here).
    let stalled = Instant::now();
    assert_eq!(raw_stalled(&daemon.socket), "");
    assert!(stalled.elapsed() < Duration::from_secs(10));

    let trace = project.path("trace");
    let reply = run(
        agent_hook(&project, "claude", None, Some((&daemon.socket, &trace))),
        &in_project(&project, RM_RF),
    );
    assert_denied(&reply, "after bad requests");
    assert_eq!(answered_by(&trace), ["daemon"]);
}

fn raw_stalled(socket: &Path) -> String {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

#[test]
fn a_socket_directory_others_can_open_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["serve", "--socket"])
        .arg(open.join("agent.sock"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("has mode 777"), "{stderr}");
    assert!(stderr.contains("chmod 700"), "{stderr}");
    assert!(!open.join("agent.sock").exists());

    // A second daemon on a socket one already serves is refused too.
    let project = Project::new();
    let daemon = Daemon::start(&project);
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["serve", "--socket"])
        .arg(&daemon.socket)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("already serves"), "{stderr}");
    assert!(UnixStream::connect(&daemon.socket).is_ok());
}

#[test]
fn concurrent_clients_each_get_their_own_answer() {
    let project = Project::new();
    // The guard names the command it saw: an answer mixed up between clients shows.
    project.config(&hook(
        "PreToolUse",
        r#"command=$(sed 's/.*"command":"\([^"]*\)".*/\1/'); echo "{\"action\":\"block\",\"reason\":\"saw $command\"}""#,
        "",
    ));
    let daemon = Daemon::start(&project);
    let trace = project.path("trace");
    let clients: Vec<_> = (0..24)
        .map(|i| {
            let via = VIAS[i % 2];
            let command = through(via, &project, "claude", None, &daemon.socket, &trace);
            let stdin = in_project(&project, RM_RF).replace("rm -rf /", &format!("echo {i}"));
            std::thread::spawn(move || (i, run(command, &stdin)))
        })
        .collect();
    for client in clients {
        let (i, reply) = client.join().unwrap();
        assert!(
            reply.stdout.contains(&format!(": saw echo {i}\"")),
            "{i}: {reply:?}"
        );
    }
    let by = answered_by(&trace);
    assert_eq!(by, vec!["daemon"; 24], "{by:?}");
}

/// The daemon answers on one thread: a wasm guard that never returns must not hold it. A call
/// whose guard spins until its timeout is still in flight when another call of the same
/// project, which that guard does not match, has been answered.
#[test]
#[cfg(feature = "wasm")]
fn a_spinning_wasm_guard_does_not_hold_up_other_calls() {
    let project = Project::new();
    let spin = crate::support::probe_hook(
        "PreToolUse",
        "spin",
        "match_tool = \"Spin\"\ntimeout_ms = 8000",
        "",
    );
    project.config(&format!("{spin}{NO_RM_RF}"));
    let daemon = Daemon::start(&project);
    let trace = project.path("trace");
    let bash = in_project(&project, RM_RF);
    // Loads the runner (and compiles the probe) before the race.
    assert_denied(
        &run(
            through(
                Via::Client,
                &project,
                "claude",
                None,
                &daemon.socket,
                &trace,
            ),
            &bash,
        ),
        "warm-up",
    );
    let spinning = {
        let command = through(
            Via::Client,
            &project,
            "claude",
            None,
            &daemon.socket,
            &trace,
        );
        // Only the spinning guard objects to it.
        let stdin = bash
            .replace("\"Bash\"", "\"Spin\"")
            .replace("rm -rf /", "echo hi");
        std::thread::spawn(move || run(command, &stdin))
    };
    // Long enough for the spinning call to reach the daemon and its guard to start.
    std::thread::sleep(Duration::from_millis(500));
    let other = run(
        through(
            Via::Client,
            &project,
            "claude",
            None,
            &daemon.socket,
            &trace,
        ),
        &bash,
    );
    assert_denied(&other, "the call beside the spinning guard");
    assert!(
        !spinning.is_finished(),
        "the spinning guard's call ended before the other call was answered"
    );
    let spun = spinning.join().unwrap();
    assert_denied(&spun, "the spinning guard (timed out: fails closed)");
    assert!(spun.stdout.contains("timed out"), "{spun:?}");
    assert_eq!(answered_by(&trace), vec!["daemon"; 3]);
}

#[test]
fn another_user_is_refused() {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    assert_eq!(
        uid, 0,
        "this test runs a client as a second user (nobody), which needs root (CI runs the tests \
         as root; run `sudo -E cargo test --test integration serve::another_user`): running as \
         uid {uid}"
    );
    let project = Project::new();
    let daemon = Daemon::start(&project);
    // The socket's directory is 0700: nobody cannot even reach the socket; the peer check is
    // what stands when the directory is opened up (a mistake the daemon refuses at start, so
    // it is opened after).
    let dir = daemon.socket.parent().unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711)).unwrap();
    std::fs::set_permissions(&daemon.socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    // The client, as nobody: the daemon refuses it, and it answers in process.
    let trace = tempfile::NamedTempFile::new().unwrap();
    std::fs::set_permissions(trace.path(), std::fs::Permissions::from_mode(0o666)).unwrap();
    let refused = "in process: the daemon refused the call: refused: this daemon serves uid 0 \
                   only, and the caller is uid 65534";
    let mut agent_hook = Command::new("setpriv");
    agent_hook
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_hookhost"))
        .args(["agent-hook", "--format", "claude", "--daemon", "--socket"])
        .arg(&daemon.socket)
        .env("HOOKHOST_CLIENT_LOG", trace.path())
        .current_dir("/");
    let mut client = Command::new("setpriv");
    client
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_hookhost-client"))
        .args(["--format", "claude", "--no-start", "--socket"])
        .arg(&daemon.socket)
        .env("HOOKHOST_BIN", env!("CARGO_BIN_EXE_hookhost"))
        .env("HOOKHOST_CLIENT_LOG", trace.path())
        .current_dir("/");
    let replies = [run(agent_hook, "{}"), run(client, "{}")];
    // Both clients refuse the socket themselves: its directory is root's, not nobody's.
    let by = answered_by(trace.path());
    let not_ours = format!(
        "in process: not using {}: its directory {} belongs to uid 0, not to you (uid 65534)",
        daemon.socket.display(),
        dir.display()
    );
    assert_eq!(by.len(), 2, "{replies:?}");
    assert!(by.iter().all(|line| line.starts_with(&not_ours)), "{by:?}");
    // A caller that does not check (any program of nobody's): the daemon refuses it by its
    // peer credentials, whatever it sends.
    let raw = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        // perl-base (Essential in Debian) has Unix sockets; the machine's python may sit where
        // nobody cannot reach it.
        .args(["perl", "-MIO::Socket::UNIX", "-e"])
        .arg(
            "my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die \"connect: $!\"; \
             local $/; print <$s>;",
        )
        .arg(&daemon.socket)
        .current_dir("/")
        .output()
        .expect("perl plays a caller that does not check the socket: apt-get install perl-base");
    let answer = String::from_utf8_lossy(&raw.stdout);
    assert!(
        answer.contains(refused.trim_start_matches("in process: the daemon refused the call: ")),
        "{answer}{}",
        String::from_utf8_lossy(&raw.stderr)
    );
}
/// Waits up to 30 s for `child` to exit.
fn exits(child: &mut Child) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn sigterm_finishes_the_call_in_flight_then_removes_the_socket() {
    let project = Project::new();
    project.config(&format!(
        "{}{NO_RM_RF}",
        hook("PreToolUse", "sleep 1", "name = \"slow\"")
    ));
    let mut daemon = Daemon::start(&project);
    let trace = project.path("trace");
    let client = agent_hook(&project, "claude", None, Some((&daemon.socket, &trace)));
    let stdin = in_project(&project, RM_RF);
    let during = std::thread::spawn(move || run(client, &stdin));
    std::thread::sleep(Duration::from_millis(400));
    // SAFETY: kill only sends a signal to the daemon this test started.
    unsafe { libc::kill(daemon.child.id() as i32, libc::SIGTERM) };
    assert_denied(&during.join().unwrap(), "call in flight at SIGTERM");
    assert_eq!(answered_by(&trace), ["daemon"]);
    let status = exits(&mut daemon.child).expect("the daemon exits after SIGTERM");
    assert!(status.success(), "{status:?}");
    assert!(!daemon.socket.exists());
}

#[test]
fn an_idle_daemon_exits_and_removes_its_socket() {
    let project = Project::new();
    let mut daemon = Daemon::start_with(
        &project,
        &["--idle-exit", "300ms", "--evict-after", "100ms"],
    );
    let status = exits(&mut daemon.child).expect("the idle daemon exits");
    assert!(status.success(), "{status:?}");
    assert!(!daemon.socket.exists());
}

/// The pid of the process listening on `socket` (SO_PEERCRED from the client's side).
fn server_pid(socket: &Path) -> i32 {
    use std::os::fd::AsRawFd as _;
    let stream = UnixStream::connect(socket).unwrap();
    // SAFETY: a zeroed ucred is valid; getsockopt writes at most `len` bytes into it.
    unsafe {
        let mut cred: libc::ucred = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        let done = libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &mut len,
        );
        assert_eq!(done, 0);
        cred.pid
    }
}

#[test]
fn daemon_start_answers_in_process_and_starts_the_daemon_for_the_next_call() {
    for via in VIAS {
        starts_the_daemon(via);
    }
}

/// `agent-hook --daemon=start`, and `hookhost-client` by default.
fn starts_the_daemon(via: Via) {
    let project = Project::new();
    project.config(NO_RM_RF);
    let dir = tempfile::tempdir().unwrap();
    // The client creates the missing directory, private.
    let socket = dir.path().join("hookhost").join("agent.sock");
    let trace = project.path("trace");
    let stdin = in_project(&project, RM_RF);
    let call = || {
        let mut command = match via {
            Via::AgentHook => {
                let mut command = agent_hook(&project, "claude", None, None);
                command.arg("--daemon=start");
                command
            }
            Via::Client => client(&project, "claude", None),
        };
        command
            .arg("--socket")
            .arg(&socket)
            .env("HOOKHOST_CLIENT_LOG", &trace);
        run(command, &stdin)
    };
    assert_denied(&call(), "first call, in process");
    let deadline = Instant::now() + Duration::from_secs(30);
    while UnixStream::connect(&socket).is_err() {
        assert!(Instant::now() < deadline, "the daemon did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mode = std::fs::metadata(socket.parent().unwrap())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    assert_denied(&call(), "second call, through the daemon");
    let by = answered_by(&trace);
    assert!(
        by[0].starts_with("in process: cannot connect"),
        "{via:?}: {by:?}"
    );
    assert_eq!(by[1], "daemon", "{via:?}: {by:?}");
    // SAFETY: kill only sends a signal to the daemon this test started.
    unsafe { libc::kill(server_pid(&socket), libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(30);
    while socket.exists() {
        assert!(Instant::now() < deadline, "the daemon did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
}
