//! Where the files are: the project, the user's home, hookhost's configuration directory and
//! each agent's own home, with the variables each program reads to move its directory
//! (hookhost's by src/dirs.rs's rules). Tests build a [`Roots`] by hand; the CLI calls
//! [`Roots::from_env`].

use std::path::{Path, PathBuf};

use crate::agents::Agent;
use crate::error::InitError;

/// The directories init writes under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    /// The project (`--project`: the agent's working directory, where its project settings
    /// and the project's hooks.toml are).
    pub project: PathBuf,
    /// hookhost's configuration directory, where the user's hooks.toml is
    /// (`$HOOKHOST_CONFIG_DIR`, `$XDG_CONFIG_HOME/hookhost`, `~/.config/hookhost`).
    pub hookhost_config: PathBuf,
    /// Claude Code's (`$CLAUDE_CONFIG_DIR`, `~/.claude`).
    pub claude: PathBuf,
    /// Copilot CLI's (`$COPILOT_HOME`, `~/.copilot`).
    pub copilot: PathBuf,
    /// Gemini CLI's (`$GEMINI_CLI_HOME/.gemini`, `~/.gemini`).
    pub gemini: PathBuf,
    /// Codex CLI's (`$CODEX_HOME`, `~/.codex`).
    pub codex: PathBuf,
    /// Cursor's (`~/.cursor`).
    pub cursor: PathBuf,
}

impl Roots {
    /// Every directory at its default under `home`.
    pub fn new(home: impl AsRef<Path>, project: impl Into<PathBuf>) -> Roots {
        let home = home.as_ref();
        Roots {
            project: project.into(),
            hookhost_config: home.join(".config/hookhost"),
            claude: home.join(".claude"),
            copilot: home.join(".copilot"),
            gemini: home.join(".gemini"),
            codex: home.join(".codex"),
            cursor: home.join(".cursor"),
        }
    }

    /// The directories of this process's environment (`HOME` and the variables above; an
    /// empty variable counts as unset).
    pub fn from_env(project: impl Into<PathBuf>) -> Result<Roots, InitError> {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        let home = var("HOME").ok_or(InitError::NoDirectory {
            what: "the home directory",
            variable: "HOME",
        })?;
        let mut roots = Roots::new(&home, project);
        if let Some(dir) = var("HOOKHOST_CONFIG_DIR") {
            roots.hookhost_config = dir;
        } else if let Some(dir) = var("XDG_CONFIG_HOME") {
            roots.hookhost_config = dir.join("hookhost");
        }
        if let Some(dir) = var("CLAUDE_CONFIG_DIR") {
            roots.claude = dir;
        }
        if let Some(dir) = var("COPILOT_HOME") {
            roots.copilot = dir;
        }
        if let Some(dir) = var("GEMINI_CLI_HOME") {
            roots.gemini = dir.join(".gemini");
        }
        if let Some(dir) = var("CODEX_HOME") {
            roots.codex = dir;
        }
        Ok(roots)
    }

    /// The agent's own directory, where its user settings are.
    pub fn agent_home(&self, agent: Agent) -> &Path {
        match agent {
            Agent::Claude => &self.claude,
            Agent::Copilot => &self.copilot,
            Agent::Gemini => &self.gemini,
            Agent::Codex => &self.codex,
            Agent::Cursor => &self.cursor,
        }
    }

    /// The project's hooks.toml, as hookhost's layers find it: `.forgeflare/hooks.toml` if it
    /// exists, else `hooks.toml`.
    pub fn project_hooks_toml(&self) -> PathBuf {
        let forgeflare = self.project.join(".forgeflare/hooks.toml");
        if forgeflare.exists() {
            forgeflare
        } else {
            self.project.join("hooks.toml")
        }
    }

    /// The user's hooks.toml.
    pub fn user_hooks_toml(&self) -> PathBuf {
        self.hookhost_config.join("hooks.toml")
    }
}
