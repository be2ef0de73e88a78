//! Outcomes and replies for the formats' table-driven tests.

use std::time::Duration;

use serde_json::Value;

use super::{AgentEvent, AgentFormat, AgentReply, render_outcome};
use crate::event::Phase;
use crate::outcome::merge::merge;
use crate::outcome::{HookReport, Outcome};
use crate::verdict::Verdict;

/// The outcome of `verdicts`, by hook name, merged as the runner merges them.
pub(crate) fn outcome(event: &str, verdicts: &[(&str, Verdict)]) -> Outcome {
    let mut outcome = Outcome::new(event);
    for (index, (hook, verdict)) in verdicts.iter().enumerate() {
        merge(&mut outcome, hook, verdict);
        outcome.reports.push(HookReport {
            name: hook.to_string(),
            index,
            event: event.to_string(),
            phase: Phase::Guard,
            kind: "native",
            background: false,
            mode: crate::config::Mode::Enforce,
            duration: Duration::ZERO,
            result: Ok(verdict.clone()),
            stderr: String::new(),
            stderr_truncated: false,
        });
    }
    outcome
}

/// What `format` answers for `outcome` on `event` (hookhost's name), about a tool call with
/// `input` when given.
pub(crate) fn reply(
    format: AgentFormat,
    event: &str,
    input: Option<&Value>,
    outcome: &Outcome,
) -> AgentReply {
    let event = AgentEvent {
        format,
        name: event.to_string(),
        session_id: None,
        cwd: None,
        tool: input.map(|input| ("Bash".to_string(), input.clone())),
        fields: Vec::new(),
    };
    render_outcome(&event, outcome)
}

/// Asserts `got` is `expected`: stdout compared as JSON (key order aside), stderr and the
/// exit status as they are.
pub(crate) fn assert_reply(name: &str, got: &AgentReply, expected: (&str, &str, u8)) {
    if expected.2 == 2 {
        assert_eq!(
            (got.stdout.as_str(), got.stderr.as_str(), got.exit_code),
            expected,
            "{name}"
        );
        return;
    }
    let json = |text: &str| -> Option<Value> {
        (!text.is_empty())
            .then(|| serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}: {text}")))
    };
    assert_eq!(
        json(&got.stdout),
        json(expected.0),
        "{name}: stdout {}",
        got.stdout
    );
    assert_eq!(
        (got.stderr.as_str(), got.exit_code),
        (expected.1, expected.2),
        "{name}"
    );
}
