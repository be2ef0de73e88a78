//! The outcome as JSON out: every field of [`Outcome`], in one documented shape that the C
//! ABI, Go, Python and Node packages all map (docs/embedding.md, "The outcome's JSON").
//!
//! Serialized straight from borrowed views of the outcome (no `Value` tree in between): this
//! is on every call an embedder makes.

use serde::Serialize;
use serde_json::Value;

use crate::outcome::{Decision, HookReport, Notice, Outcome};
use crate::runner::Flushed;
use crate::verdict::{HookFailure, Signal, Verdict};

/// The outcome as JSON (the shape is documented in docs/embedding.md).
pub fn outcome_json(outcome: &Outcome) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    // Strings and `Value`s always serialize into memory.
    serde_json::to_writer(&mut out, &OutcomeJson::of(outcome)).expect("an outcome serializes");
    out
}

/// The outcome as a JSON value, for an embedder that hands a tree to its language.
pub fn outcome_value(outcome: &Outcome) -> Value {
    serde_json::to_value(OutcomeJson::of(outcome)).expect("an outcome serializes")
}

/// What [`HookRunner::flush`](hookhost_core::Runner::flush) found, as JSON: `{"reports": [...], "pending": n}`, each
/// report in the outcome's `reports` shape.
pub fn flushed_json(flushed: &Flushed) -> Vec<u8> {
    #[derive(Serialize)]
    struct FlushedJson<'a> {
        reports: Vec<ReportJson<'a>>,
        pending: usize,
    }
    let json = FlushedJson {
        reports: flushed.reports.iter().map(ReportJson::of).collect(),
        pending: flushed.pending,
    };
    serde_json::to_vec(&json).expect("reports serialize")
}

#[derive(Serialize)]
struct OutcomeJson<'a> {
    event: &'a str,
    decision: DecisionJson<'a>,
    allowed: bool,
    updated_input: Option<&'a Value>,
    context: Vec<ContextJson<'a>>,
    context_text: Option<String>,
    stop: Option<NoticeJson<'a>>,
    notices: Vec<NoticeJson<'a>>,
    signals: &'a [Signal],
    monitored: Vec<DecisionJson<'a>>,
    reports: Vec<ReportJson<'a>>,
    warnings: &'a [String],
    final_written: bool,
}

impl<'a> OutcomeJson<'a> {
    fn of(outcome: &'a Outcome) -> OutcomeJson<'a> {
        OutcomeJson {
            event: &outcome.event,
            decision: DecisionJson::of(&outcome.decision),
            allowed: outcome.is_allowed(),
            updated_input: outcome.updated_input.as_ref(),
            context: outcome
                .context
                .iter()
                .map(|notice| ContextJson {
                    by: &notice.by,
                    text: &notice.reason,
                })
                .collect(),
            context_text: outcome.context_text(),
            stop: outcome.stop.as_ref().map(NoticeJson::of),
            notices: outcome.notices.iter().map(NoticeJson::of).collect(),
            signals: &outcome.signals,
            monitored: outcome.monitored.iter().map(DecisionJson::of).collect(),
            reports: outcome.reports.iter().map(ReportJson::of).collect(),
            warnings: &outcome.warnings,
            final_written: outcome.final_written,
        }
    }
}

#[derive(Serialize)]
struct DecisionJson<'a> {
    kind: &'static str,
    by: Option<&'a str>,
    reason: Option<&'a str>,
    /// A block's message, as the model sees it (forgeflare's spec fixes its words).
    message: Option<String>,
    failure: Option<FailureJson>,
}

impl<'a> DecisionJson<'a> {
    fn of(decision: &'a Decision) -> DecisionJson<'a> {
        let (by, reason) = match decision {
            Decision::Allow => (None, None),
            Decision::Approve(notice) => (Some(notice.by.as_str()), None),
            Decision::Warn(notice) | Decision::Ask(notice) => {
                (Some(notice.by.as_str()), Some(notice.reason.as_str()))
            }
            Decision::Block(block) => {
                (Some(block.blocked_by.as_str()), Some(block.reason.as_str()))
            }
        };
        let (message, failure) = match decision {
            Decision::Block(block) => (
                Some(block.message()),
                block.failure.as_ref().map(FailureJson::of),
            ),
            _ => (None, None),
        };
        DecisionJson {
            kind: decision.kind(),
            by,
            reason,
            message,
            failure,
        }
    }
}

#[derive(Serialize)]
struct FailureJson {
    kind: &'static str,
    message: String,
    detail: String,
}

impl FailureJson {
    fn of(failure: &HookFailure) -> FailureJson {
        FailureJson {
            kind: failure.kind(),
            message: failure.to_string(),
            detail: failure.detailed(),
        }
    }
}

#[derive(Serialize)]
struct NoticeJson<'a> {
    by: &'a str,
    reason: &'a str,
}

impl<'a> NoticeJson<'a> {
    fn of(notice: &'a Notice) -> NoticeJson<'a> {
        NoticeJson {
            by: &notice.by,
            reason: &notice.reason,
        }
    }
}

#[derive(Serialize)]
struct ContextJson<'a> {
    by: &'a str,
    text: &'a str,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    name: &'a str,
    index: usize,
    event: &'a str,
    phase: &'static str,
    kind: &'static str,
    #[serde(rename = "async")]
    background: bool,
    mode: &'static str,
    duration_us: u64,
    verdict: Option<VerdictJson<'a>>,
    failure: Option<FailureJson>,
    stderr: &'a str,
    stderr_truncated: bool,
}

impl<'a> ReportJson<'a> {
    fn of(report: &'a HookReport) -> ReportJson<'a> {
        let (verdict, failure) = match &report.result {
            Ok(verdict) => (Some(VerdictJson::of(verdict)), None),
            Err(failure) => (None, Some(FailureJson::of(failure))),
        };
        ReportJson {
            name: &report.name,
            index: report.index,
            event: &report.event,
            phase: report.phase.as_str(),
            kind: report.kind,
            background: report.background,
            mode: report.mode.as_str(),
            duration_us: u64::try_from(report.duration.as_micros()).unwrap_or(u64::MAX),
            verdict,
            failure,
            stderr: &report.stderr,
            stderr_truncated: report.stderr_truncated,
        }
    }
}

#[derive(Serialize)]
struct VerdictJson<'a> {
    answer: &'static str,
    reason: Option<&'a str>,
    updated_input: Option<&'a Value>,
    context: Option<&'a str>,
    stop: Option<&'a str>,
    signal: Option<&'a Signal>,
    message: Option<&'a str>,
    note: Option<&'a str>,
}

impl<'a> VerdictJson<'a> {
    fn of(verdict: &'a Verdict) -> VerdictJson<'a> {
        VerdictJson {
            answer: verdict.answer.kind(),
            reason: verdict.answer.reason(),
            updated_input: verdict.updated_input.as_ref(),
            context: verdict.context.as_deref(),
            stop: verdict.stop.as_deref(),
            signal: verdict.signal.as_ref(),
            message: verdict.message.as_deref(),
            note: verdict.note.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::event::Phase;
    use crate::outcome::Block;
    use crate::verdict::Mode;

    fn report(result: Result<Verdict, HookFailure>) -> HookReport {
        HookReport {
            name: "g".into(),
            index: 0,
            event: "PreToolUse".into(),
            phase: Phase::Guard,
            kind: "native",
            background: false,
            mode: Mode::Enforce,
            duration: Duration::from_micros(42),
            result,
            stderr: "log line\n".into(),
            stderr_truncated: false,
        }
    }

    #[test]
    fn every_field_of_an_outcome_crosses() {
        let mut outcome = Outcome::new("PreToolUse");
        outcome.decision = Decision::Block(Block::decided("guard", "rm -rf /".into()));
        outcome.updated_input = Some(json!({"command": "ls"}));
        outcome.context = vec![
            Notice {
                by: "a".into(),
                reason: "one".into(),
            },
            Notice {
                by: "b".into(),
                reason: "two".into(),
            },
        ];
        outcome.stop = Some(Notice {
            by: "s".into(),
            reason: "enough".into(),
        });
        outcome.notices = vec![Notice {
            by: "w".into(),
            reason: "careful".into(),
        }];
        outcome.signals = vec![Signal {
            signal: "converged".into(),
            reason: "3 runs".into(),
        }];
        outcome.monitored = vec![Decision::Ask(Notice {
            by: "m".into(),
            reason: "sure?".into(),
        })];
        outcome.reports = vec![
            report(Ok(
                Verdict::block("rm -rf /").with_updated_input(json!({"command": "ls"}))
            )),
            report(Err(HookFailure::TimedOut { timeout_ms: 50 })),
        ];
        outcome.warnings = vec!["convergence.json: disk full".into()];
        outcome.final_written = true;
        let value: Value = serde_json::from_slice(&outcome_json(&outcome)).unwrap();
        assert_eq!(value, outcome_value(&outcome));
        assert_eq!(
            value,
            json!({
                "event": "PreToolUse",
                "decision": {"kind": "block", "by": "guard", "reason": "rm -rf /",
                    "message": "blocked by guard: rm -rf /", "failure": null},
                "allowed": false,
                "updated_input": {"command": "ls"},
                "context": [{"by": "a", "text": "one"}, {"by": "b", "text": "two"}],
                "context_text": "one\n\ntwo",
                "stop": {"by": "s", "reason": "enough"},
                "notices": [{"by": "w", "reason": "careful"}],
                "signals": [{"signal": "converged", "reason": "3 runs"}],
                "monitored": [{"kind": "ask", "by": "m", "reason": "sure?", "message": null, "failure": null}],
                "reports": [
                    {"name": "g", "index": 0, "event": "PreToolUse", "phase": "guard", "kind": "native",
                     "async": false, "mode": "enforce", "duration_us": 42,
                     "verdict": {"answer": "block", "reason": "rm -rf /", "updated_input": {"command": "ls"},
                        "context": null, "stop": null, "signal": null, "message": null, "note": null},
                     "failure": null, "stderr": "log line\n", "stderr_truncated": false},
                    {"name": "g", "index": 0, "event": "PreToolUse", "phase": "guard", "kind": "native",
                     "async": false, "mode": "enforce", "duration_us": 42, "verdict": null,
                     "failure": {"kind": "timed_out", "message": "timed out after 50ms", "detail": "timed out after 50ms"},
                     "stderr": "log line\n", "stderr_truncated": false}
                ],
                "warnings": ["convergence.json: disk full"],
                "final_written": true
            })
        );
    }

    #[test]
    fn a_failed_guard_blocks_with_the_specs_message() {
        let mut outcome = Outcome::new("PreToolUse");
        outcome.decision = Decision::Block(Block::failed(
            "g.sh",
            HookFailure::InvalidOutput {
                detail: "stdout was empty".into(),
            },
        ));
        let value = outcome_value(&outcome);
        assert_eq!(
            value["decision"],
            json!({
                "kind": "block", "by": "g.sh",
                "reason": "hook failed: g.sh returned invalid JSON (tool blocked by default)",
                "message": "hook failed: g.sh returned invalid JSON (tool blocked by default)",
                "failure": {"kind": "invalid_output", "message": "returned invalid JSON",
                    "detail": "returned invalid JSON: stdout was empty"}
            })
        );
        let allowed = outcome_value(&Outcome::new("Stop"));
        assert_eq!(
            (
                &allowed["decision"],
                &allowed["allowed"],
                &allowed["context_text"]
            ),
            (
                &json!({"kind": "allow", "by": null, "reason": null, "message": null, "failure": null}),
                &json!(true),
                &Value::Null
            )
        );
    }
}
