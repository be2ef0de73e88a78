//! What the caller chooses: the scope (the user's settings or a project's) and how the
//! entries are written (agent-hook or the daemon's client, which hookhost, the timeout, which
//! events).

/// Whose settings init writes: the user's (every project) or one project's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `--user`: the agent's settings in the home directory, and the user's hooks.toml.
    User,
    /// `--project`: the project's settings (committed with it), and the project's hooks.toml.
    Project,
}

/// How the entries are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The entries run `hookhost-client` (the daemon's client, which falls back to
    /// `agent-hook` by itself) instead of `hookhost agent-hook`: set it where
    /// `hookhost-client` is installed beside hookhost.
    pub use_client: bool,
    /// The hookhost the entries run: `hookhost` (the agent's PATH finds it) or a path. A
    /// project's settings are committed, so keep the bare name there; for the user's, the
    /// absolute path of the running hookhost spares agents whose PATH differs (Cursor
    /// started from a desktop) from not finding it. The client is `hookhost-client` beside it.
    pub hookhost: String,
    /// How long the agent waits for hookhost on one event, in seconds (written in each
    /// agent's unit; events whose budget the agent fixes itself get none).
    pub timeout_secs: u64,
    /// Only these events (the agent's or hookhost's names); `None`: every event init
    /// registers for the agent.
    pub events: Option<Vec<String>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            use_client: false,
            hookhost: "hookhost".to_string(),
            timeout_secs: 60,
            events: None,
        }
    }
}

impl Options {
    /// `hookhost-client`, in the directory of [`Options::hookhost`] when that is a path.
    pub(crate) fn client(&self) -> String {
        match self.hookhost.rsplit_once('/') {
            Some((dir, _)) => format!("{dir}/hookhost-client"),
            None => "hookhost-client".to_string(),
        }
    }
}
