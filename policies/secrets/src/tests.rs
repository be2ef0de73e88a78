//! Each event, each action, the allow list, bad options; never the secret in an answer.

use hook_sdk::{Answer, Event, Hook, ToolCall, Verdict, testing};
use serde_json::json;

use crate::{Secrets, SecretsPolicy};

fn token() -> String {
    format!("{}{}", "ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789")
}

fn answer(event: &Event) -> Answer {
    SecretsPolicy::handle(event).answer
}

fn assert_secret_free(verdict: &Verdict) {
    let text = format!("{verdict:?}");
    assert!(!text.contains(&token()[4..]), "{text}");
}

#[test]
fn each_event_is_scanned_where_its_text_is() {
    testing::reset();
    let prompt =
        Event::new("UserPromptSubmit").with_field("prompt", format!("use {} to push", token()));
    assert_eq!(
        answer(&prompt),
        Answer::Block("secret in the prompt: GitHub token ghp_…(40 chars)".into())
    );

    let call = ToolCall::bash_command(&format!(
        "curl -H 'Authorization: token {}' https://api.github.com",
        token()
    ));
    let pre = Event::new("PreToolUse").with_tool(&call);
    assert_eq!(
        answer(&pre),
        Answer::Block("secret in the Bash input: GitHub token ghp_…(40 chars)".into())
    );

    let write = ToolCall::new(
        "write_file",
        json!({"file_path": ".env", "content": format!("DB_PASSWORD=Xk9#mP2$qL7v\nTOKEN={}", token())}),
    );
    let pre = Event::new("PreToolUse").with_tool(&write);
    assert_eq!(
        answer(&pre),
        Answer::Block(
            "secret in the write_file input: secret assignment …(12 chars) and 1 more".into()
        )
    );

    let post = Event::new("PostToolUse")
        .with_tool(&ToolCall::bash_command("cat ~/.aws/credentials"))
        .with_field(
            "result",
            format!("aws_access_key_id = {}{}", "AKIA", "IOSFODNN7EXAMPLQ"),
        );
    assert_eq!(
        answer(&post),
        Answer::Block("secret in the Bash output: AWS access key AKIA…(20 chars)".into())
    );

    let removal = ToolCall::new(
        "Edit",
        json!({"file_path": "src/config.rs", "old_string": format!("let token = \"{}\";", token()), "new_string": "let token = std::env::var(\"GITHUB_TOKEN\")?;"}),
    );
    assert_eq!(
        answer(&Event::new("PreToolUse").with_tool(&removal)),
        Answer::Allow
    );

    let clean = Event::new("PreToolUse").with_tool(&ToolCall::bash_command("cargo test"));
    assert_eq!(answer(&clean), Answer::Allow);
    let start = Event::new("SessionStart");
    assert_eq!(answer(&start), Answer::Allow);
}

#[test]
fn action_chooses_the_answer_and_ask_falls_back_to_block_where_no_one_can_ask() {
    testing::reset();
    let pre =
        Event::new("PreToolUse").with_tool(&ToolCall::bash_command(&format!("echo {}", token())));
    let prompt = Event::new("UserPromptSubmit").with_field("prompt", token());
    testing::set_config(json!({"action": "ask"}));
    assert!(matches!(answer(&pre), Answer::Ask(_)));
    assert!(matches!(answer(&prompt), Answer::Block(_)));
    testing::set_config(json!({"action": "warn"}));
    let verdict = SecretsPolicy::handle(&prompt);
    assert!(matches!(verdict.answer, Answer::Warn(_)));
    assert_secret_free(&verdict);
}

#[test]
fn allow_takes_patterns_and_kinds() {
    let secrets = Secrets::from_config(r#"{"allow": ["AKIA*EXAMPLE", "kind:JWT"]}"#).unwrap();
    assert!(secrets.scan("key AKIAIOSFODNN7EXAMPLE").is_empty());
    assert!(
        secrets
            .scan(&format!(
                "{}{}",
                "eyJhbGciOiJIUzI1NiJ9.", "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"
            ))
            .is_empty()
    );
    assert_eq!(secrets.scan(&token()).len(), 1);
}

#[test]
fn bad_options_block_naming_the_option() {
    let cases = [
        (
            json!({"acton": "warn"}),
            "unknown option `acton` (did you mean `action`?); the options are: action, allow",
        ),
        (
            json!({"action": "wran"}),
            "option `action` is `wran` (did you mean `warn`?); it takes one of: block, ask, warn",
        ),
        (
            json!({"allow": "AKIA*"}),
            "option `allow` must be a list of strings, not a string (\"AKIA*\")",
        ),
        (
            json!({"allow": ["kind:JTW"]}),
            "unknown kind `JTW` in `allow` (did you mean `JWT`?)",
        ),
    ];
    for (config, message) in cases {
        testing::reset();
        testing::set_config(config);
        let Answer::Block(reason) =
            answer(&Event::new("UserPromptSubmit").with_field("prompt", "hello"))
        else {
            panic!("{message}: not blocked")
        };
        assert!(reason.contains(message), "{reason}");
        assert!(
            reason.starts_with("policy secrets is misconfigured"),
            "{reason}"
        );
    }
}
