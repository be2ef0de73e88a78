//! [`HookRunner`], the runner an embedder holds: the core's runner
//! ([`hookhost_core::Runner`], which runs events) as the loading layer (`load`) built it from
//! configuration files. Every method of the core's runner is a method of a `HookRunner`
//! (`Deref`); the constructors that read files are the loading layer's.

use std::ops::{Deref, DerefMut};

pub use hookhost_core::runner::{Flushed, LoadedRule, RunnerOptions};
pub(crate) use hookhost_core::runner::{RuleInfo, Runtime};
use hookhost_core::{ConfigError, Runner};

/// Runs a project's hooks. Cheap to clone; `Send + Sync`; every method takes `&self`, so many
/// events can go through one runner at once.
///
/// One constructor per use:
///
/// | you have | call | what it loads |
/// |---|---|---|
/// | a hooks.toml path (an agent embedding hookhost, forgeflare's facade) | [`HookRunner::load`] | that file, under the organisation's managed file when the machine has one |
/// | a [`Config`](crate::Config) parsed already (tests, generated configurations) | [`HookRunner::new`] | exactly that configuration, no other layer |
/// | a project's layers (`hookhost fire`, `agent-hook`, the daemon) | [`HookRunner::load_layers`] with [`Layers::discover`](crate::Layers::discover) | managed, user, project, local, with the `[projects]` policy, `[trust]`, `[log]`, `[telemetry]` |
/// | layers given one by one (policy tests) | [`HookRunner::load_exact`] | exactly those layers |
/// | a configuration that did not load | [`HookRunner::fail_closed`] (or [`HookRunner::fail_closed_in`] to record its blocks) | nothing: tool calls are blocked, naming the error |
///
/// [`register`](Runner::register) then adds in-process hooks to any of them;
/// [`fire`](Runner::fire) runs an event. Both, and every other method of a running runner, are
/// the core's [`Runner`]'s, reached through `Deref`.
#[derive(Debug, Clone)]
pub struct HookRunner {
    runner: Runner,
}

impl HookRunner {
    /// A runner that runs nothing and fails closed: every PreToolUse call is blocked with a
    /// message naming `error`; other events do nothing. This is what an agent should run with
    /// when its configuration is broken, instead of silently running without guards.
    pub fn fail_closed(error: ConfigError, options: RunnerOptions) -> HookRunner {
        Runner::fail_closed(error, options).into()
    }

    /// This runner without its decision log and telemetry export: for measuring hooks
    /// (`hookhost bench`) without filling a team's log with the measurement's calls. Call it
    /// on the runner as loaded: its clones share one recorder, and keep it.
    pub fn without_recording(self) -> HookRunner {
        self.runner.without_recording().into()
    }

    /// The core's runner this one is.
    pub fn as_runner(&self) -> &Runner {
        &self.runner
    }
}

impl From<Runner> for HookRunner {
    fn from(runner: Runner) -> HookRunner {
        HookRunner { runner }
    }
}

impl Deref for HookRunner {
    type Target = Runner;

    fn deref(&self) -> &Runner {
        &self.runner
    }
}

impl DerefMut for HookRunner {
    fn deref_mut(&mut self) -> &mut Runner {
        &mut self.runner
    }
}
