//! Input an agent hook cannot read never lets the tool run: through `hookhost agent-hook` and
//! `hookhost-client`, for every agent's tool call, an event too large, not UTF-8, nested
//! 100,000 levels deep or holding a raw NUL is refused in the agent's own format (exit 1, a
//! non-blocking error to Claude Code, Codex and Gemini, would let it run unguarded); what the
//! agents themselves accept (a lone surrogate escape, which `JSON.parse` reads; an MCP tool's
//! arguments nested past serde_json's 128 levels) is read, and the guard decides.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::recorded::{CLAUDE_PRE, CODEX_PRE, COPILOT_PRE, CURSOR_PRE, GEMINI_BEFORE_TOOL};
use crate::support::Project;

/// A guard that blocks any input holding `rm -rf`, and allows the rest.
const GUARD: &str = r#"
[[hooks]]
name = "no-rm-rf"
event = "PreToolUse"
command = '''if grep -q 'rm -rf'; then echo '{"action":"block","reason":"recursive delete"}'; else echo '{"action":"allow"}'; fi'''
"#;

/// Each agent's shell call of `npm test`: format, `--event`, the event.
const AGENTS: [(&str, Option<&str>, &str); 5] = [
    ("claude", None, CLAUDE_PRE),
    ("copilot", Some("preToolUse"), COPILOT_PRE),
    ("gemini", None, GEMINI_BEFORE_TOOL),
    ("codex", None, CODEX_PRE),
    ("cursor", None, CURSOR_PRE),
];

#[derive(Debug)]
struct Reply {
    stdout: String,
    stderr: String,
    code: i32,
}

#[derive(Debug, Clone, Copy)]
enum Via {
    AgentHook,
    Client,
}

fn call(project: &Project, via: Via, format: &str, event: Option<&str>, stdin: &[u8]) -> Reply {
    let mut command = match via {
        Via::AgentHook => {
            let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
            command.args(["agent-hook", "--format", format]);
            command
        }
        Via::Client => {
            let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost-client"));
            // No daemon here: the client answers through agent-hook, after its own read.
            command
                .args(["--format", format, "--no-start", "--socket"])
                .arg(project.path(".no-daemon/agent.sock"))
                .env("HOOKHOST_BIN", env!("CARGO_BIN_EXE_hookhost"));
            command
        }
    };
    command.args(event.iter().flat_map(|event| ["--event", event]));
    let mut child = command
        .current_dir(project.root())
        .env("HOOKHOST_CONFIG_DIR", project.path(".no-user-config"))
        .env("HOOKHOST_DATA_DIR", project.path(".no-user-data"))
        .envs(crate::support::test_cache_env())
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("HOOKHOST_DAEMON")
        .env("CODEX_HOME", project.path(".no-codex-home"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    // The whole event is written, as the agent writes it: a reader that stops early must
    // still take the rest (an agent may treat a broken pipe as a failed hook).
    let writer = std::thread::spawn(move || pipe.write_all(&stdin));
    let out = child.wait_with_output().unwrap();
    let written = writer.join().unwrap();
    assert!(
        written.is_ok(),
        "the hook stopped reading its stdin: {written:?}"
    );
    Reply {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// The refusal's reason when `reply` refuses the tool call in `format`'s own answer.
fn refusal(format: &str, reply: &Reply) -> Option<String> {
    if reply.code == 2 {
        return Some(reply.stderr.clone());
    }
    let json: Value = serde_json::from_str(&reply.stdout).ok()?;
    let (decision, reason) = match format {
        "claude" | "codex" => (
            "/hookSpecificOutput/permissionDecision",
            "/hookSpecificOutput/permissionDecisionReason",
        ),
        "copilot" => ("/permissionDecision", "/permissionDecisionReason"),
        "gemini" => ("/decision", "/reason"),
        "cursor" => ("/permission", "/agent_message"),
        _ => unreachable!("{format}"),
    };
    (json.pointer(decision)? == "deny")
        .then(|| json.pointer(reason)?.as_str().map(str::to_string))?
}

/// `event` in `project` with its shell command set to `command` (raw JSON string contents,
/// escapes and all) and `extra` raw JSON members added.
fn with(project: &Project, format: &str, event: &str, command: &str, extra: &str) -> Vec<u8> {
    let event = event.replace("PROJECT", &project.root().display().to_string());
    let event = match format {
        // Copilot's arguments are a JSON string inside the event: escaped once more.
        "copilot" => event.replace(
            r#""toolArgs":"{\"command\":\"rm -rf dist\""#,
            &format!(
                r#""toolArgs":"{{\"command\":\"{}\""#,
                command.replace('\\', "\\\\")
            ),
        ),
        _ => {
            let original = if format == "cursor" {
                "npm install"
            } else {
                "npm test"
            };
            event.replacen(original, command, 1)
        }
    };
    assert!(
        event.contains(command) || format == "copilot",
        "{format}: {event}"
    );
    let mut bytes = event.into_bytes();
    let end = bytes.iter().rposition(|&b| b == b'}').unwrap();
    let mut tail = bytes.split_off(end);
    bytes.extend_from_slice(extra.as_bytes());
    bytes.append(&mut tail);
    bytes
}

#[test]
fn input_that_cannot_be_read_refuses_the_tool_call_in_every_agents_format() {
    let project = Project::new();
    project.config(GUARD);
    let huge = format!(r#","pad":"{}""#, "x".repeat(64 << 20));
    let deep = format!(r#","deep":{}1{}"#, "[".repeat(100_000), "]".repeat(100_000));
    type Event<'a> = Box<dyn Fn(&str, &str) -> Vec<u8> + 'a>;
    #[rustfmt::skip]
    let cases: [(&str, Event, &str); 4] = [
        ("a 64 MiB event", Box::new(|f, e| with(&project, f, e, "ls", &huge)), "is larger than"),
        ("invalid UTF-8", Box::new(|f, e| {
            let mut bytes = with(&project, f, e, "ls ZZ", "");
            let at = bytes.windows(2).position(|w| w == b"ZZ").unwrap();
            bytes[at] = 0xff;
            bytes
        }), "UTF-8"),
        ("100,000 levels of nesting", Box::new(|f, e| with(&project, f, e, "ls", &deep)), "more than 512 levels deep"),
        ("a raw NUL byte", Box::new(|f, e| with(&project, f, e, "ls \u{0}", "")), "not JSON"),
    ];
    for via in [Via::AgentHook, Via::Client] {
        for (what, stdin, says) in &cases {
            for (format, event, template) in AGENTS {
                // Copilot's toolArgs is a string: the bad bytes land inside it, or beside it.
                let reply = call(&project, via, format, event, &stdin(format, template));
                let reason = refusal(format, &reply)
                    .unwrap_or_else(|| panic!("{via:?} {format}, {what}: not refused: {reply:?}"));
                assert!(reason.contains(says), "{via:?} {format}, {what}: {reason}");
            }
        }
    }
}

#[test]
fn what_the_agents_accept_is_read_and_the_guard_decides() {
    let project = Project::new();
    project.config(GUARD);
    let deep_mcp = |depth: usize| {
        format!(
            r#"{{"session_id":"s","cwd":"PROJECT","hook_event_name":"PreToolUse","tool_name":"mcp__db__query","tool_input":{{"sql":"COMMAND","args":{}1{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    for via in [Via::AgentHook, Via::Client] {
        for (format, event, template) in AGENTS {
            // A lone surrogate, which JSON.parse reads (as a model may write it).
            for (command, refused) in [(r"rm -rf / \ud800", true), (r"ls \udfff", false)] {
                let stdin = with(&project, format, template, command, "");
                let reply = call(&project, via, format, event, &stdin);
                let reason = refusal(format, &reply);
                match refused {
                    true => assert!(
                        reason
                            .as_deref()
                            .is_some_and(|r| r.contains("blocked by no-rm-rf: recursive delete")),
                        "{via:?} {format} {command}: {reply:?}"
                    ),
                    false => assert_eq!(
                        (reason, reply.code),
                        (None, 0),
                        "{via:?} {format} {command}: {reply:?}"
                    ),
                }
            }
        }
        // An MCP tool's arguments 300 levels deep: read, and judged.
        for (sql, refused) in [("rm -rf /", true), ("SELECT 1", false)] {
            let stdin = deep_mcp(300)
                .replace("COMMAND", sql)
                .replace("PROJECT", &project.root().display().to_string());
            let reply = call(&project, via, "claude", None, stdin.as_bytes());
            assert_eq!(
                refusal("claude", &reply).is_some(),
                refused,
                "{via:?} {sql}: {reply:?}"
            );
            assert_eq!(reply.code, 0, "{reply:?}");
        }
    }
    // The same shapes parse to what the agent meant.
    let read = hookhost::agent::json::parse(r#"{"c":"a\ud800b"}"#).unwrap();
    assert_eq!(read, json!({"c": "a\u{fffd}b"}));
}
