//! A loaded wasm hook: compiled and linked once (`load`), instantiated fresh for every call,
//! on the calling thread first and on a fiber when it must.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use wasmtime::{Store, Trap, UpdateDeadline};

use super::bindings::{Interface, v0_1};
use super::cache::CacheOutcome;
use super::call_state::{CallState, HookShared, Sandbox};
use super::compat;
use super::engine::WasmEngine;
use super::handle::{HandlePre, event_of, verdict_of};
use super::inspect;
use super::output::GuestOutput;
use super::trap::{classify, root_cause};
use crate::runtime::{HookRequest, HookResponse, StderrCapture};
use crate::verdict::{HookFailure, Verdict};

/// A wasm hook ready to run.
pub struct WasmHook {
    pub(super) engine: Arc<WasmEngine>,
    pub(super) pre: Pre,
    pub(super) sandbox: Arc<Sandbox>,
    pub(super) shared: Arc<HookShared>,
    pub(super) fuel: Option<u64>,
    /// How the component was obtained at load.
    pub(crate) cache: CacheOutcome,
    /// The trusted keys whose signatures verified.
    pub(crate) signers: Vec<String>,
    /// SHA-256 of the file, hex.
    pub(crate) sha256: String,
}

/// The wasm runtime as the runner sees it: plugged in through the seam, never named.
impl crate::runtime::PluggedRuntime for WasmHook {
    fn kind(&self) -> &'static str {
        "wasm"
    }

    fn provenance(&self) -> (Option<String>, Vec<String>) {
        (Some(self.sha256.clone()), self.signers.clone())
    }

    fn call<'a>(&'a self, request: &'a HookRequest<'a>) -> crate::runtime::Calling<'a> {
        Box::pin(WasmHook::call(self, request))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The component, linked once, for the version of `hookhost:hooks` it was built against.
pub(super) enum Pre {
    V0_2(HandlePre),
    V0_1(v0_1::HookPre<CallState>),
}

impl Pre {
    fn interface(&self) -> Interface {
        match self {
            Pre::V0_2(_) => Interface::V0_2,
            Pre::V0_1(_) => Interface::V0_1,
        }
    }
}

impl std::fmt::Debug for WasmHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmHook")
            .field("sandbox", &self.sandbox)
            .field("fuel", &self.fuel)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

impl WasmHook {
    /// What loading established, for `HookRunner::wasm_hooks`.
    pub fn info(&self) -> super::WasmInfo {
        super::WasmInfo {
            cache: self.cache,
            sha256: self.sha256.clone(),
            signers: self.signers.clone(),
            pooling: self.engine.pooling,
            interface: self.pre.interface().package(),
            imports: self.imports(),
            inline: matches!(&self.pre, Pre::V0_2(pre) if pre.inline().is_some()),
        }
    }

    /// What the component imports, and which of it is denied.
    fn imports(&self) -> super::WasmImports {
        let component = match &self.pre {
            Pre::V0_2(pre) => pre.pre.instance_pre().component(),
            Pre::V0_1(pre) => pre.instance_pre().component(),
        };
        let imports = inspect::imports(&self.engine.engine, component);
        super::WasmImports {
            all: imports.all,
            denied: imports.denied,
        }
    }

    pub(crate) async fn call(&self, request: &HookRequest<'_>) -> HookResponse {
        let output = GuestOutput::default();
        let result = self.run(request, &output).await;
        let (text, cut) = output.take();
        let capture = StderrCapture::new(request.name, request.forward_stderr);
        capture.push(&text);
        capture.flush_pending();
        let (stderr, truncated) = capture.finish();
        HookResponse {
            result,
            stderr,
            stderr_truncated: cut || truncated,
        }
    }

    async fn run(
        &self,
        request: &HookRequest<'_>,
        output: &GuestOutput,
    ) -> Result<Verdict, HookFailure> {
        let _slot = self.engine.begin_call().await;
        // The deadline starts once the call has an instance slot.
        let deadline = tokio::time::Instant::now() + request.timeout;
        let std_deadline = deadline.into_std();
        if let Pre::V0_2(pre) = &self.pre
            && let Some(inline) = pre.inline()
            && super::stack::has_room_for_guest()
        {
            match self.run_inline(pre, inline, request, output, std_deadline) {
                Some(result) => return result,
                // Started again on a fiber, as if the attempt had not been (it could only
                // compute and log); this hook's calls start there from now on.
                None => {
                    output.clear();
                    pre.starts_inline.store(false, Ordering::Relaxed);
                }
            }
        }

        let mut store = self.store(output)?;
        interrupt_at(&mut store, std_deadline, Tick::Yield);
        let pre = &self.pre;
        let store_ref = &mut store;
        let call = async move {
            match pre {
                Pre::V0_2(pre) => match pre.instantiate(&mut *store_ref).await? {
                    Ok(func) => {
                        let (verdict,) = func
                            .call_async(&mut *store_ref, (&event_of(request),))
                            .await?;
                        Ok(verdict_of(verdict))
                    }
                    Err(failure) => Ok(Err(failure)),
                },
                Pre::V0_1(pre) => {
                    let hook = pre.instantiate_async(&mut *store_ref).await?;
                    compat::invoke(hook.hookhost_hooks_handler(), store_ref, request).await
                }
            }
        };
        // Epochs stop a guest that computes; this stops one blocked in a host call (a sleep),
        // which no epoch check can reach.
        let outcome = tokio::time::timeout_at(deadline + Duration::from_millis(5), call).await;
        match outcome {
            Err(_) => Err(HookFailure::TimedOut {
                timeout_ms: timeout_ms(request),
            }),
            Ok(Ok(verdict)) => verdict,
            Ok(Err(error)) => Err(self.classify(&error, &store, request)),
        }
    }

    /// A call on the calling thread: no fiber to set up, switch to and return, a seventh of a
    /// destructive-guard call. The guest gets only hookhost's `host` and `types`
    /// ([`super::inline`]), and, since it cannot yield to the executor, [`INLINE_BUDGET`].
    /// `None`: it called anything else, or was still running then (and before its deadline);
    /// it was stopped, having done nothing but compute and log, and the call starts again on a
    /// fiber.
    fn run_inline(
        &self,
        pre: &HandlePre,
        inline: &wasmtime::component::InstancePre<CallState>,
        request: &HookRequest<'_>,
        output: &GuestOutput,
        deadline: std::time::Instant,
    ) -> Option<Result<Verdict, HookFailure>> {
        let mut store = match self.store(output) {
            Ok(store) => store,
            Err(failure) => return Some(Err(failure)),
        };
        let budget = (std::time::Instant::now() + INLINE_BUDGET).min(deadline);
        interrupt_at(&mut store, budget, Tick::Continue);
        let result = pre
            .instantiate_inline(inline, &mut store)
            .and_then(|func| match func {
                Ok(func) => {
                    let (verdict,) = func.call(&mut store, (&event_of(request),))?;
                    Ok(verdict_of(verdict))
                }
                Err(failure) => Ok(Err(failure)),
            });
        match result {
            Ok(verdict) => Some(verdict),
            Err(error) if error.is::<super::inline::NeedsFiber>() => None,
            Err(error)
                if matches!(error.downcast_ref::<Trap>(), Some(Trap::Interrupt))
                    && std::time::Instant::now() < deadline =>
            {
                None
            }
            Err(error) => Some(Err(self.classify(&error, &store, request))),
        }
    }

    /// A fresh store for one call: the sandbox's state, the memory limiter, the bounds on
    /// host calls, and fuel where the hook sets it. The caller sets the epoch deadline.
    fn store(&self, output: &GuestOutput) -> Result<Store<CallState>, HookFailure> {
        let state = CallState::new(&self.sandbox, self.shared.clone(), output.clone()).map_err(
            |error| HookFailure::Spawn {
                reason: format!("cannot build the sandbox: {}", root_cause(&error)),
            },
        )?;
        let mut store = Store::new(&self.engine.engine, state);
        store.limiter(|state| &mut state.limiter);
        super::limits::bound_store(&mut store);
        if self.engine.consumes_fuel {
            let fuel = self.fuel.unwrap_or(u64::MAX);
            store
                .set_fuel(fuel)
                .expect("fuel is enabled on this engine");
        }
        Ok(store)
    }

    /// A failed call, named the way a user reads it.
    fn classify(
        &self,
        error: &wasmtime::Error,
        store: &Store<CallState>,
        request: &HookRequest<'_>,
    ) -> HookFailure {
        classify(
            error,
            store.data().limiter.denied,
            timeout_ms(request),
            self.sandbox.max_memory_bytes,
        )
    }
}

/// How long a guest that runs on the calling thread may run before it is started again on a
/// fiber ([`WasmHook::run_inline`]); checked at each epoch tick, so it may run one tick more.
/// A guard without WASI takes tens of microseconds.
const INLINE_BUDGET: Duration = Duration::from_millis(2);

/// What a guest does at an epoch tick before its deadline: yield to the executor (on a fiber),
/// or carry on (on the calling thread, which cannot yield).
#[derive(Clone, Copy)]
enum Tick {
    Yield,
    Continue,
}

/// Interrupts the guest in `store` at the first epoch tick from `until` on.
fn interrupt_at(store: &mut Store<CallState>, until: std::time::Instant, tick: Tick) {
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(move |_| {
        Ok(match tick {
            _ if std::time::Instant::now() >= until => UpdateDeadline::Interrupt,
            Tick::Yield => UpdateDeadline::Yield(1),
            Tick::Continue => UpdateDeadline::Continue(1),
        })
    })
}

fn timeout_ms(request: &HookRequest<'_>) -> u64 {
    request.timeout.as_millis() as u64
}
