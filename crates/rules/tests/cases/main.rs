//! Table-driven cases, one line each: rules (`action Rule`), a tool call, and what the rules
//! decide (`deny Rule`, `ask Rule`, `allow Rule`, or `none`). The session: working directory
//! `/home/u/project`, home `/home/u`, rules written in `/home/u/project/.forgeflare/hooks.toml`
//! with `/path` patterns anchored at `/home/u/project`.

mod agents;
mod bash;
mod errors;
mod files;
mod web;

use std::path::{Path, PathBuf};

use hookhost_rules::{Action, Call, Origin, Rules, ToolKind};
use serde_json::Value;

pub const CWD: &str = "/home/u/project";
pub const HOME: &str = "/home/u";

/// One case: its name, its rules, the tool, its input (JSON), and the expected decision.
pub type Case<'a> = (&'a str, &'a [&'a str], &'a str, &'a str, &'a str);

/// The rules, each `action Rule` (`deny Bash(rm *)`), in the order written.
pub fn rules(lines: &[&str]) -> Rules {
    let mut rules = Rules::new();
    for (i, line) in lines.iter().enumerate() {
        let (action, text) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("`{line}`: action, then rule"));
        let action = match action {
            "deny" => Action::Deny,
            "ask" => Action::Ask,
            "allow" => Action::Allow,
            other => panic!("`{other}` is not an action"),
        };
        let origin = Origin {
            file: PathBuf::from(CWD).join(".forgeflare/hooks.toml"),
            line: i as u32 + 1,
            column: 1,
            dir: PathBuf::from(CWD),
        };
        rules
            .add(action, text, &format!("reason {}", i + 1), origin)
            .unwrap_or_else(|error| panic!("`{text}`: {error}"));
    }
    rules
}

/// What `rules` decide for `tool` called with `input` (and `kind`, if known).
pub fn decide(rules: &Rules, tool: &str, input: &str, kind: Option<ToolKind>) -> String {
    let input: Value =
        serde_json::from_str(input).unwrap_or_else(|error| panic!("{input}: {error}"));
    let call = Call {
        tool,
        input: &input,
        kind,
        cwd: Path::new(CWD),
        home: Some(Path::new(HOME)),
    };
    match rules.evaluate(&call) {
        None => "none".to_string(),
        Some(verdict) => format!("{} {}", verdict.action.as_str(), verdict.rule.text()),
    }
}

/// Runs a table; every failing case is reported, not only the first.
pub fn run(cases: &[Case<'_>], kind: Option<ToolKind>) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(name, lines, tool, input, expected)| {
            let got = decide(&rules(lines), tool, input, kind);
            (got != *expected).then(|| format!("{name}: {tool} {input} under {lines:?}\n    expected {expected}\n    got      {got}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn verdicts_carry_the_reason_the_origin_and_what_matched() {
    let rules = rules(&[
        "deny Bash(rm:*)",
        "allow Bash(git status)",
        "allow Bash(npm test *)",
    ]);
    let input = serde_json::json!({"command": "git status && rm -rf build"});
    let call = Call {
        tool: "bash",
        input: &input,
        kind: None,
        cwd: Path::new(CWD),
        home: Some(Path::new(HOME)),
    };
    let verdict = rules.evaluate(&call).expect("the deny holds");
    assert_eq!(
        (
            verdict.action,
            verdict.reason,
            verdict.origin.line,
            verdict.matched.as_str()
        ),
        (Action::Deny, "reason 1", 1, "rm -rf build")
    );
    assert_eq!(
        verdict.origin.to_string(),
        format!("{CWD}/.forgeflare/hooks.toml:1:1")
    );
    let input = serde_json::json!({"command": "git status; npm test -- -x"});
    let call = Call {
        input: &input,
        ..call
    };
    let verdict = rules.evaluate(&call).expect("every command is allowed");
    assert_eq!(
        (
            verdict.action,
            verdict.rule.text(),
            verdict.matched.as_str()
        ),
        (
            Action::Allow,
            "Bash(git status)",
            "git status; npm test -- -x"
        )
    );
}
