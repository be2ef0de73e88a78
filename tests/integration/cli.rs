//! The `hookhost` binary, end to end: output and exit codes.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{Project, hook};

/// Runs the `hookhost` binary in `project`, hermetic: no user configuration, approvals or
/// compile cache of whoever runs the tests.
pub(crate) fn hookhost(project: &Project, args: &[&str]) -> Output {
    crate::support::hermetic(&mut Command::new(env!("CARGO_BIN_EXE_hookhost")), project)
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const GUARD: &str = r#"if grep -q 'rm -rf'; then echo "looked at it" >&2; echo '{"action":"block","reason":"destructive"}'; else echo '{"action":"allow"}'; fi"#;

#[test]
fn check_lists_hooks_and_finds_the_default_config() {
    let project = Project::new();
    project.config(&format!(
        "{}{}",
        hook(
            "PreToolUse",
            GUARD,
            "name = \"guard\"\nmatch_tool = \"Bash\""
        ),
        hook("Stop", "true", "enabled = false\nenv = { A = \"1\" }"),
    ));
    let out = hookhost(&project, &["check"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("#1  guard  PreToolUse/guard  Bash     command  5000ms"),
        "{stdout}"
    );
    assert!(
        stdout
            .contains("Stop              *        command  3000ms   user account env+=A DISABLED"),
        "{stdout}"
    );
    assert!(
        stdout.contains(".forgeflare/hooks.toml: 2 hooks (1 enabled), all valid"),
        "{stdout}"
    );
}

#[test]
fn check_reports_every_problem_with_its_location() {
    let project = Project::new();
    std::fs::write(
        project.path("hooks.toml"),
        "[[hooks]]\nevent = \"PreToolUse\"\ncomand = \"x\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"y\"\ntimeout_ms = 0\n",
    )
    .unwrap();
    let out = hookhost(&project, &["check"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("(3 problems)"), "{stderr}");
    assert!(
        stderr.contains("hooks.toml:1:1: hook #1: a hook needs exactly one of `command`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hooks.toml:3:1: hook #1: unknown key `comand`; did you mean `command`?"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "hooks.toml:8:14: hook #2 (y): `timeout_ms` must be between 1 and 3600000, found 0"
        ),
        "{stderr}"
    );
}

#[test]
fn no_config_is_an_error_that_says_where_it_looked() {
    let project = Project::new();
    let out = hookhost(&project, &["fire", "PreToolUse"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: no hook configuration found: looked for .forgeflare/hooks.toml and hooks.toml in"), "{stderr}");
    assert!(stderr.contains("pass --config PATH"), "{stderr}");
}

#[test]
fn fire_exit_status_says_allowed_blocked_or_signalled() {
    let project = Project::new();
    project.config(&format!(
        "{}{}",
        hook("PreToolUse", GUARD, "name = \"guard\""),
        hook(
            "PostToolUse",
            r#"echo '{"action":"signal","signal":"converged","reason":"green"}'"#,
            "name = \"conv\""
        ),
    ));
    let out = hookhost(
        &project,
        &[
            "fire",
            "PreToolUse",
            "--tool",
            "Bash",
            "--input",
            r#"{"command":"rm -rf /"}"#,
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("=> BLOCKED: blocked by guard: destructive"),
        "{stdout}"
    );
    assert!(
        stdout.contains("stderr| looked at it"),
        "hook stderr shown under the hook: {stdout}"
    );

    let out = hookhost(
        &project,
        &[
            "fire",
            "PreToolUse",
            "--input",
            r#"{"command":"cargo test"}"#,
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("=> ALLOWED"));

    let out = hookhost(
        &project,
        &["fire", "PostToolUse", "--result", "ok", "--json"],
    );
    assert_eq!(out.status.code(), Some(3));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["decision"], "signal");
    assert_eq!(json["signal"], "converged");
    assert_eq!(json["hooks"][0]["name"], "conv");
    assert_eq!(json["hooks"][0]["verdict"], "signal");
    assert!(project.path(".forgeflare/convergence.json").exists());

    let out = hookhost(&project, &["fire", "Stop", "--reason", "not_a_reason"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("unknown stop reason \"not_a_reason\""));
}

#[test]
fn fire_json_reports_failures_and_bad_input_is_explained() {
    let project = Project::new();
    project.config(&hook("PreToolUse", "exit 5", "name = \"broken\""));
    let out = hookhost(&project, &["fire", "PreToolUse", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["message"],
        "hook failed: broken exited with code 5 (tool blocked by default)"
    );
    assert_eq!(json["hook_failed"], true);
    assert_eq!(json["hooks"][0]["failure"], "exited with code 5");

    let out = hookhost(&project, &["fire", "PreToolUse", "--input", "{nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("the tool input is not valid JSON"),
        "{}",
        text(&out.stderr)
    );
}

/// Runs in a child process started by the next test (it needs the process's real stderr).
#[ignore = "a child process the test after it starts (support::child_test)"]
#[tokio::test]
async fn stderr_forwarding_child() {
    let Ok(dir) = std::env::var("HOOKHOST_STDERR_CHILD") else {
        return;
    };
    let config = std::path::Path::new(&dir).join("hooks.toml");
    let hooks = hookhost::forgeflare::HookRunner::load(config.to_str().unwrap(), &dir);
    hooks
        .run_pre_tool_use("Bash", &serde_json::json!({}), 0)
        .await;
    hooks.run_stop("end_turn", 1, 2).await;
}

#[test]
fn facade_forwards_hook_stderr_line_by_line_under_the_hook_name() {
    let project = Project::new();
    std::fs::write(
        project.path("hooks.toml"),
        [
            hook(
                "PreToolUse",
                r#"printf 'first line\nsecond line\npartial' >&2; echo '{"action":"allow"}'"#,
                "name = \"talker\"",
            ),
            hook(
                "PreToolUse",
                "exit 1",
                "phase = \"observe\"\nname = \"audit\"",
            ),
            hook("Stop", r#"echo '{"action":"signal"}'"#, "name = \"finish\""),
        ]
        .concat(),
    )
    .unwrap();
    let out = crate::support::child_test("cli::stderr_forwarding_child")
        .env("HOOKHOST_STDERR_CHILD", project.root())
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "[hook talker] first line\n[hook talker] second line\n[hook talker] partial\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("[hooks] PreToolUse/observe hook audit failed: exited with code 1\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[hooks] Stop hook finish returned unrecognized action \"signal\"; treated as continue\n"),
        "{stderr}"
    );
}

#[test]
fn a_host_secret_is_invisible_to_a_wasm_hook() {
    let project = Project::new();
    project.config(&crate::support::probe_hook(
        "PreToolUse",
        "env",
        "name = \"sandboxed\"",
        "",
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["fire", "PreToolUse", "--json"])
        .current_dir(project.root())
        .env("ANTHROPIC_API_KEY", "sk-ant-secret")
        .envs(crate::support::test_cache_env())
        .output()
        .unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stderr)));
    assert_eq!(json["hooks"][0]["reason"], "env=[] args=0 stdin=Ok(\"\")");
    assert!(!text(&out.stdout).contains("sk-ant-secret"));
}

fn write_session(project: &Project, lines: &[&str]) {
    std::fs::write(project.path("session.jsonl"), lines.join("\n") + "\n").unwrap();
}

const REPLAY_CONFIG: &str = r#"[[hooks]]
name = "guard"
event = "PreToolUse"
match_tool = "Bash"
command = '''if grep -q 'rm -rf'; then echo '{"action":"block","reason":"destructive"}'; else echo '{"action":"allow"}'; fi'''

[[hooks]]
name = "tests"
event = "PostToolUse"
command = '''if grep -q '"result":"ok'; then echo '{"action":"signal","signal":"converged","reason":"green"}'; else echo '{"action":"continue"}'; fi'''

[[hooks]]
name = "end"
event = "Stop"
command = "exit 3"
"#;

#[test]
fn replay_reports_per_hook_and_lists_blocked_calls() {
    let project = Project::new();
    project.config(REPLAY_CONFIG);
    write_session(
        &project,
        &[
            r#"{"tool": "Bash", "input": {"command": "cargo build"}, "result": "compiling"}"#,
            "",
            r#"{"tool": "Bash", "input": {"command": "rm -rf /"}}"#,
            r#"{"tool": "Bash", "input": {"command": "cargo test"}, "result": "ok. 3 passed", "tool_iterations": 2}"#,
            r#"{"stop": "convergence_signal", "total_tokens": 1000}"#,
        ],
    );
    let out = hookhost(&project, &["replay", "session.jsonl"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("replayed session.jsonl: 3 tool calls, 1 stop"),
        "{stdout}"
    );
    let row = |name: &str| {
        stdout
            .lines()
            .find(|l| l.contains(&format!("  {name}  ")))
            .unwrap_or_else(|| panic!("{name}: {stdout}"))
            .to_string()
    };
    let columns = |line: String| {
        line.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // #, HOOK, EVENT, KIND, CALLS, BLOCKED, SIGNALLED, FAILED, P50, P99
    assert_eq!(columns(row("guard"))[4..8], ["3", "1", "0", "0"]);
    assert_eq!(
        columns(row("tests"))[4..8],
        ["2", "0", "1", "0"],
        "the blocked call never reached PostToolUse"
    );
    assert_eq!(columns(row("end"))[4..8], ["1", "0", "0", "1"]);
    assert!(
        stdout
            .contains("line 3: Bash {\"command\":\"rm -rf /\"}\n    blocked by guard: destructive"),
        "{stdout}"
    );
    assert!(
        !project.path(".forgeflare/convergence.json").exists(),
        "a replay leaves the project's state alone"
    );
    assert!(
        out.stderr.is_empty(),
        "no progress bar when stderr is not a terminal: {}",
        text(&out.stderr)
    );

    let out = hookhost(&project, &["replay", "session.jsonl", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["calls"], 3);
    assert_eq!(json["blocked_calls"][0]["line"], 3);
    assert_eq!(json["hooks"][1]["signalled"], 1);
}

#[test]
fn replay_stops_at_a_bad_line_or_goes_on_when_told() {
    let project = Project::new();
    project.config(REPLAY_CONFIG);
    write_session(
        &project,
        &[
            r#"{"tool": "Bash", "input": {"command": "ls"}}"#,
            r#"{"tool": "Bash", "input": {"command": "ls"}, "is_eror": true}"#,
            "not json at all",
            r#"{"stop": "lunch"}"#,
            r#"{"tool": "Bash", "input": {"command": "rm -rf /"}}"#,
        ],
    );
    let out = hookhost(&project, &["replay", "session.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("session.jsonl:2: unknown field `is_eror`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("pass --keep-going to skip bad lines"),
        "{stderr}"
    );

    let out = hookhost(&project, &["replay", "session.jsonl", "--keep-going"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("skipped 3 bad lines:"), "{stdout}");
    assert!(stdout.contains("session.jsonl:3: not JSON"), "{stdout}");
    assert!(
        stdout.contains("session.jsonl:4: unknown variant `lunch`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("line 5: Bash"),
        "lines after bad ones still run: {stdout}"
    );
}

#[test]
fn replay_of_the_bundled_example_session() {
    let project = Project::new();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    project.config(REPLAY_CONFIG);
    let session = repo.join("demo/session.jsonl");
    let out = hookhost(&project, &["replay", session.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("7 tool calls, 1 stop"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn check_names_a_wasm_file_that_is_not_a_hook() {
    let project = Project::new();
    std::fs::create_dir_all(project.path(".forgeflare")).unwrap();
    std::fs::write(
        project.path(".forgeflare/policy.wasm"),
        wat::parse_str("(module)").unwrap(),
    )
    .unwrap();
    project
        .config("[[hooks]]\nname = \"policy\"\nevent = \"PreToolUse\"\nwasm = \"policy.wasm\"\n");
    let out = hookhost(&project, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("hooks.toml:1:1: hook #1 (policy): `wasm` file"),
        "{stderr}"
    );
    assert!(
        stderr.contains("is a core WebAssembly module without a component world"),
        "{stderr}"
    );
}

#[test]
fn bench_times_each_hook() {
    let project = Project::new();
    project.config(REPLAY_CONFIG);
    let out = hookhost(&project, &["bench", "-n", "5"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("(5 calls after 1 warm-up)"), "{stdout}");
    let header = stdout.lines().nth(1).unwrap();
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["#", "HOOK", "KIND", "CALLS", "P50", "P99"]
    );
    assert!(stdout.contains("#1  guard  command  5"), "{stdout}");
    let out = hookhost(&project, &["bench", "--event", "Stop", "-n", "3"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("Stop reason=end_turn (3 calls"),
        "{stdout}"
    );
    let row: Vec<&str> = stdout.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!(row[..4], ["#3", "end", "command", "3"], "{stdout}");
}

#[test]
fn new_scaffolds_a_hook_in_each_language() {
    // Building and firing what it scaffolds is docs/writing-hooks.md ("Write a hook"), followed by
    // walkthrough.rs for each language.
    let project = Project::new();
    let cases: [(&[&str], &[&str], &str); 4] = [
        (
            &["new", "my-guard"],
            &[
                "Cargo.toml",
                "src/lib.rs",
                "README.md",
                "hooks.toml",
                "hooks.test.toml",
            ],
            "cargo build --release --target wasm32-wasip2",
        ),
        (
            &["new", "--lang", "python", "py-guard"],
            &[
                "app.py",
                "test_app.py",
                "hook_sdk.py",
                "wit/hookhost.wit",
                "requirements.txt",
                "hooks.toml",
                "hooks.test.toml",
                "README.md",
            ],
            "componentize-py -d wit -w hook componentize app -o py-guard.wasm",
        ),
        (
            &["new", "--lang", "js", "js-guard"],
            &[
                "hook.js",
                "component.js",
                "hook.test.js",
                "hook-sdk.js",
                "wit/hookhost.wit",
                "package.json",
                "hooks.toml",
                "hooks.test.toml",
                "README.md",
            ],
            "npm run build",
        ),
        (
            &[
                "new",
                "local-guard",
                "--sdk-path",
                env!("CARGO_MANIFEST_DIR"),
            ],
            &[],
            "",
        ),
    ];
    for (args, files, next) in cases {
        let out = hookhost(&project, args);
        let stdout = text(&out.stdout);
        if files.is_empty() {
            // A checkout's root is not hook-sdk: the message says what to pass.
            assert_eq!(out.status.code(), Some(1), "{stdout}");
            assert!(
                text(&out.stderr).contains("hook-sdk not found at"),
                "{}",
                text(&out.stderr)
            );
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {stdout}{}",
            text(&out.stderr)
        );
        assert!(stdout.contains(next), "{args:?}: {stdout}");
        let name = args.last().unwrap();
        for file in files {
            assert!(project.path(name).join(file).is_file(), "{args:?}: {file}");
        }
    }
    // By version, or at a checkout.
    assert!(
        project
            .read("my-guard/Cargo.toml")
            .contains("hook-sdk = \"0.2\"\n")
    );
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("hook-sdk");
    let out = hookhost(
        &project,
        &["new", "local-guard", "--sdk-path", sdk.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        project
            .read("local-guard/Cargo.toml")
            .contains(&format!("hook-sdk = {{ path = \"{}\" }}", sdk.display()))
    );
    // The SDK files and the WIT are this checkout's.
    for (written, source) in [
        ("py-guard/hook_sdk.py", "sdk/python/hook_sdk.py"),
        ("js-guard/hook-sdk.js", "sdk/js/hook-sdk.js"),
        ("py-guard/wit/hookhost.wit", "wit/hookhost.wit"),
    ] {
        let source = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(source));
        assert_eq!(project.read(written), source.unwrap(), "{written}");
    }

    let out = hookhost(&project, &["new", "my-guard"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("my-guard already exists"));
    let out = hookhost(&project, &["new", "9lives"]);
    assert!(text(&out.stderr).contains("`9lives` is not a valid hook name"));
    let out = hookhost(
        &project,
        &["new", "--lang", "python", "x", "--sdk-path", "."],
    );
    assert!(
        text(&out.stderr).contains("--sdk-path is for Rust hooks"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn keygen_sign_verify_inspect_end_to_end() {
    let project = Project::new();
    let run = |args: &[&str]| hookhost(&project, args);
    assert_eq!(
        run(&["keygen", "--out", "author", "--unencrypted"])
            .status
            .code(),
        Some(0)
    );
    let out = run(&[
        "keygen",
        "--out",
        "security",
        "--password-env",
        "HOOKHOST_TEST_UNSET_PASSWORD",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("HOOKHOST_TEST_UNSET_PASSWORD (--password-env) is not set"),
        "{}",
        text(&out.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args([
            "keygen",
            "--out",
            "security",
            "--password-env",
            "KEY_PASSWORD",
        ])
        .env("KEY_PASSWORD", "correct horse")
        .current_dir(project.root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("[[trust.keys]]\nid = \"security\"\nkey = \"RW"),
        "{}",
        text(&out.stdout)
    );
    let out = run(&["keygen", "--out", "author", "--unencrypted"]);
    assert!(
        text(&out.stderr).contains("author.key already exists"),
        "keys are never overwritten"
    );

    std::fs::copy(crate::support::probe(), project.path("policy.wasm")).unwrap();
    let out = run(&[
        "sign",
        "policy.wasm",
        "--key",
        "author.key",
        "--name",
        "probe",
        "--version",
        "0.3.0",
        "--event",
        "PreToolUse/guard",
        "--description",
        "test policy",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("it carries 1 signature"));
    let out = run(&["sign", "policy.wasm", "--key", "security.key"]);
    assert!(text(&out.stderr).contains("security.key is encrypted and there is no terminal to ask for its password: pass --password-env VAR"), "{}", text(&out.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args([
            "sign",
            "policy.wasm",
            "--key",
            "security.key",
            "--password-env",
            "KEY_PASSWORD",
        ])
        .env("KEY_PASSWORD", "correct horse")
        .current_dir(project.root())
        .output()
        .unwrap();
    assert!(
        text(&out.stdout).contains("it carries 2 signatures"),
        "{}",
        text(&out.stderr)
    );
    let out = run(&[
        "sign",
        "policy.wasm",
        "--key",
        "author.key",
        "--version",
        "0.4.0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("changing the metadata would invalidate the 2 existing signatures"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&["verify", "policy.wasm", "--trusted", "author.pub"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("policy.wasm: OK, signed by author"),
        "{}",
        text(&out.stdout)
    );
    let out = run(&["keygen", "--out", "stranger", "--unencrypted"]);
    assert_eq!(out.status.code(), Some(0));
    let out = run(&["verify", "policy.wasm", "--trusted", "stranger.pub"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is signed, but by an untrusted key"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&["inspect", "policy.wasm"]);
    let stdout = text(&out.stdout);
    for expected in [
        "name         probe",
        "version      0.3.0",
        "events       PreToolUse/guard",
        "exports      hookhost:hooks/handler@0.1.0",
        "signature 2  key ",
    ] {
        assert!(stdout.contains(expected), "{expected}: {stdout}");
    }
    let out = run(&["inspect", "policy.wasm", "--json", "--extract", "extracted"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["metadata"]["name"], "probe");
    assert_eq!(json["signatures"].as_array().unwrap().len(), 2);
    assert!(
        project.path("extracted/payload.wasm").is_file()
            && project.path("extracted/signature-2.minisig").is_file()
    );

    // hooks.toml trust, as keygen suggested it, and `check` showing who signed.
    let public = std::fs::read_to_string(project.path("author.pub")).unwrap();
    let key = public.lines().nth(1).unwrap();
    std::fs::write(
        project.path("hooks.toml"),
        format!("[trust]\nrequire_signed = true\n[[trust.keys]]\nid = \"author\"\nkey = \"{key}\"\n[[trust.keys]]\nid = \"security\"\nfile = \"security.pub\"\n\n[[hooks]]\nname = \"probe\"\nevent = \"Stop\"\nwasm = \"policy.wasm\"\n"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["check"])
        .envs(crate::support::test_cache_env())
        .current_dir(project.root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("signed by author+security"),
        "{}",
        text(&out.stdout)
    );
    let out = run(&["verify", "policy.wasm", "--config", "hooks.toml"]);
    assert!(
        text(&out.stdout).contains("OK, signed by author, security"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn forwarded_hook_output_cannot_repaint_the_terminal_or_forge_lines() {
    let project = Project::new();
    std::fs::write(
        project.path("hooks.toml"),
        hook(
            "PreToolUse",
            r#"printf '\033[2J\033[Hall hooks OK\rnot really\n' >&2; echo '{"action":"allow"}'"#,
            "name = \"evil\\u001b[31m\\nname\"",
        ),
    )
    .unwrap();
    let out = crate::support::child_test("cli::stderr_forwarding_child")
        .env("HOOKHOST_STDERR_CHILD", project.root())
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\r'),
        "{stderr:?}"
    );
    assert!(
        stderr.contains(
            "[hook evil\\u{1b}[31m\\nname] \\u{1b}[2J\\u{1b}[Hall hooks OK\\rnot really\n"
        ),
        "{stderr}"
    );
}

/// `hookhost check` on a guard built without WASI: it loads from the core module, imports only
/// hookhost's interfaces (so it runs on the calling thread), and a grant it cannot use is a
/// warning, not a silent no-op.
#[test]
fn check_warns_about_grants_a_hook_without_wasi_cannot_use() {
    let project = Project::new();
    let module = crate::support::build_fixture_for(crate::support::NO_WASI, "destructive-guard");
    let component = crate::support::build_fixture_for(crate::support::WASIP2, "destructive-guard");
    project.config(&format!(
        "[[hooks]]\nname = \"lean\"\nevent = \"PreToolUse\"\nwasm = '{}'\nread = [\".\"]\nenv = [\"CI\"]\n\
         [[hooks]]\nname = \"full\"\nevent = \"PreToolUse\"\nwasm = '{}'\n",
        module.display(),
        component.display()
    ));
    let out = hookhost(&project, &["check"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "imports of #1 lean: hookhost:hooks@0.2.0 {host, types}\n  runs on the calling \
             thread: it imports nothing that can block or keep state\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "\n  starts on the calling thread; goes on on a fiber at its first call of WASI or \
             `state`\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "warning: #1 lean imports no WASI, so its `read`, `env` grants give it nothing: \
             build it for wasm32-wasip2 to use them, or remove them"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("all valid, 1 warning"), "{stdout}");
}
