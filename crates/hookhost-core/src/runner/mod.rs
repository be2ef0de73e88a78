//! [`Runner`]: loads a configuration once, then runs the hooks each event reaches and
//! merges their verdicts by one rule (`verdict::merge`).
//!
//! The path of one event ([`Runner::fire`], in `dispatch`): the hooks whose `event`
//! pattern and matcher reach it, in declaration order; guards first (a gate event stops at the
//! first block, R4; a guard that fails closed blocks), rewrites chaining; then observers, which
//! see the outcome and fail open; async hooks are handed to the background (`background`).
//! Effects follow: signals are recorded in convergence.json (R7, R8).
//!
//! forgeflare's three events keep their own methods ([`Runner::pre_tool_use`],
//! [`Runner::post_tool_use`], [`Runner::stop`]): thin calls of `fire` plus the effects
//! seed 000 gives them.

mod background;
mod call;
mod dispatch;
mod hook;
mod options;
mod record;
mod rules;
mod seed;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::config::{ConfigError, HookSpec};
use crate::convergence::{ConvergenceError, ConvergenceStore, Observation};
use crate::event::Event;
use crate::native::NativeHook;
use crate::outcome::{Block, Decision, Outcome};
use crate::recording::OutcomeRecorder;
use crate::verdict::HookFailure;

pub use background::Flushed;
use hook::LoadedHook;
pub use hook::Runtime;
pub use options::RunnerOptions;
pub use rules::LoadedRule;
pub use rules::RuleInfo;

/// Runs hooks. Cheap to clone; `Send + Sync`; every method takes `&self`, so many events can
/// go through one runner at once.
///
/// A runner is assembled from hooks whose runtimes are already prepared, and a recorder: it
/// reads no file, fetches nothing and checks no signature. Embedders hold `hookhost::HookRunner`,
/// which the loading layer builds from configuration files and which dereferences to this.
#[derive(Debug, Clone)]
pub struct Runner {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config_path: PathBuf,
    /// The configuration's hooks, enabled or not, in layer and declaration order (a hook's
    /// position here is its index in reports).
    configured: Vec<HookSpec>,
    /// Every hook that can run: the configured ones, then those registered at run time.
    hooks: RwLock<Arc<[Arc<LoadedHook>]>>,
    /// Whether `hooks` holds any (hooks are only ever added): the check a call with no hooks
    /// makes, without the lock.
    any_hooks: AtomicBool,
    /// Set when the configuration could not be loaded: every PreToolUse call is blocked.
    load_error: Option<ConfigError>,
    cwd: Arc<str>,
    forward_stderr: bool,
    env: Vec<(String, String)>,
    convergence: Arc<ConvergenceStore>,
    background: background::Background,
    drain_timeout: Duration,
    /// Where each outcome is recorded (the decision log of `[log]` and `[telemetry]`, handed
    /// over by the loading layer).
    log: Option<Arc<dyn OutcomeRecorder>>,
    /// Files the load's decisions depend on besides the configuration files: what the user's
    /// approvals cover (each hook's scripts and components, and those approved as absent).
    watched: Vec<PathBuf>,
}

impl Runner {
    /// A runner that runs nothing and fails closed: every PreToolUse call is blocked with a
    /// message naming `error`; other events do nothing. This is what an agent should run with
    /// when its configuration is broken, instead of silently running without guards.
    pub fn fail_closed(error: ConfigError, options: RunnerOptions) -> Runner {
        Runner::build(
            error.path().to_path_buf(),
            Vec::new(),
            Some(error),
            &options,
        )
    }

    /// The runner of `hooks` (each with its runtime, prepared by the loading layer, in layer
    /// and declaration order), or of none with `load_error`: the one way a runner is made.
    pub fn assemble(
        config_path: PathBuf,
        hooks: Vec<(HookSpec, Runtime)>,
        load_error: Option<ConfigError>,
        options: &RunnerOptions,
    ) -> Runner {
        Runner::build(config_path, hooks, load_error, options)
    }

    fn build(
        config_path: PathBuf,
        hooks: Vec<(HookSpec, Runtime)>,
        load_error: Option<ConfigError>,
        options: &RunnerOptions,
    ) -> Runner {
        let state_dir = options
            .state_dir
            .clone()
            .unwrap_or_else(|| options.cwd.join(".forgeflare"));
        let mut configured = Vec::new();
        let mut loaded = Vec::new();
        for (position, (spec, runtime)) in hooks.into_iter().enumerate() {
            if spec.enabled {
                loaded.push(Arc::new(LoadedHook::configured(position, &spec, runtime)));
            }
            configured.push(spec);
        }
        Runner {
            inner: Arc::new(Inner {
                config_path,
                configured,
                any_hooks: AtomicBool::new(!loaded.is_empty()),
                hooks: RwLock::new(loaded.into()),
                load_error,
                cwd: options.cwd.to_string_lossy().into(),
                forward_stderr: options.forward_stderr,
                env: options.env.clone(),
                convergence: Arc::new(ConvergenceStore::new(state_dir)),
                background: background::Background::new(options.background_limit),
                drain_timeout: options.drain_timeout,
                log: None,
                watched: Vec::new(),
            }),
        }
    }

    /// Adds an in-process hook after every hook already there (configured hooks first, then
    /// registered ones, in registration order).
    pub fn register(&self, hook: NativeHook) {
        let mut hooks = self.inner.hooks.write().unwrap_or_else(|e| e.into_inner());
        // Past every index in use: a disabled hook leaves a gap, and rules come after the
        // configured hooks.
        let index = hooks
            .iter()
            .map(|hook| hook.index + 1)
            .max()
            .unwrap_or(0)
            .max(self.inner.configured.len());
        let loaded = LoadedHook {
            name: hook.name.clone(),
            index,
            events: hook.events.clone(),
            matcher: hook.matcher.clone(),
            phase: hook.phase,
            timeout: hook.timeout,
            on_failure: hook.on_failure,
            background: hook.background,
            mode: hook.mode,
            provenance: Arc::new(crate::recording::Provenance {
                source: "native".to_string(),
                ..Default::default()
            }),
            runtime: Runtime::Native(hook),
        };
        let mut next: Vec<Arc<LoadedHook>> = hooks.iter().cloned().collect();
        next.push(Arc::new(loaded));
        *hooks = next.into();
        self.inner.any_hooks.store(true, Ordering::Release);
    }

    /// True when any hook can run, or when the runner fails closed.
    pub fn has_hooks(&self) -> bool {
        self.any_hooks() || self.inner.load_error.is_some()
    }

    /// Whether any hook can run (configured or registered).
    fn any_hooks(&self) -> bool {
        self.inner.any_hooks.load(Ordering::Acquire)
    }

    /// The configuration's enabled hooks, in declaration order.
    pub fn hooks(&self) -> impl Iterator<Item = &HookSpec> {
        self.inner.configured.iter().filter(|spec| spec.enabled)
    }

    /// Every hook of the configuration, disabled ones included, in declaration order.
    pub fn configured_hooks(&self) -> impl Iterator<Item = &HookSpec> {
        self.inner.configured.iter()
    }

    /// The configuration error a fail-closed runner blocks with.
    pub fn load_error(&self) -> Option<&ConfigError> {
        self.inner.load_error.as_ref()
    }

    /// The agent's working directory ([`RunnerOptions::cwd`]): hooks run in it and are told it.
    pub fn cwd(&self) -> &Path {
        Path::new(&*self.inner.cwd)
    }

    /// The configuration file this runner was loaded from.
    pub fn config_path(&self) -> &Path {
        &self.inner.config_path
    }

    /// The convergence file's store.
    pub fn convergence(&self) -> &ConvergenceStore {
        &self.inner.convergence
    }

    /// Deletes a stale convergence.json (R8), at startup.
    pub fn clear_convergence_state(&self) -> Result<(), ConvergenceError> {
        self.inner.convergence.clear()
    }

    fn snapshot(&self) -> Arc<[Arc<LoadedHook>]> {
        self.inner
            .hooks
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Runs one event through every hook it reaches and returns the merged outcome. Signals
    /// are recorded in convergence.json; `SessionEnd` also drains the async hooks (for at most
    /// [`RunnerOptions::drain_timeout`]) and returns their reports with its own.
    pub async fn fire(&self, event: &Event<'_>) -> Outcome {
        let inner = &self.inner;
        if let Some(error) = &inner.load_error {
            let mut outcome = Outcome::new(event.name());
            if event.spec().fail_closed {
                let hook = inner.config_path.display().to_string();
                let failure = HookFailure::Config {
                    reason: error.one_line(),
                };
                outcome.decision = Decision::Block(Block::failed(&hook, failure));
            }
            // A team's audit includes what a broken configuration blocked.
            if let Some(log) = &inner.log
                && outcome.block().is_some()
            {
                self.record(log, &[], event, &mut outcome, std::time::Instant::now())
                    .await;
            }
            return outcome;
        }
        let started = std::time::Instant::now();
        let hooks = self.snapshot();
        // Boxed: the hook calls' futures (wasmtime's instantiation among them) are kilobytes,
        // and every caller's future would carry them inline, to be copied whenever it moves,
        // even on the path that finds no hooks (a memcpy that tripled its cost).
        let mut outcome = Box::pin(dispatch::run(&self.inner, &hooks, event)).await;
        if !outcome.signals.is_empty() {
            let tool_iterations = event
                .tool_call()
                .map(|call| call.tool_iterations)
                .or_else(|| {
                    event
                        .field("tool_iterations")
                        .and_then(|v| v.as_u64())
                        .map(|n| n as usize)
                })
                .unwrap_or(0);
            let observations: Vec<Observation> = outcome
                .signals
                .iter()
                .map(|signal| Observation {
                    signal: signal.signal.clone(),
                    reason: signal.reason.clone(),
                    tool_iterations,
                })
                .collect();
            let store = inner.convergence.clone();
            match blocking(move || store.append_observations(&observations)).await {
                Ok(warnings) => outcome.warnings.extend(warnings),
                Err(error) => outcome.warnings.push(crate::text::error_chain(&error)),
            }
        }
        if event.name() == "SessionEnd" {
            let flushed = self.flush(inner.drain_timeout).await;
            outcome.reports.extend(flushed.reports);
            if flushed.pending > 0 {
                outcome.warnings.push(format!(
                    "{} async hook call(s) still running after {:?}; they go on in the background",
                    flushed.pending, inner.drain_timeout
                ));
            }
        }
        if let Some(log) = &inner.log
            && (!outcome.reports.is_empty() || outcome.block().is_some())
        {
            self.record(log, &hooks, event, &mut outcome, started).await;
        }
        outcome
    }

    /// This runner without its decision log and telemetry export: for measuring hooks
    /// (`hookhost bench`) without filling a team's log with the measurement's calls. Call it
    /// on the runner as loaded: its clones share one recorder, and keep it.
    pub fn without_recording(mut self) -> Runner {
        self.set_log(None);
        self
    }

    /// Files whose contents this runner's load depended on besides its configuration files
    /// and their hooks.lock: under `[projects] policy = "approve"`, every file an approval
    /// covers (a hook's scripts, programs and components, and the files approved as absent).
    /// A runner kept loaded (the daemon) is fresh only while each of them is as it was: an
    /// approved script changed, or an absent one created, must be checked again.
    pub fn watched_files(&self) -> &[PathBuf] {
        &self.inner.watched
    }

    /// Records the files [`Runner::watched_files`] returns, on the runner as built.
    pub fn set_watched(&mut self, watched: Vec<PathBuf>) {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.watched = watched;
        }
    }

    /// Hands the runner the recorder its outcomes go to (the loading layer's choice, from the
    /// layers' `[log]` and `[telemetry]`), on the runner as built: its clones share one.
    pub fn set_log(&mut self, log: Option<Arc<dyn OutcomeRecorder>>) {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.log = log;
        }
    }

    /// Waits until every async hook has finished, or `timeout` passed, and returns the reports
    /// of the async calls that finished since the last flush.
    pub async fn flush(&self, timeout: Duration) -> Flushed {
        self.inner.background.flush(timeout).await
    }
}

/// Runs file I/O off the async worker threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(join_error) => std::panic::resume_unwind(join_error.into_panic()),
    }
}
