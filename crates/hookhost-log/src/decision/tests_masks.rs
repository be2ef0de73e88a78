//! What the default `[log]` keeps for every agent: no file contents whatever the agent calls
//! them (`drop_contents`), no secrets (`redact`); and that a `[log]` written before either
//! existed keeps what it kept.

use serde_json::{Value, json};

use super::record;
use crate::config::LogSpec;
use crate::event::{Event, ToolCall};
use crate::outcome::{Block, Decision, Outcome};

/// `[log]` at its defaults.
fn defaults() -> LogSpec {
    LogSpec {
        path: "decisions.jsonl".into(),
        ..LogSpec::defaults()
    }
}

fn record_of(event: &Event<'_>, outcome: &Outcome, agent: &str, spec: &LogSpec) -> Value {
    record("id", event, outcome, Some(agent), "/work", &|_| None, spec)
}

fn tool_record(agent: &str, tool: &str, input: &Value, spec: &LogSpec) -> Value {
    let event = Event::pre_tool_use(ToolCall {
        tool,
        input,
        tool_iterations: 1,
    });
    record_of(&event, &Outcome::new("PreToolUse"), agent, spec)
}

#[test]
fn file_contents_are_dropped_for_every_agent_and_paths_and_commands_stay() {
    let cases = [
        (
            "copilot",
            "create",
            json!({"path": "a.rs", "file_text": "fn main() {}"}),
            json!({"path": "a.rs"}),
        ),
        (
            "copilot",
            "str_replace",
            json!({"path": "a.rs", "old_str": "a", "new_str": "b"}),
            json!({"path": "a.rs"}),
        ),
        (
            "copilot",
            "edit",
            json!({"path": "a.rs", "old_str": "a", "new_str": "b"}),
            json!({"path": "a.rs"}),
        ),
        (
            "cursor",
            "Write",
            json!({"file_path": "a.rs", "contents": "x"}),
            json!({"file_path": "a.rs"}),
        ),
        (
            "codex",
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Add File: a.rs\n+x\n*** End Patch"}),
            json!({}),
        ),
        (
            "gemini",
            "write_file",
            json!({"file_path": "a.rs", "content": "x"}),
            json!({"file_path": "a.rs"}),
        ),
        (
            "gemini",
            "replace",
            json!({"file_path": "a.rs", "old_string": "a", "new_string": "b"}),
            json!({"file_path": "a.rs"}),
        ),
        (
            "claude",
            "MultiEdit",
            json!({"file_path": "a.rs", "edits": [{"old_string": "a", "new_string": "b"}]}),
            json!({"file_path": "a.rs"}),
        ),
        (
            "claude",
            "Bash",
            json!({"command": "cargo test", "description": "tests"}),
            json!({"command": "cargo test", "description": "tests"}),
        ),
        (
            "copilot",
            "bash",
            json!({"command": "ls"}),
            json!({"command": "ls"}),
        ),
    ];
    for (agent, tool, input, kept) in cases {
        let masked = tool_record(agent, tool, &input, &defaults());
        assert_eq!(masked["input"], kept, "{agent} {tool}");
    }
    // Copilot's freeform apply_patch: the input is the patch itself.
    let patch = json!("*** Begin Patch\n*** Add File: a.rs\n+x\n*** End Patch");
    let masked = tool_record("copilot", "apply_patch", &patch, &defaults());
    assert!(masked.get("input").is_none(), "{masked}");

    // Cursor's file events carry their contents in the payload.
    let edit = Event::new("afterFileEdit")
        .with_field("file_path", json!("a.rs"))
        .with_field("edits", json!([{"old_string": "a", "new_string": "b"}]));
    let masked = record_of(&edit, &Outcome::new("afterFileEdit"), "cursor", &defaults());
    assert_eq!(masked["payload"], json!({"file_path": "a.rs"}));
    let read = Event::new("beforeReadFile")
        .with_field("file_path", json!(".env"))
        .with_field("content", json!("DB_PASSWORD=hunter2hunter2"));
    let masked = record_of(
        &read,
        &Outcome::new("beforeReadFile"),
        "cursor",
        &defaults(),
    );
    assert_eq!(masked["payload"], json!({"file_path": ".env"}));
}

#[test]
fn a_log_written_before_drop_contents_keeps_what_it_kept() {
    // An explicit `drop` said everything left out: Copilot's text stays unless asked.
    let spec = crate::config::Config::parse(
        "[log]\npath = \"d.jsonl\"\ndrop = [\"/payload/tool_response\"]\n",
        std::path::Path::new("hooks.toml"),
    )
    .unwrap()
    .log
    .unwrap();
    assert!(!spec.drop_contents);
    let input = json!({"path": "a.rs", "file_text": "fn main() {}"});
    assert_eq!(
        tool_record("copilot", "create", &input, &spec)["input"],
        input
    );
    // ... and says so to have it back.
    let spec = crate::config::Config::parse(
        "[log]\npath = \"d.jsonl\"\ndrop = []\ndrop_contents = true\nredact = false\n",
        std::path::Path::new("hooks.toml"),
    )
    .unwrap()
    .log
    .unwrap();
    assert!(spec.drop_contents && !spec.redact);
    assert_eq!(
        tool_record("copilot", "create", &input, &spec)["input"],
        json!({"path": "a.rs"})
    );
    // A `[log]` with neither: both on.
    let spec = crate::config::Config::parse(
        "[log]\npath = \"d.jsonl\"\n",
        std::path::Path::new("hooks.toml"),
    )
    .unwrap()
    .log
    .unwrap();
    assert!(spec.drop_contents && spec.redact);
}

#[test]
fn secrets_are_redacted_in_inputs_payloads_and_reasons() {
    let token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
    let input = json!({"command": format!("curl -H 'Authorization: token {token}' https://api.github.com")});
    let event = Event::pre_tool_use(ToolCall {
        tool: "Bash",
        input: &input,
        tool_iterations: 1,
    })
    .with_field("prompt_note", json!(format!("use {token}")));
    let mut outcome = Outcome::new("PreToolUse");
    outcome.decision = Decision::Block(Block {
        blocked_by: "secrets".into(),
        reason: format!("the command carries {token}"),
        failure: None,
    });
    let masked = record_of(&event, &outcome, "claude", &defaults());
    let line = masked.to_string();
    assert!(!line.contains(token), "{line}");
    let command = masked["input"]["command"].as_str().unwrap();
    assert!(
        command
            .starts_with("curl -H 'Authorization: token [REDACTED GitHub token ghp_…(40 chars)]'"),
        "{command}"
    );
    assert!(
        masked["payload"]["prompt_note"]
            .as_str()
            .unwrap()
            .contains("[REDACTED GitHub token")
    );
    assert!(
        masked["reason"]
            .as_str()
            .unwrap()
            .contains("[REDACTED GitHub token"),
        "{masked}"
    );

    // Off: the record holds what the agent sent.
    let spec = LogSpec {
        redact: false,
        ..defaults()
    };
    let kept = record_of(&event, &outcome, "claude", &spec);
    assert!(kept["input"]["command"].as_str().unwrap().contains(token));

    // A record with no secret is unchanged by the step.
    let plain = json!({"command": "cargo test --workspace"});
    assert_eq!(
        tool_record("claude", "Bash", &plain, &defaults())["input"],
        plain
    );
}
