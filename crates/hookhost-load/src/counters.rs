//! R6's block counters, so an agent loop gets them right by calling them.
//!
//! Two counters watch PreToolUse guard blocks (intentional or failures alike) inside one inner
//! loop: `consecutive` catches an agent stuck retrying one bad command, `total` catches an
//! alternating blocked/allowed pattern. When one trips, the loop pops the trailing assistant
//! message, breaks, and fires Stop with the matching reason.
//!
//! A loop makes one call per guard decision, [`BlockCounters::record_guard`], with whatever
//! its guard call returned. In forgeflare's sequential path (seed 000, R9):
//!
//! ```no_run
//! use hookhost::BlockCounters;
//! use hookhost::StopReason;
//! use hookhost::forgeflare::{HookRunner, PostToolResult, PreToolResult};
//! # struct ToolUse { name: String, input: serde_json::Value }
//! # fn dispatch_tool(tool: &ToolUse) -> String { tool.name.clone() }
//! # async fn send(_: Vec<String>) -> Vec<ToolUse> { Vec::new() }
//! # async fn demo(hooks: HookRunner, mut conversation: Vec<String>, mut batch: Vec<ToolUse>) {
//! # let total_tokens = 0;
//!
//! // Beside tool_iterations, in the inner loop's scope: new user input starts both afresh.
//! let mut blocks = BlockCounters::new();
//! let mut tool_iterations = 0;
//! let stop = loop {
//!     if batch.is_empty() {
//!         break StopReason::EndTurn;
//!     }
//!     let mut tool_results = Vec::new();
//!     let mut threshold_tripped = None;
//!     let mut signal_break = false;
//!     for tool in &batch {
//!         let guard = hooks.run_pre_tool_use(&tool.name, &tool.input, tool_iterations).await;
//!         // Counts a block, or resets the consecutive count at guard-allow time.
//!         threshold_tripped = blocks.record_guard(&guard);
//!         if threshold_tripped.is_some() {
//!             break; // R6: the remaining tools are not evaluated
//!         }
//!         if let PreToolResult::Block { reason, .. } = guard {
//!             tool_results.push(reason); // the tool's error result
//!             continue;
//!         }
//!         let result = dispatch_tool(tool);
//!         let post = hooks.run_post_tool_use(&tool.name, &tool.input, &result, false, tool_iterations);
//!         if let PostToolResult::Signal { .. } = post.await {
//!             signal_break = true;
//!         }
//!         tool_results.push(result);
//!     }
//!     if let Some(reason) = threshold_tripped {
//!         // Block limits win over signal_break; the batch's results are discarded.
//!         conversation.pop();
//!         break reason;
//!     }
//!     batch = send(tool_results).await;
//!     tool_iterations += 1;
//!     if signal_break {
//!         break StopReason::ConvergenceSignal;
//!     }
//! };
//! hooks.run_stop(stop.as_str(), tool_iterations, total_tokens).await;
//! # }
//! ```
//!
//! The parallel path makes the same call in its guard loop, before each `spawn_blocking`.

use crate::event::StopReason;
use crate::outcome::{Decision, Outcome};

/// R6: consecutive blocks that end the inner loop.
pub const MAX_CONSECUTIVE_BLOCKS: usize = 3;
/// R6: blocks in one inner loop that end it.
pub const MAX_TOTAL_BLOCKS: usize = 10;

/// The two block counters of one inner loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockCounters {
    consecutive: usize,
    total: usize,
}

impl BlockCounters {
    /// Both counters at zero.
    pub fn new() -> BlockCounters {
        BlockCounters::default()
    }

    /// Records one PreToolUse guard decision, as R6 counts it: a block (intentional or a
    /// failure) adds to both counters, an allow resets the consecutive one. Call it at guard
    /// time, once per tool, with what the guard call returned (or `true` for "blocked").
    ///
    /// Returns the Stop reason on the block that trips a threshold: the loop must stop
    /// evaluating tools, pop the trailing assistant message, break, and fire Stop with it.
    /// When both counters trip at once, the consecutive one wins. An allow never stops it.
    pub fn record_guard(&mut self, guard: impl GuardResult) -> Option<StopReason> {
        if guard.is_block() {
            self.record_block()
        } else {
            self.record_allow();
            None
        }
    }

    /// A guard blocked a tool (intentionally or by failing). Returns the Stop reason when a
    /// threshold trips; when both trip at once, the consecutive counter wins (R6: it fired
    /// first).
    pub fn record_block(&mut self) -> Option<StopReason> {
        self.consecutive += 1;
        self.total += 1;
        self.tripped()
    }

    /// The guards allowed a tool: the consecutive pattern is broken. Call it at guard-allow
    /// time, not when the tool finishes (R6, parallel path).
    pub fn record_allow(&mut self) {
        self.consecutive = 0;
    }

    /// New user input (an outer loop iteration): both counters start over.
    pub fn reset(&mut self) {
        *self = BlockCounters::default();
    }

    /// The Stop reason if a threshold has been reached.
    pub fn tripped(&self) -> Option<StopReason> {
        if self.consecutive >= MAX_CONSECUTIVE_BLOCKS {
            Some(StopReason::BlockLimitConsecutive)
        } else if self.total >= MAX_TOTAL_BLOCKS {
            Some(StopReason::BlockLimitTotal)
        } else {
            None
        }
    }

    /// Blocks since the last allow.
    pub fn consecutive(&self) -> usize {
        self.consecutive
    }

    /// Blocks since the last reset.
    pub fn total(&self) -> usize {
        self.total
    }
}

/// What a guard call returned, as [`BlockCounters::record_guard`] counts it: the native
/// [`Outcome`] or its [`Decision`], forgeflare's `PreToolResult`, or a `bool` that is true
/// when the tool was blocked.
///
/// Only [`Decision::Block`] counts as a block. An `ask` is the agent's to settle with its
/// user: when the user refuses, record that with `record_guard(true)`.
pub trait GuardResult {
    /// True when the guards did not let the tool run.
    fn is_block(&self) -> bool;
}

impl GuardResult for bool {
    fn is_block(&self) -> bool {
        *self
    }
}

impl GuardResult for Decision {
    fn is_block(&self) -> bool {
        matches!(self, Decision::Block(_))
    }
}

impl GuardResult for Outcome {
    fn is_block(&self) -> bool {
        self.decision.is_block()
    }
}

impl<T: GuardResult + ?Sized> GuardResult for &T {
    fn is_block(&self) -> bool {
        (**self).is_block()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forgeflare::PreToolResult;
    use crate::outcome::{Block, Notice};

    /// Runs one inner loop's guard decisions (`b` block, `a` allow, `u` new user input) and
    /// returns the 1-based step that stopped the loop and why.
    fn run(steps: &str) -> Option<(usize, StopReason)> {
        let mut counters = BlockCounters::new();
        for (i, step) in steps.chars().filter(|c| !c.is_whitespace()).enumerate() {
            let stop = match step {
                'b' => counters.record_guard(true),
                'a' => counters.record_guard(false),
                'u' => {
                    counters.reset();
                    None
                }
                other => panic!("unknown step {other:?}"),
            };
            if let Some(reason) = stop {
                return Some((i + 1, reason));
            }
        }
        None
    }

    #[test]
    fn record_guard_follows_r6() {
        use StopReason::{BlockLimitConsecutive as Consecutive, BlockLimitTotal as Total};
        let cases = [
            ("three blocks in a row", "bbb", Some((3, Consecutive))),
            ("an allow breaks the run", "bb a bb", None),
            ("an allow is counted at once", "bb a b", None),
            (
                "the tenth block, never three in a row",
                "bb a bb a bb a bb a b a b",
                Some((15, Total)),
            ),
            (
                "both trip at once: consecutive wins",
                "bb a bb a bb a b a bbb",
                Some((14, Consecutive)),
            ),
            (
                "new user input resets both",
                "bb a bb a bb a bb a u bb a bb",
                None,
            ),
            ("new user input resets consecutive", "bb u bb", None),
            ("allows alone never stop", "aaaaaaaaaaaa", None),
        ];
        for (name, steps, expected) in cases {
            assert_eq!(run(steps), expected, "{name}: {steps}");
        }
    }

    #[test]
    fn every_guard_result_counts_alike() {
        let block = Block {
            blocked_by: "guard".into(),
            reason: "no".into(),
            failure: None,
        };
        let outcome = |decision| {
            let mut outcome = Outcome::new("PreToolUse");
            outcome.decision = decision;
            outcome
        };
        let facade_block = PreToolResult::Block {
            reason: "blocked by guard: no".into(),
            blocked_by: "guard".into(),
        };
        let ask = Decision::Ask(Notice {
            by: "guard".into(),
            reason: "sure?".into(),
        });
        let cases: [(&str, &dyn GuardResult, bool); 9] = [
            ("bool true", &true, true),
            ("bool false", &false, false),
            ("decision block", &Decision::Block(block.clone()), true),
            ("decision allow", &Decision::Allow, false),
            ("decision ask", &ask, false),
            ("outcome block", &outcome(Decision::Block(block)), true),
            ("outcome allow", &outcome(Decision::Allow), false),
            ("forgeflare block", &facade_block, true),
            ("forgeflare allow", &PreToolResult::Allow, false),
        ];
        for (name, guard, blocked) in cases {
            let mut counters = BlockCounters::new();
            counters.record_block();
            assert_eq!(counters.record_guard(guard), None, "{name}");
            let expected = if blocked { (2, 2) } else { (0, 1) };
            assert_eq!(
                (counters.consecutive(), counters.total()),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn consecutive_trips_at_three() {
        let mut counters = BlockCounters::new();
        assert_eq!(counters.record_block(), None);
        assert_eq!(counters.record_block(), None);
        assert_eq!(
            counters.record_block(),
            Some(StopReason::BlockLimitConsecutive)
        );
    }

    #[test]
    fn allow_resets_consecutive_but_not_total() {
        let mut counters = BlockCounters::new();
        for _ in 0..4 {
            assert_eq!(counters.record_block(), None);
            assert_eq!(counters.record_block(), None);
            counters.record_allow();
        }
        assert_eq!((counters.consecutive(), counters.total()), (0, 8));
        assert_eq!(counters.record_block(), None);
        counters.record_allow();
        assert_eq!(counters.record_block(), Some(StopReason::BlockLimitTotal));
        assert_eq!(counters.total(), 10);
    }

    #[test]
    fn consecutive_wins_when_both_trip() {
        let mut counters = BlockCounters::new();
        // 7 blocks with allows between pairs, then 3 in a row: the 10th is also the 3rd.
        for _ in 0..3 {
            counters.record_block();
            counters.record_block();
            counters.record_allow();
        }
        counters.record_block();
        counters.record_allow();
        assert_eq!(counters.total(), 7);
        assert_eq!(counters.record_block(), None);
        assert_eq!(counters.record_block(), None);
        assert_eq!(
            counters.record_block(),
            Some(StopReason::BlockLimitConsecutive)
        );
        assert_eq!(counters.total(), 10);
    }

    #[test]
    fn reset_clears_both() {
        let mut counters = BlockCounters::new();
        counters.record_block();
        counters.record_block();
        counters.reset();
        assert_eq!(counters, BlockCounters::new());
        assert_eq!(counters.record_block(), None);
    }
}
