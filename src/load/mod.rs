//! The loading layer: turns the configuration files of a session (the organisation's managed
//! file, the user's, the project's, its local override), the user's approvals, the signature
//! policy of `[trust]` and the `[log]` and `[telemetry]` settings into a [`HookRunner`], which
//! then runs events knowing none of them.
//!
//! ```text
//!  layers (Layers::discover) ──▶ managed: the organisation's layer first, its rules
//!                                projects: the [projects] policy, approvals, the ceiling
//!                                prepare: each hook's runtime (command; wasm: [trust],
//!                                         hooks.lock, the engine); the agent's variables
//!                                recorder: whose [log] and [telemetry] the runner records with
//!                           ──▶ Runner::assemble(hooks, runtimes) (the core's) as a HookRunner + the recorder handed to it
//! ```
//!
//! Every constructor of a runner that reads a file is here ([`HookRunner::load`],
//! [`HookRunner::new`], [`HookRunner::load_layers`], [`HookRunner::load_exact`],
//! [`HookRunner::fail_closed_in`]); the runner (`runner`) only assembles what it is given.

mod build;
#[cfg(feature = "catalogue")]
pub(crate) mod catalogue;
mod layers;
mod managed;
mod prepare;
mod projects;
mod recorder;
mod rules;
mod trust;

use std::path::Path;

pub use layers::Layers;

use crate::config::{Config, ConfigError};
use crate::runner::{HookRunner, RunnerOptions};
#[cfg(feature = "wasm")]
use crate::{config::HookSpec, runner::Runtime, wasm::WasmInfo};
use hookhost_core::Runner;

impl HookRunner {
    /// Loads `config_path`. A missing file is a runner with no hooks (R2: unconfigured is the
    /// default); an unreadable or invalid file is an error.
    ///
    /// On a machine with an organisation's managed file ([`crate::config::ManagedFile`]) its
    /// layer comes first here too (its hooks, `managed_only`, `[trust]`, `[log]`), so that an
    /// agent embedding hookhost (forgeflare's facade) cannot be a way around it; a managed file
    /// that cannot be trusted is an error, as an invalid `config_path` is. Without a managed
    /// file, nothing differs. [`HookRunner::new`] runs exactly the configuration it is given.
    pub fn load(
        config_path: impl AsRef<Path>,
        options: RunnerOptions,
    ) -> Result<HookRunner, ConfigError> {
        let config_path = config_path.as_ref();
        if let Some(managed) = managed::managed_layer()? {
            let config = Config::load_optional(config_path)?;
            return build::under_managed(managed, config, config_path, options);
        }
        match Config::load_optional(config_path)? {
            Some(config) => HookRunner::new(config, options),
            None => {
                Ok(Runner::assemble(config_path.to_path_buf(), Vec::new(), None, &options).into())
            }
        }
    }

    /// A runner for an already parsed configuration. Fails when a hook cannot be prepared
    /// (for example, its `cwd` does not exist, or its component does not load).
    pub fn new(config: Config, options: RunnerOptions) -> Result<HookRunner, ConfigError> {
        let path = config.path.clone();
        build::build_layers(
            vec![(crate::config::Layer::Project, config)],
            None,
            path,
            options,
            true,
        )
    }

    /// [`HookRunner::fail_closed`] for `layers` that did not load: each block is recorded in
    /// the decision log the layers configure, when one of their files that does load says
    /// where (the user's `[log]`, typically, beside a broken project file).
    pub fn fail_closed_in(
        layers: &Layers,
        error: ConfigError,
        options: RunnerOptions,
    ) -> HookRunner {
        let mut runner = HookRunner::fail_closed(error, options);
        runner.set_log(recorder::handed(layers.recorder_of_what_loads()));
        runner
    }

    /// The enabled wasm hooks, with how each component was obtained at load (compiled, or
    /// from the compile cache) and the interface version it was built against.
    #[cfg(feature = "wasm")]
    pub fn wasm_hooks(&self) -> Vec<(&HookSpec, WasmInfo)> {
        self.configured_with(|runtime| match runtime {
            Runtime::Plugged(hook) => hook
                .as_any()
                .downcast_ref::<crate::wasm::WasmHook>()
                .map(crate::wasm::WasmHook::info),
            _ => None,
        })
    }
}
