//! `hookhost test`: policy tests run through the real loading, layers, matchers, runtimes and
//! merge, with a table, a diff for each failure, JUnit XML, and test files validated like
//! hooks.toml.

use std::os::unix::fs::PermissionsExt as _;
use std::process::{Command, Output};

use crate::support::Project;

/// The binary in `project`, hermetic: a user configuration that would block every call (it
/// must not count: a case loads only its layers), no agent variables of whoever runs it.
fn hookhost(project: &Project, args: &[&str]) -> Output {
    let user = project.path(".user-config");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("hooks.toml"),
        "[[hooks]]\nname = \"users-wall\"\nevent = \"*\"\ncommand = '''echo '{\"action\":\"block\",\"reason\":\"the user's own file\"}' '''\n",
    )
    .unwrap();
    crate::support::hermetic(&mut Command::new(env!("CARGO_BIN_EXE_hookhost")), project)
        .args(args)
        .env("HOOKHOST_CONFIG_DIR", &user)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn all(out: &Output) -> String {
    format!("{}{}", stdout(out), String::from_utf8_lossy(&out.stderr))
}

/// A project whose hooks block, rewrite, observe, signal, add context, and run a Claude Code
/// script named by `$CLAUDE_PROJECT_DIR`.
const HOOKS: &str = r#"
[[hooks]]
name = "no-rm"
event = "PreToolUse"
match_tool = "Bash"
command = '''if grep -q 'rm -rf'; then echo '{"action":"block","reason":"recursive delete"}'; else echo '{"action":"allow"}'; fi'''

[[hooks]]
name = "no-sudo"
event = "PreToolUse"
match_tool = "Bash"
protocol = "claude"
command = '"$CLAUDE_PROJECT_DIR"/no-sudo.sh'

[[hooks]]
name = "fail-curl"
event = "PreToolUse"
match_tool = "Bash"
command = '''if grep -q curl; then echo '{"action":"allow","updated_input":{"command":"curl --fail https://example.com"}}'; else echo '{"action":"allow"}'; fi'''

[[hooks]]
name = "audit"
event = "PreToolUse"
phase = "observe"
command = "cat > /dev/null"

[[hooks]]
name = "tests-pass"
event = "PostToolUse"
command = '''if grep -q 'test result: ok'; then echo '{"action":"signal","signal":"converged","reason":"tests pass"}'; else echo '{"action":"continue"}'; fi'''

[[hooks]]
name = "style"
event = "UserPromptSubmit"
command = '''cat > /dev/null; echo '{"action":"allow","context":"follow the style guide"}' '''
"#;

fn project() -> Project {
    let project = Project::new();
    std::fs::write(project.path("hooks.toml"), HOOKS).unwrap();
    let script = project.path("no-sudo.sh");
    std::fs::write(
        &script,
        "#!/bin/bash\nif grep -q sudo; then echo \"no sudo (under $HOOKHOST_AGENT)\" >&2; exit 2; fi\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    project
}

const PASSING: &str = r#"
[[cases]]
name = "rm -rf / is blocked"
event = "PreToolUse"
tool = "Bash"
input = { command = "rm -rf /" }
expect = { decision = "block", by = "no-rm", reason = ["recursive delete", "blocked by no-rm"], hook_failed = false, ran = ["no-rm", "audit"], did_not_run = ["fail-curl"] }

[[cases]]
name = "curl gets --fail"
event = "PreToolUse"
tool = "Bash"
input = '{"command": "curl https://example.com"}'
expect = { decision = "allow", updated_input = { command = "curl --fail https://example.com" } }

[[cases]]
name = "the Claude Code script finds its file"
event = "PreToolUse"
tool = "Bash"
input = { command = "sudo ls" }
expect = { decision = "block", by = "no-sudo", reason = "no sudo (under claude)" }

[[cases]]
name = "passing tests converge"
event = "PostToolUse"
tool = "Bash"
input = { command = "cargo test" }
payload = { result = "test result: ok. 12 passed", is_error = false }
expect = { signals = ["converged"], ran = ["tests-pass"] }

[[cases]]
name = "prompts get the style guide"
event = "UserPromptSubmit"
payload = { prompt = "refactor it" }
expect = { decision = "allow", context = "style guide" }

[[cases]]
name = "Claude Code denies, from its own JSON"
agent = "claude"
stdin = { hook_event_name = "PreToolUse", cwd = "/not/here", tool_name = "Bash", tool_input = { command = "rm -rf /" } }
expect = { decision = "block", reply = { exit_code = 0, json = { hookSpecificOutput = { hookEventName = "PreToolUse", permissionDecision = "deny" } } } }

[[cases]]
name = "Copilot's bash is not Bash: the matcher never matches"
agent = "copilot"
event = "preToolUse"
tool = "bash"
input = { command = "rm -rf /" }
expect = { decision = "allow", did_not_run = ["no-rm", "no-sudo"], ran = ["audit"] }

[[cases]]
name = "Gemini CLI's own event"
agent = "gemini"
stdin = '{"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}'
expect = { decision = "allow", reply = { exit_code = 0 } }
"#;

#[test]
fn cases_run_through_the_real_hooks_and_pass() {
    let project = project();
    std::fs::write(project.path("hooks.test.toml"), PASSING).unwrap();
    let out = hookhost(&project, &["test"]);
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let text = stdout(&out);
    assert!(text.starts_with("hooks.test.toml\n  CASE "), "{text}");
    for row in [
        "rm -rf / is blocked  ",
        "PreToolUse Bash  ",
        "block by no-rm  ",
        "allow, input rewritten",
        "block by no-sudo",
        "allow, signal converged",
        "claude: stdin",
        "copilot: PreToolUse bash",
    ] {
        assert!(text.contains(row), "{row}: {text}");
    }
    assert_eq!(text.matches("  ok\n").count(), 8, "{text}");
    assert!(
        text.ends_with("\n8 cases: 8 passed, 0 failed, 0 could not run\n"),
        "{text}"
    );
}

const FAILING: &str = r#"
[layers]
project = "hooks.toml"

[[cases]]
name = "rm is allowed?"
event = "PreToolUse"
tool = "Bash"
input = { command = "rm -rf /" }
expect = { decision = "allow", ran = ["fail-curl"] }

[[cases]]
name = "curl rewritten otherwise"
event = "PreToolUse"
tool = "Bash"
input = { command = "curl https://example.com" }
expect.updated_input = { command = "curl https://example.com", timeout = 5 }

[[cases]]
name = "a misspelt hook"
event = "PreToolUse"
tool = "Bash"
input = { command = "ls" }
expect = { did_not_run = ["no-rn"] }
"#;

#[test]
fn a_failure_shows_what_differs_and_the_junit_report_says_it() {
    let project = project();
    std::fs::write(project.path("policy.test.toml"), FAILING).unwrap();
    let out = hookhost(
        &project,
        &["test", "policy.test.toml", "--junit", "report.xml"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", all(&out));
    let text = stdout(&out);
    let expected = "\nFAILED policy.test.toml:5:1: rm is allowed?\n  --- expected\n  +++ came out\n  decision:\n    - allow\n    + block: blocked by no-rm: recursive delete\n  ran:\n    - fail-curl ran\n    + it did not (ran: no-rm, audit)\n";
    assert!(text.contains(expected), "{text}");
    let expected = "  updated_input:\n      {\n    -   \"command\": \"curl https://example.com\",\n    -   \"timeout\": 5\n    +   \"command\": \"curl --fail https://example.com\"\n      }\n";
    assert!(text.contains(expected), "{text}");
    let expected = "\nERROR policy.test.toml:19:1: a misspelt hook\n  policy.test.toml:24:27: `did_not_run` names \"no-rn\", which is not a hook of the case's layers (did you mean \"no-rm\"? its hooks: no-rm, no-sudo, fail-curl, audit, tests-pass, style)\n";
    assert!(text.contains(expected), "{text}");
    assert!(
        text.ends_with("\n3 cases: 0 passed, 2 failed, 1 could not run\n"),
        "{text}"
    );

    let report = project.read("report.xml");
    assert!(
        report
            .contains("<testsuites name=\"hookhost test\" tests=\"3\" failures=\"2\" errors=\"1\""),
        "{report}"
    );
    assert!(report.contains("<testcase name=\"rm is allowed?\" classname=\"policy.test.toml\" file=\"policy.test.toml\" line=\"5\""), "{report}");
    assert!(report.contains("<failure message=\"decision: expected allow; ran: expected fail-curl ran\" type=\"mismatch\">decision:\n  - allow\n  + block: blocked by no-rm: recursive delete\nran:"), "{report}");
    assert!(
        report.contains(
            "<error message=\"policy.test.toml:24:27: `did_not_run` names &quot;no-rn&quot;"
        ),
        "{report}"
    );
}

#[test]
fn a_test_file_is_validated_like_hooks_toml() {
    let project = project();
    std::fs::write(
        project.path("hooks.test.toml"),
        r#"[[case]]
name = "x"

[[cases]]
name = "typos"
event = "PreToolUSe"
agnet = "claude"
expect = { decision = "blok" }

[[cases]]
name = "more typos"
agent = "claud"
event = "Stop"
tool = "Bash"
expect = { reason = "x", by = "no-rm", decision = "allow" }

[[cases]]
name = "nothing checked"
event = "SessionStart"
expect = {}

[[cases]]
event = "PreToolUse"
tool = "Bash"
stdin = "{}"
"#,
    )
    .unwrap();
    let out = hookhost(&project, &["test", "--junit", "report.xml"]);
    assert_eq!(out.status.code(), Some(1), "{}", all(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "invalid test file hooks.test.toml (13 problems):",
        "hooks.test.toml:22:1: case #4: a case needs an `expect` table",
        "hooks.test.toml:1:3: unknown key `case`; did you mean `cases`? (a test file takes: layers, cwd, cases)",
        "hooks.test.toml:6:9: case #1 (typos): unknown event \"PreToolUSe\"; did you mean \"PreToolUse\"?",
        "hooks.test.toml:7:1: case #1 (typos): unknown key `agnet`; did you mean `agent`? (a case takes: name, event, agent,",
        "hooks.test.toml:8:23: case #1 (typos): unknown decision `blok`; did you mean `block`? (decisions: allow, approve, warn, ask, block)",
        "hooks.test.toml:12:9: case #2 (more typos): unknown agent `claud`; did you mean `claude`?",
        "hooks.test.toml:14:1: case #2 (more typos): Stop carries no tool call; remove `tool` and `input`",
        "hooks.test.toml:15:12: case #2 (more typos): `reason` cannot hold with decision = \"allow\" (it has no reason)",
        "hooks.test.toml:15:26: case #2 (more typos): `by` cannot hold with decision = \"allow\" (an allow is nobody's decision)",
        "hooks.test.toml:20:10: case #3 (nothing checked): `expect` checks nothing",
        "hooks.test.toml:22:1: case #4: a case needs a `name`",
        "hooks.test.toml:24:1: case #4: `tool` has no place beside `stdin`",
        "case #4: `stdin` is an agent's own JSON: say whose with `agent`",
    ] {
        assert!(stderr.contains(expected), "{expected}:\n{stderr}");
    }
    // Nothing ran; CI's report says the file is invalid.
    assert!(
        stdout(&out)
            .contains("0 cases: 0 passed, 0 failed, 0 could not run; 1 test file is invalid"),
        "{}",
        all(&out)
    );
    let report = project.read("report.xml");
    assert!(
        report.contains("<testcase name=\"(the test file)\" classname=\"hooks.test.toml\""),
        "{report}"
    );

    // A file without cases would pass without testing anything.
    std::fs::write(project.path("hooks.test.toml"), "# nothing yet\n").unwrap();
    let out = hookhost(&project, &["test"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        all(&out).contains("hooks.test.toml:1:1: this file holds no `[[cases]]`"),
        "{}",
        all(&out)
    );
    let out = hookhost(&project, &["test", "missing.test.toml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        all(&out).contains("cannot read the test file missing.test.toml: No such file"),
        "{}",
        all(&out)
    );
}

#[test]
fn each_case_loads_exactly_its_layers() {
    let project = project();
    std::fs::write(
        project.path("org.toml"),
        "managed_only = true\n\n[[hooks]]\nname = \"org-guard\"\nevent = \"PreToolUse\"\ncommand = '''if grep -q curl; then echo '{\"action\":\"ask\",\"reason\":\"network access\"}'; else echo '{\"action\":\"allow\"}'; fi'''\n",
    )
    .unwrap();
    std::fs::write(
        project.path("user.toml"),
        "[[hooks]]\nname = \"user-guard\"\nevent = \"PreToolUse\"\ncommand = '''if grep -q curl; then echo '{\"action\":\"warn\",\"reason\":\"mind the network\"}'; else echo '{\"action\":\"allow\"}'; fi'''\n",
    )
    .unwrap();
    std::fs::write(
        project.path("hooks.local.toml"),
        "disable = [\"fail-curl\"]\n",
    )
    .unwrap();
    std::fs::write(
        project.path("broken.toml"),
        "[[hooks]]\nevent = \"PreToolUse\"\ncomand = \"x\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(project.path("policies")).unwrap();
    std::fs::write(
        project.path("policies/layers.test.toml"),
        r#"
[layers]
project = "../hooks.toml"

[[cases]]
name = "the organisation's file alone runs"
layers = { managed = "../org.toml", project = "../hooks.toml" }
event = "PreToolUse"
tool = "Bash"
input = { command = "curl https://example.com" }
expect = { decision = "ask", by = "org-guard", reason = "network access", did_not_run = ["fail-curl", "no-rm", "audit"] }

[[cases]]
name = "the user's file first, then the project's"
layers = { user = "../user.toml", project = "../hooks.toml" }
event = "PreToolUse"
tool = "Bash"
input = { command = "curl https://example.com" }
expect = { decision = "warn", by = "user-guard", updated_input = { command = "curl --fail https://example.com" } }

[[cases]]
name = "the local file disables a project hook"
layers = { project = "../hooks.toml", local = "../hooks.local.toml" }
event = "PreToolUse"
tool = "Bash"
input = { command = "curl https://example.com" }
expect = { decision = "allow", did_not_run = ["fail-curl"], ran = ["no-rm"] }

[[cases]]
name = "the project's file only, whatever the user has"
event = "PreToolUse"
tool = "Bash"
input = { command = "ls" }
expect = { decision = "allow" }

[[cases]]
name = "a configuration that does not load is not a pass"
layers = { project = "../broken.toml" }
event = "PreToolUse"
tool = "Bash"
input = { command = "rm -rf /" }
expect = { decision = "block" }
"#,
    )
    .unwrap();
    let out = hookhost(&project, &["test", "policies"]);
    assert_eq!(out.status.code(), Some(1), "{}", all(&out));
    let text = stdout(&out);
    assert!(text.contains("policies/layers.test.toml\n"), "{text}");
    assert_eq!(text.matches("  ok\n").count(), 4, "{text}");
    assert!(
        text.contains("\nERROR policies/layers.test.toml:36:1: a configuration that does not load is not a pass\n  the case's layers do not load: invalid hook configuration policies/../broken.toml (2 problems):"),
        "{text}"
    );
}

/// Copies `from` into `to`, recursively.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "target" {
                copy_tree(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every example hook ships a hooks.toml and a hooks.test.toml, and passes its tests, built
/// for real. The examples are copied as they are into a layout like the workspace's (their
/// hooks.toml names `../../target/wasm32-wasip2/release/NAME.wasm`), so that what they write
/// stays out of the checkout.
#[test]
fn the_example_hooks_pass_their_own_tests() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let project = Project::new();
    let mut files = Vec::new();
    for name in crate::support::EXAMPLES {
        let built = crate::support::build_fixture(name);
        let example = root.join("example-hooks").join(name);
        for file in ["hooks.toml", "hooks.test.toml"] {
            assert!(
                example.join(file).is_file(),
                "example-hooks/{name} ships no {file}"
            );
        }
        copy_tree(&example, &project.path("example-hooks").join(name));
        let release = project.path("target/wasm32-wasip2/release");
        if !release.exists() {
            std::fs::create_dir_all(release.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(built.parent().unwrap(), &release).unwrap();
        }
        files.push(format!("example-hooks/{name}/hooks.test.toml"));
    }
    let mut args = vec!["test"];
    args.extend(files.iter().map(String::as_str));
    let out = hookhost(&project, &args);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    assert!(
        text.contains(" passed, 0 failed, 0 could not run\n"),
        "{text}"
    );
    // The hooks ran for real: the audit log and the session log were written.
    let workspace = project.path("example-hooks/audit-log/workspace");
    assert_eq!(
        std::fs::read_to_string(workspace.join(".forgeflare/audit/calls.jsonl"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}

/// The code block after `<!-- example: NAME -->` in docs/testing.md.
fn documented(name: &str) -> String {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/testing.md"),
    )
    .unwrap();
    let marker = format!("<!-- example: {name} -->\n");
    let after = &page[page.find(&marker).unwrap_or_else(|| panic!("no {marker}")) + marker.len()..];
    let body = &after[after.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_documented_example_runs_as_shown() {
    let project = Project::new();
    std::fs::write(project.path("hooks.toml"), documented("hooks.toml")).unwrap();
    std::fs::write(
        project.path("hooks.test.toml"),
        documented("hooks.test.toml"),
    )
    .unwrap();
    let out = hookhost(&project, &["test"]);
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let text = stdout(&out);
    let shown = documented("run");
    // Each row as the page shows it, but for the times.
    for row in shown.lines().filter(|line| line.ends_with("  ok")) {
        let cells: Vec<&str> = row
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let (name, event, came_out) = (cells[0], cells[1], cells[2]);
        let line = text
            .lines()
            .find(|line| line.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {text}"));
        assert!(
            line.contains(event) && line.contains(came_out),
            "{row}\n{line}"
        );
    }
    assert!(
        text.trim_end().ends_with(shown.lines().last().unwrap()),
        "{text}"
    );
}
