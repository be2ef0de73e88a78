//! What a command shows while a wasm component compiles: a progress line on a terminal (driven
//! here through a real pty, util-linux's `script`), nothing on a pipe or in `agent-hook`'s
//! answer; and `check`'s summary says which hooks were compiled and which came from the cache.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{Project, build_fixture};

/// `args` in `project` with a compile cache of its own at `cache` (cold when new).
fn hookhost(project: &Project, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(args)
        .current_dir(project.root())
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("HOOKHOST_CACHE_DIR", cache)
        .env(hookhost::wasm::CACHE_KEY_ENV, cache.with_extension("key"))
        .output()
        .unwrap()
}

/// What a terminal shows of `command` (a shell line) run in `project` on a pty, with a cold
/// compile cache of its own named `cache`.
fn on_terminal(project: &Project, command: &str, cache: &str) -> String {
    let cache = project.path(cache);
    let out = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .current_dir(project.root())
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("HOOKHOST_CACHE_DIR", &cache)
        .env(hookhost::wasm::CACHE_KEY_ENV, cache.with_extension("key"))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn project() -> Project {
    let project = Project::new();
    std::fs::write(
        project.path("hooks.toml"),
        format!(
            "[[hooks]]\nname = \"tiny\"\nevent = \"PreToolUse\"\nwasm = '{}'\n",
            build_fixture("trivial-guard").display()
        ),
    )
    .unwrap();
    project
}

#[test]
fn check_says_what_it_compiled_and_what_came_from_the_cache() {
    let project = project();
    let cache = project.path("cache");
    let out = hookhost(&project, &cache, &["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    // On a pipe: the summary, and nothing on stderr.
    assert!(stdout.contains("\nwasm: compiled #1 tiny ("), "{stdout}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let out = hookhost(&project, &cache, &["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\nwasm: from the compile cache #1 tiny\n"),
        "{stdout}"
    );
}

#[test]
fn a_terminal_sees_each_compile_and_agent_hook_answers_alone() {
    let project = project();
    // A pty: `script` runs the command with its stdin, stdout and stderr on a terminal.
    let script = Command::new("script").arg("--version").output();
    assert!(
        script.is_ok_and(|out| out.status.success()),
        "this test needs util-linux's `script`: apt-get install -y bsdutils"
    );
    let command = format!(
        "'{}' fire PreToolUse --config hooks.toml --input '{{}}'",
        env!("CARGO_BIN_EXE_hookhost")
    );
    let terminal = on_terminal(&project, &command, "cold");
    assert!(terminal.contains("Compiling tiny ("), "{terminal}");
    assert!(terminal.contains("    Compiled tiny ("), "{terminal}");
    assert!(terminal.contains("=> ALLOWED"), "{terminal}");

    // The same call on a pipe, with another cold cache: nothing but the report.
    let out = hookhost(
        &project,
        &project.path("cold-pipe"),
        &[
            "fire",
            "PreToolUse",
            "--config",
            "hooks.toml",
            "--input",
            "{}",
        ],
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Compil"));

    // agent-hook's stdout and stderr are its answer, byte for byte, even on a terminal.
    let event = format!(
        r#"{{"hook_event_name":"PreToolUse","cwd":"{}","tool_name":"Bash","tool_input":{{}}}}"#,
        project.root().display()
    );
    std::fs::write(project.path("event.json"), event).unwrap();
    let command = format!(
        "'{}' agent-hook --format claude < event.json",
        env!("CARGO_BIN_EXE_hookhost")
    );
    let terminal = on_terminal(&project, &command, "cold-agent");
    assert!(!terminal.contains("Compil"), "{terminal}");
}
