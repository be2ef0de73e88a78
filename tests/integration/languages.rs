//! Hooks in Python (componentize-py) and JavaScript (componentize-qjs), built from source with
//! the real tools and run through `HookRunner`: the destructive-guard ports decide as the Rust
//! one does, the SDKs' concepts (config, log, state, every answer, every event) reach the
//! host, and the imports their runtimes bring load but never reach the network.
//!
//! The tools must be installed (`.ci/run` does): a missing one fails these tests, loudly.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use hookhost::{Decision, Event, HookFailure, HookRunner, Outcome, ToolCall};
use serde_json::json;

use crate::support::{Project, build_fixture, example};

#[path = "../common/lang_build.rs"]
pub mod lang_build;

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python_component(name: &str, dir: &Path, module: &str) -> PathBuf {
    lang_build::python_component(repo(), &out_dir(), name, dir, module)
}

fn js_component(name: &str, entry: &Path, root: &Path, sources: &[PathBuf]) -> PathBuf {
    lang_build::js_component(repo(), &out_dir(), name, entry, root, sources)
}

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("languages")
}

fn python_guard() -> PathBuf {
    let dir = repo().join("sdk/python/examples/destructive-guard");
    python_component("destructive-guard-py", &dir, "app")
}

fn js_guard() -> PathBuf {
    let dir = repo().join("sdk/js/examples/destructive-guard");
    js_component(
        "destructive-guard-js",
        &dir.join("component.js"),
        &repo().join("sdk/js"),
        &[dir.join("hook.js")],
    )
}

fn guard_runner(project: &Project, wasm: &Path, config: &str) -> HookRunner {
    project.runner(&format!(
        "[[hooks]]\nname = \"destructive-guard\"\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\n\
         wasm = '{}'\ntimeout_ms = 10000\n[hooks.config]\n{config}\n",
        wasm.display()
    ))
}

async fn bash(runner: &HookRunner, command: &str) -> Outcome {
    runner
        .pre_tool_use(ToolCall {
            tool: "Bash",
            input: &json!({ "command": command }),
            tool_iterations: 1,
        })
        .await
}

/// What a guard decided, as the model would read it.
fn decided(outcome: &Outcome) -> String {
    match &outcome.decision {
        Decision::Allow => "allow".to_string(),
        Decision::Block(block) => block.message(),
        other => format!("{other:?}"),
    }
}

/// Commands covering every rule of destructive-guard, and everyday ones it must allow.
const COMMANDS: &[&str] = &[
    "rm -rf /",
    "RM  -RF -- ~",
    "sudo -u root /bin/rm -r -f \"$HOME\"",
    "echo ok && rm -rf .",
    "x=$(rm -rf /)",
    "bash -c 'rm -rf /'",
    "{ rm -rf /; }",
    "rm --no-preserve-root -rf /tmp/x",
    "git -C repo push -fu origin main",
    "git push origin +main",
    "git reset --hard @{u}",
    "git clean -xdf",
    "kubectl delete namespaces/prod",
    "kubectl -n x delete pods --all",
    "mkfs.ext4 /dev/sda1",
    "dd if=/dev/zero of=/dev/sda bs=1M",
    "sudo chmod --recursive 0777 /",
    "mysql -e \"drop   table accounts\"",
    "Terraform  Destroy -auto-approve",
    "cargo test",
    "rm -rf target",
    "git push --set-upstream origin feature",
    "git reset --hard HEAD~1",
    "dd if=/dev/zero of=disk.img bs=1M count=10",
    "chmod 777 /tmp/x",
    "grep -r 'drop' src",
];

/// The port blocks and allows exactly as the Rust destructive-guard does, with the same
/// reasons, reads only Bash, and fails closed on a bad config.
async fn decides_as_the_rust_guard(port: &Path, language: &str) {
    let project = Project::new();
    let deny = "deny = [\"terraform destroy\"]";
    let rust = guard_runner(&project, Path::new(&example("destructive-guard")), deny);
    let other = guard_runner(&project, port, deny);
    let mut blocked = 0;
    for command in COMMANDS {
        let expected = decided(&bash(&rust, command).await);
        assert_eq!(
            decided(&bash(&other, command).await),
            expected,
            "{language}: {command}"
        );
        blocked += usize::from(expected != "allow");
    }
    assert_eq!(blocked, 19, "the table covers every rule");
    let read = other
        .pre_tool_use(ToolCall {
            tool: "Read",
            input: &json!({ "file_path": "/" }),
            tool_iterations: 1,
        })
        .await;
    assert_eq!(decided(&read), "allow", "{language}");
    // Every agent's shell tool, not only Claude Code's Bash (`call.shell()`).
    let any_tool = project.runner(&format!(
        "[[hooks]]\nname = \"destructive-guard\"\nevent = \"PreToolUse\"\nwasm = '{}'\n\
         timeout_ms = 10000\n",
        port.display()
    ));
    for tool in ["bash", "run_shell_command", "Shell"] {
        let outcome = any_tool
            .pre_tool_use(ToolCall {
                tool,
                input: &json!({ "command": "rm -rf /" }),
                tool_iterations: 1,
            })
            .await;
        assert_eq!(
            decided(&outcome),
            "blocked by destructive-guard: recursive delete of / (rm -r)",
            "{language}: {tool}"
        );
    }
    let broken = guard_runner(&project, port, "deny = \"not a list\"");
    let outcome = bash(&broken, "ls").await;
    assert!(
        decided(&outcome)
            .starts_with("blocked by destructive-guard: destructive-guard is misconfigured: "),
        "{language}: {}",
        decided(&outcome)
    );
}

#[tokio::test]
async fn the_python_destructive_guard_decides_as_the_rust_one() {
    decides_as_the_rust_guard(&python_guard(), "python").await;
}

#[tokio::test]
async fn the_js_destructive_guard_decides_as_the_rust_one() {
    decides_as_the_rust_guard(&js_guard(), "js").await;
}

/// One runner with the language's probe configured once per SDK concept (see
/// tests/fixtures/{pyprobe,jsprobe}): config selects the mode, state counts across calls,
/// logs reach the report, every answer field and every event reach the host, and an
/// exception fails the call.
async fn sdk_concepts_reach_the_host(probe: &Path, language: &str) {
    let project = Project::new();
    let hook = |name: &str, event: &str, tool: &str, mode: &str| {
        format!(
            "[[hooks]]\nname = \"{name}\"\nevent = \"{event}\"\n{tool}wasm = '{}'\n\
             timeout_ms = 10000\n[hooks.config]\nmode = \"{mode}\"\n\n",
            probe.display()
        )
    };
    let runner = project.runner(
        &[
            hook("count", "PreToolUse", "match_tool = \"Count\"\n", "count"),
            hook("rich", "PreToolUse", "match_tool = \"Bash\"\n", "rich"),
            hook("boom", "PreToolUse", "match_tool = \"Boom\"\n", "raise"),
            hook("events", "SessionStart", "", "events"),
            hook("events", "PostToolUse", "", "events"),
        ]
        .concat(),
    );
    let call = |tool: &'static str| ToolCall {
        tool,
        input: &serde_json::Value::Null,
        tool_iterations: 1,
    };

    for n in 1..=3 {
        let outcome = runner.pre_tool_use(call("Count")).await;
        let Decision::Warn(notice) = &outcome.decision else {
            panic!("{language}: {outcome:?}")
        };
        assert_eq!(
            notice.reason,
            format!("call {n}"),
            "{language}: state persists"
        );
        assert!(
            outcome.reports[0].stderr.contains(&format!(
                "info: call {n} of this session, 1 of this instance"
            )),
            "{language}: globals do not: {}",
            outcome.reports[0].stderr
        );
    }

    let outcome = bash(&runner, "ls").await;
    assert_eq!(
        outcome.updated_input,
        Some(json!({ "command": "ls --dry-run" })),
        "{language}"
    );
    assert_eq!(outcome.context[0].reason, format!("from {language}"));
    assert!(
        outcome
            .notices
            .iter()
            .any(|n| n.reason == format!("hello from {language}")),
        "{language}: {:?}",
        outcome.notices
    );

    let outcome = runner
        .fire(&Event::session_start("startup").with_session("s-1"))
        .await;
    assert_eq!(
        outcome.context[0].reason,
        format!("session s-1 in {}", project.root().display()),
        "{language}"
    );
    let tests = ToolCall {
        tool: "Bash",
        input: &json!({ "command": "cargo test" }),
        tool_iterations: 1,
    };
    let outcome = runner
        .post_tool_use(tests, "test result: ok. 3 passed", false)
        .await;
    assert_eq!(outcome.signals.len(), 1, "{language}: {outcome:?}");
    assert_eq!(outcome.signals[0].signal, "green");
    assert_eq!(outcome.signals[0].reason, "Bash passed");

    let outcome = runner.pre_tool_use(call("Boom")).await;
    assert!(
        matches!(outcome.reports[0].result, Err(HookFailure::Trapped { .. })),
        "{language}: {:?}",
        outcome.reports[0].result
    );
    assert!(
        decided(&outcome).starts_with("hook failed: boom"),
        "{language}: fails closed: {}",
        decided(&outcome)
    );
    assert!(
        outcome.reports[0]
            .stderr
            .contains(&format!("boom from {language}")),
        "{language}: the exception is on the hook's stderr: {}",
        outcome.reports[0].stderr
    );
}

#[tokio::test]
async fn python_hooks_reach_config_log_state_and_every_answer() {
    let dir = repo().join("tests/fixtures/pyprobe");
    sdk_concepts_reach_the_host(&python_component("pyprobe", &dir, "app"), "python").await;
}

#[tokio::test]
async fn js_hooks_reach_config_log_state_and_every_answer() {
    let entry = repo().join("tests/fixtures/jsprobe/component.js");
    let probe = js_component("jsprobe", &entry, repo(), &[]);
    sdk_concepts_reach_the_host(&probe, "js").await;
}

/// A hook that tries the network, configured as a guard on tool `Net` with `mode` and a port
/// nobody else listens on; returns what the guard decided and whether anything connected.
async fn try_the_network(wasm: &Path, mode: &str) -> (Outcome, bool) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let project = Project::new();
    let runner = project.runner(&format!(
        "[[hooks]]\nname = \"net\"\nevent = \"PreToolUse\"\nwasm = '{}'\ntimeout_ms = 10000\n\
         [hooks.config]\nmode = \"{mode}\"\nport = {port}\n",
        wasm.display()
    ));
    let outcome = runner
        .pre_tool_use(ToolCall {
            tool: "Net",
            input: &json!({}),
            tool_iterations: 1,
        })
        .await;
    listener.set_nonblocking(true).unwrap();
    let connected = listener.accept().is_ok();
    (outcome, connected)
}

#[tokio::test]
async fn components_importing_sockets_and_http_load_and_every_use_fails() {
    let netprobe = build_fixture("netprobe");
    let python = python_component("pyprobe", &repo().join("tests/fixtures/pyprobe"), "app");
    let cases: [(&str, &Path, &str, &str); 3] = [
        (
            "rust std::net",
            &netprobe,
            "tcp",
            "called `wasi:sockets/tcp-create-socket#create-tcp-socket`, which the sandbox denies: hooks have no network access",
        ),
        (
            "rust wasi:http",
            &netprobe,
            "http",
            "called `wasi:http/types#[constructor]fields`, which the sandbox denies: hooks have no network access",
        ),
        (
            "python socket",
            &python,
            "socket",
            "which the sandbox denies: hooks have no network access",
        ),
    ];
    for (name, wasm, mode, message) in cases {
        let (outcome, connected) = try_the_network(wasm, mode).await;
        assert!(!connected, "{name}: nothing may reach the network");
        let Err(HookFailure::Trapped { message: trap }) = &outcome.reports[0].result else {
            panic!("{name}: the attempt fails: {:?}", outcome.reports[0].result)
        };
        assert!(unversioned(trap).contains(message), "{name}: {trap}");
        assert!(
            decided(&outcome).starts_with("hook failed: net"),
            "{name}: a guard fails closed: {}",
            decided(&outcome)
        );
    }
    // The component runs when it leaves the network alone.
    let (outcome, _) = try_the_network(&netprobe, "none").await;
    assert_eq!(decided(&outcome), "allow");
}

/// `text` without the versions of the interfaces it names (`wasi:sockets/tcp@0.2.6` →
/// `wasi:sockets/tcp`): Rust's std imports the WASI version of its toolchain.
fn unversioned(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '@' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || *c == '.')
            {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn check_lists_what_a_component_imports_and_what_is_denied() {
    let project = Project::new();
    let config = project.config(&format!(
        "[[hooks]]\nname = \"net\"\nevent = \"PreToolUse\"\nwasm = '{}'\n",
        build_fixture("netprobe").display()
    ));
    let output = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .args(["check", "--config"])
        .arg(&config)
        .envs(crate::support::test_cache_env())
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("HOOKHOST_DATA_DIR", project.path(".no-user-data"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let imports = stdout
        .lines()
        .find(|line| line.starts_with("imports of #1 net: "))
        .unwrap_or_else(|| panic!("{stdout}"));
    for interface in [
        "hookhost:hooks@0.2.0 {host, types}",
        "wasi:http@0.2.12 {outgoing-handler, types}",
    ] {
        assert!(imports.contains(interface), "{imports}");
    }
    let denied = stdout
        .lines()
        .find(|line| {
            line.trim_start()
                .starts_with("denied (linked, every call fails): ")
        })
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        denied.contains("wasi:http@0.2.12 {outgoing-handler, types}"),
        "{denied}"
    );
    // std's version of WASI depends on the toolchain (wasi:sockets@0.2.0, @0.2.6, ...).
    assert!(unversioned(denied).contains("wasi:sockets {"), "{denied}");
    assert!(denied.contains("tcp-create-socket"), "{denied}");
    assert!(
        !denied.contains("wasi:cli"),
        "provided interfaces are not denied: {denied}"
    );
}

#[test]
fn vendored_copies_of_the_wit_and_pins_agree() {
    let read = |path: &str| std::fs::read_to_string(repo().join(path)).unwrap();
    assert!(
        read("hook-sdk/wit/hookhost.wit") == read("wit/hookhost.wit"),
        "hook-sdk/wit/hookhost.wit differs from wit/hookhost.wit: copy it (cp wit/hookhost.wit hook-sdk/wit/)"
    );
    // The tools .ci/run installs are the ones `hookhost new` pins.
    let ci = read(".ci/run");
    for pin in ["componentize-py==0.25.1", "componentize-qjs@0.4.5"] {
        assert!(ci.contains(pin), ".ci/run installs {pin}");
    }
    let scaffold = read("src/cli/new/templates/js/package.json");
    assert!(
        scaffold.contains("\"componentize-qjs\": \"0.4.5\""),
        "{scaffold}"
    );
    assert!(read("src/cli/new/python.rs").contains("componentize-py==0.25.1"));
    let sdk = read("hook-sdk/Cargo.toml");
    assert!(
        sdk.contains("version = \"0.2.0\""),
        "hook-sdk's version: {sdk}"
    );
    assert!(read("src/cli/new/rust.rs").contains("HOOK_SDK_VERSION: &str = \"0.2\""));
}

/// The SDKs' own unit tests (the tool vocabulary against tools/tests/cases.jsonl) and their
/// examples', as their authors run them: the SDKs' in-memory host outside a component (plain
/// Python, plain Node).
#[test]
fn sdk_examples_pass_their_unit_tests_outside_a_component() {
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "sdk/python",
            &["python3", "-m", "unittest", "test_hook_sdk"],
            "apt-get install python3",
        ),
        (
            "sdk/js",
            &["node", "--test", "hook-sdk.test.js"],
            "apt-get install nodejs (18 or later)",
        ),
        (
            "sdk/python/examples/destructive-guard",
            &["python3", "-m", "unittest"],
            "apt-get install python3",
        ),
        (
            "sdk/js/examples/destructive-guard",
            &["node", "--test"],
            "apt-get install nodejs (18 or later)",
        ),
    ];
    for (dir, command, install) in cases {
        let output = Command::new(command[0])
            .args(&command[1..])
            .current_dir(repo().join(dir))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}: run .ci/run, or {install}", command[0]));
        assert!(
            output.status.success(),
            "{dir}: {command:?} failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
