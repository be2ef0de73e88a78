//! Where a hook's program comes from: a command (run with `bash -c`, speaking a protocol), or a
//! WebAssembly component by file path or by registry reference (`oci://...`), with the
//! sandbox's grants. `config` parses these from hooks.toml, `oci` resolves references to the
//! files hooks.lock pins, and the runner prepares the runtimes from them; the types sit below
//! all three.

#[cfg(feature = "wasm")]
pub mod reference;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::protocol::Protocol;
use crate::protocol::exit_code::ExitCodes;

/// The program behind a hook.
#[derive(Debug, Clone)]
pub enum HookSource {
    /// `command = "..."`, run as `bash -c`.
    Command(CommandSpec),
    /// `wasm = "..."`, a component run in a sandbox.
    Wasm(WasmSpec),
}

impl HookSource {
    /// "command" or "wasm", for tables.
    pub fn kind(&self) -> &'static str {
        match self {
            HookSource::Command(_) => "command",
            HookSource::Wasm(_) => "wasm",
        }
    }
}

/// A WebAssembly component hook and what its sandbox grants.
#[derive(Debug, Clone)]
pub struct WasmSpec {
    /// The component file as written in hooks.toml (relative to the config file's directory).
    pub path: PathBuf,
    /// What the sandbox lets the hook see and use.
    pub grants: Grants,
    /// The `[hooks.config]` table, as JSON; an empty object when absent.
    pub config: serde_json::Value,
    /// `sha256 = "..."`: the file must have exactly this digest.
    pub sha256: Option<String>,
}

/// How a policy of hookhost's catalogue (`policy = "NAME"`) is named where a wasm hook's file
/// would be: `WasmSpec::path` is `policy:NAME`.
pub const POLICY_SCHEME: &str = "policy:";

/// Default `max_memory_mb` of a wasm hook.
pub const DEFAULT_MAX_MEMORY_MB: u32 = 64;
/// The largest `max_memory_mb` accepted.
pub const MAX_MEMORY_MB_LIMIT: u32 = 4096;

/// What a wasm hook may see and use. Nothing by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grants {
    /// Directories preopened read-only, as written (relative paths resolve against the
    /// runner's cwd). The guest sees each at the same absolute path as the host.
    pub read: Vec<PathBuf>,
    /// Directories preopened read-write.
    pub write: Vec<PathBuf>,
    /// Host variables passed through by name (`env = ["NAME", ...]`).
    pub env_inherit: Vec<String>,
    /// Variables set to given values (`env = { NAME = "value" }`).
    pub env_set: BTreeMap<String, String>,
    /// The instance's total linear memory, in MiB.
    pub max_memory_mb: u32,
    /// A deterministic instruction budget per call, if any.
    pub fuel: Option<u64>,
}

impl Default for Grants {
    fn default() -> Grants {
        Grants {
            read: Vec::new(),
            write: Vec::new(),
            env_inherit: Vec::new(),
            env_set: BTreeMap::new(),
            max_memory_mb: DEFAULT_MAX_MEMORY_MB,
            fuel: None,
        }
    }
}

/// A `bash -c` hook.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    /// The command line given to `bash -c`.
    pub command: String,
    /// How it reads the event and answers.
    pub protocol: Protocol,
    /// `exit_codes` (exit-code protocol): what each exit status means.
    pub exit_codes: ExitCodes,
    /// Variables added to the inherited environment.
    pub env: BTreeMap<String, String>,
    /// Working directory; relative paths resolve against the runner's cwd.
    pub cwd: Option<PathBuf>,
}

/// Checks a hooks.toml `wasm` value that is a registry reference; file paths pass. The error is
/// a message for a configuration problem.
#[cfg(feature = "wasm")]
pub(crate) fn check_wasm_source(wasm: &str) -> Result<(), String> {
    if reference::is_oci(wasm) {
        reference::OciReference::parse(wasm).map_err(|error| error.to_string())?;
    }
    Ok(())
}

#[cfg(all(test, feature = "wasm"))]
mod tests {
    use super::*;

    #[test]
    fn reference_form_is_checked_at_parse_time() {
        assert_eq!(check_wasm_source("hooks/guard.wasm"), Ok(()));
        assert_eq!(check_wasm_source("oci://r.io/team/guard:1.0.0"), Ok(()));
        assert_eq!(
            check_wasm_source("oci://r.io/team/guard").unwrap_err(),
            "`oci://r.io/team/guard` is not a valid OCI reference: it names no version: add a \
             tag, like :1.2.0, or a digest, like @sha256:<64 hex digits>"
        );
    }
}
