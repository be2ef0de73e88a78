//! The test file's reading, one line per case: what a case becomes, and what is refused.

use serde_json::json;

use super::{CaseEvent, CaseFile};
use crate::dialect::AgentFormat;

/// A directory with a hooks.toml (the default project layer) and a `.forgeflare` one.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hooks.toml"), "").unwrap();
    std::fs::create_dir(dir.path().join(".forgeflare")).unwrap();
    std::fs::write(dir.path().join(".forgeflare/hooks.toml"), "").unwrap();
    dir
}

fn one_case(dir: &std::path::Path, file: &str, text: &str) -> super::Case {
    let path = dir.join(file);
    let file = CaseFile::parse(text, &path).unwrap_or_else(|e| panic!("{e}"));
    file.cases.into_iter().next().unwrap()
}

#[test]
fn a_case_becomes_an_event_in_hookhosts_terms() {
    let dir = project();
    let case = one_case(
        dir.path(),
        "hooks.test.toml",
        r#"[[cases]]
name = "n"
event = "PostToolUse"
tool = "Bash"
input = '{"command": "cargo test"}'
payload = { result = "ok", is_error = false, n = 3 }
session_id = "s1"
env = { LEVEL = "strict" }
expect = { signals = [] }
"#,
    );
    let CaseEvent::Fields {
        name,
        tool,
        payload,
        session_id,
    } = case.event
    else {
        panic!("{:?}", case.event)
    };
    assert_eq!(name, "PostToolUse");
    assert_eq!(
        tool,
        Some(("Bash".to_string(), json!({"command": "cargo test"})))
    );
    assert_eq!(
        payload,
        [
            ("is_error".to_string(), json!(false)),
            ("n".to_string(), json!(3)),
            ("result".to_string(), json!("ok"))
        ]
    );
    assert_eq!(session_id.as_deref(), Some("s1"));
    assert_eq!(case.env, [("LEVEL".to_string(), "strict".to_string())]);
    assert_eq!(case.expect.signals, Some(Vec::new()));
    // The project's hooks.toml beside the file; hooks run in its directory.
    assert_eq!(case.layers.project, Some(dir.path().join("hooks.toml")));
    assert_eq!(case.cwd, dir.path());
}

#[test]
fn an_agents_case_takes_its_own_names_and_its_json() {
    let dir = project();
    // Beside .forgeflare/hooks.toml, the project is the directory above.
    let case = one_case(
        dir.path(),
        ".forgeflare/hooks.test.toml",
        "[[cases]]\nname = \"n\"\nagent = \"gemini\"\nevent = \"BeforeTool\"\ntool = \"run_shell_command\"\nexpect.decision = \"allow\"\n",
    );
    assert_eq!(case.agent, Some(AgentFormat::Gemini));
    assert!(matches!(&case.event, CaseEvent::Fields { name, .. } if name == "PreToolUse"));
    assert_eq!(case.cwd, dir.path());
    // hookhost's name, the agent's own, and a custom one.
    for (format, given, name) in [
        ("claude", "PreToolUse", "PreToolUse"),
        ("copilot", "preToolUse", "PreToolUse"),
        ("gemini", "PreToolUse", "PreToolUse"),
        ("claude", "deploy:prod", "deploy:prod"),
    ] {
        let case = one_case(
            dir.path(),
            "hooks.test.toml",
            &format!(
                "[[cases]]\nname = \"n\"\nagent = \"{format}\"\nevent = \"{given}\"\ntool = \"x\"\nexpect.decision = \"allow\"\n"
            ),
        );
        assert!(
            matches!(&case.event, CaseEvent::Fields { name: got, .. } if got == name),
            "{format} {given}: {:?}",
            case.event
        );
    }
    let case = one_case(
        dir.path(),
        "hooks.test.toml",
        "[[cases]]\nname = \"n\"\nagent = \"claude\"\nstdin = { hook_event_name = \"Stop\", stop_hook_active = false }\nexpect.reply = { exit_code = 0 }\n",
    );
    let CaseEvent::Stdin { text, event } = &case.event else {
        panic!("{:?}", case.event)
    };
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).unwrap(),
        json!({"hook_event_name": "Stop", "stop_hook_active": false})
    );
    assert_eq!(event, &None);
}

#[test]
fn what_could_pass_without_checking_anything_is_refused() {
    let dir = project();
    #[rustfmt::skip]
    let cases = [
        ("no cases", "", "this file holds no `[[cases]]`"),
        ("cases not tables", "cases = [1]", "a case must be a table, found integer"),
        ("no expect", "[[cases]]\nname = \"n\"\nevent = \"Stop\"\n", "a case needs an `expect` table"),
        ("an empty expect", "[[cases]]\nname = \"n\"\nevent = \"Stop\"\nexpect = {}\n", "`expect` checks nothing"),
        ("a missing layer", "[layers]\nproject = \"nope.toml\"\n[[cases]]\nname = \"n\"\nevent = \"Stop\"\nexpect.decision = \"allow\"\n", "which is not a file (a layer that is not there must not mean \"no hooks\")"),
        ("a misspelt event", "[[cases]]\nname = \"n\"\nevent = \"Stpo\"\nexpect.decision = \"allow\"\n", "did you mean \"Stop\"?"),
        ("an agent's misspelt event", "[[cases]]\nname = \"n\"\nagent = \"gemini\"\nevent = \"BeforeTol\"\nexpect.decision = \"allow\"\n", "did you mean BeforeTool?"),
        ("a tool event without its tool", "[[cases]]\nname = \"n\"\nevent = \"PreToolUse\"\nexpect.decision = \"allow\"\n", "a PreToolUse case names its tool"),
        ("input without a tool", "[[cases]]\nname = \"n\"\nevent = \"deploy\"\ninput = {}\nexpect.decision = \"allow\"\n", "`input` is a tool's input: add `tool`"),
        ("input that is not an object", "[[cases]]\nname = \"n\"\nevent = \"PreToolUse\"\ntool = \"Bash\"\ninput = '[1]'\nexpect.decision = \"allow\"\n", "`input` must be a JSON object, found [1]"),
        ("hook_failed on an allow", "[[cases]]\nname = \"n\"\nevent = \"Stop\"\nexpect = { decision = \"ask\", hook_failed = true }\n", "`hook_failed` cannot hold with decision = \"ask\""),
        ("a reply without an agent", "[[cases]]\nname = \"n\"\nevent = \"Stop\"\nexpect.reply = { exit_code = 0 }\n", "`expect.reply` is what an agent reads back"),
        ("an exit code out of range", "[[cases]]\nname = \"n\"\nagent = \"claude\"\nevent = \"Stop\"\nexpect.reply = { exit_code = 256 }\n", "`exit_code` must be a whole number from 0 to 255"),
        ("a cwd that is not there", "cwd = \"nowhere\"\n[[cases]]\nname = \"n\"\nevent = \"Stop\"\nexpect.decision = \"allow\"\n", "`cwd` names"),
        ("syntax", "[[cases]\n", "TOML syntax error"),
    ];
    for (name, text, expected) in cases {
        let error = CaseFile::parse(text, dir.path().join("hooks.test.toml"))
            .err()
            .unwrap_or_else(|| panic!("{name}: accepted"))
            .to_string();
        assert!(error.contains(expected), "{name}: {error}");
    }
}
