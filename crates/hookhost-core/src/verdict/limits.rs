//! Bounds on what a hook returns, the same for every runtime: a hook's answer reaches the
//! agent (and often the model), so a 50 MB block reason must not.
//!
//! Strings over their limit are cut at a character boundary and end with a marker saying how
//! much was cut; a rewritten tool input over its limit cannot be cut (it is JSON) and makes the
//! verdict invalid. The same bound holds for every verdict (a guard's, an observer's, an async
//! hook's) and for the text of every failure: a trap message can quote what a component chose
//! to name its imports, and a load error what a file holds.

use super::{Answer, HookFailure, Verdict};

/// Bytes of a reason (block, ask, warn, stop, a signal's reason) or a message for the user.
pub const REASON_MAX_BYTES: usize = 8 * 1024;
/// Bytes of context for the model.
pub const CONTEXT_MAX_BYTES: usize = 64 * 1024;
/// Bytes of a signal's name.
pub const SIGNAL_NAME_MAX_BYTES: usize = 256;
/// Bytes of a rewritten tool input, serialized (the same as a command hook's whole stdout).
pub const UPDATED_INPUT_MAX_BYTES: usize = 1024 * 1024;

pub(crate) fn bounded(mut verdict: Verdict) -> Result<Verdict, HookFailure> {
    match &mut verdict.answer {
        Answer::Warn(reason) | Answer::Ask(reason) | Answer::Block(reason) => {
            cut(reason, REASON_MAX_BYTES)
        }
        Answer::Allow | Answer::Approve => {}
    }
    for (text, limit) in [
        (&mut verdict.context, CONTEXT_MAX_BYTES),
        (&mut verdict.stop, REASON_MAX_BYTES),
        (&mut verdict.message, REASON_MAX_BYTES),
        (&mut verdict.note, REASON_MAX_BYTES),
    ] {
        if let Some(text) = text {
            cut(text, limit);
        }
    }
    if let Some(signal) = &mut verdict.signal {
        cut(&mut signal.signal, SIGNAL_NAME_MAX_BYTES);
        cut(&mut signal.reason, REASON_MAX_BYTES);
    }
    if let Some(input) = &verdict.updated_input {
        let size = serde_json::to_vec(input)
            .map(|bytes| bytes.len())
            .unwrap_or(usize::MAX);
        if size > UPDATED_INPUT_MAX_BYTES {
            return Err(HookFailure::InvalidVerdict {
                detail: format!(
                    "the updated tool input is {size} bytes; the limit is {UPDATED_INPUT_MAX_BYTES}"
                ),
            });
        }
    }
    Ok(verdict)
}

impl HookFailure {
    /// The failure with its text cut to [`REASON_MAX_BYTES`]: what a hook's failure says reaches
    /// the agent and the model like a reason does.
    pub(crate) fn bounded(mut self) -> HookFailure {
        match &mut self {
            HookFailure::InvalidOutput { detail }
            | HookFailure::SandboxLimit { detail }
            | HookFailure::InvalidVerdict { detail } => cut(detail, REASON_MAX_BYTES),
            HookFailure::Spawn { reason }
            | HookFailure::NotAllowed { reason }
            | HookFailure::Config { reason } => cut(reason, REASON_MAX_BYTES),
            HookFailure::Trapped { message } | HookFailure::Panicked { message } => {
                cut(message, REASON_MAX_BYTES)
            }
            HookFailure::TimedOut { .. }
            | HookFailure::Exited { .. }
            | HookFailure::Signaled { .. }
            | HookFailure::OutputTooLarge { .. }
            | HookFailure::OutOfFuel
            | HookFailure::MemoryLimit { .. } => {}
        }
        self
    }
}

/// Cuts `text` to at most `limit` bytes (plus the marker) at a character boundary.
pub fn cut(text: &mut String, limit: usize) {
    if text.len() <= limit {
        return;
    }
    let end = text.floor_char_boundary(limit);
    let cut = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("… (cut by hookhost: {cut} more bytes)"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::catalog;

    #[test]
    fn every_string_is_cut_with_a_marker() {
        let huge = "é".repeat(REASON_MAX_BYTES); // two bytes each
        let verdict = Verdict::block(huge.clone())
            .with_context("c".repeat(CONTEXT_MAX_BYTES + 1))
            .with_message(huge.clone());
        let verdict = bounded(verdict).unwrap();
        let Answer::Block(reason) = &verdict.answer else {
            panic!()
        };
        assert!(reason.ends_with(&format!(
            "… (cut by hookhost: {} more bytes)",
            REASON_MAX_BYTES
        )));
        assert!(reason.len() < REASON_MAX_BYTES + 64);
        assert!(verdict.context.unwrap().ends_with("1 more bytes)"));
        assert!(verdict.message.unwrap().contains("cut by hookhost"));
        let signal = bounded(Verdict::signal("s".repeat(1000), "r"))
            .unwrap()
            .signal
            .unwrap();
        assert!(signal.signal.len() < SIGNAL_NAME_MAX_BYTES + 64);
    }

    #[test]
    fn an_oversized_rewrite_is_invalid_not_cut() {
        let input = serde_json::json!({ "command": "x".repeat(UPDATED_INPUT_MAX_BYTES) });
        let error = Verdict::allow()
            .with_updated_input(input)
            .checked(catalog::spec("PreToolUse"), "PreToolUse")
            .unwrap_err();
        assert!(
            error.detailed().contains("the limit is 1048576"),
            "{error:?}"
        );
    }
}
