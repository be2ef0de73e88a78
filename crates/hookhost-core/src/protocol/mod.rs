//! How a command hook reads an event and answers. Protocols are adapters at the edge, like the
//! runtimes: each writes the event for the hook (stdin JSON, environment variables) and reads
//! the hook's exit status and output back into a [`Verdict`]; the runner sees only verdicts.
//!
//! | `protocol =` | stdin | answer |
//! |---|---|---|
//! | `"forgeflare"` (default) | hookhost's JSON: forgeflare's fields (`event`, `phase`, `tool`, `input`, ...) | exit 0 and `{"action": ...}` on stdout |
//! | `"claude"` | Claude Code's JSON (`hook_event_name`, `tool_name`, `tool_input`, ...) | exit 0 with optional JSON (`decision`, `hookSpecificOutput`, ...), exit 2 blocks with stderr as the reason |
//! | `"exit-code"` | hookhost's JSON (scripts may ignore it); the event in `HOOKHOST_*` variables | exit 0 go on, 1 warn, 2 block, 3+ an error |
//! | `"copilot"` | Copilot CLI's camelCase JSON (`toolName`, `toolArgs` as a JSON string, ...) | Copilot's: flat `permissionDecision`, `modifiedArgs`, `decision`, `additionalContext`; exit 2 denies a tool call |
//! | `"gemini"` | Gemini CLI's JSON (`hook_event_name: "BeforeTool"`, ...) | Gemini's: `decision: "deny"`, `hookSpecificOutput.tool_input` (merged), exit 2 refuses with stderr |
//! | `"codex"` | Codex CLI's JSON (Claude Code's, with `turn_id`, `model`) | Codex's: Claude Code's shape with fewer answers per event; an unknown key, `ask` or a bare `allow` fails the hook; exit 2 refuses with stderr |
//! | `"cursor"` | Cursor's JSON (`hook_event_name: "preToolUse"`, `conversation_id`, `workspace_roots`, ...) | Cursor's: flat `permission`, `user_message`, `agent_message`, `updated_input`, `followup_message`, `continue`, `additional_context`; exit 2 denies |

pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod copilot;
pub(crate) mod cursor;
mod entries;
pub mod exit_code;
pub(crate) mod forgeflare;
mod fuzzing;
pub(crate) mod gemini;
#[cfg(test)]
mod test_support;

use std::fmt;
use std::sync::Arc;

use crate::dialect::AgentFormat;
pub(crate) use crate::runtime::HookEvent;
use crate::runtime::HookRequest;
use crate::verdict::{HookFailure, Verdict};
use entries::Entries;

/// The protocol a command hook speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Protocol {
    /// forgeflare's: JSON in, `{"action": ...}` out (seed 000, R3), widened to every event.
    #[default]
    Forgeflare,
    /// Claude Code's (also Copilot CLI's and Gemini CLI's shape): an existing Claude Code hook
    /// script runs unchanged.
    Claude,
    /// The exit status is the answer (Fresher's convention).
    ExitCode,
    /// Copilot CLI's: a `.github/hooks` script runs unchanged.
    Copilot,
    /// Gemini CLI's: a `.gemini/settings.json` script runs unchanged.
    Gemini,
    /// Codex CLI's: a `.codex/hooks.json` (or `config.toml` `[hooks]`) script runs unchanged.
    Codex,
    /// Cursor's: a `.cursor/hooks.json` script runs unchanged.
    Cursor,
}

impl Protocol {
    /// Every protocol, with its hooks.toml spelling.
    pub const ALL: [(Protocol, &'static str); 7] = [
        (Protocol::Forgeflare, "forgeflare"),
        (Protocol::Claude, "claude"),
        (Protocol::ExitCode, "exit-code"),
        (Protocol::Copilot, "copilot"),
        (Protocol::Gemini, "gemini"),
        (Protocol::Codex, "codex"),
        (Protocol::Cursor, "cursor"),
    ];

    /// The hooks.toml spelling.
    pub fn as_str(self) -> &'static str {
        Protocol::ALL
            .iter()
            .find(|(protocol, _)| *protocol == self)
            .map(|(_, name)| *name)
            .unwrap_or("forgeflare")
    }

    /// The protocol spelled `name` in hooks.toml.
    pub fn from_name(name: &str) -> Option<Protocol> {
        Protocol::ALL
            .iter()
            .find(|(_, spelled)| *spelled == name)
            .map(|(protocol, _)| *protocol)
    }

    /// The event as this protocol's hooks read it on stdin, made once per phase (the request's
    /// cache files it under the shape's name: the exit-code protocol writes forgeflare's).
    pub(crate) fn stdin_of(self, request: &HookRequest<'_>) -> Arc<[u8]> {
        let shape = match self {
            Protocol::ExitCode => Protocol::Forgeflare.as_str(),
            protocol => protocol.as_str(),
        };
        request.cache.shaped(shape, || self.stdin(&request.view))
    }
}

/// The protocols of hookhost's own (forgeflare's JSON, the exit-code convention) by hand, and
/// one per agent from the agents' table (`dialect::for_each_agent!`): an agent's variant of
/// [`Protocol`] is named as its [`AgentFormat`]'s, its code is `protocol::NAME`.
macro_rules! protocols {
    ($($(#[$doc:meta])* $variant:ident $module:ident,)*) => {
        impl Protocol {
            /// Writes the event as this protocol's hooks read it on stdin.
            pub(crate) fn stdin(self, view: &HookEvent<'_>) -> Vec<u8> {
                match self {
                    Protocol::Forgeflare | Protocol::ExitCode => forgeflare::stdin(view),
                    $(Protocol::$variant => $module::stdin(view),)*
                }
            }

            /// Reads a finished process back into a verdict (`codes`: the hook's `exit_codes`,
            /// for the exit-code protocol).
            pub(crate) fn answer(
                self,
                view: &HookEvent<'_>,
                output: &ProcessOutput,
                codes: &exit_code::ExitCodes,
            ) -> Result<Verdict, HookFailure> {
                match self {
                    Protocol::Forgeflare => forgeflare::answer(view, output),
                    Protocol::ExitCode => exit_code::answer(output, codes),
                    $(Protocol::$variant => $module::answer(view, output),)*
                }
            }

            /// The agent whose scripts this protocol runs (none for hookhost's own): what
            /// `RunnerOptions::protocol_agent_env` gives a command hook the variables of.
            pub fn agent(self) -> Option<AgentFormat> {
                match self {
                    Protocol::Forgeflare | Protocol::ExitCode => None,
                    $(Protocol::$variant => Some(AgentFormat::$variant),)*
                }
            }
        }
    };
}
crate::dialect::for_each_agent!(protocols);

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a command hook's process ended, and what it printed.
#[derive(Debug)]
pub(crate) struct ProcessOutput {
    /// The exit code; `None` when a signal killed it.
    pub(crate) code: Option<i32>,
    /// The signal that killed it.
    pub(crate) signal: Option<i32>,
    /// Its stdout (up to the cap).
    pub(crate) stdout: Vec<u8>,
    /// Its stderr, as kept for the report (up to the cap).
    pub(crate) stderr: String,
}

impl ProcessOutput {
    /// The failure for an exit other than 0, in forgeflare's words.
    pub(crate) fn failure(&self) -> Option<HookFailure> {
        match (self.code, self.signal) {
            (Some(0), _) => None,
            (Some(code), _) => Some(HookFailure::Exited { code }),
            (None, Some(signal)) => Some(HookFailure::Signaled { signal }),
            (None, None) => Some(HookFailure::Exited { code: -1 }),
        }
    }
}

/// What a protocol's `write` makes of the event: its stdin JSON, serialized straight into a
/// buffer (no `Value` tree in between), each key once ([`Entries`]).
fn to_json(
    view: &HookEvent<'_>,
    write: fn(&HookEvent<'_>, &mut Entries<'_, '_>) -> serde_json::Result<()>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    let mut serializer = serde_json::Serializer::new(&mut out);
    let mut map = Entries::open(&mut serializer).expect("event JSON serializes into memory");
    write(view, &mut map).expect("event JSON serializes into memory");
    map.close().expect("event JSON serializes into memory");
    out
}

/// The fields Claude Code and Gemini CLI both open their stdin with: `session_id` and
/// `transcript_path` where the event has them, then `cwd`.
fn serialize_session(map: &mut Entries<'_, '_>, view: &HookEvent<'_>) -> serde_json::Result<()> {
    map.session("session_id", view.event.session_id())?;
    if let Some(path) = view.event.field("transcript_path") {
        map.serialize_entry("transcript_path", path)?;
    }
    map.serialize_entry("cwd", view.cwd)
}
