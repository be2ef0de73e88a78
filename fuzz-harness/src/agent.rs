//! The agents' events (Claude Code, Copilot CLI, Gemini CLI, Codex CLI, Cursor), from the bytes
//! on `agent-hook`'s stdin to the reply: `parse_event` and `event_name` on their own, then the
//! whole call as `agent::answer` makes it (`AgentCall::prepare`, the runner loaded, `finish`),
//! with one guard answering what the fuzzer chose so that every renderer is reached.
//!
//! Input: `[0, format, event, verdict, stdin...]` (the seeds: an agent's recorded JSON), or
//! `[1, arbitrary...]`: a JSON object with the dialects' keys and event names, `--event`, and a
//! verdict built field by field.
//!
//! Properties: no panic; a reply's exit status is 0, 1 or 2; its stdout is empty or one JSON
//! object, never JSON with exit 2 (Copilot's exit-2 context aside); a guard's block of a tool
//! call, and a tool call whose event cannot be read, are refused in the agent's terms, never
//! allowed.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use arbitrary::{Arbitrary, Result, Unstructured};
use hookhost::agent::{
    AgentCall, AgentEventSpec, AgentFormat, AgentReply, BlockAs, Caller, Prepared,
};
use hookhost::{Answer, Layers, NativeHook, Signal, Verdict};
use serde_json::Value;

use crate::json::{self, Words};

pub const FORMATS: [AgentFormat; 5] = [
    AgentFormat::Claude,
    AgentFormat::Copilot,
    AgentFormat::Gemini,
    AgentFormat::Codex,
    AgentFormat::Cursor,
];

/// The keys of the five dialects' payloads (snake_case, and Copilot's camelCase).
const KEYS: &[&str] = &[
    "hook_event_name",
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "tool_name",
    "tool_input",
    "tool_response",
    "tool_result",
    "tool_output",
    "tool_use_id",
    "prompt",
    "message",
    "notification_type",
    "stop_hook_active",
    "source",
    "reason",
    "trigger",
    "custom_instructions",
    "agent_id",
    "agent_type",
    "agent_transcript_path",
    "error",
    "is_interrupt",
    "turn_id",
    "model",
    "conversation_id",
    "generation_id",
    "workspace_roots",
    "user_email",
    "cursor_version",
    "command",
    "file_path",
    "content",
    "edits",
    "status",
    "loop_count",
    "duration",
    "attachments",
    "timestamp",
    "toolName",
    "toolArgs",
    "toolResult",
    "resultType",
    "textResultForLlm",
    "sessionId",
    "transcriptPath",
    "initialPrompt",
    "stopReason",
    "errorContext",
    "recoverable",
    "llm_request",
    "llm_response",
    "mcp_context",
];

const STRINGS: &[&str] = &[
    "Bash",
    "Shell",
    "bash",
    "Edit",
    "Write",
    "Read",
    "run_shell_command",
    "read_file",
    "mcp__server__tool",
    "rm -rf /",
    "/tmp",
    ".",
    "",
    "startup",
    "resume",
    "clear",
    "compact",
    "manual",
    "auto",
    "success",
    "failure",
    "denied",
    "default",
    "plan",
    "bypassPermissions",
    "{\"command\":\"ls\"}",
    "{",
    "null",
];

fn words() -> Words {
    Words {
        keys: KEYS,
        strings: STRINGS,
    }
}

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => raw(rest),
        _ => structured(rest),
    };
}

/// The agent's events, as its dialect's table lists them.
pub fn events(format: AgentFormat) -> &'static [AgentEventSpec] {
    use hookhost::dialect::{claude, codex, copilot, cursor, gemini};
    match format {
        AgentFormat::Claude => &claude::EVENTS,
        AgentFormat::Copilot => &copilot::EVENTS,
        AgentFormat::Gemini => &gemini::EVENTS,
        AgentFormat::Codex => &codex::EVENTS,
        AgentFormat::Cursor => &cursor::EVENTS,
    }
}

/// The canned verdicts a raw input picks from.
fn canned(index: u8) -> Option<Verdict> {
    Some(match index % 10 {
        0 => return None,
        1 => Verdict::allow(),
        2 => Verdict::approve(),
        3 => Verdict::warn("careful"),
        4 => Verdict::ask("sure?"),
        5 => Verdict::block("no"),
        6 => Verdict::allow().with_updated_input(serde_json::json!({"command": "echo"})),
        7 => Verdict::allow().with_context("context for the model"),
        8 => Verdict::allow().with_stop("enough"),
        _ => Verdict::signal("done", "tests pass"),
    })
}

fn raw(rest: &[u8]) -> Result<()> {
    let [format, event, verdict, stdin @ ..] = rest else {
        return Ok(());
    };
    let format = crate::pick(&FORMATS, *format);
    let event = event_arg(format, *event);
    run(format, event, stdin, canned(*verdict));
    Ok(())
}

/// `--event`: none, or one of the agent's names for its events.
fn event_arg(format: AgentFormat, index: u8) -> Option<&'static str> {
    let events = events(format);
    match usize::from(index) % (events.len() + 1) {
        0 => None,
        i => Some(events[i - 1].agent),
    }
}

/// A verdict as the fuzzer writes one.
#[derive(Debug, Arbitrary)]
struct FuzzVerdict {
    answer: u8,
    reason: String,
    rewrite: bool,
    context: Option<String>,
    stop: Option<String>,
    signal: Option<(String, String)>,
    message: Option<String>,
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    let format = crate::pick(&FORMATS, u.arbitrary()?);
    let event = if u.ratio(1, 3)? {
        Some(u.arbitrary::<String>()?)
    } else {
        event_arg(format, u.arbitrary()?).map(str::to_string)
    };
    let mut object = json::object(&mut u, words(), 2)?;
    if u.ratio(3, 4)? {
        // An event name the agent has, where the payload says it.
        let spec = u.choose(events(format))?;
        object.insert("hook_event_name".into(), Value::String(spec.agent.into()));
    }
    let verdict = if u.arbitrary()? {
        let fuzzed: FuzzVerdict = u.arbitrary()?;
        let answer = match fuzzed.answer % 5 {
            0 => Answer::Allow,
            1 => Answer::Approve,
            2 => Answer::Warn(fuzzed.reason),
            3 => Answer::Ask(fuzzed.reason),
            _ => Answer::Block(fuzzed.reason),
        };
        Some(Verdict {
            answer,
            updated_input: if fuzzed.rewrite {
                Some(json::value(&mut u, words(), 2)?)
            } else {
                None
            },
            context: fuzzed.context,
            stop: fuzzed.stop,
            signal: fuzzed
                .signal
                .map(|(signal, reason)| Signal { signal, reason }),
            message: fuzzed.message,
            note: None,
        })
    } else {
        None
    };
    let stdin = Value::Object(object).to_string();
    run(format, event.as_deref(), stdin.as_bytes(), verdict);
    Ok(())
}

/// The project every call is answered in: a hooks.toml without hooks (the fuzzer's guard is
/// registered at run time), and nothing of the user's.
struct Project {
    dir: PathBuf,
    layers: Layers,
}

fn project() -> &'static Project {
    static PROJECT: OnceLock<Project> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let dir = crate::scratch::subdir("agent-project");
        let file = dir.join("hooks.toml");
        std::fs::write(&file, "# the fuzz harness's project: no configured hooks\n")
            .expect("the project's hooks.toml");
        Project {
            layers: Layers {
                user: None,
                project: Some(file),
                local: None,
                approvals: Some(dir.join("approvals.json")),
            },
            dir,
        }
    })
}

/// One agent hook call of `format` on `stdin`, with a guard answering `verdict` (or none).
pub fn run(format: AgentFormat, event: Option<&str>, stdin: &[u8], verdict: Option<Verdict>) {
    let project = project();
    let caller = Caller {
        cwd: Ok(project.dir.clone()),
        env: Some(Arc::from(Vec::new())),
    };
    let parsed = crate::text(stdin).map(|text| {
        let _ = hookhost::agent::event_name(format, text.as_bytes(), event);
        hookhost::agent::parse_event(format, text, event)
    });
    if let Some(Err(error)) = &parsed {
        assert!(!error.to_string().is_empty());
    }
    let blocked = verdict.as_ref().is_some_and(Verdict::is_block);
    let reply = match AgentCall::prepare(format, event, stdin, &caller) {
        Prepared::Answered(reply) => reply,
        Prepared::Call(mut call) => {
            // Only this project's (empty) configuration, wherever the event says it is: a
            // fuzzed cwd must not run another directory's hooks, or write its state.
            call.layers = project.layers.clone();
            call.options.state_dir = Some(project.dir.join("state"));
            let runner = call.load();
            if let (Ok(runner), Some(verdict)) = (&runner, verdict) {
                let guard = NativeHook::new("fuzz-guard", "*", move |_| verdict.clone())
                    .expect("a guard for every event");
                runner.register(guard);
            }
            let tool_call =
                call.event.spec().block != BlockAs::Nothing && call.event.name == "PreToolUse";
            let reply = crate::block_on(call.finish(runner));
            if blocked && tool_call {
                assert!(
                    refuses(&reply),
                    "a blocked tool call was not refused: {reply:?}"
                );
            }
            reply
        }
    };
    check_reply(format, &reply);
    if let Some(Err(_)) = parsed
        && let Some(text) = crate::text(stdin)
        && hookhost::agent::event_name(format, text.as_bytes(), event).as_deref()
            == Some("PreToolUse")
        && format.spec("PreToolUse").block != BlockAs::Nothing
    {
        assert!(
            refuses(&reply),
            "an unreadable tool call was not refused: {reply:?}"
        );
    }
}

/// The reply's shape, as every agent reads it.
fn check_reply(format: AgentFormat, reply: &AgentReply) {
    assert!(
        matches!(reply.exit_code, 0..=2),
        "exit status {}",
        reply.exit_code
    );
    if reply.stdout.is_empty() {
        return;
    }
    if reply.exit_code == 2 {
        // Copilot reads failure context from stdout after exit 2, as text.
        assert_eq!(
            format,
            AgentFormat::Copilot,
            "JSON and exit 2 together: {reply:?}"
        );
        return;
    }
    let json: Value = serde_json::from_str(&reply.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {reply:?}"));
    assert!(json.is_object(), "stdout is not a JSON object: {reply:?}");
}

/// Whether the agent reads `reply` as a refusal: exit 2, or a deny/block anywhere in its JSON.
fn refuses(reply: &AgentReply) -> bool {
    fn says_no(value: &Value) -> bool {
        match value {
            Value::String(text) => text == "deny" || text == "block",
            Value::Object(map) => map.values().any(says_no),
            _ => false,
        }
    }
    reply.exit_code == 2
        || serde_json::from_str::<Value>(&reply.stdout).is_ok_and(|json| says_no(&json))
}
