//! The contract's rules against a real session directory.

use hook_sdk::{Answer, Event, Hook, ToolCall, testing};
use serde_json::json;

use crate::{Finding, TaskFile, TaskFileCheck};

fn session() -> std::path::PathBuf {
    let root = std::env::temp_dir().join(format!(
        "ralph-task-file-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let session = root.join(".ralph-sessions/260215-173319");
    std::fs::create_dir_all(session.join("iterations/1/tasks")).unwrap();
    std::fs::create_dir_all(session.join("tasks")).unwrap();
    std::fs::write(session.join("iterations/1/tasks/task-1.md"), "# task 1\n").unwrap();
    std::fs::write(session.join("tasks/task-7.md"), "# old layout\n").unwrap();
    std::fs::write(session.join("iterations/1/tasks/task-2.md"), "").unwrap();
    root
}

fn call(prompt: &str) -> Event {
    let input = json!({"subagent_type": "Ralph-v2-Executor", "prompt": prompt});
    Event::new("PreToolUse").with_tool(&ToolCall::new("Task", input))
}

#[test]
fn the_contracts_rules() {
    testing::reset();
    let root = session();
    let cwd = root.to_str().unwrap();
    let cases = [
        (
            "MODE: EXECUTE\nTASK_ID: task-1\nSESSION_PATH: .ralph-sessions/260215-173319/\nITERATION: 1",
            Answer::Allow,
        ),
        (
            "MODE: EXECUTE\nTASK_ID: task-7\nSESSION_PATH: .ralph-sessions/260215-173319/\nITERATION: 1",
            Answer::Allow,
        ),
        (
            "MODE: EXECUTE\nTASK_ID: task-99\nSESSION_PATH: .ralph-sessions/260215-173319/\nITERATION: 1",
            Answer::Block("Task file not found: iterations/1/tasks/task-99.md".into()),
        ),
        (
            "MODE: EXECUTE\nTASK_ID: task-2\nSESSION_PATH: .ralph-sessions/260215-173319/\nITERATION: 1",
            Answer::Warn("Task file is empty: iterations/1/tasks/task-2.md".into()),
        ),
        (
            "MODE: EXECUTE\nTASK_ID: ../../etc/passwd\nSESSION_PATH: .ralph-sessions/260215-173319/",
            Answer::Block("Task id '../../etc/passwd' cannot name a task file".into()),
        ),
        (
            "MODE: EXECUTE\nSESSION_PATH: .ralph-sessions/260215-173319/",
            Answer::Warn(
                "task file not checked: no single TASK_ID in the invocation of Ralph-v2-Executor"
                    .into(),
            ),
        ),
    ];
    for (prompt, expected) in cases {
        let event = call(prompt).with_cwd(cwd);
        assert_eq!(TaskFileCheck::handle(&event).answer, expected, "{prompt}");
    }
    // The session id names the directory when the prompt does not.
    let event = call("MODE: REVIEW\nTASK_ID: task-7")
        .with_cwd(cwd)
        .with_session("260215-173319");
    assert_eq!(TaskFileCheck::handle(&event).answer, Answer::Allow);
    let event = call("MODE: REVIEW\nTASK_ID: task-8")
        .with_cwd(cwd)
        .with_session("260215-173319");
    assert_eq!(
        TaskFileCheck::handle(&event).answer,
        Answer::Block("Task file not found: tasks/task-8.md".into())
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn without_a_view_of_the_project_it_fails_open() {
    let found = TaskFile::default().in_scope("Task", &json!({"subagent_type": "Ralph-v2-Reviewer", "prompt": "TASK_ID: task-1\nSESSION_PATH: s/"})).unwrap();
    let blind = |_: &str| None;
    assert_eq!(
        TaskFile::default().check(&found, "/w", None, &blind),
        Finding::Unknown("cannot see /w: grant the hook read = [\".\"]".into())
    );
    assert!(
        TaskFile::default()
            .in_scope(
                "Task",
                &json!({"subagent_type": "Ralph-v2-Planner", "prompt": "TASK_ID: task-1"})
            )
            .is_none()
    );
}

#[test]
fn bad_options_warn() {
    testing::reset();
    testing::set_config(json!({"session_dir": "x"}));
    let Answer::Warn(reason) = TaskFileCheck::handle(&call("TASK_ID: task-1")).answer else {
        panic!()
    };
    assert!(
        reason.contains("unknown option `session_dir` (did you mean `sessions_dir`?)"),
        "{reason}"
    );
}
