//! Calling a `hookhost:hooks@0.2.0` component's `handle`: where the export is (found and
//! type-checked once, not on every call), the event lowered straight from the request's
//! borrowed strings, and the WIT verdict lifted into hookhost's [`Verdict`].

use std::sync::atomic::{AtomicBool, Ordering};

use wasmtime::Store;
use wasmtime::component::{ComponentExportIndex, TypedFunc};

use super::bindings::{HANDLER, Interface, PACKAGE, v0_2};
use super::call_state::CallState;
use super::engine::WasmEngine;
use super::inline;
use super::trap::root_cause;
use crate::event::Phase;
use crate::outcome::Decision;
use crate::runtime::HookRequest;
use crate::verdict::{Answer, HookFailure, Signal, UPDATED_INPUT_MAX_BYTES, Verdict};

/// A 0.2.0 component and where its `handle` export is. The bindings would look the export up
/// and check its type on every call (2,500 instructions, 6 % of a trivial guard's call);
/// the type of an export of one component never changes, so it is checked once.
pub(super) struct HandlePre {
    pub(super) pre: v0_2::HookPre<CallState>,
    handle: ComponentExportIndex,
    /// Whether `handle`'s type was checked against the bindings' (on the first call).
    checked: AtomicBool,
    /// The component linked for the calling thread ([`super::inline`]), where it could be.
    inline: Option<wasmtime::component::InstancePre<CallState>>,
    /// Whether calls start on the calling thread: false once one could not finish there.
    pub(super) starts_inline: AtomicBool,
}

/// `handle` of `hookhost:hooks/handler@0.2.0`, typed.
pub(super) type HandleFunc<'a> = TypedFunc<(&'a EventRef<'a>,), (v0_2::types::Verdict,)>;

/// The WIT `event` record as the host lowers it: borrowed from the request, so that a call
/// copies each string once, into the guest, instead of first into an owned `Event`. Field for
/// field the bindings' `types::Event` (the type check of `handle` compares them).
#[derive(wasmtime::component::ComponentType, wasmtime::component::Lower)]
#[component(record)]
pub(super) struct EventRef<'a> {
    #[component(name = "name")]
    name: &'a str,
    #[component(name = "phase")]
    phase: v0_2::types::Phase,
    #[component(name = "session-id")]
    session_id: Option<&'a str>,
    #[component(name = "cwd")]
    cwd: &'a str,
    #[component(name = "tool")]
    tool: Option<ToolCallRef<'a>>,
    #[component(name = "payload")]
    payload: &'a str,
    #[component(name = "observed")]
    observed: Option<ObservedRef<'a>>,
}

/// The WIT `tool-call` record, borrowed (see [`EventRef`]).
#[derive(wasmtime::component::ComponentType, wasmtime::component::Lower)]
#[component(record)]
pub(super) struct ToolCallRef<'a> {
    #[component(name = "tool")]
    tool: &'a str,
    #[component(name = "input")]
    input: &'a str,
    #[component(name = "tool-iterations")]
    tool_iterations: u64,
}

/// The WIT `observed` record, borrowed (see [`EventRef`]).
#[derive(wasmtime::component::ComponentType, wasmtime::component::Lower)]
#[component(record)]
pub(super) struct ObservedRef<'a> {
    #[component(name = "decision")]
    decision: v0_2::types::DecisionKind,
    #[component(name = "by")]
    by: Option<&'a str>,
    #[component(name = "reason")]
    reason: Option<&'a str>,
}

impl HandlePre {
    pub(super) fn new(
        pre: v0_2::HookPre<CallState>,
        engine: &WasmEngine,
    ) -> Result<HandlePre, String> {
        let component = pre.instance_pre().component();
        // Linked with nothing but what the calling thread provides: the component as it is,
        // else a linker whose every other import stops the attempt. A component that cannot
        // be linked so (none known) runs on fibers only.
        let provided = component
            .component_type()
            .imports(&engine.engine)
            .all(|(import, _)| inline::provides(import));
        let inline = if provided {
            Some(pre.instance_pre().clone())
        } else {
            inline::linker(&engine.engine, component)
                .and_then(|linker| linker.instantiate_pre(component))
                .ok()
        };
        let handler = format!("{PACKAGE}/{HANDLER}@{}", Interface::V0_2.version());
        let handle = component
            .get_export_index(None, &handler)
            .and_then(|handler| component.get_export_index(Some(&handler), "handle"))
            .ok_or_else(|| format!("exports no `handle` in `{handler}`"))?;
        Ok(HandlePre {
            pre,
            handle,
            checked: AtomicBool::new(false),
            starts_inline: AtomicBool::new(inline.is_some()),
            inline,
        })
    }

    /// A fresh instance's `handle`, or the failure of a component whose `handle` has another
    /// type (it loads: only a call can check the type).
    pub(super) async fn instantiate<'a>(
        &self,
        store: &mut Store<CallState>,
    ) -> wasmtime::Result<Result<HandleFunc<'a>, HookFailure>> {
        let instance = self
            .pre
            .instance_pre()
            .instantiate_async(&mut *store)
            .await?;
        self.handle(store, instance)
    }

    /// The component linked for the calling thread, while its calls start there.
    pub(super) fn inline(&self) -> Option<&wasmtime::component::InstancePre<CallState>> {
        self.inline
            .as_ref()
            .filter(|_| self.starts_inline.load(Ordering::Relaxed))
    }

    /// [`HandlePre::instantiate`] on the calling thread, linked with only what it provides.
    pub(super) fn instantiate_inline<'a>(
        &self,
        pre: &wasmtime::component::InstancePre<CallState>,
        store: &mut Store<CallState>,
    ) -> wasmtime::Result<Result<HandleFunc<'a>, HookFailure>> {
        let instance = pre.instantiate(&mut *store)?;
        self.handle(store, instance)
    }

    fn handle<'a>(
        &self,
        store: &mut Store<CallState>,
        instance: wasmtime::component::Instance,
    ) -> wasmtime::Result<Result<HandleFunc<'a>, HookFailure>> {
        let func = instance
            .get_func(&mut *store, self.handle)
            .ok_or_else(|| wasmtime::format_err!("the component exports no `handle`"))?;
        if self.checked.load(Ordering::Acquire) {
            // SAFETY: this export of this component was type-checked against `HandleFunc` on
            // an earlier call, and a component's types never change.
            return Ok(Ok(unsafe { TypedFunc::new_unchecked(func) }));
        }
        match func.typed(&*store) {
            Ok(typed) => {
                self.checked.store(true, Ordering::Release);
                Ok(Ok(typed))
            }
            Err(error) => Ok(Err(HookFailure::Spawn {
                reason: format!(
                    "its `handle` export does not have the type {} gives it ({}): rebuild it \
                     against wit/hookhost.wit",
                    Interface::V0_2.package(),
                    root_cause(&error)
                ),
            })),
        }
    }
}

/// The event as this hook sees it, as `handle` (0.2.0) takes it.
pub(super) fn event_of<'a>(request: &'a HookRequest<'_>) -> EventRef<'a> {
    use v0_2::types;
    let view = &request.view;
    EventRef {
        name: view.event.name(),
        phase: match view.phase {
            Phase::Guard => types::Phase::Guard,
            Phase::Observe => types::Phase::Observe,
        },
        session_id: view.event.session_id(),
        cwd: view.cwd,
        tool: view.call.map(|call| ToolCallRef {
            tool: call.tool,
            input: request.input_json(),
            tool_iterations: call.tool_iterations as u64,
        }),
        payload: request.payload_json(),
        observed: view.observed.map(|decision| {
            let (decision, by, reason) = match decision {
                Decision::Allow => (types::DecisionKind::Allow, None, None),
                Decision::Approve(n) => (types::DecisionKind::Approve, Some(&n.by), None),
                Decision::Warn(n) => (types::DecisionKind::Warn, Some(&n.by), Some(&n.reason)),
                Decision::Ask(n) => (types::DecisionKind::Ask, Some(&n.by), Some(&n.reason)),
                Decision::Block(b) => (
                    types::DecisionKind::Block,
                    Some(&b.blocked_by),
                    Some(&b.reason),
                ),
            };
            ObservedRef {
                decision,
                by: by.map(String::as_str),
                reason: reason.map(String::as_str),
            }
        }),
    }
}

pub(super) fn verdict_of(raw: v0_2::types::Verdict) -> Result<Verdict, HookFailure> {
    use v0_2::types::Answer as Raw;
    let reason = |reason: String| {
        if reason.trim().is_empty() {
            "no reason provided".to_string()
        } else {
            reason
        }
    };
    let answer = match raw.answer {
        Raw::Allow => Answer::Allow,
        Raw::Approve => Answer::Approve,
        Raw::Warn(r) => Answer::Warn(reason(r)),
        Raw::Ask(r) => Answer::Ask(reason(r)),
        Raw::Block(r) => Answer::Block(reason(r)),
    };
    let updated_input = match raw.updated_input {
        None => None,
        Some(text) if text.len() > UPDATED_INPUT_MAX_BYTES => {
            return Err(HookFailure::InvalidVerdict {
                detail: format!(
                    "the updated tool input is {} bytes; the limit is {UPDATED_INPUT_MAX_BYTES}",
                    text.len()
                ),
            });
        }
        Some(text) => {
            Some(
                serde_json::from_str(&text).map_err(|error| HookFailure::InvalidVerdict {
                    detail: format!("the updated tool input is not JSON: {error}"),
                })?,
            )
        }
    };
    Ok(Verdict {
        answer,
        updated_input,
        context: raw.context,
        stop: raw.stop,
        signal: raw.signal.map(|signal| Signal {
            signal: signal.name,
            reason: signal.reason,
        }),
        message: raw.message,
        note: None,
    })
}
