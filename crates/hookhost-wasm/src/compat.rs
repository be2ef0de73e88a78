//! Components built against `hookhost:hooks@0.1.0` keep running: their `guard`, `observe`,
//! `post` and `stop` exports serve forgeflare's three events, translated to and from the
//! current model here. A 0.1.0 component configured for any other event is refused at load,
//! with a message saying to rebuild it against 0.2.0.

use wasmtime::Store;

use super::bindings::v0_1::{handler, types};
use super::call_state::CallState;
use crate::event::{Phase, StopReason, ToolCall};
use crate::matcher::EventPattern;
use crate::outcome::Decision;
use crate::runtime::HookRequest;
use crate::verdict::{HookFailure, Verdict};

const EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "Stop"];

/// A 0.1.0 component can serve only forgeflare's events.
pub(super) fn check_events(events: &EventPattern) -> Result<(), String> {
    let specs = events.specs();
    let unserved: Vec<&str> = specs
        .iter()
        .map(|spec| spec.name)
        .filter(|name| !EVENTS.contains(name))
        .collect();
    if unserved.is_empty() {
        return Ok(());
    }
    Err(format!(
        "is built against hookhost:hooks@0.1.0, which has exports only for PreToolUse, PostToolUse and Stop, but this hook is configured for {}; rebuild it against hookhost:hooks@0.2.0 (hook-sdk 0.2) or limit `event`",
        unserved.join(", ")
    ))
}

/// Calls the export of the event (and phase) and maps its answer to a verdict.
pub(super) async fn invoke(
    handler: &handler::Guest,
    store: &mut Store<CallState>,
    request: &HookRequest<'_>,
) -> wasmtime::Result<Result<Verdict, HookFailure>> {
    let view = &request.view;
    let event = view.event;
    let tool_call = |call: ToolCall<'_>| types::ToolCall {
        tool: call.tool.to_string(),
        input: request.input_json().to_string(),
        tool_iterations: call.tool_iterations as u64,
        cwd: view.cwd.to_string(),
    };
    let unserved = || {
        Ok(Err(HookFailure::InvalidVerdict {
            detail: format!(
                "a hookhost:hooks@0.1.0 component has no export for {}",
                event.name()
            ),
        }))
    };
    let field_u64 = |name: &str| event.field(name).and_then(|v| v.as_u64()).unwrap_or(0);
    Ok(match (event.name(), view.phase, view.call) {
        ("PreToolUse", Phase::Guard, Some(call)) => {
            match handler.call_guard(&mut *store, &tool_call(call)).await? {
                types::GuardVerdict::Allow => Ok(Verdict::allow()),
                types::GuardVerdict::Block(reason) if reason.trim().is_empty() => {
                    Ok(Verdict::block("no reason provided"))
                }
                types::GuardVerdict::Block(reason) => Ok(Verdict::block(reason)),
            }
        }
        ("PreToolUse", Phase::Observe, Some(call)) => {
            let (blocked, blocked_by, block_reason) = match view.observed {
                Some(Decision::Block(block)) => (
                    true,
                    Some(block.blocked_by.clone()),
                    Some(block.reason.clone()),
                ),
                _ => (false, None, None),
            };
            let observed = types::ObserveEvent {
                call: tool_call(call),
                blocked,
                blocked_by,
                block_reason,
            };
            handler.call_observe(&mut *store, &observed).await?;
            Ok(Verdict::allow())
        }
        ("PostToolUse", _, Some(call)) => {
            let post = types::PostEvent {
                call: tool_call(call),
                result: event
                    .field("result")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string(),
                is_error: event
                    .field("is_error")
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false),
            };
            match handler.call_post(&mut *store, &post).await? {
                types::PostVerdict::Continue => Ok(Verdict::allow()),
                types::PostVerdict::Signal(signal) => {
                    Ok(Verdict::signal(signal.name, signal.reason))
                }
            }
        }
        ("Stop", _, _) => {
            let reason = event
                .field("reason")
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            let Ok(reason) = reason.parse::<StopReason>() else {
                return Ok(Err(HookFailure::InvalidVerdict {
                    detail: format!(
                        "stop reason {} is not one of the seven the 0.1.0 WIT enum can carry",
                        crate::text::quote(reason)
                    ),
                }));
            };
            let stop = types::StopEvent {
                reason: stop_reason(reason),
                tool_iterations: field_u64("tool_iterations"),
                total_tokens: field_u64("total_tokens"),
                cwd: view.cwd.to_string(),
            };
            handler.call_stop(&mut *store, &stop).await?;
            Ok(Verdict::allow())
        }
        _ => return unserved(),
    })
}

fn stop_reason(reason: StopReason) -> types::StopReason {
    match reason {
        StopReason::EndTurn => types::StopReason::EndTurn,
        StopReason::IterationLimit => types::StopReason::IterationLimit,
        StopReason::ApiError => types::StopReason::ApiError,
        StopReason::ContinuationCap => types::StopReason::ContinuationCap,
        StopReason::BlockLimitConsecutive => types::StopReason::BlockLimitConsecutive,
        StopReason::BlockLimitTotal => types::StopReason::BlockLimitTotal,
        StopReason::ConvergenceSignal => types::StopReason::ConvergenceSignal,
    }
}
