//! What a record keeps of an event under `[log]`'s masks, and what its decision id looks like.

use serde_json::{Value, json};

use super::record;
use crate::config::{DEFAULT_DROP, LogSpec};
use crate::event::{Event, ToolCall};
use crate::outcome::Outcome;

fn spec(drop: &[&str], hash: &[&str]) -> LogSpec {
    LogSpec {
        path: "decisions.jsonl".into(),
        max_bytes: 1 << 20,
        keep: 1,
        required: false,
        drop: drop.iter().map(|p| p.to_string()).collect(),
        hash: hash.iter().map(|p| p.to_string()).collect(),
        location: Default::default(),
    }
}

fn record_of(input: &Value, spec: &LogSpec) -> Value {
    let event = Event::pre_tool_use(ToolCall {
        tool: "Edit",
        input,
        tool_iterations: 1,
    })
    .with_field("transcript_path", json!("/tmp/t.jsonl"));
    record(
        "id",
        &event,
        &Outcome::new("PreToolUse"),
        Some("claude"),
        "/work",
        &|_| None,
        spec,
    )
}

#[test]
fn masks_drop_fields_at_any_depth_and_hash_others() {
    let input = json!({
        "file_path": "src/a/b.rs",
        "content": "secret",
        "edits": [{"old": "x", "new": "y"}, {"old": "p", "new": "q"}],
        "meta": {"a/b": 1, "t~": 2, "keep": 3},
    });
    let masked = record_of(
        &input,
        &spec(
            &[
                "/input/content",
                "/input/edits/0",
                "/input/meta/a~1b",
                "/payload",
            ],
            &[
                "/input/file_path",
                "/input/meta/t~0",
                "/input/missing/deeper",
            ],
        ),
    );
    let digest = |text: &str| {
        use sha2::Digest as _;
        let hex: String = sha2::Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("sha256:{hex}")
    };
    assert_eq!(
        masked["input"],
        json!({
            "file_path": digest("src/a/b.rs"),
            "edits": [{"old": "p", "new": "q"}],
            "meta": {"t~": digest("2"), "keep": 3},
        })
    );
    assert!(masked.get("payload").is_none(), "{masked}");
}

#[test]
fn default_masks_drop_file_contents_and_keep_commands_and_paths() {
    let input = json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"});
    let masked = record_of(&input, &spec(DEFAULT_DROP, &[]));
    assert_eq!(masked["input"], json!({"file_path": "src/a.rs"}));
    assert_eq!(
        masked["payload"],
        json!({"transcript_path": "/tmp/t.jsonl"})
    );
    assert_eq!(masked["agent"], "claude");
    assert_eq!(masked["event"], "PreToolUse");
    assert_eq!(masked["tool"], "Edit");
    assert_eq!(masked["decision"], "allow");
    // Nothing dropped: the input as given.
    let whole = record_of(&input, &spec(&[], &[]));
    assert_eq!(whole["input"], input);
}

#[test]
fn decision_ids_are_uuid_v7_and_sort_by_time_within_a_millisecond() {
    let time = std::time::SystemTime::now();
    let ids: Vec<String> = (0..1000).map(|_| super::new_id(time)).collect();
    for id in &ids {
        let hex: String = id.chars().filter(|c| *c != '-').collect();
        assert_eq!(id.len(), 36, "{id}");
        assert_eq!(hex.len(), 32, "{id}");
        assert_eq!(&id[14..15], "7", "version 7: {id}");
        assert!(
            matches!(&id[19..20], "8" | "9" | "a" | "b"),
            "variant: {id}"
        );
    }
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, ids, "ids of one millisecond count up");
    let later = super::new_id(time + std::time::Duration::from_millis(1));
    assert!(later > ids[999]);
}
