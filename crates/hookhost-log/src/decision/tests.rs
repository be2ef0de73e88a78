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
        // What an explicit `drop` means on its own: exactly these pointers.
        drop_contents: false,
        redact: false,
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

#[test]
fn only_hookhosts_own_logs_are_written_rotated_or_replaced() {
    use super::DecisionFile;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.jsonl");
    let foreign = "export PATH=/usr/bin\n";
    // A file that is not a log, where the log goes: neither appended to nor rotated aside.
    std::fs::write(&path, foreign).unwrap();
    let file = DecisionFile::new(path.clone(), 64, 1);
    let error = file.append(br#"{"id":"a"}"#).unwrap_err().to_string();
    assert!(
        error.contains("exists and is not a hookhost decision log"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), foreign);
    assert!(!file.rotated(1).exists());

    // A log whose rotation would replace a file that is not one: refused, nothing moved.
    std::fs::write(&path, "{\"id\":\"old\"}\n").unwrap();
    std::fs::write(file.rotated(1), foreign).unwrap();
    let error = file.append(&[b'x'; 80]).unwrap_err().to_string();
    assert!(
        error.contains(".1 exists and is not a hookhost decision log"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(file.rotated(1)).unwrap(), foreign);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"id\":\"old\"}\n"
    );

    // A log cut inside its first key, or spaced, is still a log.
    for start in ["{\"i", "{ \"id\": \"x", "{"] {
        std::fs::write(&path, start).unwrap();
        DecisionFile::new(path.clone(), 1 << 20, 1)
            .append(br#"{"id":"b"}"#)
            .unwrap_or_else(|e| panic!("{start:?}: {e}"));
    }

    // A project's log is not followed through a link.
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(dir.path().join("target.jsonl"), &link).unwrap();
    let error = DecisionFile::new(link.clone(), 1 << 20, 1)
        .without_following_links()
        .append(br#"{"id":"c"}"#)
        .unwrap_err()
        .to_string();
    assert!(error.contains("is a symbolic link"), "{error}");
    assert!(!dir.path().join("target.jsonl").exists());
}
