//! `hookhost import`: the hooks of Claude Code's, Copilot CLI's, Gemini CLI's, Codex CLI's and
//! Cursor's settings files, as a hooks.toml whose hooks behave as they did under their agent.
//!
//! Each imported hook keeps its agent's protocol (`claude`, `copilot`, `gemini`, `codex`,
//! `cursor`), so that its
//! script reads the input it was written for and is read as its agent read it: a Copilot
//! script parses `toolArgs`, a Gemini script answers `decision: "deny"`, and neither would
//! under another protocol. Matchers keep their agent's meaning (Claude Code's semantics are
//! hookhost's `matcher`, and so are Codex's; Copilot's anchored regexes become
//! `{ regex = "^(?:...)$" }`; Gemini's and Cursor's unanchored tool regexes `{ regex = ... }` and
//! Gemini's exact lifecycle names `{ exact = ... }`), timeouts become milliseconds (the agent's
//! default where none is set), and a PreToolUse hook whose agent goes on when it fails gets
//! `on_failure = "allow"` (a Cursor entry with `failClosed`, `"block"`). What cannot be carried
//! over is reported, hook by hook.

mod claude;
mod codex;
mod copilot;
mod cursor;
mod entry;
mod gemini;
mod write;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub(crate) use entry::{
    check_matcher, clamp_ms, env_pairs, is_hookhost, seconds_to_ms, shell_join, version_one,
};
pub(crate) use write::name_hooks;
use write::write_toml;

use super::AgentFormat;
use crate::config::{Config, ConfigError};
use crate::event::catalog;

/// hooks.toml's largest `timeout_ms` (an hour).
const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// The largest settings file read.
const SETTINGS_MAX_BYTES: u64 = 4 << 20;

/// One agent settings file to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Whose file it is.
    pub format: AgentFormat,
    /// Where it is.
    pub path: PathBuf,
}

/// A hooks.toml made from agent settings, and what could not be carried over.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The hooks.toml text (validated).
    pub toml: String,
    /// How many hooks it holds.
    pub hooks: usize,
    /// What was left out or changed, one line each, naming the file and the hook.
    pub notes: Vec<String>,
}

/// Why the settings could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A settings file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A settings file is larger than hookhost reads.
    #[error("{} is larger than {SETTINGS_MAX_BYTES} bytes; it is not a settings file", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// A settings file is not JSON.
    #[error("{} is not JSON", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A TOML settings file (Codex's `config.toml`, `requirements.toml`) is not TOML.
    #[error("{} is not TOML", path.display())]
    Toml {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        #[source]
        source: toml::de::Error,
    },
    /// The generated hooks.toml does not validate (a hook hookhost cannot express).
    #[error("the imported hooks do not form a valid hooks.toml")]
    Invalid(#[source] ConfigError),
}

/// One hook, as it will be written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hook {
    /// Where it came from, for the comment above it.
    pub(crate) origin: String,
    pub(crate) name: Option<String>,
    /// hookhost's event name.
    pub(crate) event: String,
    pub(crate) matcher: Option<Matcher>,
    pub(crate) command: String,
    pub(crate) protocol: &'static str,
    pub(crate) timeout_ms: u64,
    pub(crate) background: bool,
    /// Its agent blocked the action when it failed (Cursor's `failClosed`).
    pub(crate) fail_closed: bool,
    pub(crate) cwd: Option<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) enabled: bool,
}

/// A matcher in hooks.toml's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Matcher {
    /// `matcher = "..."`: Claude Code's semantics.
    Claude(String),
    /// `matcher = { regex = "..." }`: unanchored.
    Regex(String),
    /// `matcher = { exact = "..." }`.
    Exact(String),
}

/// What one settings file gave: hooks, and notes on what did not carry over.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub(crate) hooks: Vec<Hook>,
    pub(crate) notes: Vec<String>,
}

impl Found {
    pub(crate) fn note(&mut self, origin: &str, text: impl std::fmt::Display) {
        self.notes.push(format!("{origin}: {text}"));
    }
}

/// Where Codex's managed `requirements.toml` is, unless [`CODEX_REQUIREMENTS_ENV`] names
/// another file (for tests and packaging).
pub const CODEX_REQUIREMENTS_PATH: &str = "/etc/codex/requirements.toml";
/// The variable that names Codex's `requirements.toml` for `hookhost import`.
pub const CODEX_REQUIREMENTS_ENV: &str = "HOOKHOST_CODEX_REQUIREMENTS";

/// Codex's managed `requirements.toml` on this machine: [`CODEX_REQUIREMENTS_ENV`], else
/// [`CODEX_REQUIREMENTS_PATH`].
pub fn codex_requirements() -> PathBuf {
    std::env::var_os(CODEX_REQUIREMENTS_ENV)
        .filter(|path| !path.is_empty())
        .map_or_else(|| PathBuf::from(CODEX_REQUIREMENTS_PATH), PathBuf::from)
}

/// The agent settings files of the project in `dir` (only `only`'s, when given), in a fixed
/// order (the agents' table's, each agent's own after it): `.claude/settings.json`, `.claude/settings.local.json`, `.github/hooks/*.json` by
/// name, `.gemini/settings.json`, `.codex/hooks.json`, `.codex/config.toml`, Codex's
/// `requirements.toml` ([`codex_requirements`]: its hooks are reported, or imported into the
/// organisation's file), `.cursor/hooks.json`.
pub fn sources(dir: &Path, only: Option<AgentFormat>) -> Vec<Source> {
    let mut found = Vec::new();
    for (format, _) in AgentFormat::ALL {
        if only.is_none_or(|only| only == format) {
            let paths = settings_of(format, dir, only == Some(format));
            found.extend(
                paths
                    .into_iter()
                    .filter(|path| path.is_file())
                    .map(|path| Source { format, path }),
            );
        }
    }
    found
}

/// One settings file being imported, for an agent's `import`.
pub(crate) struct SettingsFile<'a> {
    /// Its name as shown (relative to the directory imported from).
    pub(crate) label: &'a str,
    pub(crate) path: &'a Path,
    /// Where the hooks.toml goes.
    pub(crate) output: &'a Path,
}

/// What the agents' imports keep from one file to the next of one import.
#[derive(Default)]
pub(crate) struct ImportState {
    /// Codex's trust state, read once.
    pub(crate) codex: Option<codex::TrustState>,
}

/// `settings_of` and `import_of`: each agent's files and reader, `import::NAME::{settings,
/// import}`, from the agents' table (`dialect::for_each_agent!`).
macro_rules! importers {
    ($($(#[$doc:meta])* $variant:ident $module:ident,)*) => {
        /// The settings files `format` may have in `dir` (they need not exist), in its fixed
        /// order; `asked`: only this agent's were asked for.
        fn settings_of(format: AgentFormat, dir: &Path, asked: bool) -> Vec<PathBuf> {
            match format {
                $(AgentFormat::$variant => $module::settings(dir, asked),)*
            }
        }

        fn import_of(
            format: AgentFormat,
            json: &Value,
            file: &SettingsFile<'_>,
            state: &mut ImportState,
        ) -> Found {
            match format {
                $(AgentFormat::$variant => $module::import(json, file, state),)*
            }
        }
    };
}
crate::dialect::for_each_agent!(importers);

/// Imports every file of `sources`; `base` is the directory their names are shown relative
/// to, and `output` the path the hooks.toml will have (for validation messages).
pub fn import(sources: &[Source], base: &Path, output: &Path) -> Result<Imported, ImportError> {
    let mut all = Found::default();
    let mut state = ImportState::default();
    for source in sources {
        let text = read(&source.path)?;
        let json: Value = if source.path.extension().is_some_and(|ext| ext == "toml") {
            let document: toml::Value =
                toml::from_str(&text).map_err(|error| ImportError::Toml {
                    path: source.path.clone(),
                    source: error,
                })?;
            // Every TOML value is a JSON value (a date as a string-keyed table).
            serde_json::to_value(document).unwrap_or_default()
        } else {
            serde_json::from_str(&text).map_err(|error| ImportError::Json {
                path: source.path.clone(),
                source: error,
            })?
        };
        let label = source
            .path
            .strip_prefix(base)
            .unwrap_or(&source.path)
            .display()
            .to_string();
        let file = SettingsFile {
            label: &label,
            path: &source.path,
            output,
        };
        let found = import_of(source.format, &json, &file, &mut state);
        all.notes.extend(found.notes);
        for hook in found.hooks {
            match catalog::lookalike(&hook.event) {
                Some(meant) => all.notes.push(format!(
                    "{}: not imported: hooks.toml reads the event name {} as a misspelling of {}, so no hook can be configured for it",
                    hook.origin, hook.event, meant.name
                )),
                None => all.hooks.push(hook),
            }
        }
    }
    name_hooks(&mut all.hooks);
    let labels: Vec<String> = sources
        .iter()
        .map(|s| {
            s.path
                .strip_prefix(base)
                .unwrap_or(&s.path)
                .display()
                .to_string()
        })
        .collect();
    let toml = write_toml(&all.hooks, &labels);
    Config::parse(&toml, output).map_err(ImportError::Invalid)?;
    Ok(Imported {
        toml,
        hooks: all.hooks.len(),
        notes: all.notes,
    })
}

/// True when `output` is the organisation's managed hooks.toml: the one place Codex's managed
/// hooks are imported into.
fn is_managed_output(output: &Path) -> bool {
    let managed = [
        Some(PathBuf::from(crate::config::MANAGED_CONFIG_PATH)),
        std::env::var_os(crate::config::MANAGED_CONFIG_ENV)
            .filter(|path| !path.is_empty())
            .map(PathBuf::from),
    ];
    let output = std::path::absolute(output).unwrap_or(output.to_path_buf());
    managed.into_iter().flatten().any(|path| path == output)
}

fn read(path: &Path) -> Result<String, ImportError> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).map_err(|source| ImportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut text = String::new();
    file.take(SETTINGS_MAX_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|source| ImportError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if text.len() as u64 > SETTINGS_MAX_BYTES {
        return Err(ImportError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    Ok(text)
}

#[cfg(test)]
mod tests;
