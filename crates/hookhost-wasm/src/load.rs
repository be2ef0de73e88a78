//! Loading a wasm hook: the file read (or recognised unchanged), its provenance checked (pin,
//! signatures, `[trust]`) before anything reaches the compiler, compiled or taken from the
//! compile cache, its imports and exports checked, linked once for its interface version, and
//! its grants resolved into the sandbox every call gets.

use std::path::Path;
use std::sync::Arc;

use sha2::{Digest as _, Sha256};
use wasmtime::component::Component;

use super::bindings::{Interface, v0_1, v0_2};
use super::cache::CacheOutcome;
use super::call_state::{HookShared, Sandbox};
use super::compat;
use super::core_module;
use super::engine::WasmEngine;
use super::handle::HandlePre;
use super::hook::{Pre, WasmHook};
use super::inspect::{self, Binary};
use super::trap::root_cause;
use crate::bundle::{self, Attached, TrustPolicy};
use crate::matcher::EventPattern;
use crate::source::WasmSpec;
use hookhost_core::compiling::{CompileEvent, CompileObserver};

impl WasmHook {
    /// Reads, checks, compiles (or loads from the cache) and links the component of `spec`,
    /// configured for `events`. `base_dir` is the configuration file's directory, `site` the
    /// runner's cwd and environment. An error is a message for a configuration problem.
    pub fn load(
        engine: &Arc<WasmEngine>,
        spec: &WasmSpec,
        events: &EventPattern,
        base_dir: &Path,
        site: HookSite<'_>,
        trust: &TrustPolicy,
        attached: Option<&Attached>,
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
        // Without trusted keys or rules there is nothing to check a signature against.
        let check_signatures = !trust.is_empty();
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
                    trust.check(&bytes, attached).map_err(describe)?.names()
                } else {
                    Vec::new()
                };
                let (component, cache) =
                    compile(engine, &bytes, binary, &sha256, site).map_err(describe)?;
                if let Ok(after) = std::fs::metadata(&path) {
                    engine.cache.remember_digest(&meta, &after, &sha256);
                }
                (sha256, component, cache, signers)
            }
        };
        link(
            engine, component, cache, signers, &sha256, spec, events, site, &describe,
        )
    }

    /// A component handed over as bytes whose provenance its caller has checked (a policy of
    /// hookhost's catalogue, embedded in the binary and verified by the loading layer):
    /// compiled or taken from the compile cache, checked and linked as [`WasmHook::load`] does.
    /// `label` names it in messages (`policy destructive`); `signers` are the keys that
    /// vouched for it.
    #[cfg(feature = "catalogue")]
    pub fn load_checked(
        engine: &Arc<WasmEngine>,
        bytes: &[u8],
        label: &str,
        spec: &WasmSpec,
        events: &EventPattern,
        site: HookSite<'_>,
        signers: Vec<String>,
    ) -> Result<WasmHook, String> {
        let describe = |problem: String| format!("{label} {problem}");
        let binary = inspect::check_header(bytes).map_err(describe)?;
        let sha256: [u8; 32] = Sha256::digest(bytes).into();
        let (component, cache) = compile(engine, bytes, binary, &sha256, site).map_err(describe)?;
        link(
            engine, component, cache, signers, &sha256, spec, events, site, &describe,
        )
    }
}

/// The compiled form of `bytes` (a component, or a core module wrapped into one), from the
/// compile cache or compiled now, the observer told.
fn compile(
    engine: &WasmEngine,
    bytes: &[u8],
    binary: Binary,
    sha256: &[u8; 32],
    site: HookSite<'_>,
) -> Result<(Component, CacheOutcome), String> {
    engine.cache.load(&engine.engine, sha256, || {
        let _told = site
            .compiling
            .map(|(observer, hook)| Compiling::start(observer, hook, bytes.len() as u64));
        let wrapped;
        let component = match binary {
            Binary::Component => bytes,
            Binary::CoreModule => {
                wrapped = core_module::wrap(bytes)?;
                &wrapped[..]
            }
        };
        Component::from_binary(&engine.engine, component)
            .map_err(|error| format!("is not a valid component: {}", root_cause(&error)))
    })
}

/// A compiled component checked (its interface), linked once and given its sandbox.
#[allow(clippy::too_many_arguments)]
fn link(
    engine: &Arc<WasmEngine>,
    component: Component,
    cache: CacheOutcome,
    signers: Vec<String>,
    sha256: &[u8; 32],
    spec: &WasmSpec,
    events: &EventPattern,
    site: HookSite<'_>,
    describe: &dyn Fn(String) -> String,
) -> Result<WasmHook, String> {
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
        sandbox: Arc::new(sandbox(spec, site)?),
        shared: Arc::new(HookShared {
            config_json: spec.config.to_string(),
            state: Default::default(),
        }),
        fuel: spec.grants.fuel,
        cache,
        signers,
        sha256: super::cache::hex(sha256),
    })
}

/// Where a wasm hook runs: the runner's cwd (its grants resolve against it) and the
/// environment its `env` grants read (`None`: this process's; a daemon passes its caller's);
/// and who hears of its compile, with the hook's name.
#[derive(Debug, Clone, Copy)]
pub struct HookSite<'a> {
    pub cwd: &'a Path,
    pub base_env: Option<&'a [(std::ffi::OsString, std::ffi::OsString)]>,
    pub compiling: Option<(&'a CompileObserver, &'a str)>,
}

/// A compile being told: `Started` when made, `Finished` when dropped (however the compile
/// ended).
struct Compiling<'a> {
    observer: &'a CompileObserver,
    hook: &'a str,
    bytes: u64,
    started: std::time::Instant,
}

impl<'a> Compiling<'a> {
    fn start(observer: &'a CompileObserver, hook: &'a str, bytes: u64) -> Compiling<'a> {
        observer.tell(CompileEvent::Started { hook, bytes });
        Compiling {
            observer,
            hook,
            bytes,
            started: std::time::Instant::now(),
        }
    }
}

impl Drop for Compiling<'_> {
    fn drop(&mut self) {
        self.observer.tell(CompileEvent::Finished {
            hook: self.hook,
            bytes: self.bytes,
            elapsed: self.started.elapsed(),
        });
    }
}

impl HookSite<'_> {
    /// A variable of the hook's environment, when it is set and UTF-8.
    fn var(&self, name: &str) -> Option<String> {
        match self.base_env {
            Some(env) => env
                .iter()
                .find(|(key, _)| key == name)
                .and_then(|(_, value)| value.to_str().map(str::to_string)),
            None => std::env::var(name).ok(),
        }
    }
}

/// Resolves a hook's grants against the runner's cwd; each directory must exist.
fn sandbox(spec: &WasmSpec, site: HookSite<'_>) -> Result<Sandbox, String> {
    let cwd = site.cwd;
    let resolve = |key: &str,
                   dirs: &[std::path::PathBuf]|
     -> Result<Vec<std::path::PathBuf>, String> {
        dirs.iter()
            .map(|dir| {
                let absolute = crate::dirs::lexical(&std::path::absolute(cwd.join(dir)).map_err(|e| e.to_string())?);
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
        .filter_map(|name| site.var(name).map(|value| (name.clone(), value)))
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
