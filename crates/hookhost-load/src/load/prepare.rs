//! Turning a validated configuration into runnable hooks: command hooks get their working
//! directory checked, wasm hooks are verified (trust), compiled or loaded from the cache, and
//! linked, all with one engine per runner.
//!
//! Without the `wasm` feature there is no engine: a wasm hook or a `[trust]` table is a
//! configuration problem that names the feature, so that a hook never goes missing in silence.

use std::path::Path;
#[cfg(feature = "wasm")]
use std::sync::Arc;

use super::trust::TrustPolicy;
use crate::command::CommandHook;
use crate::config::{Config, HookSource, HookSpec, WasmSpec};
use crate::runner::{RunnerOptions, Runtime};
#[cfg(feature = "wasm")]
use crate::wasm::{CacheMode, CompileCache, WasmEngine, WasmHook};

/// The wasm engine of a runner, created when the first wasm hook is prepared.
#[cfg(feature = "wasm")]
pub(super) struct WasmRuntime {
    engine: Option<Arc<WasmEngine>>,
    fuel: bool,
    cache: CacheMode,
    instances: u32,
}

#[cfg(feature = "wasm")]
impl WasmRuntime {
    pub(super) fn new(configs: &[Config], options: &RunnerOptions) -> WasmRuntime {
        let fuel = configs.iter().flat_map(|config| &config.hooks).any(
            |hook| matches!(&hook.source, HookSource::Wasm(wasm) if wasm.grants.fuel.is_some()),
        );
        WasmRuntime {
            engine: None,
            fuel,
            cache: options.cache.clone(),
            instances: options.wasm_instances,
        }
    }

    /// Verifies, compiles (or takes from the cache) and links a wasm hook.
    fn load(
        &mut self,
        spec: &HookSpec,
        wasm_spec: &WasmSpec,
        options: &RunnerOptions,
        base_dir: &Path,
        trust: &TrustPolicy,
    ) -> Result<Runtime, String> {
        let engine = self.engine()?;
        let site = crate::wasm::HookSite {
            cwd: &options.cwd,
            base_env: options.base_env.as_deref(),
            compiling: options
                .compile_observer
                .as_ref()
                .map(|observer| (observer, spec.name.as_str())),
        };
        // `policy = "NAME"`: the catalogue's component, checked against its own pins and key.
        #[cfg(feature = "catalogue")]
        if let Some(name) = crate::catalogue::named_by(&wasm_spec.path) {
            return super::catalogue::load(&engine, name, spec, wasm_spec, site)
                .map(|hook| Runtime::Plugged(Box::new(hook)));
        }
        // An `oci://` reference loads from the store file hooks.lock pins (no network), with
        // the signatures hooks.lock carries for it.
        let (wasm_spec, attached) = crate::oci::locked_wasm_spec(wasm_spec, base_dir)?;
        WasmHook::load(
            &engine,
            &wasm_spec,
            &spec.events,
            base_dir,
            site,
            trust,
            attached.as_ref(),
        )
        .map(|hook| Runtime::Plugged(Box::new(hook)))
    }

    fn engine(&mut self) -> Result<Arc<WasmEngine>, String> {
        if let Some(engine) = &self.engine {
            return Ok(engine.clone());
        }
        let engine = WasmEngine::new(self.fuel, self.instances, CompileCache::new(&self.cache))
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
    trust: &TrustPolicy,
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
                agent_env: match options.protocol_agent_env {
                    true => protocol_agent_env(command.protocol, options),
                    false => Vec::new(),
                },
                env: command.env.clone(),
                cwd,
                shell: options.shell.clone(),
                base_env: options.base_env.clone(),
                protocol: command.protocol,
                exit_codes: command.exit_codes.clone(),
            }))
        }
        HookSource::Wasm(wasm_spec) => wasm.load(spec, wasm_spec, options, base_dir, trust),
    }
}

/// What the agent whose protocol a command hook speaks gives its hooks (`HOOKHOST_AGENT`, its
/// project-directory variables where the base environment has none); nothing for hookhost's
/// own protocols. The agents' table says which agent a protocol is (`Protocol::agent`).
fn protocol_agent_env(protocol: crate::Protocol, options: &RunnerOptions) -> Vec<(String, String)> {
    let Some(agent) = protocol.agent() else {
        return Vec::new();
    };
    let inherited = |name: &str| match &options.base_env {
        Some(env) => env.iter().any(|(key, _)| key == name),
        None => std::env::var_os(name).is_some(),
    };
    let project_dir = options.cwd.display().to_string();
    let mut env = vec![("HOOKHOST_AGENT".to_string(), agent.as_str().to_string())];
    env.extend(
        agent
            .project_dir_variables()
            .iter()
            .filter(|name| !inherited(name))
            .map(|name| (name.to_string(), project_dir.clone())),
    );
    env
}

/// Checks a project's wasm hook against the user's ceiling (`policy = "sandboxed"`): every
/// granted directory, resolved through symlinks, inside a ceiling directory of the project;
/// only ceiling variables; no more memory. A project can never widen its own grants.
pub(super) fn check_ceiling(
    spec: &crate::config::WasmSpec,
    project_dir: &Path,
    ceiling: &crate::config::Ceiling,
) -> Result<(), String> {
    let canonical = |dir: &Path| -> Option<std::path::PathBuf> {
        std::fs::canonicalize(project_dir.join(dir)).ok()
    };
    let within = |grant: &Path, allowed: &[std::path::PathBuf]| -> Result<(), String> {
        let resolved = canonical(grant).ok_or_else(|| {
            format!(
                "grants {}, which does not exist in the project",
                grant.display()
            )
        })?;
        let inside = allowed
            .iter()
            .filter_map(|dir| canonical(dir))
            .any(|dir| resolved.starts_with(dir));
        if inside {
            Ok(())
        } else {
            let which = if resolved == project_dir.join(grant) {
                String::new()
            } else {
                format!(" (which is {})", resolved.display())
            };
            Err(format!(
                "grants {}{which}, outside the user's ceiling for projects ({})",
                grant.display(),
                allowed
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    };
    let readable: Vec<std::path::PathBuf> =
        ceiling.read.iter().chain(&ceiling.write).cloned().collect();
    for grant in &spec.grants.read {
        within(grant, &readable).map_err(|e| format!("`read` {e}"))?;
    }
    for grant in &spec.grants.write {
        within(grant, &ceiling.write).map_err(|e| format!("`write` {e}"))?;
    }
    for name in &spec.grants.env_inherit {
        if !ceiling.env.contains(name) {
            return Err(format!(
                "`env` passes the host variable {name}, which the user's ceiling for projects does not allow (it allows: {})",
                if ceiling.env.is_empty() {
                    "none".to_string()
                } else {
                    ceiling.env.join(", ")
                }
            ));
        }
    }
    if spec.grants.max_memory_mb > ceiling.max_memory_mb {
        return Err(format!(
            "`max_memory_mb` = {} is above the user's ceiling for projects ({})",
            spec.grants.max_memory_mb, ceiling.max_memory_mb
        ));
    }
    Ok(())
}

/// A build without the `wasm` feature: no engine, and every wasm hook is a configuration
/// problem (a wasm guard skipped in silence would switch a guard off).
#[cfg(not(feature = "wasm"))]
pub(super) struct WasmRuntime;

#[cfg(not(feature = "wasm"))]
impl WasmRuntime {
    pub(super) fn new(_configs: &[Config], _options: &RunnerOptions) -> WasmRuntime {
        WasmRuntime
    }

    fn load(
        &mut self,
        _spec: &HookSpec,
        _wasm_spec: &WasmSpec,
        _options: &RunnerOptions,
        _base_dir: &Path,
        _trust: &TrustPolicy,
    ) -> Result<Runtime, String> {
        Err(super::trust::without_wasm_feature(
            "a `wasm` hook",
            "make this hook a `command` hook",
        ))
    }
}
