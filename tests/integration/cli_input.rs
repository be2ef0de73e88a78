//! The `hookhost` binary on bad input: typos are told from blocks, missing or special files
//! are errors that say so, every read is bounded, nothing hangs.

use std::os::unix::ffi::OsStrExt as _;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Project, hook};

/// Runs the binary with a watchdog: a command that hangs fails the test instead of CI.
fn hookhost(project: &Project, args: &[&std::ffi::OsStr]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(args)
        .current_dir(project.root())
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("HOOKHOST_DATA_DIR", project.path(".no-user-data"))
        .envs(crate::support::test_cache_env())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("hookhost {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn run(project: &Project, args: &[&str]) -> Output {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    hookhost(project, &args)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn blocking_project() -> Project {
    let project = Project::new();
    project.config(&hook(
        "PreToolUse",
        r#"echo '{"action":"block","reason":"no"}'"#,
        "name = \"wall\"",
    ));
    project
}

#[test]
fn a_typo_is_not_a_block() {
    let project = blocking_project();
    assert_eq!(
        run(&project, &["fire", "PreToolUse"]).status.code(),
        Some(2)
    );
    let cases: &[(&[&str], &str)] = &[
        (&["fire", "PreToolUs"], "did you mean \"PreToolUse\"?"),
        (&["fire", "preToolUse"], "did you mean \"PreToolUse\"?"),
        (&["fire"], "which event?"),
        (&["fire", "PreToolUse", "--no-such-flag"], "--no-such-flag"),
        (&["frie", "PreToolUse"], "frie"),
        (&["replay"], "SESSION"),
    ];
    for (args, expected) in cases {
        let out = run(&project, args);
        assert_eq!(out.status.code(), Some(64), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(expected),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_non_utf8_text_value_is_refused_naming_its_option() {
    let project = blocking_project();
    let os = std::ffi::OsStr::new;
    let bad = std::ffi::OsStr::from_bytes(b"Pre\xffToolUse");
    let cases: &[(&[&std::ffi::OsStr], &str)] = &[
        (
            &[os("fire"), bad],
            "the value \"Pre\u{fffd}ToolUse\" of '[EVENT]' is not valid UTF-8",
        ),
        (
            &[os("fire"), os("PreToolUse"), os("--tool"), bad],
            "the value \"Pre\u{fffd}ToolUse\" of '--tool <TOOL>' is not valid UTF-8",
        ),
        (
            &[os("fire"), os("PreToolUse"), os("--env"), bad],
            "of '--env <NAME=VALUE>' is not valid UTF-8",
        ),
        (
            &[os("agent-hook"), os("--format"), bad],
            "of '--format <AGENT>' is not valid UTF-8",
        ),
    ];
    for (args, expected) in cases {
        let out = hookhost(&project, args);
        assert_eq!(out.status.code(), Some(64), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(expected),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // The option keeps its possible values.
    let out = run(&project, &["agent-hook", "--format", "claud"]);
    assert_eq!(out.status.code(), Some(64));
    assert!(
        stderr(&out).contains("[possible values: claude, copilot, gemini, codex, cursor]"),
        "{}",
        stderr(&out)
    );
}

/// A file name that is not UTF-8 (a legal Linux path) is taken wherever a path is.
#[test]
fn paths_that_are_not_utf8_are_taken_by_every_command() {
    let project = blocking_project();
    let name = |text: &[u8]| std::ffi::OsStr::from_bytes(text).to_os_string();
    let config = name(b"ok-\xe9.toml");
    std::fs::copy(
        project.path(".forgeflare/hooks.toml"),
        project.root().join(&config),
    )
    .unwrap();
    std::fs::write(
        project.root().join(name(b"in-\xe9.json")),
        r#"{"command":"ls"}"#,
    )
    .unwrap();
    std::fs::write(
        project.root().join(name(b"session-\xe9.jsonl")),
        "{\"tool\": \"Bash\", \"input\": {\"command\": \"ls\"}}\n",
    )
    .unwrap();
    std::fs::create_dir_all(project.path(".claude")).unwrap();
    std::fs::write(
        project.path(".claude/settings.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    std::fs::write(
        project.root().join(name(b"t-\xe9.test.toml")),
        "[layers]\nproject = \".forgeflare/hooks.toml\"\n\n[[cases]]\nname = \"blocked\"\n\
         event = \"PreToolUse\"\ntool = \"Bash\"\nexpect.decision = \"block\"\n",
    )
    .unwrap();
    let os = |text: &str| std::ffi::OsString::from(text);
    #[rustfmt::skip]
    let cases: Vec<(Vec<std::ffi::OsString>, i32, &str)> = vec![
        (vec![os("check"), os("--config"), config.clone()], 0, "ok-\u{fffd}.toml: 1 hook (1 enabled), all valid"),
        (vec![os("fire"), os("PreToolUse"), os("--config"), config.clone()], 2, "BLOCKED: blocked by wall: no"),
        (vec![os("fire"), os("PreToolUse"), os("--input-file"), name(b"in-\xe9.json")], 2, "input={\"command\":\"ls\"}"),
        (vec![os("replay"), name(b"session-\xe9.jsonl"), os("--config"), config.clone()], 0, "1 tool call"),
        (vec![os("bench"), os("-n"), os("1"), os("--config"), config.clone()], 0, "wall"),
        (vec![os("import"), os("--output"), name(b"out-\xe9.toml")], 0, "out-\u{fffd}.toml"),
        (vec![os("log"), os("--file"), name(b"log-\xe9.jsonl")], 1, "log-\u{fffd}.jsonl"),
        (vec![os("keygen"), os("--unencrypted"), os("--out"), name(b"key-\xe9")], 0, "key-\u{fffd}.pub"),
        (vec![os("verify"), name(b"missing-\xe9.wasm"), os("--trusted"), name(b"key-\xe9.pub")], 1, "missing-\u{fffd}.wasm"),
        (vec![os("test"), name(b"missing-\xe9.test.toml")], 1, "missing-\u{fffd}.test.toml"),
        (vec![os("test"), name(b"t-\xe9.test.toml"), os("--junit"), name(b"r-\xe9.xml")], 0, "t-\u{fffd}.test.toml\n"),
        (vec![os("allow"), os("--config"), config.clone()], 0, "approved: sha256 "),
    ];
    for (args, code, expected) in cases {
        let args_os: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let out = hookhost(&project, &args_os);
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert_eq!(out.status.code(), Some(code), "{args:?}: {all}");
        assert!(all.contains(expected), "{args:?}: {all}");
    }
    assert!(project.root().join(name(b"key-\xe9.key")).is_file());
    assert!(project.root().join(name(b"out-\xe9.toml")).is_file());
    assert!(project.root().join(name(b"r-\xe9.xml")).is_file());
}

#[test]
fn an_explicit_config_must_exist_and_be_a_regular_file() {
    let project = blocking_project();
    let out = run(
        &project,
        &["fire", "PreToolUse", "--config", "missing.toml"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a typo in --config never means no guards"
    );
    assert!(
        stderr(&out).contains("cannot read the configuration missing.toml"),
        "{}",
        stderr(&out)
    );

    let fifo = project.path("fifo.toml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for (args, expected) in [
        (
            vec!["check", "--config", "fifo.toml"],
            "is not a regular file (it is a FIFO)",
        ),
        (
            vec!["fire", "PreToolUse", "--config", "fifo.toml"],
            "is not a regular file (it is a FIFO)",
        ),
        (
            vec!["fire", "PreToolUse", "--config", "/dev/zero"],
            "is not a regular file (it is a device)",
        ),
    ] {
        let out = run(&project, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).contains(expected),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // The library refuses them too, so an agent loading such a file never blocks on it.
    let error = hookhost::Config::load(&fifo).unwrap_err().to_string();
    assert!(
        error.starts_with("cannot read hook configuration"),
        "{error}"
    );
}

#[test]
fn inputs_and_sessions_are_bounded_and_regular() {
    let project = blocking_project();
    let out = run(
        &project,
        &["fire", "PreToolUse", "--input-file", "/dev/zero"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the input file /dev/zero is not a regular file"),
        "{}",
        stderr(&out)
    );
    let out = run(&project, &["replay", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the session /dev/zero is not a regular file"),
        "{}",
        stderr(&out)
    );

    let big = project.path("big.json");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(17 << 20).unwrap();
    let out = run(
        &project,
        &["fire", "PreToolUse", "--input-file", "big.json"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is larger than 16777216 bytes"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fire_shows_the_input_the_hooks_saw() {
    let project = blocking_project();
    std::fs::write(project.path("input.json"), r#"{"command":"make"}"#).unwrap();
    let out = run(
        &project,
        &["fire", "PreToolUse", "--input-file", "input.json"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(r#"PreToolUse tool=Bash input={"command":"make"}"#),
        "{stdout}"
    );
}

#[test]
fn replay_names_a_line_that_is_not_utf8_and_keep_going_skips_it() {
    let project = blocking_project();
    let mut session = b"{\"event\": \"SessionStart\", \"source\": \"startup\"}\n".to_vec();
    session.extend_from_slice(b"{\"tool\": \"Bash\", \"input\": {\"command\": \"\xff\"}}\n");
    session.extend_from_slice(b"{\"stop\": \"end_turn\"}\n");
    std::fs::write(project.path("session.jsonl"), session).unwrap();
    let out = run(&project, &["replay", "session.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("session.jsonl:2: the line is not UTF-8 (invalid byte at offset"),
        "{}",
        stderr(&out)
    );
    let out = run(&project, &["replay", "session.jsonl", "--keep-going"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("0 tool calls, 1 stop, 1 other event"),
        "{stdout}"
    );
    assert!(stdout.contains("skipped 1 bad line"), "{stdout}");
}
