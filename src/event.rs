//! The events an agent fires and the JSON a hook reads on stdin (seed 000, R3).
//!
//! Field names and order follow the spec's examples exactly: hook scripts written for
//! forgeflare parse this JSON with `jq`, and agents diff it in logs.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

/// Results longer than this many bytes are cut before a PostToolUse hook sees them (R3).
pub const RESULT_CAP_BYTES: usize = 5120;
const RESULT_HALF_BYTES: usize = RESULT_CAP_BYTES / 2;

/// One tool call as the agent describes it to its hooks.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// The tool's name, matched exactly against `match_tool`.
    pub tool: &'a str,
    /// The tool's input, passed to hooks as it is.
    pub input: &'a Value,
    /// The inner loop's batch counter (R3: per API response cycle, not per tool).
    pub tool_iterations: usize,
}

/// What the guard phase decided, as observe hooks see it (R4).
#[derive(Debug, Clone, Copy)]
pub(crate) enum GuardContext<'a> {
    Allowed,
    Blocked {
        blocked_by: &'a str,
        block_reason: &'a str,
    },
}

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

/// One event as delivered to one hook: everything the stdin JSON (or a wasm hook's record)
/// is made of.
#[derive(Debug, Clone, Copy)]
pub(crate) enum EventPayload<'a> {
    Guard {
        call: ToolCall<'a>,
    },
    Observe {
        call: ToolCall<'a>,
        guard: GuardContext<'a>,
    },
    Post {
        call: ToolCall<'a>,
        /// Already capped with [`cap_result`].
        result: &'a str,
        is_error: bool,
    },
    Stop {
        reason: &'a str,
        tool_iterations: usize,
        total_tokens: u64,
    },
}

impl<'a> EventPayload<'a> {
    /// The tool call the event is about, if any.
    pub(crate) fn call(&self) -> Option<ToolCall<'a>> {
        match *self {
            EventPayload::Guard { call }
            | EventPayload::Observe { call, .. }
            | EventPayload::Post { call, .. } => Some(call),
            EventPayload::Stop { .. } => None,
        }
    }

    /// The tool the event is about, if any.
    pub(crate) fn tool(&self) -> Option<&str> {
        match self {
            EventPayload::Guard { call }
            | EventPayload::Observe { call, .. }
            | EventPayload::Post { call, .. } => Some(call.tool),
            EventPayload::Stop { .. } => None,
        }
    }

    /// The stdin JSON of a command hook, field for field as R3 shows it.
    pub(crate) fn to_json(self, cwd: &str) -> Vec<u8> {
        let bytes = match self {
            EventPayload::Guard { call } => serde_json::to_vec(&PreToolUseJson {
                event: "PreToolUse",
                phase: "guard",
                tool: call.tool,
                input: call.input,
                blocked: None,
                blocked_by: None,
                block_reason: None,
                tool_iterations: call.tool_iterations,
                cwd,
            }),
            EventPayload::Observe { call, guard } => {
                let (blocked, blocked_by, block_reason) = match guard {
                    GuardContext::Allowed => (false, None, None),
                    GuardContext::Blocked {
                        blocked_by,
                        block_reason,
                    } => (true, Some(blocked_by), Some(block_reason)),
                };
                serde_json::to_vec(&PreToolUseJson {
                    event: "PreToolUse",
                    phase: "observe",
                    tool: call.tool,
                    input: call.input,
                    blocked: Some(blocked),
                    blocked_by,
                    block_reason,
                    tool_iterations: call.tool_iterations,
                    cwd,
                })
            }
            EventPayload::Post {
                call,
                result,
                is_error,
            } => serde_json::to_vec(&PostToolUseJson {
                event: "PostToolUse",
                tool: call.tool,
                input: call.input,
                result,
                is_error,
                tool_iterations: call.tool_iterations,
                cwd,
            }),
            EventPayload::Stop {
                reason,
                tool_iterations,
                total_tokens,
            } => serde_json::to_vec(&StopJson {
                event: "Stop",
                reason,
                tool_iterations,
                total_tokens,
                cwd,
            }),
        };
        // Serializing borrowed strings and a `Value` into memory cannot fail.
        bytes.expect("event JSON serializes")
    }
}

#[derive(Serialize)]
struct PreToolUseJson<'a> {
    event: &'static str,
    phase: &'static str,
    tool: &'a str,
    input: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocked: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocked_by: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_reason: Option<&'a str>,
    tool_iterations: usize,
    cwd: &'a str,
}

#[derive(Serialize)]
struct PostToolUseJson<'a> {
    event: &'static str,
    tool: &'a str,
    input: &'a Value,
    result: &'a str,
    is_error: bool,
    tool_iterations: usize,
    cwd: &'a str,
}

#[derive(Serialize)]
struct StopJson<'a> {
    event: &'static str,
    reason: &'a str,
    tool_iterations: usize,
    total_tokens: u64,
    cwd: &'a str,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(payload: EventPayload<'_>) -> Value {
        serde_json::from_slice(&payload.to_json("/home/user/project")).unwrap()
    }

    #[test]
    fn guard_json_matches_spec_field_for_field() {
        let input = json!({"command": "cargo test --release"});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 3,
        };
        let text =
            String::from_utf8(EventPayload::Guard { call }.to_json("/home/user/project")).unwrap();
        assert_eq!(
            text,
            r#"{"event":"PreToolUse","phase":"guard","tool":"Bash","input":{"command":"cargo test --release"},"tool_iterations":3,"cwd":"/home/user/project"}"#
        );
    }

    #[test]
    fn observe_json_after_block_and_after_allow() {
        let input = json!({"command": "rm -rf /"});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 3,
        };
        let blocked = parsed(EventPayload::Observe {
            call,
            guard: GuardContext::Blocked {
                blocked_by: "ralph-guard.sh",
                block_reason: "destructive command detected",
            },
        });
        assert_eq!(
            blocked,
            json!({
                "event": "PreToolUse", "phase": "observe", "tool": "Bash",
                "input": {"command": "rm -rf /"}, "blocked": true,
                "blocked_by": "ralph-guard.sh", "block_reason": "destructive command detected",
                "tool_iterations": 3, "cwd": "/home/user/project"
            })
        );
        let allowed = parsed(EventPayload::Observe {
            call,
            guard: GuardContext::Allowed,
        });
        assert_eq!(allowed["blocked"], json!(false));
        assert!(allowed.get("blocked_by").is_none());
        assert!(allowed.get("block_reason").is_none());
    }

    #[test]
    fn post_and_stop_json_match_spec() {
        let input = json!({"command": "cargo test --release"});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 3,
        };
        let post = parsed(EventPayload::Post {
            call,
            result: "test result: ok. 42 passed; 0 failed",
            is_error: false,
        });
        assert_eq!(
            post,
            json!({
                "event": "PostToolUse", "tool": "Bash", "input": {"command": "cargo test --release"},
                "result": "test result: ok. 42 passed; 0 failed", "is_error": false,
                "tool_iterations": 3, "cwd": "/home/user/project"
            })
        );
        let stop = parsed(EventPayload::Stop {
            reason: "end_turn",
            tool_iterations: 7,
            total_tokens: 45000,
        });
        assert_eq!(
            stop,
            json!({"event": "Stop", "reason": "end_turn", "tool_iterations": 7, "total_tokens": 45000, "cwd": "/home/user/project"})
        );
    }

    #[test]
    fn stop_reasons_round_trip_through_spec_strings() {
        let strings: Vec<&str> = StopReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(
            strings,
            [
                "end_turn",
                "iteration_limit",
                "api_error",
                "continuation_cap",
                "block_limit_consecutive",
                "block_limit_total",
                "convergence_signal"
            ]
        );
        for reason in StopReason::ALL {
            assert_eq!(reason.as_str().parse::<StopReason>(), Ok(reason));
            assert_eq!(
                serde_json::to_value(reason).unwrap(),
                json!(reason.as_str())
            );
        }
        assert!("EndTurn".parse::<StopReason>().is_err());
    }

    #[test]
    fn result_cap_boundaries() {
        let exact = "x".repeat(RESULT_CAP_BYTES);
        assert_eq!(cap_result(&exact), exact.as_str());

        let long = format!("{}{}", "a".repeat(6000), "b".repeat(4000));
        let capped = cap_result(&long);
        assert_eq!(
            capped,
            format!(
                "{}\n... (truncated for hook, full result: 10000 bytes)\n{}",
                "a".repeat(2560),
                "b".repeat(2560)
            )
        );
    }

    #[test]
    fn result_cap_never_splits_a_character() {
        // 'é' is two bytes: byte 2560 falls inside a character at both cuts.
        let long = format!("a{}", "é".repeat(4000));
        let capped = cap_result(&long);
        let (head, rest) = capped.split_once("\n... (truncated").unwrap();
        assert_eq!(head.len(), 2559, "head cut moves back to a boundary");
        let tail = rest.split_once("bytes)\n").unwrap().1;
        assert!(tail.chars().all(|c| c == 'é'));
        assert!(rest.contains(&format!("full result: {} bytes", long.len())));
        // floor_char_boundary(len - 2560) moves the tail's start back, so it keeps 2560 bytes.
        assert_eq!(tail.len(), 2560);
    }
}
