//! `hooks.toml`: what a project configures, parsed and validated before anything runs.
//!
//! The file format is forgeflare's (seed 000, R2), widened to every event of the catalog, plus
//! the optional fields real teams need. Validation reports *every* problem of a file (up to a
//! cap), each with its file, line, column and hook, because a guard that silently turns off is
//! the worst outcome a hook host can have. What is odd but switches nothing off is a warning.
//!
//! ```toml
//! [[hooks]]
//! event = "PreToolUse"          # a built-in or custom event, a list, a glob ("tool:*")
//! phase = "guard"               # guard (default) | observe; for events whose hooks have phases
//! match_tool = "Bash"           # exact tool name; or matcher = "Edit|Write" (Claude Code's)
//! command = ".claude/hooks/ralph-guard.sh"
//! timeout_ms = 5000             # default 5000, Stop hooks 3000
//! name = "ralph-guard"          # how messages name the hook; default: the command
//! enabled = true                # default true
//! on_failure = "block"          # guard hooks only: block (default) | allow
//! cwd = "scripts"               # default: the runner's cwd
//! env = { LEVEL = "strict" }    # extra variables for the command
//! ```

mod error;
mod fields;
mod keyless;
mod keys;
mod location;
mod log;
mod managed;
mod parse;
mod pattern;
mod policy;
mod projects;
mod rules;
mod source;
mod telemetry;
mod trust;
mod when;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use error::located_summary;
pub use error::{ConfigError, ConfigProblem};
// The located-problem machinery, for the other files hookhost validates (`policy_test`).
pub use fields::{Problems, boolean, close_to, find, subtable, to_json};
#[cfg(feature = "wasm")]
pub use keyless::anchored as anchored_regex;
pub use keys::{KeyKind, KeySource, KeySpec, KeylessSpec, NamePattern, RuleSpec, TrustSpec};
pub use location::Location;
pub use log::{DEFAULT_DROP, LogSpec};
pub use managed::{MANAGED_CONFIG_ENV, MANAGED_CONFIG_PATH, ManagedFile, ManagedOrigin, Ownership};
pub use pattern::pattern_matches;
pub use projects::{Ceiling, ProjectPolicy, ProjectsSpec};
pub use rules::PermissionRule;
pub use telemetry::{
    AttributeValue, MAX_TELEMETRY_TIMEOUT_MS, OtlpProtocol, TelemetrySpec, check_endpoint,
};

use crate::event::{EventSpec, Phase};
use crate::matcher::{EventPattern, ToolMatcher};

/// The largest hooks.toml hookhost reads.
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;
/// Default `timeout_ms` of most events' hooks (R2; every event's is in the event catalog).
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;
/// Default `timeout_ms` of Stop hooks (R2).
pub const DEFAULT_STOP_TIMEOUT_MS: u64 = 3000;

/// A validated `hooks.toml`: the hooks in declaration order.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the configuration came from; messages name it and relative paths in it resolve
    /// against its directory.
    pub path: PathBuf,
    /// Every hook of the file, enabled or not, in declaration order.
    pub hooks: Vec<HookSpec>,
    /// The `[trust]` table: keys for signed bundles.
    pub trust: TrustSpec,
    /// What is odd but switches nothing off (an unknown top-level table, a `phase` that has no
    /// effect): `hookhost check` shows these; loading goes on.
    pub warnings: Vec<ConfigProblem>,
    /// `[projects]`: what the user allows projects' hooks (read only from the user's own file).
    pub projects: Option<ProjectsSpec>,
    /// `disable = [...]`: project hooks a local override turns off, by name.
    pub disable: Vec<String>,
    /// Where `disable` is in the file.
    pub disable_at: Location,
    /// `[log]`: where decision records go.
    pub log: Option<LogSpec>,
    /// `[telemetry]`: where decision records are exported over OTLP.
    pub telemetry: Option<TelemetrySpec>,
    /// `managed_only = true|false`, as written: only the organisation's managed file may set
    /// it (true: only its hooks run, every other layer's are reported as skipped).
    pub managed_only: Option<bool>,
    /// Where `managed_only` is in the file.
    pub managed_only_at: Location,
    /// `[[rules]]`: permission rules in Claude Code's syntax, in the order written
    /// (docs/rules.md).
    pub rules: Vec<PermissionRule>,
}

impl Config {
    /// Reads and validates the file at `path`.
    ///
    /// A missing file is an error here ([`ConfigError::Read`]); [`Config::load_optional`] is the
    /// variant for callers to whom "no file" means "no hooks".
    ///
    /// Only a regular file of at most [`MAX_CONFIG_BYTES`] is read: a FIFO would block the agent
    /// until a writer came, and `/dev/zero` would never end.
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        use std::io::Read as _;
        let path = path.as_ref();
        let error = |source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        };
        let metadata = std::fs::metadata(path).map_err(error)?;
        if !metadata.is_file() {
            return Err(error(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            )));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
            .map_err(error)?;
        if bytes.len() as u64 > MAX_CONFIG_BYTES {
            return Err(error(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("larger than {MAX_CONFIG_BYTES} bytes; a hooks.toml is a few kilobytes"),
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|e| error(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        Config::parse(&text, path)
    }

    /// Like [`Config::load`], but a file that does not exist is `Ok(None)`: unconfigured is the
    /// default (R2). Any other failure to read the file is still an error.
    pub fn load_optional(path: impl AsRef<Path>) -> Result<Option<Config>, ConfigError> {
        match Config::load(path) {
            Err(ConfigError::Read { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                Ok(None)
            }
            other => other.map(Some),
        }
    }

    /// Parses and validates configuration text. `path` is used in messages and as the base of
    /// relative paths; the file is not read.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let path = path.as_ref().to_path_buf();
        match parse::parse_file(text) {
            Ok(parsed) => Ok(Config {
                path,
                hooks: parsed.hooks,
                trust: parsed.trust,
                warnings: parsed.warnings,
                projects: parsed.projects,
                disable: parsed.disable,
                disable_at: parsed.disable_at,
                log: parsed.log,
                telemetry: parsed.telemetry,
                managed_only: parsed.managed_only,
                managed_only_at: parsed.managed_only_at,
                rules: parsed.rules,
            }),
            Err(problems) => Err(ConfigError::Invalid { path, problems }),
        }
    }

    /// A configuration with no hooks.
    pub fn empty(path: impl AsRef<Path>) -> Config {
        Config {
            path: path.as_ref().to_path_buf(),
            hooks: Vec::new(),
            trust: TrustSpec::default(),
            warnings: Vec::new(),
            projects: None,
            disable: Vec::new(),
            disable_at: Location::default(),
            log: None,
            telemetry: None,
            managed_only: None,
            managed_only_at: Location::default(),
            rules: Vec::new(),
        }
    }

    /// The directory relative paths in this configuration resolve against.
    pub fn base_dir(&self) -> &Path {
        match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        }
    }
}

/// A TOML document as JSON, the way a `[hooks.config]` table reaches a wasm hook (datetimes
/// become strings). For tools that take a config from a file, such as `hookhost sign
/// --default-config`.
pub fn toml_to_json(text: &str) -> Result<serde_json::Value, String> {
    let table = toml::de::DeTable::parse(text).map_err(|error| {
        let at = error
            .span()
            .map(|span| Location::of_offset(text, span.start));
        match at {
            Some(at) => format!("{at}: {}", error.message()),
            None => error.message().to_string(),
        }
    })?;
    Ok(fields::to_json(&toml::de::DeValue::Table(
        table.into_inner(),
    )))
}

/// Which configuration a hook comes from, in the order they run: the organisation's managed
/// hooks first (nobody else can disable them), the user's own hooks (a project cannot disable
/// them), then the project's, its local override, and the hooks the agent registers at run
/// time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Layer {
    /// `/etc/hookhost/hooks.toml` (see [`ManagedFile`]): the organisation's.
    Managed,
    /// `$XDG_CONFIG_HOME/hookhost/hooks.toml`: the user's.
    User,
    /// `.forgeflare/hooks.toml` or `hooks.toml`: the project's.
    #[default]
    Project,
    /// `hooks.local.toml` beside the project's file: not committed, but in the repository's
    /// directory, so treated as the project's under `[projects]` policies.
    Local,
    /// Registered by the agent ([`crate::Runner::register`]).
    Runtime,
}

impl Layer {
    /// `managed`, `user`, `project`, `local`, `runtime`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Managed => "managed",
            Layer::User => "user",
            Layer::Project => "project",
            Layer::Local => "local",
            Layer::Runtime => "runtime",
        }
    }
}

/// One `[[hooks]]` entry after validation.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// Position in the file, 0-based; messages show it 1-based.
    pub index: usize,
    /// The configuration it comes from.
    pub layer: Layer,
    /// How messages name the hook: `name`, or else the command (forgeflare's behaviour).
    pub name: String,
    /// The events it is declared for (`event`: a name, a list, a glob).
    pub events: EventPattern,
    /// When in the event it runs (the effective phase: `phase` is ignored on events whose hooks
    /// have no phases, such as PostToolUse and Stop, as seed 000 says).
    pub phase: Phase,
    /// `phase` as the file wrote it, if it did.
    pub phase_written: Option<Phase>,
    /// What the tool (or the matched payload field) must be for the hook to fire.
    pub matcher: ToolMatcher,
    /// `match_tool` as the file wrote it (forgeflare's exact tool name), if it did.
    pub match_tool: Option<String>,
    /// `timeout_ms` as written; `None` takes the event's default (5000, Stop 3000).
    pub timeout: Option<Duration>,
    /// `enabled = false` keeps a hook in the file without running it.
    pub enabled: bool,
    /// What the hook's *failure* (not its block) means; `None` takes the event's default
    /// (PreToolUse guards fail closed, every other hook fails open).
    pub on_failure: Option<OnFailure>,
    /// `async = true`: an observer that runs in the background.
    pub background: bool,
    /// Whether its answers are enforced: `mode`, else the file's top-level `mode`.
    pub mode: Mode,
    /// What runs.
    pub source: HookSource,
    /// Where the hook's table starts in the file.
    pub location: Location,
}

impl HookSpec {
    /// True when the hook fires for `tool` on an event whose matcher compares tool names.
    pub fn matches_tool(&self, tool: &str) -> bool {
        self.matcher.matches(Some(tool))
    }

    /// The budget of one call for `event`.
    pub fn timeout_for(&self, event: &EventSpec) -> Duration {
        self.timeout
            .unwrap_or(Duration::from_millis(event.default_timeout_ms))
    }

    /// `timeout_ms` as configured, or the default of the hook's first event, for messages and
    /// tables.
    pub fn timeout_ms(&self) -> u64 {
        let default = self
            .events
            .specs()
            .first()
            .map_or(DEFAULT_TIMEOUT_MS, |spec| spec.default_timeout_ms);
        self.timeout
            .map_or(default, |timeout| timeout.as_millis() as u64)
    }

    /// `PreToolUse/guard`, `PostToolUse`, `started/guard`, `tool:*/observe`: the events and the
    /// phase where it matters.
    pub fn label(&self) -> String {
        let events = self.events.to_string();
        if self.events.specs().iter().any(|spec| spec.gate) {
            format!("{events}/{}", self.phase.as_str())
        } else {
            events
        }
    }
}

/// What a guard hook's failure (timeout, crash, bad output) decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnFailure {
    /// Fail closed: the tool is blocked (R4's default).
    #[default]
    Block,
    /// Advisory guard: a failure is reported and the tool is allowed.
    Allow,
}

pub use crate::verdict::Mode;

pub use crate::source::{
    CommandSpec, DEFAULT_MAX_MEMORY_MB, Grants, HookSource, MAX_MEMORY_MB_LIMIT, WasmSpec,
};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_events;
#[cfg(test)]
mod tests_log;
#[cfg(test)]
mod tests_matchers;
#[cfg(test)]
mod tests_telemetry;
