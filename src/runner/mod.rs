//! [`HookRunner`]: loads a configuration once, then runs the matching hooks of each event and
//! merges their verdicts by the contract's rules:
//! guards in declaration order, short-circuit on block, fail closed (R4); observe hooks always,
//! after the guards, fail open (R4); PostToolUse in order, first signal wins, every signal
//! recorded in one write (R7, R8); Stop fail open, `final` written once (R5, R8).

mod prepare;

use prepare::{WasmRuntime, prepare, trust_store};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::config::{Config, ConfigError, ConfigProblem, HookSpec, OnFailure, Role};
use crate::convergence::{
    ConvergenceError, ConvergenceStore, FinalState, Observation, timestamp_now,
};
use crate::event::{EventPayload, GuardContext, StopReason, ToolCall, cap_result};
use crate::outcome::{
    Block, GuardDecision, HookReport, PostToolOutcome, PreToolOutcome, StopOutcome,
};
use crate::runtime::{EventCache, HookRequest, Runtime};
use crate::verdict::{HookFailure, Verdict};
use crate::wasm::{CacheMode, CacheOutcome};

/// What loading a wasm hook established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WasmInfo {
    /// Compiled, or taken from the compile cache.
    pub cache: CacheOutcome,
    /// SHA-256 of the component file, hex.
    pub sha256: String,
    /// The trusted keys whose signatures verified (empty for an unsigned bundle).
    pub signers: Vec<String>,
    /// Instances come from wasmtime's pooling allocator (false: allocated on demand, where
    /// the pool could not reserve its address space).
    pub pooling: bool,
}

/// How a runner is set up, beyond its configuration.
#[derive(Debug, Clone)]
pub struct RunnerOptions {
    /// The agent's working directory: hooks run in it unless configured otherwise, the `cwd`
    /// field of every event carries it, and relative paths resolve against it.
    pub cwd: PathBuf,
    /// Where `convergence.json` lives. Default: `{cwd}/.forgeflare`.
    pub state_dir: Option<PathBuf>,
    /// Forward each hook's stderr to this process's stderr, line by line, under the hook's
    /// name. Reports carry the text either way.
    pub forward_stderr: bool,
    /// The shell that runs command hooks as `{shell} -c {command}`. Default: `bash` on PATH.
    pub shell: PathBuf,
    /// Where compiled wasm hooks are cached. Default: the user's cache directory.
    pub cache: CacheMode,
}

impl RunnerOptions {
    /// Defaults for an agent working in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> RunnerOptions {
        RunnerOptions {
            cwd: cwd.into(),
            state_dir: None,
            forward_stderr: true,
            shell: PathBuf::from("bash"),
            cache: CacheMode::Default,
        }
    }
}

/// Runs a project's hooks. Cheap to clone; `Send + Sync`; every method takes `&self`, so many
/// tool calls can go through one runner at once.
#[derive(Debug, Clone)]
pub struct HookRunner {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config_path: PathBuf,
    /// Enabled hooks, in declaration order.
    hooks: Vec<LoadedHook>,
    /// Set when the configuration could not be loaded: every PreToolUse call is blocked.
    load_error: Option<ConfigError>,
    cwd: String,
    forward_stderr: bool,
    convergence: Arc<ConvergenceStore>,
}

#[derive(Debug)]
struct LoadedHook {
    spec: HookSpec,
    runtime: Runtime,
}

impl HookRunner {
    /// Loads `config_path`. A missing file is a runner with no hooks (R2: unconfigured is the
    /// default); an unreadable or invalid file is an error.
    pub fn load(
        config_path: impl AsRef<Path>,
        options: RunnerOptions,
    ) -> Result<HookRunner, ConfigError> {
        let config_path = config_path.as_ref();
        match Config::load_optional(config_path)? {
            Some(config) => HookRunner::new(config, options),
            None => Ok(HookRunner::build(
                config_path.to_path_buf(),
                Vec::new(),
                None,
                &options,
            )),
        }
    }

    /// A runner for an already parsed configuration. Fails when a hook cannot be prepared
    /// (for example, its `cwd` does not exist).
    pub fn new(config: Config, options: RunnerOptions) -> Result<HookRunner, ConfigError> {
        let mut problems = Vec::new();
        let mut hooks = Vec::new();
        let base_dir = config.base_dir().to_path_buf();
        let trust = trust_store(&config.trust, &base_dir, &mut problems);
        let mut wasm = WasmRuntime::new(&config, &options, trust);
        for spec in config.hooks {
            match prepare(&spec, &options, &base_dir, &mut wasm) {
                Ok(runtime) if spec.enabled => hooks.push(LoadedHook { spec, runtime }),
                Ok(_) => {}
                Err(message) => problems.push(ConfigProblem {
                    location: spec.location,
                    hook: Some((spec.index, Some(spec.name.clone()))),
                    message,
                }),
            }
        }
        if !problems.is_empty() {
            return Err(ConfigError::Invalid {
                path: config.path,
                problems,
            });
        }
        Ok(HookRunner::build(config.path, hooks, None, &options))
    }

    /// A runner that runs nothing and fails closed: every PreToolUse call is blocked with a
    /// message naming `error`; PostToolUse and Stop do nothing. This is what an agent should
    /// run with when its configuration is broken, instead of silently running without guards.
    pub fn fail_closed(error: ConfigError, options: RunnerOptions) -> HookRunner {
        HookRunner::build(
            error.path().to_path_buf(),
            Vec::new(),
            Some(error),
            &options,
        )
    }

    fn build(
        config_path: PathBuf,
        hooks: Vec<LoadedHook>,
        load_error: Option<ConfigError>,
        options: &RunnerOptions,
    ) -> HookRunner {
        let state_dir = options
            .state_dir
            .clone()
            .unwrap_or_else(|| options.cwd.join(".forgeflare"));
        HookRunner {
            inner: Arc::new(Inner {
                config_path,
                hooks,
                load_error,
                cwd: options.cwd.to_string_lossy().into_owned(),
                forward_stderr: options.forward_stderr,
                convergence: Arc::new(ConvergenceStore::new(state_dir)),
            }),
        }
    }

    /// True when any hook is enabled, or when the runner fails closed.
    pub fn has_hooks(&self) -> bool {
        !self.inner.hooks.is_empty() || self.inner.load_error.is_some()
    }

    /// The enabled hooks, in declaration order.
    pub fn hooks(&self) -> impl Iterator<Item = &HookSpec> {
        self.inner.hooks.iter().map(|hook| &hook.spec)
    }

    /// The enabled wasm hooks, with how each component was obtained at load (compiled, or
    /// from the compile cache).
    pub fn wasm_hooks(&self) -> impl Iterator<Item = (&HookSpec, WasmInfo)> {
        self.inner
            .hooks
            .iter()
            .filter_map(|hook| match &hook.runtime {
                Runtime::Wasm(wasm) => Some((
                    &hook.spec,
                    WasmInfo {
                        cache: wasm.cache,
                        sha256: wasm.sha256.clone(),
                        signers: wasm.signers.clone(),
                        pooling: wasm.pooling(),
                    },
                )),
                Runtime::Command(_) => None,
            })
    }

    /// The configuration error a fail-closed runner blocks with.
    pub fn load_error(&self) -> Option<&ConfigError> {
        self.inner.load_error.as_ref()
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

    /// PreToolUse: guards in declaration order until one blocks (fail closed), then every
    /// observe hook with the guard outcome (fail open). Observe output is ignored.
    pub async fn pre_tool_use(&self, call: ToolCall<'_>) -> PreToolOutcome {
        let inner = &*self.inner;
        if let Some(error) = &inner.load_error {
            let hook = inner.config_path.display().to_string();
            let failure = HookFailure::Config {
                reason: error.one_line(),
            };
            return PreToolOutcome {
                decision: GuardDecision::Block(Block::failed(&hook, failure)),
                reports: Vec::new(),
            };
        }
        let mut reports = Vec::new();
        let mut decision = GuardDecision::Allow;
        let guard_json = EventCache::default();
        for hook in inner.matching(Role::Guard, Some(call.tool)) {
            let report = inner
                .call(hook, EventPayload::Guard { call }, &guard_json)
                .await;
            let block = match &report.result {
                Ok(Verdict::Block { reason }) => {
                    Some(Block::decided(&hook.spec.name, reason.clone()))
                }
                Ok(_) => None,
                Err(_) if hook.spec.on_failure == OnFailure::Allow => None,
                Err(failure) => Some(Block::failed(&hook.spec.name, failure.clone())),
            };
            reports.push(report);
            if let Some(block) = block {
                decision = GuardDecision::Block(block);
                break;
            }
        }

        let guard = match &decision {
            GuardDecision::Allow => GuardContext::Allowed,
            GuardDecision::Block(block) => GuardContext::Blocked {
                blocked_by: &block.blocked_by,
                block_reason: &block.reason,
            },
        };
        let observe_json = EventCache::default();
        for hook in inner.matching(Role::Observe, Some(call.tool)) {
            let payload = EventPayload::Observe { call, guard };
            reports.push(inner.call(hook, payload, &observe_json).await);
        }
        PreToolOutcome { decision, reports }
    }

    /// PostToolUse: every matching hook in declaration order (fail open). The first signal is
    /// the outcome's `signal`; every signal is appended to convergence.json in one write.
    pub async fn post_tool_use(
        &self,
        call: ToolCall<'_>,
        result: &str,
        is_error: bool,
    ) -> PostToolOutcome {
        let inner = &*self.inner;
        let mut outcome = PostToolOutcome {
            signal: None,
            signals: Vec::new(),
            reports: Vec::new(),
            warnings: Vec::new(),
        };
        let mut hooks = inner.matching(Role::Post, Some(call.tool)).peekable();
        if hooks.peek().is_none() {
            return outcome;
        }
        let result = cap_result(result);
        let json = EventCache::default();
        for hook in hooks {
            let payload = EventPayload::Post {
                call,
                result: &result,
                is_error,
            };
            let report = inner.call(hook, payload, &json).await;
            if let Ok(Verdict::Signal(signal)) = &report.result {
                outcome.signals.push(signal.clone());
            }
            outcome.reports.push(report);
        }
        outcome.signal = outcome.signals.first().cloned();
        if !outcome.signals.is_empty() {
            let observations: Vec<Observation> = outcome
                .signals
                .iter()
                .map(|signal| Observation {
                    signal: signal.signal.clone(),
                    reason: signal.reason.clone(),
                    tool_iterations: call.tool_iterations,
                })
                .collect();
            let store = inner.convergence.clone();
            let written = blocking(move || store.append_observations(&observations)).await;
            outcome.warnings = warnings_of(written);
        }
        outcome
    }

    /// Stop: every Stop hook in declaration order (fail open), then `final` in
    /// convergence.json, once per session. A runner without hooks does nothing (R2).
    pub async fn stop(
        &self,
        reason: StopReason,
        tool_iterations: usize,
        total_tokens: u64,
    ) -> StopOutcome {
        self.stop_with_reason(reason.as_str(), tool_iterations, total_tokens)
            .await
    }

    /// [`HookRunner::stop`] with the reason as a string, for facades whose callers pass one.
    pub(crate) async fn stop_with_reason(
        &self,
        reason: &str,
        tool_iterations: usize,
        total_tokens: u64,
    ) -> StopOutcome {
        let inner = &*self.inner;
        let mut outcome = StopOutcome {
            reports: Vec::new(),
            final_written: false,
            warnings: Vec::new(),
        };
        if inner.hooks.is_empty() {
            return outcome;
        }
        let json = EventCache::default();
        for hook in inner.matching(Role::Stop, None) {
            let payload = EventPayload::Stop {
                reason,
                tool_iterations,
                total_tokens,
            };
            outcome.reports.push(inner.call(hook, payload, &json).await);
        }
        let final_state = FinalState {
            reason: reason.to_string(),
            tool_iterations,
            total_tokens,
            timestamp: timestamp_now(),
        };
        let store = inner.convergence.clone();
        match blocking(move || store.write_final(final_state)).await {
            Ok(Some(warnings)) => {
                outcome.final_written = true;
                outcome.warnings = warnings;
            }
            Ok(None) => {}
            Err(error) => outcome.warnings.push(error_chain(&error)),
        }
        outcome
    }
}

impl Inner {
    fn matching<'s>(
        &'s self,
        role: Role,
        tool: Option<&'s str>,
    ) -> impl Iterator<Item = &'s LoadedHook> + 's {
        self.hooks.iter().filter(move |hook| {
            hook.spec.role == role && tool.is_none_or(|tool| hook.spec.matches_tool(tool))
        })
    }

    async fn call(
        &self,
        hook: &LoadedHook,
        payload: EventPayload<'_>,
        cache: &EventCache,
    ) -> HookReport {
        let request = HookRequest {
            name: &hook.spec.name,
            role: hook.spec.role,
            payload,
            cwd: &self.cwd,
            timeout: hook.spec.timeout,
            forward_stderr: self.forward_stderr,
            cache,
        };
        let started = Instant::now();
        let response = hook.runtime.call(&request).await;
        HookReport {
            name: hook.spec.name.clone(),
            index: hook.spec.index,
            role: hook.spec.role,
            kind: hook.spec.source.kind(),
            duration: started.elapsed(),
            result: response.result,
            stderr: response.stderr,
            stderr_truncated: response.stderr_truncated,
        }
    }
}

/// Runs file I/O off the async worker threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(join_error) => std::panic::resume_unwind(join_error.into_panic()),
    }
}

fn warnings_of(written: Result<Vec<String>, ConvergenceError>) -> Vec<String> {
    match written {
        Ok(warnings) => warnings,
        Err(error) => vec![error_chain(&error)],
    }
}

/// An error and its causes on one line.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
