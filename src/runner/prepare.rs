//! Turning a validated configuration into runnable hooks: command hooks get their working
//! directory checked, wasm hooks are verified (trust), compiled or loaded from the cache, and
//! linked, all with one engine per runner.
//!
//! Without the `wasm` feature there is no engine: a wasm hook or a `[trust]` table is a
//! configuration problem that names the feature, so that a hook never goes missing in silence.

use std::path::Path;
#[cfg(feature = "wasm")]
use std::sync::Arc;

use super::RunnerOptions;
#[cfg(feature = "wasm")]
use crate::bundle::{TrustStore, TrustedKey};
use crate::command::CommandHook;
use crate::config::{Config, ConfigProblem, HookSource, HookSpec, WasmSpec};
use crate::runtime::Runtime;
#[cfg(feature = "wasm")]
use crate::wasm::{CacheMode, CompileCache, WasmEngine, WasmHook};

/// The wasm engine of a runner, created when the first wasm hook is prepared, and the
/// `[trust]` table's keys.
#[cfg(feature = "wasm")]
pub(super) struct WasmRuntime {
    engine: Option<Arc<WasmEngine>>,
    fuel: bool,
    cache: CacheMode,
    trust: TrustStore,
}

#[cfg(feature = "wasm")]
impl WasmRuntime {
    /// Reads the `[trust]` keys (unreadable keys are configuration problems); starts nothing.
    pub(super) fn new(
        config: &Config,
        options: &RunnerOptions,
        problems: &mut Vec<ConfigProblem>,
    ) -> WasmRuntime {
        let fuel = config.hooks.iter().any(
            |hook| matches!(&hook.source, HookSource::Wasm(wasm) if wasm.grants.fuel.is_some()),
        );
        WasmRuntime {
            engine: None,
            fuel,
            cache: options.cache.clone(),
            trust: trust_store(config, problems),
        }
    }

    fn load(
        &mut self,
        spec: &HookSpec,
        wasm_spec: &WasmSpec,
        options: &RunnerOptions,
        base_dir: &Path,
    ) -> Result<Runtime, String> {
        let engine = self.engine()?;
        WasmHook::load(
            &engine,
            wasm_spec,
            &spec.events,
            base_dir,
            &options.cwd,
            &self.trust,
        )
        .map(Runtime::Wasm)
    }

    fn engine(&mut self) -> Result<Arc<WasmEngine>, String> {
        if let Some(engine) = &self.engine {
            return Ok(engine.clone());
        }
        let engine = WasmEngine::new(self.fuel, CompileCache::new(&self.cache))
            .map(Arc::new)
            .map_err(|error| format!("cannot start the WebAssembly engine: {error:#}"))?;
        self.engine = Some(engine.clone());
        Ok(engine)
    }
}

/// Prepares a hook's runtime; an error is a message for a configuration problem.
pub(super) fn prepare(
    spec: &HookSpec,
    options: &RunnerOptions,
    base_dir: &Path,
    wasm: &mut WasmRuntime,
) -> Result<Runtime, String> {
    match &spec.source {
        HookSource::Command(command) => {
            let cwd = match &command.cwd {
                Some(dir) => options.cwd.join(dir),
                None => options.cwd.clone(),
            };
            if command.cwd.is_some() && !cwd.is_dir() {
                return Err(format!("`cwd` {} is not a directory", cwd.display()));
            }
            Ok(Runtime::Command(CommandHook {
                command: command.command.clone(),
                env: command.env.clone(),
                cwd,
                shell: options.shell.clone(),
                protocol: command.protocol,
                exit_codes: command.exit_codes.clone(),
            }))
        }
        HookSource::Wasm(wasm_spec) => wasm.load(spec, wasm_spec, options, base_dir),
    }
}

/// The `[trust]` table's keys, read and parsed; unreadable keys are configuration problems.
#[cfg(feature = "wasm")]
fn trust_store(config: &Config, problems: &mut Vec<ConfigProblem>) -> TrustStore {
    let mut store = TrustStore {
        keys: Vec::new(),
        require_signed: config.trust.require_signed,
    };
    for key in &config.trust.keys {
        match TrustedKey::load(key, config.base_dir()) {
            Ok(trusted) => store.keys.push(trusted),
            Err(message) => problems.push(ConfigProblem {
                location: key.location,
                hook: None,
                message,
            }),
        }
    }
    store
}

/// A build without the `wasm` feature: no engine, and every wasm hook or trust setting is a
/// configuration problem (a wasm guard skipped in silence would switch a guard off).
#[cfg(not(feature = "wasm"))]
pub(super) struct WasmRuntime;

#[cfg(not(feature = "wasm"))]
impl WasmRuntime {
    /// Reports a `[trust]` table: its keys could verify nothing in this build.
    pub(super) fn new(
        config: &Config,
        _options: &RunnerOptions,
        problems: &mut Vec<ConfigProblem>,
    ) -> WasmRuntime {
        let trust = &config.trust;
        if trust.location.is_some() || trust.require_signed || !trust.keys.is_empty() {
            problems.push(ConfigProblem {
                location: trust.location.unwrap_or_default(),
                hook: None,
                message: without_wasm_feature(
                    "`[trust]` (keys for signed wasm bundles)",
                    "remove the `[trust]` table",
                ),
            });
        }
        WasmRuntime
    }

    fn load(
        &mut self,
        _spec: &HookSpec,
        _wasm_spec: &WasmSpec,
        _options: &RunnerOptions,
        _base_dir: &Path,
    ) -> Result<Runtime, String> {
        Err(without_wasm_feature(
            "a `wasm` hook",
            "make this hook a `command` hook",
        ))
    }
}

/// What a build without the `wasm` feature says about `what`, and the two ways out.
#[cfg(not(feature = "wasm"))]
fn without_wasm_feature(what: &str, otherwise: &str) -> String {
    format!(
        "{what} needs hookhost's `wasm` cargo feature, which this build of hookhost leaves out: \
         turn it on where the agent depends on hookhost (`features = [\"wasm\"]`), or {otherwise}"
    )
}
