//! After `init`, the agent is protected: for each agent, init writes a project's settings, the
//! test reads back the command line written for the agent's PreToolUse (as the agent would
//! find it), and runs it as the agent does (`bash -c`, stdin the agent's recorded event) with
//! the real hookhost of this workspace. A guard in the project's hooks.toml blocks
//! `rm -rf /` in the agent's own answer format and lets `npm test` through, through
//! `hookhost agent-hook` and through `hookhost-client` (the daemon's client, here answering
//! in process).
//!
//! The guard is a command hook, so that this crate's test needs no catalogue: the profile's
//! own policies (`policy = "destructive"`) are run through `hookhost init` by hookhost's
//! tests/integration/init.rs. Needs `cargo build --bin hookhost --bin hookhost-client` (or
//! `HOOKHOST_BIN`).

mod support;

#[allow(dead_code)]
#[path = "../../../tests/integration/recorded.rs"]
mod recorded;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hookhost_init::{Agent, Options, Plan, Profile, Scope};
use support::Env;

/// The hookhost of this workspace's build: `$HOOKHOST_BIN`, else beside the target directory
/// this test was built in.
fn hookhost_bin() -> PathBuf {
    let path = std::env::var_os("HOOKHOST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let exe = std::env::current_exe().unwrap();
            // target/debug/deps/protects-HASH → target/debug/hookhost
            exe.parent()
                .and_then(Path::parent)
                .unwrap()
                .join("hookhost")
        });
    for program in [path.clone(), path.with_file_name("hookhost-client")] {
        assert!(
            program.is_file(),
            "{} is missing: build it first with `cargo build --bin hookhost --bin hookhost-client` at the workspace root (or set HOOKHOST_BIN)",
            program.display()
        );
    }
    path
}

/// A command guard: any tool call whose input mentions `rm -rf /` is blocked.
const GUARD: &str = r#"[[hooks]]
name = "no-rm-rf"
event = "PreToolUse"
protocol = "exit-code"
command = '''if grep -q 'rm -rf /'; then echo 'rm -rf / is never run here' >&2; exit 2; fi'''
"#;

/// The agent's recorded PreToolUse-equivalent, and the text of its command to swap for
/// `rm -rf /`.
fn recorded_gate(agent: Agent) -> (&'static str, &'static str) {
    match agent {
        Agent::Claude => (recorded::CLAUDE_PRE, "npm test"),
        Agent::Copilot => (recorded::COPILOT_PRE, "rm -rf dist"),
        Agent::Gemini => (recorded::GEMINI_BEFORE_TOOL, "npm test"),
        Agent::Codex => (recorded::CODEX_PRE, "npm test"),
        Agent::Cursor => (recorded::CURSOR_PRE, "npm install"),
    }
}

/// Whether the agent's answer (stdout) denies the call, in the agent's own format.
fn denies(agent: Agent, answer: &serde_json::Value) -> bool {
    let value = match agent {
        Agent::Claude | Agent::Codex => &answer["hookSpecificOutput"]["permissionDecision"],
        Agent::Copilot => &answer["permissionDecision"],
        Agent::Gemini => &answer["decision"],
        Agent::Cursor => &answer["permission"],
    };
    value == "deny"
}

/// Runs `command` as the agent runs its hook command, in `project`, with `stdin`.
fn run(env: &Env, command: &str, stdin: &str) -> (i32, String, String) {
    let root = env.root();
    let mut child = Command::new("bash")
        .args(["-c", command])
        .current_dir(&env.roots.project)
        .env("HOME", root.join("home"))
        .env("HOOKHOST_CONFIG_DIR", root.join("no-user-config"))
        .env("HOOKHOST_DATA_DIR", root.join("no-user-data"))
        .env("XDG_CACHE_HOME", root.join("cache"))
        .env("XDG_RUNTIME_DIR", root.join("run"))
        .env("HOOKHOST_DAEMON", "off")
        .env_remove("HOOKHOST_SOCKET")
        .env_remove("HOOKHOST_BIN")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn after_init_each_agents_gate_blocks_rm_rf_through_the_written_command() {
    let hookhost = hookhost_bin();
    for agent in Agent::ALL {
        for use_client in [false, true] {
            let env = Env::new();
            let options = Options {
                use_client,
                hookhost: hookhost.display().to_string(),
                ..Options::default()
            };
            let plan = Plan::new(
                agent,
                Scope::Project,
                Profile::Standard,
                &options,
                &env.roots,
            )
            .unwrap();
            plan.apply().unwrap();
            env.write(&env.roots.project.join("hooks.toml"), GUARD);

            // The command line as the agent finds it in the file init wrote.
            let spec = agent.spec();
            let gate = spec.events.iter().find(|e| e.gate).unwrap();
            let text = std::fs::read_to_string(&plan.files[0].path).unwrap();
            let json: serde_json::Value = serde_json::from_str(&text).unwrap();
            let entry = &json["hooks"][gate.name][0];
            let handler = match spec.shape {
                hookhost_init::EntryShape::Grouped => &entry["hooks"][0],
                hookhost_init::EntryShape::Flat => entry,
            };
            let command = handler[spec.command_key].as_str().unwrap();
            assert!(
                command.contains(if use_client {
                    "hookhost-client"
                } else {
                    "agent-hook"
                }),
                "{command}"
            );

            let project = env.roots.project.display().to_string();
            let (event, benign) = recorded_gate(agent);
            let event = event.replace("PROJECT", &project);
            assert!(
                event.contains(benign),
                "{agent}: the recorded event runs {benign:?}"
            );
            let dangerous = event.replace(benign, "rm -rf /");

            let (status, stdout, stderr) = run(&env, command, &dangerous);
            assert_eq!(status, 0, "{agent} ({command}): {stderr}");
            let answer: serde_json::Value = serde_json::from_str(&stdout)
                .unwrap_or_else(|e| panic!("{agent}: {e}: {stdout:?} {stderr}"));
            assert!(
                denies(agent, &answer),
                "{agent} ({command}): rm -rf / not denied: {stdout} {stderr}"
            );
            assert!(
                stdout.contains("blocked by no-rm-rf: rm -rf / is never run here"),
                "{agent}: {stdout}"
            );

            let (status, stdout, stderr) = run(&env, command, &event);
            assert_eq!(status, 0, "{agent} ({command}): {stderr}");
            let allowed =
                stdout.trim().is_empty() || !denies(agent, &serde_json::from_str(&stdout).unwrap());
            assert!(
                allowed,
                "{agent} ({command}): {benign:?} denied: {stdout} {stderr}"
            );
        }
    }
}
