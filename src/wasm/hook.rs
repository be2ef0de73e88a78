//! A loaded wasm hook: compiled and linked once, instantiated fresh for every call.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sha2::{Digest as _, Sha256};
use wasmtime::component::{Component, ComponentExportIndex, TypedFunc};
use wasmtime::{Store, Trap, UpdateDeadline};

use super::bindings::{HANDLER, Interface, PACKAGE, v0_1, v0_2};
use super::cache::CacheOutcome;
use super::compat;
use super::core_module;
use super::engine::WasmEngine;
use super::inline;
use super::inspect::{self, Binary};
use super::output::GuestOutput;
use super::store::{CallState, HookShared, Sandbox};
use crate::bundle::{self, TrustStore};
use crate::config::WasmSpec;
use crate::event::Phase;
use crate::matcher::EventPattern;
use crate::outcome::Decision;
use crate::runtime::{HookRequest, HookResponse, StderrCapture};
use crate::verdict::{Answer, HookFailure, Signal, UPDATED_INPUT_MAX_BYTES, Verdict};

/// A wasm hook ready to run.
pub(crate) struct WasmHook {
    engine: Arc<WasmEngine>,
    pre: Pre,
    sandbox: Arc<Sandbox>,
    shared: Arc<HookShared>,
    fuel: Option<u64>,
    /// How the component was obtained at load.
    pub(crate) cache: CacheOutcome,
    /// The trusted keys whose signatures verified.
    pub(crate) signers: Vec<String>,
    /// SHA-256 of the file, hex.
    pub(crate) sha256: String,
}

/// The component, linked once, for the version of `hookhost:hooks` it was built against.
enum Pre {
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

/// A 0.2.0 component and where its `handle` export is. The bindings would look the export up
/// and check its type on every call (2,500 instructions, 6 % of a trivial guard's call);
/// the type of an export of one component never changes, so it is checked once.
struct HandlePre {
    pre: v0_2::HookPre<CallState>,
    handle: ComponentExportIndex,
    /// Whether `handle`'s type was checked against the bindings' (on the first call).
    checked: AtomicBool,
    /// The component linked for the calling thread ([`super::inline`]), where it could be.
    inline: Option<wasmtime::component::InstancePre<CallState>>,
    /// Whether calls start on the calling thread: false once one could not finish there.
    starts_inline: AtomicBool,
}

/// `handle` of `hookhost:hooks/handler@0.2.0`, typed.
type HandleFunc<'a> = TypedFunc<(&'a EventRef<'a>,), (v0_2::types::Verdict,)>;

/// The WIT `event` record as the host lowers it: borrowed from the request, so that a call
/// copies each string once, into the guest, instead of first into an owned `Event`. Field for
/// field the bindings' `types::Event` (the type check of `handle` compares them).
#[derive(wasmtime::component::ComponentType, wasmtime::component::Lower)]
#[component(record)]
struct EventRef<'a> {
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
struct ToolCallRef<'a> {
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
struct ObservedRef<'a> {
    #[component(name = "decision")]
    decision: v0_2::types::DecisionKind,
    #[component(name = "by")]
    by: Option<&'a str>,
    #[component(name = "reason")]
    reason: Option<&'a str>,
}

impl HandlePre {
    fn new(pre: v0_2::HookPre<CallState>, engine: &WasmEngine) -> Result<HandlePre, String> {
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
    async fn instantiate<'a>(
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
    fn inline(&self) -> Option<&wasmtime::component::InstancePre<CallState>> {
        self.inline
            .as_ref()
            .filter(|_| self.starts_inline.load(Ordering::Relaxed))
    }

    /// [`HandlePre::instantiate`] on the calling thread, linked with only what it provides.
    fn instantiate_inline<'a>(
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
    /// Reads, checks, compiles (or loads from the cache) and links the component of `spec`,
    /// configured for `events`. `base_dir` is the configuration file's directory, `cwd` the
    /// runner's. An error is a message for a configuration problem.
    pub(crate) fn load(
        engine: &Arc<WasmEngine>,
        spec: &WasmSpec,
        events: &EventPattern,
        base_dir: &Path,
        cwd: &Path,
        trust: &TrustStore,
    ) -> Result<WasmHook, String> {
        let path = base_dir.join(&spec.path);
        let unreadable =
            |error: std::io::Error| format!("cannot read `wasm` file {}: {error}", path.display());
        let describe = |problem: String| format!("`wasm` file {} {problem}", path.display());
        // Checked before opening: opening a FIFO would wait for a writer.
        let meta = std::fs::metadata(&path).map_err(unreadable)?;
        if !meta.is_file() {
            return Err(describe(
                "is not a regular file (a directory, FIFO or device): point `wasm` at a \
                 .wasm component file"
                    .to_string(),
            ));
        }
        // Without trusted keys there is nothing to check a signature against.
        let check_signatures = !trust.keys.is_empty() || trust.require_signed;
        // An unchanged file whose digest the cache recorded and whose compiled form it holds is
        // neither read nor hashed again. What runs is the compiled form of that digest, the one
        // compared with the pin, so provenance holds without the bytes.
        let known = (!check_signatures)
            .then(|| engine.cache.known_digest(&meta))
            .flatten()
            .and_then(|digest| Some((digest, engine.cache.hit(&engine.engine, &digest)?)));
        let (sha256, component, cache, signers) = match known {
            Some((digest, component)) => {
                if let Some(pin) = &spec.sha256 {
                    bundle::verify_pin_digest(&digest, pin).map_err(|e| describe(e.to_string()))?;
                }
                (digest, component, CacheOutcome::Hit, Vec::new())
            }
            None => {
                let bytes = std::fs::read(&path).map_err(unreadable)?;
                let binary = inspect::check_header(&bytes).map_err(describe)?;
                let sha256: [u8; 32] = Sha256::digest(&bytes).into();
                // Provenance first: nothing unverified reaches the compiler or the compile cache.
                if let Some(pin) = &spec.sha256 {
                    bundle::verify_pin_digest(&sha256, pin).map_err(|e| describe(e.to_string()))?;
                }
                let signers = if check_signatures {
                    bundle::verify(&bytes, trust)
                        .map_err(|e| describe(e.to_string()))?
                        .signers
                } else {
                    Vec::new()
                };
                let (component, cache) = engine
                    .cache
                    .load(&engine.engine, &sha256, || {
                        let wrapped;
                        let component = match binary {
                            Binary::Component => &bytes[..],
                            Binary::CoreModule => {
                                wrapped = core_module::wrap(&bytes)?;
                                &wrapped[..]
                            }
                        };
                        Component::from_binary(&engine.engine, component).map_err(|error| {
                            format!("is not a valid component: {}", root_cause(&error))
                        })
                    })
                    .map_err(describe)?;
                if let Ok(after) = std::fs::metadata(&path) {
                    engine.cache.remember_digest(&meta, &after, &sha256);
                }
                (sha256, component, cache, signers)
            }
        };
        let interface = inspect::check_component(&engine.engine, &component).map_err(describe)?;
        if interface == Interface::V0_1 {
            compat::check_events(events).map_err(describe)?;
        }
        let instance_pre = engine
            .instantiate_pre(&component)
            .map_err(|error| describe(format!("cannot be linked: {error:#}")))?;
        let mismatch = |error: wasmtime::Error| {
            describe(format!(
                "does not match the {} hook world: {error:#}",
                interface.package()
            ))
        };
        let pre = match interface {
            Interface::V0_2 => Pre::V0_2(
                HandlePre::new(v0_2::HookPre::new(instance_pre).map_err(mismatch)?, engine)
                    .map_err(describe)?,
            ),
            Interface::V0_1 => Pre::V0_1(v0_1::HookPre::new(instance_pre).map_err(mismatch)?),
        };
        Ok(WasmHook {
            engine: engine.clone(),
            pre,
            sandbox: Arc::new(sandbox(spec, cwd)?),
            shared: Arc::new(HookShared {
                config_json: spec.config.to_string(),
                state: Default::default(),
            }),
            fuel: spec.grants.fuel,
            cache,
            signers,
            sha256: super::cache::hex(&sha256),
        })
    }

    /// What loading established, for `HookRunner::wasm_hooks`.
    pub(crate) fn info(&self) -> super::WasmInfo {
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

/// The event as this hook sees it, as `handle` (0.2.0) takes it.
fn event_of<'a>(request: &'a HookRequest<'_>) -> EventRef<'a> {
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

fn verdict_of(raw: v0_2::types::Verdict) -> Result<Verdict, HookFailure> {
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

/// Names a failed call the way a user reads it, never as a raw backtrace.
fn classify(
    error: &wasmtime::Error,
    memory_denied: bool,
    timeout_ms: u64,
    max_memory_bytes: usize,
) -> HookFailure {
    if let Some(failure) = super::limits::failure(error) {
        return failure;
    }
    let limit_mb = (max_memory_bytes >> 20) as u64;
    match error.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => HookFailure::TimedOut { timeout_ms },
        Some(Trap::OutOfFuel) => HookFailure::OutOfFuel,
        // A refused memory.grow surfaces as whatever the guest does next (Rust aborts).
        Some(_) | None if memory_denied => HookFailure::MemoryLimit { limit_mb },
        Some(trap) => {
            let message = trap.to_string();
            let message = message
                .strip_prefix("wasm trap: ")
                .unwrap_or(&message)
                .to_string();
            HookFailure::Trapped { message }
        }
        None => match error.downcast_ref::<wasmtime_wasi::I32Exit>() {
            Some(exit) if exit.0 != 0 => HookFailure::Exited { code: exit.0 },
            Some(_) => HookFailure::InvalidVerdict {
                detail: "the hook called exit(0) instead of returning a verdict".to_string(),
            },
            None => HookFailure::Trapped {
                message: root_cause(error),
            },
        },
    }
}

/// The innermost message of a wasmtime error (its `Display` is often only a backtrace).
fn root_cause(error: &wasmtime::Error) -> String {
    error.root_cause().to_string()
}

/// Resolves a hook's grants against the runner's cwd; each directory must exist.
fn sandbox(spec: &WasmSpec, cwd: &Path) -> Result<Sandbox, String> {
    let resolve = |key: &str,
                   dirs: &[std::path::PathBuf]|
     -> Result<Vec<std::path::PathBuf>, String> {
        dirs.iter()
            .map(|dir| {
                let absolute = lexical(&std::path::absolute(cwd.join(dir)).map_err(|e| e.to_string())?);
                if absolute.is_dir() {
                    Ok(absolute)
                } else {
                    Err(format!("`{key}` directory {} does not exist (or is not a directory); create it or remove it from `{key}`", absolute.display()))
                }
            })
            .collect()
    };
    let mut env: Vec<(String, String)> = spec
        .grants
        .env_inherit
        .iter()
        .filter_map(|name| std::env::var(name).ok().map(|value| (name.clone(), value)))
        .collect();
    env.extend(
        spec.grants
            .env_set
            .iter()
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    Ok(Sandbox {
        read: resolve("read", &spec.grants.read)?,
        write: resolve("write", &spec.grants.write)?,
        env,
        max_memory_bytes: (spec.grants.max_memory_mb as usize) << 20,
    })
}

/// `.` and `..` resolved without touching the filesystem: the guest sees a grant at exactly
/// this path, so `read = ["."]` must mount the workspace at `/ws`, not `/ws/.`.
fn lexical(path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
