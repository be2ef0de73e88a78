//! [`RunnerOptions`]: how a runner is set up beyond its configuration (the agent's directory,
//! the shell, the environment, the wasm engine's pool and cache, the background queue).

use std::path::PathBuf;
use std::time::Duration;

#[cfg(feature = "wasm")]
use crate::cache::CacheMode;

/// How a runner is set up, beyond its configuration.
#[derive(Debug, Clone)]
pub struct RunnerOptions {
    /// The agent's working directory: hooks run in it unless configured otherwise, the `cwd`
    /// field of every event carries it, and relative paths resolve against it.
    pub cwd: PathBuf,
    /// Where `convergence.json` lives. Default: `{cwd}/.forgeflare`.
    pub state_dir: Option<PathBuf>,
    /// Forward each hook's stderr to this process's stderr, line by line, under the hook's
    /// name. Reports carry the text either way.
    pub forward_stderr: bool,
    /// The shell that runs command hooks as `{shell} -c {command}`. Default: `bash` on PATH.
    pub shell: PathBuf,
    /// Where compiled wasm hooks are cached. Default: the user's cache directory.
    #[cfg(feature = "wasm")]
    pub cache: CacheMode,
    /// How many wasm calls can be in flight at once: the size of the engine's instance pool,
    /// whose address space is reserved when the first wasm hook loads. More calls wait for a
    /// slot. Default 64, at most 1024. A process that makes a few calls and exits (`hookhost agent-hook`)
    /// sets it low: a small pool is quicker to set up and to tear down.
    #[cfg(feature = "wasm")]
    pub wasm_instances: u32,
    /// Told when a wasm hook's component is compiled (not found in the compile cache): the
    /// hook, its size, how long it took. `hookhost check`, `fire` and `test` show it on a
    /// terminal. Default: nobody.
    #[cfg(feature = "wasm")]
    pub compile_observer: Option<crate::compiling::CompileObserver>,
    /// Variables every command hook gets, on top of the inherited environment (Fresher's
    /// `FRESHER_*`, Code-Forge's `FORGE_*`); events can add more ([`crate::Event::with_env`]). A wasm
    /// hook sees one only if its `env` grant names it.
    pub env: Vec<(String, String)>,
    /// The environment command hooks start from (and wasm hooks' `env` grants read), instead
    /// of this process's: a daemon answering for another process passes that caller's, so that
    /// a hook sees the agent's variables, never the daemon's. `None` (the default): this
    /// process's environment.
    pub base_env: Option<std::sync::Arc<[(std::ffi::OsString, std::ffi::OsString)]>>,
    /// Give each command hook written for an agent (`protocol = "claude"`, `"copilot"`,
    /// `"gemini"`, ...) the variables that agent gives its hooks: `HOOKHOST_AGENT` naming it,
    /// and its project-directory variables (`CLAUDE_PROJECT_DIR`, ...) set to `cwd` where the
    /// base environment does not set them. The event's variables and the hook's own `env` still
    /// win. Off by default (an embedder is its own agent); `hookhost fire`, `replay`, `test` and
    /// `agent-hook` turn it on, so that an imported script (`"$CLAUDE_PROJECT_DIR"/.claude/
    /// hooks/guard.sh`) runs as it does under its agent.
    pub protocol_agent_env: bool,
    /// How many async hooks run at once; more wait in a queue.
    pub background_limit: usize,
    /// How long [`crate::Runner::fire`] of `SessionEnd` waits for async hooks to finish.
    pub drain_timeout: Duration,
}

impl RunnerOptions {
    /// Defaults for an agent working in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> RunnerOptions {
        RunnerOptions {
            cwd: cwd.into(),
            state_dir: None,
            forward_stderr: true,
            shell: PathBuf::from("bash"),
            #[cfg(feature = "wasm")]
            cache: CacheMode::Default,
            #[cfg(feature = "wasm")]
            wasm_instances: 64,
            #[cfg(feature = "wasm")]
            compile_observer: None,
            env: Vec::new(),
            base_env: None,
            protocol_agent_env: false,
            background_limit: 8,
            drain_timeout: Duration::from_secs(10),
        }
    }
}
