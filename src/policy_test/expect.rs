//! What a case expects, compared with what came out: one [`Mismatch`] per thing that differs,
//! each with its expected and actual values, and a line diff of the two for a report.

use serde_json::Value;

use super::Expect;
use crate::agent::AgentReply;
use crate::outcome::{Decision, Outcome};

/// One thing that came out other than the case expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// What was compared: `decision`, `by`, `reason`, `ran`, `reply.json`, ...
    pub key: String,
    /// What the case expects.
    pub expected: String,
    /// What came out.
    pub actual: String,
}

impl Mismatch {
    fn new(key: &str, expected: impl Into<String>, actual: impl Into<String>) -> Mismatch {
        Mismatch {
            key: key.to_string(),
            expected: expected.into(),
            actual: actual.into(),
        }
    }

    /// Expected and actual as diff lines: `- expected`, `+ actual`; values of several lines
    /// (JSON) line by line, the lines they share kept with two spaces.
    pub fn diff(&self) -> Vec<String> {
        let expected: Vec<&str> = self.expected.lines().collect();
        let actual: Vec<&str> = self.actual.lines().collect();
        line_diff(&expected, &actual)
    }
}

/// Every way `outcome` (and the agent's `reply`) differs from `expect`.
pub(super) fn compare(
    expect: &Expect,
    outcome: &Outcome,
    reply: Option<&AgentReply>,
) -> Vec<Mismatch> {
    let mut found = Vec::new();
    let message = match &outcome.decision {
        Decision::Block(block) => block.message(),
        Decision::Ask(notice) | Decision::Warn(notice) => notice.reason.clone(),
        Decision::Approve(_) | Decision::Allow => String::new(),
    };
    if let Some(decision) = &expect.decision
        && decision != outcome.decision.kind()
    {
        let actual = match message.is_empty() {
            true => outcome.decision.kind().to_string(),
            false => format!("{}: {message}", outcome.decision.kind()),
        };
        found.push(Mismatch::new("decision", decision, actual));
    }
    let decided_by = match &outcome.decision {
        Decision::Block(block) => Some(block.blocked_by.as_str()),
        Decision::Ask(notice) | Decision::Warn(notice) | Decision::Approve(notice) => {
            Some(notice.by.as_str())
        }
        Decision::Allow => None,
    };
    if let Some(by) = &expect.by
        && Some(by.name.as_str()) != decided_by
    {
        found.push(Mismatch::new(
            "by",
            &by.name,
            decided_by.unwrap_or("(nobody: allowed)"),
        ));
    }
    for text in &expect.reason {
        if !message.contains(text.as_str()) {
            found.push(Mismatch::new(
                "reason",
                format!("contains {}", crate::text::quote(text)),
                shown(&message),
            ));
        }
    }
    if let Some(failed) = expect.hook_failed {
        let actual = outcome.block().map(|block| block.failure.is_some());
        if actual != Some(failed) {
            found.push(Mismatch::new(
                "hook_failed",
                failed.to_string(),
                actual.map_or("(not a block)".to_string(), |a| a.to_string()),
            ));
        }
    }
    if let Some(input) = &expect.updated_input
        && outcome.updated_input.as_ref() != Some(input)
    {
        found.push(Mismatch::new(
            "updated_input",
            pretty(input),
            outcome
                .updated_input
                .as_ref()
                .map_or("(not rewritten)".to_string(), pretty),
        ));
    }
    let context = outcome.context_text().unwrap_or_default();
    for text in &expect.context {
        if !context.contains(text.as_str()) {
            found.push(Mismatch::new(
                "context",
                format!("contains {}", crate::text::quote(text)),
                shown(&context),
            ));
        }
    }
    if let Some(signals) = &expect.signals {
        let raised: Vec<&str> = outcome.signals.iter().map(|s| s.signal.as_str()).collect();
        if raised != *signals {
            found.push(Mismatch::new(
                "signals",
                format!("{signals:?}"),
                format!("{raised:?}"),
            ));
        }
    }
    let ran: Vec<&str> = outcome
        .reports
        .iter()
        .filter(|report| !matches!(report.kind, "held" | crate::outcome::SKIPPED))
        .map(|report| report.name.as_str())
        .collect();
    for named in &expect.ran {
        if !ran.contains(&named.name.as_str()) {
            found.push(Mismatch::new(
                "ran",
                format!("{} ran", named.name),
                format!("it did not (ran: {})", list(&ran)),
            ));
        }
    }
    for named in &expect.did_not_run {
        if ran.contains(&named.name.as_str()) {
            found.push(Mismatch::new(
                "did_not_run",
                format!("{} did not run", named.name),
                format!("it ran (ran: {})", list(&ran)),
            ));
        }
    }
    if let (Some(expected), Some(reply)) = (&expect.reply, reply) {
        compare_reply(expected, reply, &mut found);
    }
    found
}

fn compare_reply(expected: &super::ExpectReply, reply: &AgentReply, found: &mut Vec<Mismatch>) {
    if let Some(code) = expected.exit_code
        && code != reply.exit_code
    {
        found.push(Mismatch::new(
            "reply.exit_code",
            code.to_string(),
            reply.exit_code.to_string(),
        ));
    }
    if let Some(json) = &expected.json {
        match serde_json::from_str::<Value>(&reply.stdout) {
            Ok(actual) if holds(&actual, json) => {}
            Ok(actual) => found.push(Mismatch::new("reply.json", pretty(json), pretty(&actual))),
            Err(_) => found.push(Mismatch::new(
                "reply.json",
                pretty(json),
                format!("(stdout is not JSON) {}", shown(&reply.stdout)),
            )),
        }
    }
    for (key, texts, actual) in [
        ("reply.stdout", &expected.stdout, &reply.stdout),
        ("reply.stderr", &expected.stderr, &reply.stderr),
    ] {
        for text in texts {
            if !actual.contains(text.as_str()) {
                found.push(Mismatch::new(
                    key,
                    format!("contains {}", crate::text::quote(text)),
                    shown(actual),
                ));
            }
        }
    }
}

/// Whether `actual` has every key and value of `expected` (objects may hold more keys;
/// arrays and scalars are compared whole, element by element).
fn holds(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => expected
            .iter()
            .all(|(key, value)| actual.get(key).is_some_and(|found| holds(found, value))),
        (Value::Array(actual), Value::Array(expected)) => {
            actual.len() == expected.len() && actual.iter().zip(expected).all(|(a, e)| holds(a, e))
        }
        _ => actual == expected,
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Text that came out, on one line, or `(empty)`.
fn shown(text: &str) -> String {
    match text.is_empty() {
        true => "(empty)".to_string(),
        false => crate::text::one_line(text),
    }
}

fn list(names: &[&str]) -> String {
    match names.is_empty() {
        true => "none".to_string(),
        false => names.join(", "),
    }
}

/// `- ` for lines only `expected` has, `+ ` for lines only `actual` has, two spaces for the
/// lines both keep (a longest common subsequence; values are a few hundred lines at most, and
/// longer ones are shown whole).
fn line_diff(expected: &[&str], actual: &[&str]) -> Vec<String> {
    const MAX_LINES: usize = 400;
    if expected.len() > MAX_LINES || actual.len() > MAX_LINES {
        let mut out: Vec<String> = expected.iter().map(|line| format!("- {line}")).collect();
        out.extend(actual.iter().map(|line| format!("+ {line}")));
        return out;
    }
    let (n, m) = (expected.len(), actual.len());
    // common[i][j]: the longest common subsequence of expected[i..] and actual[j..].
    let mut common = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            common[i][j] = if expected[i] == actual[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && expected[i] == actual[j] {
            out.push(format!("  {}", expected[i]));
            i += 1;
            j += 1;
        } else if j == m || (i < n && common[i + 1][j] >= common[i][j + 1]) {
            out.push(format!("- {}", expected[i]));
            i += 1;
        } else {
            out.push(format!("+ {}", actual[j]));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_reply_holds_the_keys_it_is_expected_to() {
        let actual = json!({"hookSpecificOutput": {"permissionDecision": "deny", "reason": "x"}, "continue": true});
        #[rustfmt::skip]
        let cases = [
            ("a nested key", json!({"hookSpecificOutput": {"permissionDecision": "deny"}}), true),
            ("nothing", json!({}), true),
            ("another value", json!({"hookSpecificOutput": {"permissionDecision": "allow"}}), false),
            ("a missing key", json!({"systemMessage": "x"}), false),
            ("a scalar for an object", json!({"hookSpecificOutput": "deny"}), false),
        ];
        for (name, expected, holds_) in cases {
            assert_eq!(holds(&actual, &expected), holds_, "{name}");
        }
        assert!(holds(&json!([1, {"a": 1, "b": 2}]), &json!([1, {"a": 1}])));
        assert!(!holds(&json!([1, 2]), &json!([1])), "arrays compare whole");
    }

    #[test]
    fn a_diff_keeps_the_lines_both_share() {
        let mismatch = Mismatch::new(
            "updated_input",
            pretty(&json!({"command": "ls", "timeout": 5})),
            pretty(&json!({"command": "ls -la", "timeout": 5})),
        );
        assert_eq!(
            mismatch.diff(),
            [
                "  {",
                "-   \"command\": \"ls\",",
                "+   \"command\": \"ls -la\",",
                "    \"timeout\": 5",
                "  }"
            ]
        );
        assert_eq!(
            Mismatch::new("decision", "allow", "block: blocked by g: no").diff(),
            ["- allow", "+ block: blocked by g: no"]
        );
    }
}
