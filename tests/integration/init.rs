//! `hookhost init` end to end: for each agent, `init` in a temporary home and project, then
//! the agent's recorded tool-call event driven through the command written into its settings
//! (`bash -c`, as the agent runs it): the standard profile's policies, loaded from hookhost's
//! catalogue, refuse `rm -rf /` and a read of `~/.ssh/id_rsa` in the agent's own answer
//! format and let `ls` through. A second `init` changes nothing, the user's own hooks stay,
//! and `--remove` gives back every file as it was.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hookhost_init::{Agent, EntryShape};
use serde_json::Value;

use crate::recorded;
use crate::support::{Project, hermetic, with_stdin};

/// `hookhost ARGS` in `project`, its home `project/.home`; (status, stdout, stderr).
fn hookhost(project: &Project, args: &[&str]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
    home(hermetic(&mut command, project), project).args(args);
    let out = command.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The home every command of a test sees, and PATH with this build's hookhost first (a
/// project's settings name `hookhost`, found on the agent's PATH).
fn home<'c>(command: &'c mut Command, project: &Project) -> &'c mut Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_hookhost")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for variable in [
        "CLAUDE_CONFIG_DIR",
        "COPILOT_HOME",
        "GEMINI_CLI_HOME",
        "XDG_CONFIG_HOME",
    ] {
        command.env_remove(variable);
    }
    command.env("HOME", project.path(".home")).env("PATH", path)
}

/// Runs the agent's hook `command` with `event` on stdin, as the agent does; its answer.
fn run_as_agent(project: &Project, command: &str, event: &str) -> (i32, String, String) {
    let mut bash = Command::new("bash");
    home(hermetic(&mut bash, project), project)
        .args(["-c", command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = with_stdin(&mut bash, event.to_string())
        .wait_with_output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The agent's settings file in the project, and the command written on its tool gate.
fn gate_command(agent: Agent, project: &Project) -> (PathBuf, String) {
    let spec = agent.spec();
    let path = project.path(spec.project_file);
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let gate = spec.events.iter().find(|e| e.gate).unwrap();
    let entries = json["hooks"][gate.name].as_array().unwrap();
    let entry = entries.last().unwrap();
    let handler = match spec.shape {
        EntryShape::Grouped => &entry["hooks"][0],
        EntryShape::Flat => entry,
    };
    (
        path,
        handler[spec.command_key].as_str().unwrap().to_string(),
    )
}

/// The agent's recorded shell-tool event, and the command in it to swap.
fn recorded_gate(agent: Agent) -> (&'static str, &'static str) {
    match agent {
        Agent::Claude => (recorded::CLAUDE_PRE, "npm test"),
        Agent::Copilot => (recorded::COPILOT_PRE, "rm -rf dist"),
        Agent::Gemini => (recorded::GEMINI_BEFORE_TOOL, "npm test"),
        Agent::Codex => (recorded::CODEX_PRE, "npm test"),
        Agent::Cursor => (recorded::CURSOR_PRE, "npm install"),
    }
}

/// Whether the agent's answer denies the call, in its own format.
fn denies(agent: Agent, stdout: &str) -> bool {
    let Ok(answer) = serde_json::from_str::<Value>(stdout) else {
        return false;
    };
    let value = match agent {
        Agent::Claude | Agent::Codex => &answer["hookSpecificOutput"]["permissionDecision"],
        Agent::Copilot => &answer["permissionDecision"],
        Agent::Gemini => &answer["decision"],
        Agent::Cursor => &answer["permission"],
    };
    value == "deny"
}

#[test]
fn after_init_each_agent_is_protected_by_the_standard_profile() {
    for agent in Agent::ALL {
        let project = Project::new();
        std::fs::create_dir_all(project.path(".home/.ssh")).unwrap();
        let (status, _, stderr) = hookhost(&project, &["init", "--agent", agent.name()]);
        assert_eq!(status, 0, "{agent:?}: {stderr}");
        let (status, stdout, stderr) = hookhost(&project, &["check"]);
        assert_eq!(status, 0, "{agent:?}: the profile loads: {stdout}{stderr}");

        let (_, command) = gate_command(agent, &project);
        let (event, benign) = recorded_gate(agent);
        let event = event.replace("PROJECT", &project.root().display().to_string());
        let cases = [
            (
                "rm -rf /",
                true,
                "blocked by destructive: filesystem/rm-recursive",
            ),
            ("cat ~/.ssh/id_rsa", true, "blocked by protected-paths"),
            ("ls", false, ""),
        ];
        for (line, denied, reason) in cases {
            let (status, stdout, stderr) =
                run_as_agent(&project, &command, &event.replace(benign, line));
            assert_eq!(status, 0, "{agent:?} {line}: {stderr}");
            assert_eq!(
                denies(agent, &stdout),
                denied,
                "{agent:?} ({command}) {line}: {stdout} {stderr}"
            );
            assert!(stdout.contains(reason), "{agent:?} {line}: {stdout}");
        }
    }
}

#[test]
fn claude_read_tool_of_an_ssh_key_is_refused_after_init() {
    let project = Project::new();
    let (status, _, stderr) = hookhost(&project, &["init", "--agent", "claude"]);
    assert_eq!(status, 0, "{stderr}");
    let (_, command) = gate_command(Agent::Claude, &project);
    let event = serde_json::json!({
        "session_id": "s1", "transcript_path": "/t.jsonl", "cwd": project.root(),
        "hook_event_name": "PreToolUse", "tool_name": "Read",
        "tool_input": {"file_path": project.path(".home/.ssh/id_rsa")},
    });
    let (_, stdout, stderr) = run_as_agent(&project, &command, &event.to_string());
    assert!(denies(Agent::Claude, &stdout), "{stdout} {stderr}");
    assert!(stdout.contains("blocked by protected-paths"), "{stdout}");
}

#[test]
fn init_keeps_the_users_hooks_is_idempotent_and_remove_restores() {
    let project = Project::new();
    let own = "{\n  \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"python3 .claude/guard.py\"}]}\n    ]\n  }\n}\n";
    let settings = project.path(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, own).unwrap();

    let (status, diff, stderr) = hookhost(&project, &["init", "--agent", "claude", "--dry-run"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(diff.contains("+++ b/.claude/settings.json"), "{diff}");
    assert!(diff.contains("+policy = \"destructive\""), "{diff}");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        own,
        "--dry-run wrote"
    );
    assert!(!project.path("hooks.toml").exists());

    let (status, _, stderr) = hookhost(&project, &["init", "--agent", "claude"]);
    assert_eq!(status, 0, "{stderr}");
    let first = std::fs::read_to_string(&settings).unwrap();
    let json: Value = serde_json::from_str(&first).unwrap();
    let pre = json["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(
        pre[0]["hooks"][0]["command"], "python3 .claude/guard.py",
        "the user's hook stays first: {first}"
    );
    assert_eq!(json["permissions"]["allow"][0], "Bash(npm test)");
    let toml = project.read("hooks.toml");

    let (status, _, stderr) = hookhost(&project, &["init", "--agent", "claude"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.contains("nothing to change"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), first);
    assert_eq!(project.read("hooks.toml"), toml);

    let (status, _, stderr) = hookhost(&project, &["init", "--agent", "claude", "--remove"]);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), own);
    assert!(
        !project.path("hooks.toml").exists(),
        "the hooks.toml init created is deleted"
    );
}

#[test]
fn bad_input_is_refused_before_anything_is_written() {
    let project = Project::new();
    let (status, _, stderr) = hookhost(&project, &["init", "--agent", "cursr"]);
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.contains("did you mean \"cursor\"?"), "{stderr}");
    let settings = project.path(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{\n  \"hooks\": {,}\n}\n").unwrap();
    let (status, _, stderr) = hookhost(&project, &["init", "--agent", "claude"]);
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.contains(".claude/settings.json:2:"), "{stderr}");
    assert!(!project.path("hooks.toml").exists());
}
