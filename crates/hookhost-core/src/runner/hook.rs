//! A hook the runner holds: what decides when it runs (events, matcher, phase, timeout, fail
//! mode) and the runtime that runs it. [`Runtime`] sits above the runtimes and dispatches to
//! them; none of them knows it, and the wasm runtime is plugged in by the loading layer
//! (`runtime::PluggedRuntime`), so the runner does not know it either. Also which configured hooks run no runtime at all, and why
//! (held by a `[projects]` policy, skipped by the organisation's `managed_only`).

use std::sync::Arc;
use std::time::Duration;

use crate::command::CommandHook;
use crate::config::{HookSpec, OnFailure};
use crate::event::Phase;
use crate::matcher::{EventPattern, ToolMatcher};
use crate::native::NativeHook;
use crate::outcome::HookReport;
use crate::recording::Provenance;
use crate::runtime::rules::RuleHook;
use crate::runtime::{HookRequest, HookResponse, PluggedRuntime};
use crate::source::HookSource;
use crate::verdict::HookFailure;
use crate::verdict::Mode;

/// A hook ready to run, and what decides when it runs.
#[derive(Debug)]
pub(super) struct LoadedHook {
    pub(super) name: String,
    pub(super) index: usize,
    pub(super) events: EventPattern,
    pub(super) matcher: ToolMatcher,
    pub(super) phase: Phase,
    pub(super) timeout: Option<Duration>,
    pub(super) on_failure: Option<OnFailure>,
    pub(super) background: bool,
    pub(super) mode: Mode,
    /// Where it comes from, as the decision log names it.
    pub(super) provenance: Arc<Provenance>,
    pub(super) runtime: Runtime,
}

impl LoadedHook {
    pub(super) fn configured(position: usize, spec: &HookSpec, runtime: Runtime) -> LoadedHook {
        LoadedHook {
            name: spec.name.clone(),
            index: position,
            events: spec.events.clone(),
            matcher: spec.matcher.clone(),
            phase: spec.phase,
            timeout: spec.timeout,
            on_failure: spec.on_failure,
            background: spec.background,
            mode: spec.mode,
            provenance: Arc::new(provenance(spec, &runtime)),
            runtime,
        }
    }
}

/// A hook ready to run.
#[derive(Debug)]
pub enum Runtime {
    Command(CommandHook),
    Native(NativeHook),
    /// A runtime plugged in from above (wasm: a build without it plugs in none).
    #[cfg_attr(not(feature = "wasm"), allow(dead_code))]
    Plugged(Box<dyn PluggedRuntime>),
    /// A hook the user's `[projects]` policy does not let run, with why; it never runs, and
    /// its guards block.
    Held(String),
    /// A hook of a layer the organisation's `managed_only` leaves out, with why: it never runs,
    /// never blocks, and is reported as skipped.
    Skipped(String),
    /// One rule of `[[rules]]` (`runner::rules`).
    Rule(RuleHook),
}

impl Runtime {
    pub(crate) async fn call(&self, request: &HookRequest<'_>) -> HookResponse {
        match self {
            Runtime::Command(hook) => hook.call(request).await,
            Runtime::Native(hook) => hook.call(request).await,
            Runtime::Plugged(hook) => hook.call(request).await,
            Runtime::Rule(rule) => rule.call(request),
            Runtime::Held(reason) | Runtime::Skipped(reason) => HookResponse {
                result: Err(HookFailure::NotAllowed {
                    reason: reason.clone(),
                }),
                stderr: String::new(),
                stderr_truncated: false,
            },
        }
    }

    /// True for a hook the user's policy holds back.
    pub(crate) fn is_held(&self) -> bool {
        matches!(self, Runtime::Held(_))
    }

    /// True for a hook the organisation's `managed_only` skips.
    pub(crate) fn is_skipped(&self) -> bool {
        matches!(self, Runtime::Skipped(_))
    }

    /// "command", "native", a plugged runtime's ("wasm"), "rule", "held" or "skipped" ([`crate::outcome::SKIPPED`]).
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Runtime::Command(_) => "command",
            Runtime::Plugged(hook) => hook.kind(),
            Runtime::Native(_) => "native",
            Runtime::Rule(_) => "rule",
            Runtime::Held(_) => "held",
            Runtime::Skipped(_) => crate::outcome::SKIPPED,
        }
    }
}

impl super::Runner {
    /// The configured hooks the user's `[projects]` policy holds back, with why.
    pub fn held_hooks(&self) -> Vec<(&HookSpec, String)> {
        self.configured_with(|runtime| match runtime {
            Runtime::Held(reason) => Some(reason.clone()),
            _ => None,
        })
    }

    /// The configured hooks the organisation's `managed_only` skips, with why: they never run
    /// and never block; every event they reach reports them as skipped.
    pub fn skipped_hooks(&self) -> Vec<(&HookSpec, String)> {
        self.configured_with(|runtime| match runtime {
            Runtime::Skipped(reason) => Some(reason.clone()),
            _ => None,
        })
    }

    /// The configured hooks whose runtime `what` says something of, with what it says.
    pub fn configured_with<T>(&self, what: impl Fn(&Runtime) -> Option<T>) -> Vec<(&HookSpec, T)> {
        let hooks = self.snapshot();
        self.inner
            .configured
            .iter()
            .enumerate()
            .filter_map(|(position, spec)| {
                let hook = hooks.iter().find(|hook| hook.index == position)?;
                Some((spec, what(&hook.runtime)?))
            })
            .collect()
    }
}

impl HookReport {
    pub(super) fn of(hook: &LoadedHook, event: &str, phase: Phase) -> HookReport {
        HookReport {
            name: hook.name.clone(),
            index: hook.index,
            event: event.to_string(),
            phase,
            kind: hook.runtime.kind(),
            background: hook.background,
            mode: hook.mode,
            duration: Duration::ZERO,
            result: Ok(crate::verdict::Verdict::allow()),
            stderr: String::new(),
            stderr_truncated: false,
        }
    }
}

/// Where a configured hook comes from.
fn provenance(spec: &HookSpec, runtime: &Runtime) -> Provenance {
    let (sha256, signers) = match runtime {
        Runtime::Plugged(hook) => hook.provenance(),
        _ => (None, Vec::new()),
    };
    Provenance {
        layer: Some(spec.layer),
        source: match &spec.source {
            HookSource::Command(command) => command.command.clone(),
            HookSource::Wasm(wasm) => wasm.path.display().to_string(),
        },
        sha256,
        signers,
    }
}
