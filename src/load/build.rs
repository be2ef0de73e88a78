//! A runner over layers: each file loaded and marked with its layer, the keys only some
//! layers may set checked, the `[projects]` policy applied, every hook prepared in layer and
//! declaration order, and the recorder the layers configure handed to the runner.

use std::path::Path;

use super::layers::Layers;
use super::managed::{
    check_managed_keys, is_managed_hook, managed_layer, pick_projects, skipped_reason,
};
use super::prepare::{WasmRuntime, prepare};
use super::projects::Policy;
use super::recorder::{handed, recorder};
use super::trust::trust_policy;
use crate::approvals::{Approvals, Coverage};
use crate::config::{Config, ConfigError, ConfigProblem, Layer, ProjectPolicy};
use crate::runner::{HookRunner, RunnerOptions, Runtime};
use hookhost_core::Runner;
use std::path::PathBuf;

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
    let mut runner = build_layers(configs, Some(&policy), display_path, options, record)?;
    for notice in policy.notices() {
        eprintln!("hookhost: {notice}");
    }
    runner.set_watched(policy.covered_files());
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
    let (rules, rule_infos) = super::rules::gather(&configs, policy, skipped.is_some());
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
    let mut runner: HookRunner = Runner::assemble(display_path, hooks, None, &options).into();
    runner.add_rules(rules, rule_infos);
    runner.set_log(handed(log));
    Ok(runner)
}
