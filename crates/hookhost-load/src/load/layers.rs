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

use super::managed::{managed_layer, overrides};
use super::recorder::{pick_log, recorder, telemetry_table};
#[cfg(feature = "wasm")]
use super::trust::trust_policy;
use crate::approvals::Approvals;
use crate::config::{Config, ConfigError, Layer, TelemetrySpec};
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

    /// The decision log these layers configure (see [`HookRunner::load_layers`](crate::HookRunner::load_layers) for which
    /// `[log]` wins), without loading any hook: what `hookhost log` reads.
    pub fn decision_log(&self) -> Result<Option<DecisionLog>, ConfigError> {
        Ok(pick_log(&self.configs()?, false, &mut Vec::new()))
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
