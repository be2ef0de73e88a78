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
use super::Runtime;
#[cfg(feature = "wasm")]
use crate::bundle::keyless::{KeylessIdentity, Matcher, TrustedRoot};
#[cfg(feature = "wasm")]
use crate::bundle::{
    CosignKey, KeylessKey, TrustPolicy, TrustRule, TrustedKey, cosign::CosignPublicKey,
};
use crate::command::CommandHook;
use crate::config::{Config, ConfigProblem, HookSource, HookSpec, WasmSpec};
#[cfg(feature = "wasm")]
use crate::config::{KeyKind, KeySource};
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
        // An `oci://` reference loads from the store file hooks.lock pins (no network), with
        // the signatures hooks.lock carries for it.
        let (wasm_spec, attached) = crate::oci::locked_wasm_spec(wasm_spec, base_dir)?;
        WasmHook::load(
            &engine,
            &wasm_spec,
            &spec.events,
            base_dir,
            crate::wasm::HookSite {
                cwd: &options.cwd,
                base_env: options.base_env.as_deref(),
                compiling: options
                    .compile_observer
                    .as_ref()
                    .map(|observer| (observer, spec.name.as_str())),
            },
            trust,
            attached.as_ref(),
        )
        .map(Runtime::Wasm)
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

/// The `[trust]` a layer's wasm hooks are checked against: the tables of the layers above it
/// (`inherited`, top first: they hold for every layer below) and its own. Each file's rules
/// name keys of that file or of a file above it, never of a file below, so a project's keys
/// can never satisfy the user's rules. Unreadable keys and unknown key names are problems of
/// the layer's own file (the layers above report theirs when they load).
#[cfg(feature = "wasm")]
pub(super) fn trust_policy(
    own: &Config,
    inherited: &[&Config],
    problems: &mut Vec<ConfigProblem>,
) -> TrustPolicy {
    let mut policy = TrustPolicy::default();
    let mut visible: Vec<(String, String)> = Vec::new();
    let count = inherited.len();
    for (index, config) in inherited.iter().copied().chain([own]).enumerate() {
        let is_own = index == count;
        let (spec, base_dir) = (&config.trust, config.base_dir());
        let mut report = |location, message| {
            if is_own {
                problems.push(ConfigProblem {
                    location,
                    hook: None,
                    message,
                })
            }
        };
        policy.minisign.require_signed |= spec.require_signed;
        for id in &spec.revoked {
            if !policy.revoked.contains(id) {
                policy.revoked.push(id.clone());
            }
        }
        for key in &spec.keys {
            let loaded = match key.kind {
                KeyKind::Minisign => TrustedKey::load(key, base_dir).map(|trusted| {
                    let id = trusted.key_id().to_string();
                    policy.minisign.keys.push(trusted);
                    id
                }),
                KeyKind::Cosign => load_cosign(key, base_dir).map(|cosign| {
                    let id = cosign.key.key_id();
                    policy.cosign.push(cosign);
                    id
                }),
                KeyKind::Keyless => load_keyless(key, base_dir).map(|keyless| {
                    let id = keyless.id.clone();
                    policy.keyless.push(keyless);
                    id
                }),
            };
            match loaded {
                Ok(id) => visible.push((key.id.clone(), id)),
                Err(message) => report(key.location, message),
            }
        }
        for rule in &spec.rules {
            let mut keys = Vec::new();
            for name in &rule.keys {
                match visible.iter().rev().find(|(known, _)| known == name) {
                    Some(found) => keys.push(found.clone()),
                    None => report(
                        rule.location,
                        format!(
                            "the trust rule for \"{}\" names key \"{}\", which no \
                             [[trust.keys]] entry of this file or the files above it defines{}",
                            rule.pattern,
                            name,
                            if visible.is_empty() {
                                String::new()
                            } else {
                                format!(
                                    " (known: {})",
                                    visible
                                        .iter()
                                        .map(|(n, _)| n.as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )
                            }
                        ),
                    ),
                }
            }
            if keys.len() == rule.keys.len() {
                policy.rules.push(TrustRule {
                    pattern: rule.pattern.clone(),
                    keys,
                    min: rule.min,
                    origin: format!("{}:{}", config.path.display(), rule.location),
                });
            }
        }
    }
    policy
}

/// A `kind = "cosign"` key: PEM, inline or in a file relative to the config's directory.
#[cfg(feature = "wasm")]
fn load_cosign(spec: &crate::config::KeySpec, base_dir: &Path) -> Result<CosignKey, String> {
    let text = match &spec.source {
        KeySource::Inline(text) => text.clone(),
        KeySource::File(path) => {
            let path = base_dir.join(path);
            std::fs::read_to_string(&path).map_err(|error| {
                format!(
                    "trust key \"{}\": cannot read a cosign public key from {}: {error}",
                    spec.id,
                    path.display()
                )
            })?
        }
    };
    let key = CosignPublicKey::from_pem(&text).map_err(|error| {
        format!(
            "trust key \"{}\" (kind = \"cosign\"): {error}; a cosign key is the PEM public \
             key `cosign generate-key-pair` or `hookhost keygen --cosign` writes",
            spec.id
        )
    })?;
    Ok(CosignKey {
        name: spec.id.clone(),
        key,
        revoked: spec.revoked,
    })
}

/// A `kind = "keyless"` entry: its identity and issuer, and its trusted root read from the
/// file it names (relative to the config's directory).
#[cfg(feature = "wasm")]
fn load_keyless(spec: &crate::config::KeySpec, base_dir: &Path) -> Result<KeylessKey, String> {
    use crate::config::NamePattern;
    use sha2::{Digest as _, Sha256};
    use std::io::Read as _;
    let (Some(keyless), KeySource::File(path)) = (&spec.keyless, &spec.source) else {
        return Err(format!(
            "trust key \"{}\" (kind = \"keyless\") names no identity or trusted root",
            spec.id
        ));
    };
    let path = base_dir.join(path);
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|file| {
            file.take(crate::bundle::keyless::MAX_ROOT_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        })
        .map_err(|error| {
            format!(
                "trust key \"{}\": cannot read the Sigstore trusted root {}: {error}",
                spec.id,
                path.display()
            )
        })?;
    let root = TrustedRoot::from_json(&bytes).map_err(|error| {
        format!(
            "trust key \"{}\" (kind = \"keyless\"): {} {error}",
            spec.id,
            path.display()
        )
    })?;
    let matcher = |pattern: &NamePattern| match pattern {
        NamePattern::Exact(text) => Ok(Matcher::Exact(text.clone())),
        NamePattern::Regex(text) => Matcher::regex(text).map_err(|error| {
            format!(
                "trust key \"{}\": {text:?} is not a regular expression: {error}",
                spec.id
            )
        }),
    };
    // The id covers everything the entry trusts: the same name in a layer below, with another
    // identity or root, is another id and satisfies none of this entry's rules.
    let mut hasher = Sha256::new();
    hasher.update(b"hookhost keyless trust entry v1\0");
    for pattern in [&keyless.identity, &keyless.issuer] {
        let (kind, text) = match pattern {
            NamePattern::Exact(text) => ("exact", text),
            NamePattern::Regex(text) => ("regex", text),
        };
        hasher.update(format!("{kind}:{}:{text}\0", text.len()));
    }
    hasher.update([u8::from(keyless.require_sct)]);
    hasher.update(Sha256::digest(&bytes));
    let id = hasher.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    Ok(KeylessKey {
        name: spec.id.clone(),
        identity: KeylessIdentity {
            identity: matcher(&keyless.identity)?,
            issuer: matcher(&keyless.issuer)?,
            require_sct: keyless.require_sct,
        },
        root: Arc::new(root),
        id,
        revoked: spec.revoked,
    })
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

/// A build without the `wasm` feature has no keys to verify anything with.
#[cfg(not(feature = "wasm"))]
pub(super) struct TrustPolicy;

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
        Err(without_wasm_feature(
            "a `wasm` hook",
            "make this hook a `command` hook",
        ))
    }
}

/// Without the `wasm` feature, a `[trust]` table is a configuration problem: its keys could
/// verify nothing in this build, and a `require_signed` that holds nothing must not look as if
/// it did.
#[cfg(not(feature = "wasm"))]
pub(super) fn trust_policy(
    own: &Config,
    _inherited: &[&Config],
    problems: &mut Vec<ConfigProblem>,
) -> TrustPolicy {
    let spec = &own.trust;
    if spec.location.is_some()
        || spec.require_signed
        || !spec.keys.is_empty()
        || !spec.rules.is_empty()
    {
        problems.push(ConfigProblem {
            location: spec.location.unwrap_or_default(),
            hook: None,
            message: without_wasm_feature(
                "`[trust]` (keys for signed wasm bundles)",
                "remove the `[trust]` table",
            ),
        });
    }
    TrustPolicy
}

/// What a build without the `wasm` feature says about `what`, and the two ways out.
#[cfg(not(feature = "wasm"))]
fn without_wasm_feature(what: &str, otherwise: &str) -> String {
    format!(
        "{what} needs hookhost's `wasm` cargo feature, which this build of hookhost leaves out: \
         turn it on where the agent depends on hookhost (`features = [\"wasm\"]`), or {otherwise}"
    )
}
