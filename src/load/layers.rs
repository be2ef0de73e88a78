//! Layered configuration: the organisation's managed hooks, the user's own, the project's, a
//! local override, and (at run time) the agent's, in that order; and what the user (or the
//! organisation) allows the projects an agent opens.
//!
//! | layer | file | |
//! |---|---|---|
//! | managed | `/etc/hookhost/hooks.toml`; only where it does not exist, `$HOOKHOST_MANAGED_CONFIG` | always runs first; owned by root (the variable's file: root or the current user), writable by nobody else, else refused and every gate event blocks; nobody can disable it; its `[trust]` holds for every layer; its `[projects]`, `[log]`, `[telemetry]` win over the user's; only it may set `managed_only` (then only its hooks and runtime hooks run, the others are reported as skipped) |
//! | user | `$HOOKHOST_CONFIG_DIR/hooks.toml`, else `$XDG_CONFIG_HOME/hookhost/hooks.toml`, else `~/.config/hookhost/hooks.toml` | runs after the managed layer; a project cannot disable it; only it (and the managed file) may set `[projects]` |
//! | project | `.forgeflare/hooks.toml`, else `hooks.toml`, in the agent's cwd | subject to `[projects]` |
//! | local | `hooks.local.toml` beside the project's file | not committed; may `disable` project hooks by name (never a managed hook); subject to `[projects]` like the project's (it sits in the repository's directory) |
//! | runtime | `HookRunner::register` | after every configured hook |
//!
//! `[projects] policy` (the managed file's, else the user's): `allow` runs a project's hooks as
//! configured; `approve` runs them only once the user approved that exact content (`hookhost
//! allow`), and until then its guards block with a message saying how to approve, and its
//! other hooks report a failure instead of running; `sandboxed` runs only its wasm hooks, whose
//! grants must fit the ceiling, and its command hooks' guards block.
//!
//! A project hook may have the name of a managed hook: both run, the organisation's first and
//! unchanged (a name never replaces a hook); `hookhost check` warns, and a `disable` of that
//! name is refused.

use std::path::{Path, PathBuf};

use super::managed::{
    check_managed_keys, is_managed_hook, managed_layer, overrides, pick_projects, skipped_reason,
};
use super::prepare::{WasmRuntime, prepare};
use super::trust::trust_policy;
use super::projects::Policy;
use super::recorder::{handed, pick_log, recorder, telemetry_table};
use crate::runner::{HookRunner, Runtime, RunnerOptions};
use crate::approvals::{Approvals, Coverage};
use crate::config::{Config, ConfigError, ConfigProblem, Layer, ProjectPolicy, TelemetrySpec};
use crate::decision::{DecisionLog, Recorder};

/// The configuration files of one agent session, by layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layers {
    /// The user's own hooks.toml.
    pub user: Option<PathBuf>,
    /// The project's.
    pub project: Option<PathBuf>,
    /// The project's local override.
    pub local: Option<PathBuf>,
    /// Where approvals are recorded (default: [`Approvals::default_path`]).
    pub approvals: Option<PathBuf>,
}

impl Layers {
    /// The files an agent working in `cwd` uses: the user's, the project's (the first of
    /// `.forgeflare/hooks.toml` and `hooks.toml` that exists) and its local override. Files
    /// that do not exist are left out (no hooks from them).
    pub fn discover(cwd: &Path) -> Layers {
        let project = [".forgeflare/hooks.toml", "hooks.toml"]
            .iter()
            .map(|name| cwd.join(name))
            .find(|path| path.exists());
        Layers::for_project(project)
    }

    /// The user's file, `project` and its local override.
    pub fn for_project(project: Option<PathBuf>) -> Layers {
        let local = project
            .as_ref()
            .map(|path| path.with_file_name("hooks.local.toml"))
            .filter(|path| path.exists());
        Layers {
            user: Layers::user_config().filter(|path| path.exists()),
            project,
            local,
            approvals: Approvals::default_path(),
        }
    }

    /// True when there is nothing to load: no user's file, no project's, and no organisation's
    /// managed file on this machine (an agent then runs no hooks at all).
    pub fn is_empty(&self) -> bool {
        self.user.is_none()
            && self.project.is_none()
            && crate::config::ManagedFile::locate().is_none()
    }

    /// Where the user's own hooks.toml is.
    pub fn user_config() -> Option<PathBuf> {
        Some(crate::dirs::config_dir()?.join("hooks.toml"))
    }

    /// The decision log these layers configure (see [`HookRunner::load_layers`] for which
    /// `[log]` wins), without loading any hook: what `hookhost log` reads.
    pub fn decision_log(&self) -> Result<Option<DecisionLog>, ConfigError> {
        Ok(pick_log(&self.configs()?))
    }

    /// The `[telemetry]` table that counts for these layers (the user's own), without loading
    /// any hook, and a warning for each other file whose table is ignored: what `hookhost
    /// check` shows and `hookhost log --export` sends with.
    pub fn telemetry(&self) -> Result<(Option<TelemetrySpec>, Vec<String>), ConfigError> {
        let configs = self.configs()?;
        let (spec, ignored) = telemetry_table(&configs, false);
        Ok((spec.cloned(), ignored))
    }

    /// The `[trust]` policy the wasm hooks of `config` are checked against when it loads as
    /// one of these layers: its own table, under the organisation's and the user's (those
    /// above it). What `hookhost lock` checks signatures with.
    #[cfg(feature = "wasm")]
    pub fn trust_policy(&self, config: &Config) -> Result<crate::bundle::TrustPolicy, ConfigError> {
        let same = |path: &Path| {
            std::fs::canonicalize(path).ok() == std::fs::canonicalize(&config.path).ok()
        };
        let mut inherited = Vec::new();
        for (layer, above) in self.configs()? {
            if same(&above.path) {
                break;
            }
            if matches!(layer, Layer::Managed | Layer::User) {
                inherited.push(above);
            }
        }
        let inherited: Vec<&Config> = inherited.iter().collect();
        let mut problems = Vec::new();
        let policy = trust_policy(config, &inherited, &mut problems);
        if problems.is_empty() {
            Ok(policy)
        } else {
            Err(ConfigError::Invalid {
                path: config.path.clone(),
                problems,
            })
        }
    }

    /// What the organisation's managed layer overrides in these layers, one line each (the
    /// user's `[projects]`, `[log]`, `[telemetry]`; every other hook under `managed_only`):
    /// what `hookhost check` shows. Empty on a machine without a managed file.
    pub fn managed_overrides(&self) -> Result<Vec<String>, ConfigError> {
        Ok(overrides(&self.configs()?))
    }

    /// Each layer's file that exists, parsed, the organisation's first; an invalid one (or a
    /// managed file that cannot be trusted) is an error.
    fn configs(&self) -> Result<Vec<(Layer, Config)>, ConfigError> {
        let mut configs: Vec<(Layer, Config)> = managed_layer()?.into_iter().collect();
        for (layer, path) in [
            (Layer::User, &self.user),
            (Layer::Project, &self.project),
            (Layer::Local, &self.local),
        ] {
            if let Some(path) = path
                && let Some(config) = Config::load_optional(path)?
            {
                configs.push((layer, config));
            }
        }
        Ok(configs)
    }

    /// The recorder of the files that load, skipping those that do not: where a fail-closed
    /// runner records its blocks.
    pub(crate) fn recorder_of_what_loads(&self) -> Option<Recorder> {
        let managed = managed_layer().ok().flatten();
        let configs: Vec<(Layer, Config)> = managed
            .into_iter()
            .chain(
                [
                    (Layer::User, &self.user),
                    (Layer::Project, &self.project),
                    (Layer::Local, &self.local),
                ]
                .into_iter()
                .filter_map(|(layer, path)| {
                    Some((layer, Config::load_optional(path.as_ref()?).ok()??))
                }),
            )
            .collect();
        recorder(&configs, false)
    }
}

impl HookRunner {
    /// Loads the organisation's managed file (when this machine has one: see
    /// [`crate::config::ManagedFile`]) and every layer of `layers` (missing files are no
    /// hooks), and applies the `[projects]` policy (the managed file's, else the user's). An
    /// invalid file, or a managed file that cannot be trusted, is an error naming it.
    pub fn load_layers(layers: &Layers, options: RunnerOptions) -> Result<HookRunner, ConfigError> {
        load(managed_layer()?, layers, options, true)
    }

    /// Loads exactly `layers` (each named file must exist), with `managed` as the
    /// organisation's file in place of this machine's (its owner and mode are not checked: it
    /// plays the part), and records nothing (no `[log]`, no telemetry): what `hookhost test`
    /// runs a case with, so that a policy test gives the same answer on every machine and
    /// leaves no trace in a team's decision log. Otherwise as [`HookRunner::load_layers`].
    pub fn load_exact(
        layers: &Layers,
        managed: Option<&Path>,
        options: RunnerOptions,
    ) -> Result<HookRunner, ConfigError> {
        let managed = match managed {
            Some(path) => {
                let mut config = Config::load(path)?;
                for hook in &mut config.hooks {
                    hook.layer = Layer::Managed;
                }
                Some((Layer::Managed, config))
            }
            None => None,
        };
        for path in [&layers.user, &layers.project, &layers.local]
            .into_iter()
            .flatten()
        {
            Config::load(path)?;
        }
        load(managed, layers, options, false)
    }
}

/// The layers under `managed` (the organisation's, when there is one), with the `[projects]`
/// policy applied; `record`: with the recorder their `[log]` and `[telemetry]` configure.
fn load(
    managed: Option<(Layer, Config)>,
    layers: &Layers,
    options: RunnerOptions,
    record: bool,
) -> Result<HookRunner, ConfigError> {
    let mut configs: Vec<(Layer, Config)> = managed.into_iter().collect();
    for (layer, path) in [
        (Layer::User, &layers.user),
        (Layer::Project, &layers.project),
        (Layer::Local, &layers.local),
    ] {
        if let Some(path) = path
            && let Some(mut config) = Config::load_optional(path)?
        {
            for hook in &mut config.hooks {
                hook.layer = layer;
            }
            configs.push((layer, config));
        }
    }
    check_layer_keys(&configs)?;
    let projects = pick_projects(&configs);
    let approvals = match (&layers.approvals, projects.policy) {
        (Some(path), ProjectPolicy::Approve) => {
            Approvals::load(path).map_err(|source| ConfigError::Read {
                path: path.clone(),
                source,
            })?
        }
        _ => Approvals::default(),
    };
    let display_path = layers
        .project
        .clone()
        .or_else(|| layers.user.clone())
        .or_else(|| {
            configs
                .iter()
                .find(|(layer, _)| *layer == Layer::Managed)
                .map(|(_, config)| config.path.clone())
        })
        .unwrap_or_else(|| options.cwd.join(".forgeflare/hooks.toml"));
    // What the project's hooks run, compared with what the user approved.
    let coverage = match projects.policy {
        ProjectPolicy::Approve => configs
            .iter()
            .filter(|(layer, _)| matches!(layer, Layer::Project | Layer::Local))
            .map(|(_, config)| (config.path.clone(), Coverage::of(config, &options.cwd)))
            .collect(),
        _ => Vec::new(),
    };
    let policy = Policy {
        owner: if configs
            .iter()
            .any(|(layer, config)| *layer == Layer::Managed && config.projects.is_some())
        {
            "the organisation's"
        } else {
            "the user's"
        },
        projects,
        approvals,
        coverage,
        project_dir: options.cwd.clone(),
    };
    let runner = build_layers(configs, Some(&policy), display_path, options, record)?;
    for notice in policy.notices() {
        eprintln!("hookhost: {notice}");
    }
    Ok(runner)
}

/// The one file an embedder loads ([`HookRunner::load`]) under the organisation's layer: its
/// hooks first, its `managed_only`, `[trust]`, `[log]` and `[telemetry]` hold, and the file
/// may not set `managed_only` nor `disable` a managed hook. (`[projects]` governs the projects
/// a layered agent opens, not an embedder's own file.)
pub(super) fn under_managed(
    managed: (Layer, Config),
    config: Option<Config>,
    path: &Path,
    options: RunnerOptions,
) -> Result<HookRunner, ConfigError> {
    let mut configs = vec![managed];
    configs.extend(config.map(|config| (Layer::Project, config)));
    for (layer, config) in &configs {
        let mut problems = Vec::new();
        check_managed_keys(*layer, config, &configs, &mut problems);
        if !problems.is_empty() {
            return Err(ConfigError::Invalid {
                path: config.path.clone(),
                problems,
            });
        }
    }
    build_layers(configs, None, path.to_path_buf(), options, true)
}

/// `[projects]` only in the user's file (or the organisation's), `disable` only in the local
/// override (naming project hooks, never the organisation's), `managed_only` only in the
/// organisation's.
fn check_layer_keys(configs: &[(Layer, Config)]) -> Result<(), ConfigError> {
    for (layer, config) in configs {
        let mut problems = Vec::new();
        if let (Some(projects), false) = (
            &config.projects,
            matches!(layer, Layer::User | Layer::Managed),
        ) {
            problems.push(ConfigProblem {
                location: projects.location,
                hook: None,
                message: "only the user's own configuration can set [projects]; a project cannot choose its own policy".to_string(),
            });
        }
        check_managed_keys(*layer, config, configs, &mut problems);
        if !config.disable.is_empty() && *layer != Layer::Local {
            problems.push(ConfigProblem {
                location: config.disable_at,
                hook: None,
                message: "`disable` belongs in hooks.local.toml, the project's local override"
                    .to_string(),
            });
        }
        for name in &config.disable {
            let project_hook = |layer: Layer| {
                configs
                    .iter()
                    .filter(|(l, _)| *l == layer)
                    .flat_map(|(_, c)| &c.hooks)
                    .any(|hook| &hook.name == name)
            };
            if !project_hook(Layer::Project) && !is_managed_hook(configs, name) {
                problems.push(ConfigProblem {
                    location: config.disable_at,
                    hook: None,
                    message: if project_hook(Layer::User) {
                        format!("`disable` names {}, a hook of the user's own configuration, which a project cannot disable", crate::text::quote(name))
                    } else {
                        format!("`disable` names {}, which is not a hook of the project", crate::text::quote(name))
                    },
                });
            }
        }
        if !problems.is_empty() {
            return Err(ConfigError::Invalid {
                path: config.path.clone(),
                problems,
            });
        }
    }
    Ok(())
}

/// Prepares every hook of every layer, in layer order, under `policy`.
pub(super) fn build_layers(
    mut configs: Vec<(Layer, Config)>,
    policy: Option<&Policy>,
    display_path: PathBuf,
    options: RunnerOptions,
    record: bool,
) -> Result<HookRunner, ConfigError> {
    let disabled: Vec<String> = configs
        .iter()
        .filter(|(layer, _)| *layer == Layer::Local)
        .flat_map(|(_, config)| config.disable.clone())
        .collect();
    for (layer, config) in &mut configs {
        if *layer == Layer::Project {
            for hook in &mut config.hooks {
                if disabled.contains(&hook.name) {
                    hook.enabled = false;
                }
            }
        }
    }
    let user_config = configs
        .iter()
        .find(|(layer, _)| *layer == Layer::User)
        .map(|(_, config)| config.clone());
    let managed = configs
        .iter()
        .find(|(layer, _)| *layer == Layer::Managed)
        .map(|(_, config)| config.clone());
    let skipped = skipped_reason(&configs);
    let log = record
        .then(|| recorder(&configs, policy.is_none()))
        .flatten();
    let all: Vec<Config> = configs.iter().map(|(_, config)| config.clone()).collect();
    let mut wasm = WasmRuntime::new(&all, &options);
    let mut hooks = Vec::new();
    for (layer, config) in configs {
        let mut problems = Vec::new();
        let base_dir = config.base_dir().to_path_buf();
        // The organisation's `[trust]` holds for every other layer, the user's for every layer
        // below it (never for the organisation's, which a user's key must not sign for); a
        // project's own keys and rules add to them for its hooks only. (Without the `wasm`
        // feature another layer's `[trust]` is a problem of that layer, reported there once.)
        let inherited: Vec<&Config> = match layer {
            _ if !cfg!(feature = "wasm") => Vec::new(),
            Layer::Managed => Vec::new(),
            Layer::User => managed.iter().collect(),
            _ => managed.iter().chain(&user_config).collect(),
        };
        let trust = trust_policy(&config, &inherited, &mut problems);
        for spec in config.hooks {
            // Never prepared: a hook that does not run cannot fail to load, nor block.
            if let (Some(reason), false) = (&skipped, layer == Layer::Managed) {
                hooks.push((spec, Runtime::Skipped(reason.clone())));
                continue;
            }
            if let Some(reason) = policy.and_then(|policy| policy.holds(&spec, &config.path)) {
                hooks.push((spec, Runtime::Held(reason)));
                continue;
            }
            match prepare(&spec, &options, &base_dir, &mut wasm, &trust) {
                Ok(runtime) => hooks.push((spec, runtime)),
                Err(mut message) => {
                    // A load error can quote what a file holds; every fail-closed block repeats
                    // it, so it is bounded like a reason.
                    crate::verdict::cut(&mut message, crate::verdict::REASON_MAX_BYTES);
                    problems.push(ConfigProblem {
                        location: spec.location,
                        hook: Some((spec.index, Some(spec.name.clone()))),
                        message,
                    })
                }
            }
        }
        if !problems.is_empty() {
            return Err(ConfigError::Invalid {
                path: config.path,
                problems,
            });
        }
    }
    let mut runner = HookRunner::assemble(display_path, hooks, None, &options);
    runner.set_log(handed(log));
    Ok(runner)
}
