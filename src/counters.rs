//! R6's block counters, so an agent loop gets them right by calling them.
//!
//! Two counters watch PreToolUse guard blocks (intentional or failures alike) inside one inner
//! loop: `consecutive` catches an agent stuck retrying one bad command, `total` catches an
//! alternating blocked/allowed pattern. When one trips, the loop pops the trailing assistant
//! message, breaks, and fires Stop with the matching reason.

use crate::event::StopReason;

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

#[cfg(test)]
mod tests {
    use super::*;

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
