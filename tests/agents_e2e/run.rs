//! One agent run: a fresh project and home, the agent's hook settings as docs/agents.md writes
//! them, the scripted model in a loopback-only namespace, the agent under a hard timeout that
//! kills its whole process group, and everything it left behind: the model's requests, the
//! decision log, the files its commands made.

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::agents::{Agent, documented_settings};
use crate::model::{ModelServer, Request};
use crate::netns::Loopback;

/// An agent run that takes longer is killed (with its hooks): a hang fails the test.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// How the agent's settings call hookhost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// `hookhost agent-hook --format F`.
    AgentHook,
    /// `hookhost-client --format F`, to a `hookhost serve` started for the run.
    Client,
}

/// What one run left.
#[derive(Debug)]
pub struct Run {
    pub requests: Vec<Request>,
    pub project: tempfile::TempDir,
    /// The agent was killed at [`RUN_TIMEOUT`].
    pub timed_out: bool,
    pub elapsed: Duration,
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// The decision log's records.
    pub decisions: Vec<Value>,
    /// `HOOKHOST_CLIENT_LOG`: who answered each call (the client path).
    pub client_log: Option<String>,
    /// Whether the agent ran confined to loopback, or why not.
    pub network: String,
    /// `hookhost check`'s output before the agent's trust gates were passed and after.
    pub checks: Vec<(String, String)>,
}

impl Run {
    /// Whether any request to the model holds `text`.
    pub fn model_saw(&self, text: &str) -> bool {
        self.requests
            .iter()
            .any(|request| request.body.contains(text))
    }

    pub fn file(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.project.path().join(name)).ok()
    }
}

/// What every run shares: the hookhost binaries on a PATH of their own, the compile cache.
#[derive(Debug)]
pub struct Harness {
    pub docs: String,
    /// A directory with `hookhost` and `hookhost-client`, first on the agents' PATH.
    pub bin: tempfile::TempDir,
    pub hooks_toml: String,
    pub cache: PathBuf,
}

impl Harness {
    pub fn new(hooks_toml: String) -> Harness {
        let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let docs = std::fs::read_to_string(repo.join("docs/agents.md")).unwrap();
        let bin = tempfile::tempdir().unwrap();
        for (name, target) in [
            ("hookhost", env!("CARGO_BIN_EXE_hookhost")),
            ("hookhost-client", env!("CARGO_BIN_EXE_hookhost-client")),
        ] {
            std::os::unix::fs::symlink(target, bin.path().join(name)).unwrap();
        }
        let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("agents-e2e-cache");
        std::fs::create_dir_all(&cache).unwrap();
        Harness {
            docs,
            bin,
            hooks_toml,
            cache,
        }
    }

    /// The environment every process of a run has (the agent, its hooks, the daemon): nothing
    /// of the caller's but PATH, so that no key or setting of the machine leaks in.
    pub fn base_env(&self, home: &Path) -> Vec<(String, String)> {
        let path = format!(
            "{}:{}",
            self.bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        vec![
            ("PATH".into(), path),
            ("HOME".into(), home.display().to_string()),
            ("USER".into(), "agent".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "dumb".into()),
            ("NO_COLOR".into(), "1".into()),
            (
                "HOOKHOST_CACHE_DIR".into(),
                self.cache.join("compiled").display().to_string(),
            ),
            (
                "HOOKHOST_CACHE_KEY".into(),
                self.cache.join("key").display().to_string(),
            ),
        ]
    }

    /// A fresh project (hooks.toml, the agent's settings) and an empty home.
    pub fn setup(&self, agent: &Agent, via: Via) -> (tempfile::TempDir, tempfile::TempDir) {
        let project = tempfile::Builder::new()
            .prefix(&format!("e2e-{}-", agent.format))
            .tempdir()
            .unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::write(project.path().join("hooks.toml"), &self.hooks_toml).unwrap();
        let settings = project.path().join(agent.settings_file);
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(
            &settings,
            documented_settings(&self.docs, agent, via == Via::Client),
        )
        .unwrap();
        (project, home)
    }

    /// `hookhost check` in `project` with `home`: its stdout and stderr.
    pub fn check(&self, project: &Path, home: &Path, extra: &[(String, String)]) -> String {
        let output = Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .arg("check")
            .current_dir(project)
            .env_clear()
            .envs(self.base_env(home))
            .envs(extra.iter().cloned())
            .output()
            .unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    }

    /// Runs `agent` on `prompt` in a fresh project, its hooks called `via` agent-hook or the
    /// client, once its trust gates are passed as a user passes them. With `checks`, `hookhost
    /// check` runs before each gate is passed and after: its outputs are in the run.
    pub fn run(&self, agent: &Agent, binary: &Path, via: Via, prompt: &str, checks: bool) -> Run {
        let (loopback, listener) = Loopback::new();
        let model = ModelServer::serve(listener);
        let (project, home) = self.setup(agent, via);
        let mut env = self.base_env(home.path());
        env.extend(agent.env(home.path(), &model.url()));
        let mut outputs = Vec::new();
        if checks {
            outputs.push((
                "before".to_string(),
                self.check(project.path(), home.path(), &env),
            ));
        }
        agent.prepare(home.path(), project.path(), &model.url());
        if agent.format == "codex" {
            if checks {
                outputs.push((
                    "project trusted".to_string(),
                    self.check(project.path(), home.path(), &env),
                ));
            }
            crate::agents::trust_codex_hooks(
                binary,
                project.path(),
                home.path(),
                &env,
                &|command| loopback.confine(command),
            );
        }
        if checks {
            outputs.push((
                "after".to_string(),
                self.check(project.path(), home.path(), &env),
            ));
        }
        let mut daemon = None;
        let client_log = project.path().join(".client.log");
        if via == Via::Client {
            let dir = home.path().join("hookhost-run");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .unwrap();
            let socket = dir.join("agent.sock");
            env.push(("HOOKHOST_SOCKET".into(), socket.display().to_string()));
            env.push((
                "HOOKHOST_CLIENT_LOG".into(),
                client_log.display().to_string(),
            ));
            daemon = Some(start_daemon(&env, &socket, &dir));
        }
        let mut command = agent.command(binary, prompt);
        command
            .current_dir(project.path())
            .env_clear()
            .envs(env.iter().cloned())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        loopback.confine(&mut command);
        let started = Instant::now();
        let child = command.spawn().unwrap_or_else(|error| {
            panic!("starting {} ({}): {error}", agent.name, binary.display())
        });
        let (timed_out, status, stdout, stderr) = wait_or_kill(child, RUN_TIMEOUT);
        let elapsed = started.elapsed();
        if let Some(mut daemon) = daemon {
            let _ = daemon.kill();
            let _ = daemon.wait();
        }
        let decisions = std::fs::read_to_string(project.path().join("decisions.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        Run {
            checks: outputs,
            requests: model.requests(),
            timed_out,
            elapsed,
            status,
            stdout,
            stderr,
            decisions,
            client_log: (via == Via::Client)
                .then(|| std::fs::read_to_string(&client_log).unwrap_or_default()),
            network: match &loopback.note {
                Some(note) => note.clone(),
                None => "a loopback-only network namespace".into(),
            },
            project,
        }
    }
}

/// `hookhost serve` on `socket`, with the run's environment (the daemon refuses a caller whose
/// HOME, XDG_* or HOOKHOST_* differ from its own).
fn start_daemon(env: &[(String, String)], socket: &Path, dir: &Path) -> Child {
    let log = std::fs::File::create(dir.join("serve.log")).unwrap();
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["serve", "--idle-exit", "0", "--socket"])
        .arg(socket)
        .current_dir("/")
        .env_clear()
        .envs(
            env.iter()
                .filter(|(name, _)| name != "HOOKHOST_CLIENT_LOG")
                .cloned(),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::os::unix::net::UnixStream::connect(socket).is_err() {
        assert!(
            daemon.try_wait().unwrap().is_none(),
            "hookhost serve exited at start: {}",
            std::fs::read_to_string(dir.join("serve.log")).unwrap_or_default()
        );
        assert!(Instant::now() < deadline, "hookhost serve did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    daemon
}

/// Waits for `child` at most `limit`, then kills its process group (the agent and the hooks
/// it started). Returns whether it was killed, its status, stdout and stderr.
fn wait_or_kill(mut child: Child, limit: Duration) -> (bool, Option<i32>, String, String) {
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + limit;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            let group = child.id() as libc::pid_t;
            // SAFETY: kill has no memory preconditions; the group is the child's own (it was
            // spawned with process_group(0)).
            unsafe { libc::kill(-group, libc::SIGKILL) };
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // What the agent's hooks left running in its group goes too.
    // SAFETY: as above.
    unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let _ = std::io::stderr().flush();
    (timed_out, status.code(), stdout, stderr)
}
