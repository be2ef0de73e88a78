//! Why an agent loop stops ([`StopReason`], forgeflare's seven), and a tool result capped for
//! hooks (R3).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::{RESULT_CAP_BYTES, RESULT_HALF_BYTES};

/// Why an agent's run ended: the seven values of R1/R3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished naturally.
    EndTurn,
    /// The 50-iteration ceiling was hit.
    IterationLimit,
    /// The API failed after recovery was exhausted.
    ApiError,
    /// Three MaxTokens continuations without completing.
    ContinuationCap,
    /// The consecutive block counter (3) tripped.
    BlockLimitConsecutive,
    /// The total block counter (10) tripped.
    BlockLimitTotal,
    /// A PostToolUse signal broke the inner loop.
    ConvergenceSignal,
}

impl StopReason {
    /// All seven reasons, in the spec's order.
    pub const ALL: [StopReason; 7] = [
        StopReason::EndTurn,
        StopReason::IterationLimit,
        StopReason::ApiError,
        StopReason::ContinuationCap,
        StopReason::BlockLimitConsecutive,
        StopReason::BlockLimitTotal,
        StopReason::ConvergenceSignal,
    ];

    /// The spec's string for this reason.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::IterationLimit => "iteration_limit",
            StopReason::ApiError => "api_error",
            StopReason::ContinuationCap => "continuation_cap",
            StopReason::BlockLimitConsecutive => "block_limit_consecutive",
            StopReason::BlockLimitTotal => "block_limit_total",
            StopReason::ConvergenceSignal => "convergence_signal",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string is not one of the seven Stop reasons.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown stop reason \"{0}\"; expected one of end_turn, iteration_limit, api_error, continuation_cap, block_limit_consecutive, block_limit_total, convergence_signal"
)]
pub struct UnknownStopReason(pub String);

impl FromStr for StopReason {
    type Err = UnknownStopReason;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StopReason::ALL
            .into_iter()
            .find(|reason| reason.as_str() == s)
            .ok_or_else(|| UnknownStopReason(s.to_string()))
    }
}

/// Caps a tool result for a PostToolUse hook (R3): results over 5120 bytes become the first
/// 2560 bytes, a marker naming the full length, and the last 2560 bytes, both cuts moved back
/// to a character boundary. The agent still gets the full result; only the hook's copy is cut.
pub fn cap_result(result: &str) -> std::borrow::Cow<'_, str> {
    if result.len() <= RESULT_CAP_BYTES {
        return std::borrow::Cow::Borrowed(result);
    }
    let head_end = result.floor_char_boundary(RESULT_HALF_BYTES);
    let tail_start = result.floor_char_boundary(result.len() - RESULT_HALF_BYTES);
    std::borrow::Cow::Owned(format!(
        "{}\n... (truncated for hook, full result: {} bytes)\n{}",
        &result[..head_end],
        result.len(),
        &result[tail_start..]
    ))
}
