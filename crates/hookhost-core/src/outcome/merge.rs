//! The one merge rule: how the answers of several hooks to one event become one [`Outcome`].
//!
//! - **Decision**: block beats ask beats warn beats approve beats allow. Among equals the first
//!   hook in declaration order is the one named (a block also stops later guards of a gate
//!   event, R4).
//! - **Rewrites chain** in declaration order: each guard sees the tool input as the guards
//!   before it rewrote it, and the last rewrite is what the tool runs with. (Chaining, rather
//!   than "last writer wins" on the original, means a guard never approves an input other than
//!   the one it was shown; the runner also shows the final input again to the guards that ran
//!   before a rewrite.)
//! - **Context** concatenates, in declaration order.
//! - **Stop**: the first hook that asks to end the run is the one named; later requests are kept
//!   as notices.
//! - **Warnings, asks' reasons and messages for the user** are all kept, in order.
//! - **Signals** are all kept; the first decides (R7).

use super::{Block, Decision, Notice, Outcome};
use crate::verdict::{Answer, HookFailure, Verdict};

/// Merges one guard's verdict into `outcome`.
pub fn merge(outcome: &mut Outcome, hook: &str, verdict: &Verdict) {
    let notice = |reason: &str| Notice {
        by: hook.to_string(),
        reason: reason.to_string(),
    };
    let decision = match &verdict.answer {
        Answer::Allow => Decision::Allow,
        Answer::Approve => Decision::Approve(notice("")),
        Answer::Warn(reason) => {
            add_notice(outcome, notice(reason));
            Decision::Warn(notice(reason))
        }
        Answer::Ask(reason) => {
            add_notice(outcome, notice(reason));
            Decision::Ask(notice(reason))
        }
        Answer::Block(reason) => Decision::Block(Block::decided(hook, reason.clone())),
    };
    decide(outcome, decision);
    if let Some(input) = &verdict.updated_input {
        outcome.updated_input = Some(input.clone());
    }
    if let Some(context) = &verdict.context {
        outcome.context.push(notice(context));
    }
    if let Some(reason) = &verdict.stop {
        match outcome.stop {
            None => outcome.stop = Some(notice(reason)),
            Some(_) => outcome.notices.push(notice(reason)),
        }
    }
    if let Some(message) = &verdict.message {
        outcome.notices.push(notice(message));
    }
    if let Some(signal) = &verdict.signal {
        outcome.signals.push(signal.clone());
    }
}

/// Keeps a notice once: a guard shown the rewritten input again may say the same thing twice.
fn add_notice(outcome: &mut Outcome, notice: Notice) {
    if !outcome.notices.contains(&notice) {
        outcome.notices.push(notice);
    }
}

/// A guard failed and fails closed: the event is blocked by default.
pub(crate) fn merge_failure(outcome: &mut Outcome, hook: &str, failure: &HookFailure) {
    decide(
        outcome,
        Decision::Block(Block::failed(hook, failure.clone())),
    );
}

fn decide(outcome: &mut Outcome, decision: Decision) {
    if decision.rank() > outcome.decision.rank() {
        outcome.decision = decision;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn merged(verdicts: &[(&str, Verdict)]) -> Outcome {
        let mut outcome = Outcome::new("PreToolUse");
        for (hook, verdict) in verdicts {
            merge(&mut outcome, hook, verdict);
        }
        outcome
    }

    /// A case name, the hooks' verdicts in order, the merged decision and who is named.
    type Case<'a> = (&'a str, &'a [(&'a str, Verdict)], &'a str, Option<&'a str>);

    #[test]
    fn precedence_block_ask_warn_approve_allow() {
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            ("nothing", &[], "allow", None),
            ("allow", &[("a", Verdict::allow())], "allow", None),
            ("approve beats allow", &[("a", Verdict::allow()), ("b", Verdict::approve())], "approve", Some("b")),
            ("warn beats approve", &[("a", Verdict::approve()), ("b", Verdict::warn("w"))], "warn", Some("b")),
            ("ask beats warn", &[("a", Verdict::warn("w")), ("b", Verdict::ask("q"))], "ask", Some("b")),
            ("block beats ask", &[("a", Verdict::ask("q")), ("b", Verdict::block("no"))], "block", Some("b")),
            ("block beats later ask", &[("a", Verdict::block("no")), ("b", Verdict::ask("q"))], "block", Some("a")),
            ("first of equals is named", &[("a", Verdict::warn("1")), ("b", Verdict::warn("2"))], "warn", Some("a")),
            ("first block is named", &[("a", Verdict::block("1")), ("b", Verdict::block("2"))], "block", Some("a")),
        ];
        for (name, verdicts, kind, by) in cases {
            let outcome = merged(verdicts);
            assert_eq!(outcome.decision.kind(), *kind, "{name}");
            let named = match &outcome.decision {
                Decision::Allow => None,
                Decision::Approve(n) | Decision::Warn(n) | Decision::Ask(n) => Some(n.by.as_str()),
                Decision::Block(block) => Some(block.blocked_by.as_str()),
            };
            assert_eq!(named, *by, "{name}");
        }
    }

    #[test]
    fn rewrites_chain_contexts_concatenate_notices_and_signals_are_kept() {
        let outcome = merged(&[
            (
                "rewrite-1",
                Verdict::allow().with_updated_input(json!({"command": "ls -1"})),
            ),
            ("ctx-1", Verdict::warn("careful").with_context("first")),
            (
                "rewrite-2",
                Verdict::allow()
                    .with_updated_input(json!({"command": "ls -1 --color=never"}))
                    .with_context("second"),
            ),
            ("stopper", Verdict::allow().with_stop("enough")),
            ("stopper-2", Verdict::allow().with_stop("also enough")),
            ("msg", Verdict::allow().with_message("for the user")),
            ("sig-1", Verdict::signal("tests_pass", "3 clean runs")),
            ("sig-2", Verdict::signal("lint_clean", "clean")),
        ]);
        assert_eq!(
            outcome.updated_input,
            Some(json!({"command": "ls -1 --color=never"}))
        );
        assert_eq!(outcome.context_text().unwrap(), "first\n\nsecond");
        assert_eq!(outcome.stop.as_ref().unwrap().by, "stopper");
        let notices: Vec<&str> = outcome.notices.iter().map(|n| n.reason.as_str()).collect();
        assert_eq!(notices, ["careful", "also enough", "for the user"]);
        let signals: Vec<&str> = outcome.signals.iter().map(|s| s.signal.as_str()).collect();
        assert_eq!(signals, ["tests_pass", "lint_clean"]);
        assert_eq!(outcome.signal().unwrap().signal, "tests_pass");
        assert_eq!(outcome.decision.kind(), "warn");
    }

    #[test]
    fn a_failure_blocks_with_the_failure_message() {
        let mut outcome = merged(&[("a", Verdict::ask("q"))]);
        merge_failure(
            &mut outcome,
            "g.sh",
            &HookFailure::TimedOut { timeout_ms: 50 },
        );
        let block = outcome.block().unwrap();
        assert_eq!(
            block.message(),
            "hook failed: g.sh timed out after 50ms (tool blocked by default)"
        );
    }
}
