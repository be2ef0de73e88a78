//! The decision log (`[log]`): one record per event a hook saw, written by the library and by
//! many `hookhost` processes at once, rotated by size, masked, and never changing a decision
//! unless the team says the log is required.

use hookhost::{Decision, HookRunner, ToolCall};
use serde_json::{Value, json};

use crate::support::{Project, hook};

const BLOCKS_RM: &str = r#"if grep -q 'rm -rf'; then echo '{"action":"block","reason":"no rm"}'; else echo '{"action":"allow"}'; fi"#;

/// Every record of the log at `path`, parsed; a line that is not JSON fails the test.
fn records(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_blocked_call_is_recorded_with_who_decided_and_every_hook() {
    let project = Project::new();
    let runner = project.runner(&format!(
        "[log]\npath = \"decisions.jsonl\"\nhash = [\"/input/file_path\"]\n\n{}{}",
        hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\""),
        hook(
            "PreToolUse",
            "cat > /dev/null; echo '{\"action\":\"allow\"}'",
            "name = \"audit\"\nphase = \"observe\""
        ),
    ));
    let log = project.path(".forgeflare/decisions.jsonl");
    let runtime = runtime();
    let fire = |tool: &str, input: Value| {
        runtime.block_on(
            runner.fire(
                &hookhost::Event::pre_tool_use(ToolCall {
                    tool,
                    input: &input,
                    tool_iterations: 1,
                })
                .with_session("s-1"),
            ),
        )
    };
    let outcome = fire("Bash", json!({"command": "rm -rf /"}));
    assert!(matches!(outcome.decision, Decision::Block(_)));
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    fire(
        "Write",
        json!({"file_path": "src/main.rs", "content": "fn main() {}"}),
    );
    // Records are written by the log's writer thread; the last runner dropped waits for it.
    drop(runner);
    let records = records(&log);
    assert_eq!(records.len(), 2, "{records:?}");
    let blocked = &records[0];
    assert_eq!(blocked["event"], "PreToolUse");
    assert_eq!(blocked["session"], "s-1");
    assert_eq!(blocked["tool"], "Bash");
    assert_eq!(blocked["decision"], "block");
    assert_eq!(blocked["decided_by"], "no-rm");
    assert_eq!(blocked["reason"], "blocked by no-rm: no rm");
    assert_eq!(
        blocked["input"],
        json!({"command": "rm -rf /"}),
        "commands are kept"
    );
    assert_eq!(blocked["cwd"], json!(project.root()));
    let id = blocked["id"].as_str().unwrap();
    assert_eq!(id.len(), 36);
    assert_eq!(&id[14..15], "7", "a UUID v7: {id}");
    assert!(id < records[1]["id"].as_str().unwrap(), "ids sort by time");
    let hooks = blocked["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 2, "the guard and the observer: {hooks:?}");
    assert_eq!(
        (
            &hooks[0]["name"],
            &hooks[0]["layer"],
            &hooks[0]["kind"],
            &hooks[0]["phase"],
            &hooks[0]["mode"],
            &hooks[0]["verdict"],
            &hooks[0]["reason"]
        ),
        (
            &json!("no-rm"),
            &json!("project"),
            &json!("command"),
            &json!("guard"),
            &json!("enforce"),
            &json!("block"),
            &json!("no rm")
        )
    );
    assert_eq!(hooks[0]["source"], BLOCKS_RM);
    assert!(hooks[0]["us"].as_u64().unwrap() > 0);
    // File contents are dropped by default; a pointer the team hashes is hashed.
    let written = &records[1]["input"];
    assert_eq!(written.get("content"), None, "{written}");
    assert!(
        written["file_path"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"),
        "{written}"
    );
}

#[test]
fn many_processes_append_whole_records_and_the_log_rotates() {
    let project = Project::new();
    project.config(&format!(
        "[log]\npath = \"log/decisions.jsonl\"\nmax_bytes = 65536\nkeep = 2\n\n{}",
        hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
    ));
    let log = project.path(".forgeflare/log/decisions.jsonl");
    // A line a killed writer left cut: the next record starts on a line of its own.
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(&log, "{\"id\": \"cut").unwrap();
    let big = "x".repeat(4000);
    let input = json!({"command": format!("echo {big}")}).to_string();
    let children: Vec<_> = (0..24)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
                .args(["fire", "PreToolUse", "--tool", "Bash", "--input", &input])
                .current_dir(project.root())
                .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
                .env("HOOKHOST_DATA_DIR", project.path(".no-user-data"))
                .envs(crate::support::test_cache_env())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let mut whole = 0;
    let mut cut = 0;
    for path in [
        log.clone(),
        project.path(".forgeflare/log/decisions.jsonl.1"),
        project.path(".forgeflare/log/decisions.jsonl.2"),
    ] {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            std::fs::metadata(&path).map_or(0, |m| m.len()) <= 65536,
            "{} stays within max_bytes",
            path.display()
        );
        for line in text.lines() {
            match serde_json::from_str::<Value>(line) {
                Ok(record) => {
                    assert_eq!(record["hooks"][0]["name"], "no-rm");
                    whole += 1;
                }
                Err(_) => cut += 1,
            }
        }
    }
    assert!(
        !project.path(".forgeflare/log/decisions.jsonl.3").exists(),
        "keep = 2"
    );
    // 24 records of about 4.3 KB rotate twice through 64 KiB files: the oldest file (with the
    // cut line) may be gone, but no record is interleaved with another.
    assert!(cut <= 1, "{cut} cut lines");
    assert!(whole >= 20, "{whole} whole records");
}

#[test]
fn an_unwritable_log_warns_unless_it_is_required() {
    let project = Project::new();
    // The log's path is a directory: every append fails.
    std::fs::create_dir_all(project.path(".forgeflare/decisions.jsonl")).unwrap();
    let toml = |required: bool| {
        format!(
            "[log]\npath = \"decisions.jsonl\"\nrequired = {required}\n\n{}",
            hook(
                "PreToolUse",
                "cat > /dev/null; echo '{\"action\":\"allow\"}'",
                "name = \"ok\""
            )
        )
    };
    let runtime = runtime();
    let call = |runner: &HookRunner| {
        runtime.block_on(crate::support::pre_bash(runner, &json!({"command": "ls"})))
    };
    // Not required: records are written by the log's writer, off the calling path; the decision
    // stands, and the next outcome warns that records were lost.
    let runner = project.runner(&toml(false));
    let mut warned = None;
    for _ in 0..200 {
        let outcome = call(&runner);
        assert_eq!(outcome.decision, Decision::Allow);
        if let Some(warning) = outcome.warnings.first() {
            warned = Some(warning.clone());
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let warning = warned.expect("a later outcome says records were lost");
    assert!(
        warning.contains("decision record(s) could not be written to ")
            && warning.contains("decisions.jsonl"),
        "{warning}"
    );
    let outcome = call(&project.runner(&toml(true)));
    let Decision::Block(block) = &outcome.decision else {
        panic!(
            "a required log that cannot be written blocks: {:?}",
            outcome.decision
        );
    };
    assert!(
        block
            .message()
            .starts_with("blocked by hookhost's decision log: the decision log ")
            && block
                .message()
                .ends_with("[log] required = true blocks until it can be"),
        "{}",
        block.message()
    );
}

#[test]
fn the_log_table_is_checked_like_every_key() {
    #[rustfmt::skip]
    let cases = [
        ("[log]\npath = \"d.jsonl\"\nmax_byte = 1\n", "hooks.toml:3:1: unknown key `log.max_byte`; did you mean `max_bytes`?"),
        ("[log]\nmax_bytes = 100000\n", "hooks.toml:1:1: `[log]` needs `path`"),
        ("[log]\npath = \"d.jsonl\"\nmax_bytes = 10\n", "hooks.toml:3:13: `log.max_bytes` must be at least 65536"),
        ("[log]\npath = \"d.jsonl\"\ndrop = [\"input/content\"]\n", "hooks.toml:3:9: \"input/content\" is not a JSON pointer into what a record holds"),
        ("[log]\npath = \"d.jsonl\"\nhash = [\"/input/a~2b\"]\n", "has a `~` that is not `~0` or `~1`"),
        ("[log]\npath = 3\n", "`log.path` must be a non-empty string"),
    ];
    for (text, expected) in cases {
        let error = hookhost::Config::parse(text, "hooks.toml")
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{text}: {error}");
    }
    let config = hookhost::Config::parse("[log]\npath = \"d.jsonl\"\n", "hooks.toml").unwrap();
    let log = config.log.unwrap();
    assert_eq!(log.drop, hookhost::config::DEFAULT_DROP);
    assert_eq!(
        (log.max_bytes, log.keep, log.required),
        (10 << 20, 5, false)
    );
}

/// `hookhost log` reads what agents wrote: filters, JSON Lines, a summary per hook, and a cut
/// line skipped and counted.
#[test]
fn hookhost_log_reads_filters_and_summarises() {
    let project = Project::new();
    // The monitored candidate first: a block stops the guards after it, a monitored one never.
    project.config(&format!(
        "[log]\npath = \"decisions.jsonl\"\n\n{}{}",
        hook(
            "PreToolUse",
            BLOCKS_RM,
            "name = \"candidate\"\nmode = \"monitor\""
        ),
        hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\""),
    ));
    for command in ["rm -rf /", "ls", "rm -rf build"] {
        let input = json!({ "command": command }).to_string();
        let out = crate::cli::hookhost(
            &project,
            &["fire", "PreToolUse", "--tool", "Bash", "--input", &input],
        );
        assert!(out.status.code().is_some_and(|code| code == 0 || code == 2));
    }
    // A writer killed mid-record, and then a fourth event.
    let log = project.path(".forgeflare/decisions.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("{\"id\": \"cut");
    std::fs::write(&log, text).unwrap();
    let input = json!({ "command": "pwd" }).to_string();
    crate::cli::hookhost(
        &project,
        &["fire", "PreToolUse", "--tool", "Bash", "--input", &input],
    );

    let out = crate::cli::hookhost(&project, &["log", "--blocked", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let blocked: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let commands: Vec<&Value> = blocked.iter().map(|r| &r["input"]["command"]).collect();
    assert_eq!(commands, [&json!("rm -rf /"), &json!("rm -rf build")]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("skipped 1 line(s) that are not decision records"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = crate::cli::hookhost(&project, &["log", "--would-block", "--since", "1h"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(table.lines().count(), 3, "a header and two rows: {table}");
    assert!(table.contains("block (+1 monitored)"), "{table}");

    let out = crate::cli::hookhost(&project, &["log", "--summary"]);
    let summary = String::from_utf8_lossy(&out.stdout);
    let row = |name: &str| -> Vec<String> {
        summary
            .lines()
            .find(|line| line.starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {summary}"))
            .split_whitespace()
            .take(6)
            .map(str::to_string)
            .collect()
    };
    // HOOK CALLS BLOCKED WARNED WOULD-BLOCK FAILED
    assert_eq!(
        row("no-rm"),
        ["no-rm", "4", "2", "0", "0", "0"],
        "{summary}"
    );
    assert_eq!(
        row("candidate"),
        ["candidate", "4", "0", "0", "2", "0"],
        "{summary}"
    );

    let out = crate::cli::hookhost(&project, &["log", "--event", "Stop", "--summary"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "no record matches\n");

    let out = crate::cli::hookhost(&project, &["log", "--file", "missing.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist yet"));

    // `fire` names itself as the agent; `bench`'s calls are measurements, not decisions.
    let before = records_in(&log);
    assert!(
        before.iter().all(|r| r["agent"] == "hookhost fire"),
        "{before:?}"
    );
    let out = crate::cli::hookhost(&project, &["bench", "-n", "20", "--input", &input]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(records_in(&log).len(), before.len());
}

/// The whole records of the log at `path` (a cut line skipped).
fn records_in(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[test]
fn agent_hook_processes_at_once_and_killed_mid_write_leave_only_whole_records() {
    let project = Project::new();
    project.config(&format!(
        "[log]\npath = \"decisions.jsonl\"\nmax_bytes = 1073741824\n\n{}",
        hook(
            "PreToolUse",
            "cat > /dev/null; echo '{\"action\":\"allow\"}'",
            "name = \"ok\""
        )
    ));
    let log = project.path(".forgeflare/decisions.jsonl");
    let spawn = |n: usize, size: usize| {
        let mut agent = crate::support::agent_hook_command(&project);
        agent
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let command = format!("echo {n} {}", "x".repeat(size));
        let event = crate::support::claude_bash_event(&project, &format!("s{n}"), &command);
        crate::support::with_stdin(&mut agent, event)
    };
    let mut finished = Vec::new();
    // Sixteen agents at once, with records of 64 KiB.
    let children: Vec<_> = (0..16).map(|n| (n, spawn(n, 64 << 10))).collect();
    for (n, mut child) in children {
        assert!(child.wait().unwrap().success(), "agent {n}");
        finished.push(n);
    }
    // Eight agents with records of 8 MiB (half what agent-hook reads), each killed as soon as its record starts to reach
    // the file (its size grew and its last byte is not a newline yet), when that is seen.
    let mut kills = 0;
    for n in 16..24 {
        let before = std::fs::metadata(&log).unwrap().len();
        let mut child = spawn(n, 8 << 20);
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "agent {n}");
                finished.push(n);
                break;
            }
            let len = std::fs::metadata(&log).unwrap().len();
            if len > before && last_byte(&log, len) != b'\n' {
                let _ = child.kill();
                let _ = child.wait();
                kills += 1;
                break;
            }
            assert!(started.elapsed().as_secs() < 60, "agent {n} still running");
        }
    }
    // Then four more, after every kill.
    for n in 24..28 {
        assert!(spawn(n, 1 << 10).wait().unwrap().success(), "agent {n}");
        finished.push(n);
    }

    let text = std::fs::read_to_string(&log).unwrap();
    let mut whole = Vec::new();
    let mut cut = 0;
    for line in text.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(record) => {
                assert_eq!(record["hooks"][0]["name"], "ok", "a record of its own");
                let session = record["session"].as_str().unwrap();
                whole.push(session[1..].parse::<usize>().unwrap());
            }
            Err(_) => cut += 1,
        }
    }
    // A killed agent's record is cut (or whole, when the kill came too late); every other
    // agent's is whole, and so is every record written after the kills.
    assert!(cut <= kills, "{cut} cut lines for {kills} kills");
    for n in &finished {
        assert!(whole.contains(n), "agent {n}'s record: {whole:?}");
    }
    let last: Vec<usize> = whole.iter().rev().take(4).copied().collect();
    assert!(last.iter().all(|n| (24..28).contains(n)), "{last:?}");
    // `hookhost log` reads the file and says what it skipped.
    let out = crate::cli::hookhost(&project, &["log", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        whole.len()
    );
    if cut > 0 {
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&format!(
                "skipped {cut} line(s) that are not decision records"
            )),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The last byte of the file at `path`, `len` bytes long.
fn last_byte(path: &std::path::Path, len: u64) -> u8 {
    use std::io::{Read as _, Seek as _};
    let mut file = std::fs::File::open(path).unwrap();
    let mut byte = [0u8];
    file.seek(std::io::SeekFrom::Start(len - 1)).unwrap();
    match file.read_exact(&mut byte) {
        Ok(()) => byte[0],
        Err(_) => b'\n',
    }
}

#[test]
fn the_users_log_holds_for_every_project_and_records_what_a_broken_one_blocks() {
    let project = Project::new();
    let user = project.path(".user-config");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("hooks.toml"),
        "[log]\npath = \"team/decisions.jsonl\"\n",
    )
    .unwrap();
    // The project's own [log] does not redirect the user's.
    project.config(&format!(
        "[log]\npath = \"mine.jsonl\"\n\n{}",
        hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
    ));
    let agent_hook = |command: &str| {
        let mut agent = crate::support::agent_hook_command(&project);
        agent.env("HOOKHOST_CONFIG_DIR", &user);
        let event = crate::support::claude_bash_event(&project, "s-9", command);
        let out = crate::support::with_stdin(&mut agent, event)
            .wait_with_output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(agent_hook("rm -rf /").contains("\"deny\""));
    let log = user.join("team/decisions.jsonl");
    let records = records(&log);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["decided_by"], "no-rm");
    assert_eq!(records[0]["hooks"][0]["layer"], "project");
    assert!(!project.path(".forgeflare/mine.jsonl").exists());

    // A broken project file: every tool call is denied, and the user's log says so.
    project.config("[[hooks]]\nevent = \"PreToolUse\"\ncommnd = \"true\"\n");
    let reply = agent_hook("ls");
    assert!(reply.contains("\"deny\""), "{reply}");
    let records = self::records(&log);
    assert_eq!(records.len(), 2, "{records:?}");
    let blocked = &records[1];
    assert_eq!(blocked["decision"], "block");
    assert_eq!(blocked["session"], "s-9");
    assert_eq!(blocked["input"]["command"], "ls");
    assert!(
        blocked["decided_by"]
            .as_str()
            .unwrap()
            .ends_with(".forgeflare/hooks.toml"),
        "{blocked}"
    );
    assert!(
        blocked["reason"]
            .as_str()
            .unwrap()
            .contains("could not be loaded"),
        "{blocked}"
    );
    assert_eq!(blocked["hooks"], json!([]));
}

#[test]
fn an_agent_hook_that_cannot_write_its_log_says_so_on_stderr_and_its_decision_stands() {
    let project = Project::new();
    // The log's path is a directory: the writer's append fails after the agent has its answer.
    std::fs::create_dir_all(project.path(".forgeflare/decisions.jsonl")).unwrap();
    project.config(&format!(
        "[log]\npath = \"decisions.jsonl\"\n\n{}",
        hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
    ));
    let mut agent = crate::support::agent_hook_command(&project);
    let event = crate::support::claude_bash_event(&project, "s-1", "rm -rf /");
    let out = crate::support::with_stdin(&mut agent, event)
        .wait_with_output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"deny\""));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("hookhost: 1 decision record(s) could not be written to ")
            && stderr.contains("decisions.jsonl"),
        "{stderr}"
    );
}

#[test]
fn a_project_cannot_make_hookhost_write_or_rotate_the_users_files() {
    let project = Project::new();
    // The user's home and state directory, outside the project.
    let user = tempfile::tempdir().unwrap();
    let home = user.path().join("home");
    let state = user.path().join("state");
    std::fs::create_dir_all(&home).unwrap();
    // Near the smallest `max_bytes`: one record more and a log would rotate.
    let bashrc = format!("export PATH=/usr/bin\n{}\n", "#".repeat(65_400));
    std::fs::write(home.join(".bashrc"), &bashrc).unwrap();
    std::fs::create_dir_all(project.path(".forgeflare/logs")).unwrap();
    std::os::unix::fs::symlink(
        home.join(".bashrc"),
        project.path(".forgeflare/logs/decisions.jsonl"),
    )
    .unwrap();
    std::fs::write(project.path(".forgeflare/notes.txt"), "my notes\n").unwrap();
    let agent_hook = || {
        let mut agent = crate::support::agent_hook_command(&project);
        agent.env("HOME", &home).env("XDG_STATE_HOME", &state);
        let event = crate::support::claude_bash_event(&project, "s-1", "rm -rf /");
        let out = crate::support::with_stdin(&mut agent, event)
            .wait_with_output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(stdout.contains("\"deny\""), "{stdout}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let fallback = state.join("hookhost/decisions.jsonl");
    // Outside the project, straight or through a link inside it: the state directory instead.
    for path in ["~/.bashrc", "logs/decisions.jsonl"] {
        project.config(&format!(
            "[log]\npath = \"{path}\"\nmax_bytes = 65536\n\n{}",
            hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
        ));
        let before = records(&fallback).len();
        for _ in 0..3 {
            let stderr = agent_hook();
            assert!(
                stderr.contains(&format!("[log] path \"{path}\" in "))
                    && stderr.contains(&format!(
                        "is outside the project ({}): a project may keep its decision log only \
                         inside itself or hookhost's state directory; records go to {} instead",
                        project.root().display(),
                        fallback.display()
                    )),
                "{path}: {stderr}"
            );
        }
        assert_eq!(records(&fallback).len(), before + 3, "{path}");
        assert_eq!(
            std::fs::read_to_string(home.join(".bashrc")).unwrap(),
            bashrc
        );
        assert!(!home.join(".bashrc.1").exists(), "{path}: rotated aside");
    }
    // Inside the project, but not a log: neither written into nor rotated aside.
    project.config(&format!(
        "[log]\npath = \"notes.txt\"\n\n{}",
        hook("PreToolUse", BLOCKS_RM, "name = \"no-rm\"")
    ));
    let stderr = agent_hook();
    assert!(
        stderr.contains("notes.txt exists and is not a hookhost decision log"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(project.path(".forgeflare/notes.txt")).unwrap(),
        "my notes\n"
    );
}
