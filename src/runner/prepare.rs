//! Turning a validated configuration into runnable hooks: command hooks get their working
//! directory checked, wasm hooks are verified (trust), compiled or loaded from the cache, and
//! linked, all with one engine per runner.

use std::path::Path;
use std::sync::Arc;

use super::RunnerOptions;
use crate::bundle::{TrustStore, TrustedKey};
use crate::command::CommandHook;
use crate::config::{Config, ConfigProblem, HookSource, HookSpec, TrustSpec};
use crate::runtime::Runtime;
use crate::wasm::{CacheMode, CompileCache, WasmEngine, WasmHook};

/// The wasm engine of a runner, created when the first wasm hook is prepared.
pub(super) struct WasmRuntime {
    engine: Option<Arc<WasmEngine>>,
    fuel: bool,
    cache: CacheMode,
    trust: TrustStore,
}

impl WasmRuntime {
    pub(super) fn new(config: &Config, options: &RunnerOptions, trust: TrustStore) -> WasmRuntime {
        let fuel = config.hooks.iter().any(
            |hook| matches!(&hook.source, HookSource::Wasm(wasm) if wasm.grants.fuel.is_some()),
        );
        WasmRuntime {
            engine: None,
            fuel,
            cache: options.cache.clone(),
            trust,
        }
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
            }))
        }
        HookSource::Wasm(spec) => {
            let engine = wasm.engine()?;
            // An `oci://` reference loads from the store file hooks.lock pins (no network).
            let spec = crate::oci::locked_wasm_spec(spec, base_dir)?;
            WasmHook::load(&engine, &spec, base_dir, &options.cwd, &wasm.trust).map(Runtime::Wasm)
        }
    }
}

/// The `[trust]` table's keys, read and parsed; unreadable keys are configuration problems.
pub(super) fn trust_store(
    spec: &TrustSpec,
    base_dir: &Path,
    problems: &mut Vec<ConfigProblem>,
) -> TrustStore {
    let mut store = TrustStore {
        keys: Vec::new(),
        require_signed: spec.require_signed,
    };
    for key in &spec.keys {
        match TrustedKey::load(key, base_dir) {
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
