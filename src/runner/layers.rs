//! Layered configuration: the user's own hooks, the project's, a local override, and (at run
//! time) the agent's, in that order; and what the user allows the projects an agent opens.
//!
//! | layer | file | |
//! |---|---|---|
//! | user | `$HOOKHOST_CONFIG_DIR/hooks.toml`, else `$XDG_CONFIG_HOME/hookhost/hooks.toml`, else `~/.config/hookhost/hooks.toml` | always runs first; a project cannot disable it; only it may set `[projects]` |
//! | project | `.forgeflare/hooks.toml`, else `hooks.toml`, in the agent's cwd | subject to `[projects]` |
//! | local | `hooks.local.toml` beside the project's file | not committed; may `disable` project hooks by name; subject to `[projects]` like the project's (it sits in the repository's directory) |
//! | runtime | `HookRunner::register` | after every configured hook |
//!
//! `[projects] policy` (the user's file): `allow` runs a project's hooks as configured;
//! `approve` runs them only once the user approved that exact content (`hookhost allow`), and
//! until then its guards block with a message saying how to approve, and its other hooks report
//! a failure instead of running; `sandboxed` runs only its wasm hooks, whose grants must fit the
//! user's ceiling, and its command hooks' guards block.

use std::path::{Path, PathBuf};

use super::Runtime;
use super::prepare::{WasmRuntime, check_ceiling, prepare, trust_store};
use super::{HookRunner, RunnerOptions};
use crate::approvals::{Approval, Approvals, Coverage};
use crate::config::{
    Config, ConfigError, ConfigProblem, HookSource, HookSpec, Layer, ProjectPolicy, ProjectsSpec,
    TelemetrySpec,
};
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

    /// Each layer's file that exists, parsed; an invalid one is an error.
    fn configs(&self) -> Result<Vec<(Layer, Config)>, ConfigError> {
        let mut configs = Vec::new();
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
        let configs: Vec<(Layer, Config)> = [
            (Layer::User, &self.user),
            (Layer::Project, &self.project),
            (Layer::Local, &self.local),
        ]
        .into_iter()
        .filter_map(|(layer, path)| Some((layer, Config::load_optional(path.as_ref()?).ok()??)))
        .collect();
        recorder(&configs, false)
    }
}

/// Where the outcomes of runners over `configs` are recorded: the log [`pick_log`] picks, and
/// the telemetry export [`pick_telemetry`] starts. `own_file`: the configuration is one file an
/// embedder loaded itself ([`HookRunner::load`]), not layers found on disk.
fn recorder(configs: &[(Layer, Config)], own_file: bool) -> Option<Recorder> {
    let mut problems = Vec::new();
    let export = match pick_telemetry(configs, own_file, &mut problems) {
        Ok(export) => export,
        Err(problem) => {
            problems.push(problem);
            None
        }
    };
    let recorder = Recorder::new(pick_log(configs), export);
    for problem in problems {
        match &recorder {
            Some(recorder) => recorder.warn_once(problem),
            // Nothing else will say it: telemetry was all there was to record into.
            None => eprintln!("hookhost: {problem}"),
        }
    }
    recorder
}

/// The telemetry export: `[telemetry]` of the user's own file (or of the one file an embedder
/// loaded), or the `OTEL_*` variables alone. A project's or a local file's `[telemetry]` is
/// ignored with a warning: a cloned repository must not choose where its users' commands are
/// sent. A problem the variables cause (a file's table is checked when it is parsed) turns
/// telemetry off with a warning: telemetry never changes a decision, nor stops an agent.
#[cfg(feature = "telemetry")]
fn pick_telemetry(
    configs: &[(Layer, Config)],
    own_file: bool,
    problems: &mut Vec<String>,
) -> Result<Option<std::sync::Arc<dyn crate::decision::Export>>, String> {
    let (spec, ignored) = telemetry_table(configs, own_file);
    problems.extend(ignored);
    // `spool = true`: records wait in the decision log for `hookhost log --export`.
    if spec.is_some_and(|spec| spec.spool) {
        return Ok(None);
    }
    match crate::telemetry::Telemetry::configure(spec, &|name| std::env::var(name).ok()) {
        Ok(configured) => {
            Ok(configured.map(|c| std::sync::Arc::new(super::record::Starting::start(c)) as _))
        }
        Err(error) => Err(format!(
            "telemetry is off: {}",
            crate::text::error_chain(&error)
        )),
    }
}

#[cfg(not(feature = "telemetry"))]
fn pick_telemetry(
    _: &[(Layer, Config)],
    _: bool,
    _: &mut Vec<String>,
) -> Result<Option<std::sync::Arc<dyn crate::decision::Export>>, String> {
    Ok(None)
}

/// The `[telemetry]` of `configs` that counts: the user's own (or, `own_file`, that of the one
/// file an embedder loaded itself), and a warning for each other file's, which is ignored: a
/// cloned repository must not choose where its users' commands are sent.
fn telemetry_table(
    configs: &[(Layer, Config)],
    own_file: bool,
) -> (Option<&TelemetrySpec>, Vec<String>) {
    let mut spec = None;
    let mut ignored = Vec::new();
    for (layer, config) in configs {
        let Some(table) = &config.telemetry else {
            continue;
        };
        if *layer == Layer::User || own_file {
            spec = spec.or(Some(table));
        } else {
            ignored.push(format!(
                "[telemetry] in {} is ignored: only your own hooks.toml ({}) says where \
                 decisions are sent, not a project's",
                config.path.display(),
                Layers::user_config().map_or_else(
                    || "in the user's configuration directory".to_string(),
                    |path| path.display().to_string()
                )
            ));
        }
    }
    (spec, ignored)
}

/// The user's `[log]` holds for every layer: a project may not turn it off or redirect it.
/// Without one, the first layer that has one (the project's, then the local file's).
fn pick_log(configs: &[(Layer, Config)]) -> Option<DecisionLog> {
    configs
        .iter()
        .filter(|(_, config)| config.log.is_some())
        .min_by_key(|(layer, _)| *layer != Layer::User)
        .and_then(|(_, config)| Some(DecisionLog::new(config.log.clone()?, config.base_dir())))
}

impl HookRunner {
    /// Loads every layer of `layers` (missing files are no hooks) and applies the user's
    /// `[projects]` policy. An invalid file is an error naming it.
    pub fn load_layers(layers: &Layers, options: RunnerOptions) -> Result<HookRunner, ConfigError> {
        let mut configs = Vec::new();
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
        let projects = configs
            .iter()
            .find(|(layer, _)| *layer == Layer::User)
            .and_then(|(_, config)| config.projects.clone())
            .unwrap_or_default();
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
            projects,
            approvals,
            coverage,
            project_dir: options.cwd.clone(),
        };
        let runner = build_layers(configs, Some(&policy), display_path, options)?;
        for notice in policy.notices() {
            eprintln!("hookhost: {notice}");
        }
        Ok(runner)
    }
}

/// What the user's `[projects]` says, with what it needs to decide.
pub(super) struct Policy {
    projects: ProjectsSpec,
    approvals: Approvals,
    /// Under `approve`: each project file's, with what its hooks run.
    coverage: Vec<(PathBuf, Coverage)>,
    project_dir: PathBuf,
}

impl Policy {
    /// Why a project hook may not run as configured, if it may not.
    fn holds(&self, spec: &HookSpec, file: &Path) -> Option<String> {
        if matches!(spec.layer, Layer::User | Layer::Runtime) {
            return None;
        }
        match self.projects.policy {
            ProjectPolicy::Allow => None,
            ProjectPolicy::Approve => self.approval(file).held_reason(file),
            ProjectPolicy::Sandboxed => match &spec.source {
                HookSource::Command(_) => Some(
                    "is a command hook, and the user's policy runs only wasm hooks from projects (\"sandboxed\")"
                        .to_string(),
                ),
                HookSource::Wasm(wasm) => check_ceiling(wasm, &self.project_dir, &self.projects.ceiling).err(),
            },
        }
    }
}

impl Policy {
    /// Where a project file stands with the user's approvals (never approved without its
    /// coverage).
    fn approval(&self, file: &Path) -> Approval {
        self.coverage
            .iter()
            .find(|(path, _)| path == file)
            .map_or(Approval::NotApproved, |(_, coverage)| {
                self.approvals.check(file, coverage)
            })
    }

    /// What the user should hear although the hooks run (an approval from an older hookhost
    /// that does not cover what they run).
    fn notices(&self) -> Vec<String> {
        self.coverage
            .iter()
            .filter_map(|(file, _)| self.approval(file).notice(file))
            .collect()
    }
}

/// `[projects]` only in the user's file, `disable` only in the local override (naming project
/// hooks).
fn check_layer_keys(configs: &[(Layer, Config)]) -> Result<(), ConfigError> {
    for (layer, config) in configs {
        let mut problems = Vec::new();
        if let (Some(projects), false) = (&config.projects, *layer == Layer::User) {
            problems.push(ConfigProblem {
                location: projects.location,
                hook: None,
                message: "only the user's own configuration can set [projects]; a project cannot choose its own policy".to_string(),
            });
        }
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
            if !project_hook(Layer::Project) {
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
    let user_trust = configs
        .iter()
        .find(|(layer, _)| *layer == Layer::User)
        .map(|(_, config)| config.trust.clone());
    let log = recorder(&configs, policy.is_none());
    let all: Vec<Config> = configs.iter().map(|(_, config)| config.clone()).collect();
    let mut wasm = WasmRuntime::new(&all, &options);
    let mut hooks = Vec::new();
    for (layer, config) in configs {
        let mut problems = Vec::new();
        let base_dir = config.base_dir().to_path_buf();
        // The user's keys and requirement hold for every layer; a project's own keys add to
        // them for its hooks only.
        let mut trust_spec = config.trust.clone();
        // (Without the `wasm` feature the user's `[trust]` is a problem of the user's layer,
        // reported there once.)
        if let (Some(user), false, true) =
            (&user_trust, layer == Layer::User, cfg!(feature = "wasm"))
        {
            trust_spec.keys.extend(user.keys.iter().cloned());
            trust_spec.require_signed |= user.require_signed;
        }
        let trust = trust_store(&trust_spec, &base_dir, &mut problems);
        for spec in config.hooks {
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
    let mut runner = HookRunner::build(display_path, hooks, None, &options);
    runner.set_log(log);
    Ok(runner)
}
