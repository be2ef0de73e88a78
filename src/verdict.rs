//! What a hook answers, how a hook fails, and the messages an agent shows for both.
//!
//! Both runtimes (command and wasm) produce the same [`Verdict`] or the same [`HookFailure`],
//! so the runner merges outcomes without knowing which kind of hook it called.

use std::fmt;

use serde::Deserialize;

use crate::config::Role;

/// A hook's answer to one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A guard let the call through.
    Allow,
    /// A guard blocked the call, with the hook's reason.
    Block {
        /// Why, in the hook's words.
        reason: String,
    },
    /// An observe hook ran; its output is ignored (R4).
    Observed,
    /// A PostToolUse hook has nothing to report.
    Continue,
    /// A PostToolUse hook signals (for example convergence, R7).
    Signal(Signal),
    /// A Stop hook finished. `unrecognized_action` holds an action other than "continue",
    /// which R3 says to log and treat as continue.
    Stopped {
        /// An action other than `continue`, if the hook returned one.
        unrecognized_action: Option<String>,
    },
}

/// A PostToolUse signal: a name and the hook's reason (R3, R7).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Signal {
    /// The signal's name, for example `converged`.
    pub signal: String,
    /// Why the hook signalled.
    pub reason: String,
}

/// Why a hook produced no verdict. Shared by both runtimes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookFailure {
    /// The hook did not finish within its `timeout_ms`.
    #[error("timed out after {timeout_ms}ms")]
    TimedOut {
        /// The configured budget.
        timeout_ms: u64,
    },
    /// The hook's process exited with a non-zero code.
    #[error("exited with code {code}{}", exit_hint(*code))]
    Exited {
        /// The exit code.
        code: i32,
    },
    /// The hook's process was killed by a signal.
    #[error("killed by signal {signal}{}", signal_name(*signal).map(|n| format!(" ({n})")).unwrap_or_default())]
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// The hook's output is not a valid answer. The message for guards keeps the spec's wording
    /// ("returned invalid JSON"); `detail` says exactly what was wrong.
    #[error("returned invalid JSON")]
    InvalidOutput {
        /// What was wrong with the output.
        detail: String,
    },
    /// The hook printed more than the runner reads.
    #[error("printed more than {limit} bytes on stdout")]
    OutputTooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
    /// The hook could not be started at all (for example, `bash` is not installed).
    #[error("could not be started: {reason}")]
    Spawn {
        /// What went wrong, including the OS error.
        reason: String,
    },
    /// A wasm hook used up its instruction budget (`fuel`).
    #[error("ran out of fuel")]
    OutOfFuel,
    /// A wasm hook tried to grow its memory past `max_memory_mb`.
    #[error("exceeded its memory limit of {limit_mb} MiB")]
    MemoryLimit {
        /// The limit, in MiB.
        limit_mb: u64,
    },
    /// A wasm hook trapped (a panic in Rust is an `unreachable` trap; its message is on the
    /// hook's stderr).
    #[error("trapped: {message}")]
    Trapped {
        /// The trap, without a backtrace.
        message: String,
    },
    /// A wasm hook went past a bound of its sandbox on host resources: more WASI handles held at
    /// once, or more work asked of one host call, than the README's threat model allows.
    #[error("exceeded a sandbox limit: {detail}")]
    SandboxLimit {
        /// Which bound, with its number.
        detail: String,
    },
    /// A wasm hook returned a verdict the contract does not allow.
    #[error("returned an invalid verdict")]
    InvalidVerdict {
        /// What was wrong with it.
        detail: String,
    },
    /// The configuration could not be loaded, so no hook ran; guards fail closed on it.
    #[error("could not be loaded: {reason}")]
    Config {
        /// The configuration error in one line.
        reason: String,
    },
}

fn exit_hint(code: i32) -> &'static str {
    match code {
        126 => ": command found but not executable (check its permissions)",
        127 => ": command not found (check the path in hooks.toml)",
        _ => "",
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        _ => return None,
    })
}

impl HookFailure {
    /// The full explanation: the message plus any detail the message leaves out.
    pub fn detailed(&self) -> String {
        match self {
            HookFailure::InvalidOutput { detail } | HookFailure::InvalidVerdict { detail } => {
                format!("{self}: {detail}")
            }
            _ => self.to_string(),
        }
    }
}

/// `blocked by {hook}: {reason}`: a guard decided to block (R4).
pub fn blocked_message(hook: &str, reason: &str) -> String {
    format!("blocked by {hook}: {reason}")
}

/// `hook failed: {hook} {failure} (tool blocked by default)`: a guard failed and the tool is
/// blocked (R4). With the failures of the spec this gives exactly its three messages:
/// `timed out after {timeout_ms}ms`, `exited with code {code}`, `returned invalid JSON`.
pub fn guard_failed_message(hook: &str, failure: &HookFailure) -> String {
    format!("hook failed: {hook} {failure} (tool blocked by default)")
}

/// Parses a command hook's stdout into the verdict its role calls for.
///
/// Unknown fields are ignored (forward compatibility); an unknown `action` is invalid output,
/// except for Stop, where R3 says to log it and continue.
pub(crate) fn parse_stdout(role: Role, stdout: &[u8]) -> Result<Verdict, HookFailure> {
    if role == Role::Observe {
        return Ok(Verdict::Observed);
    }
    let output: RawOutput = serde_json::from_slice(stdout).map_err(|error| {
        let shown = String::from_utf8_lossy(&stdout[..stdout.len().min(200)]).into_owned();
        HookFailure::InvalidOutput {
            detail: if stdout.iter().all(u8::is_ascii_whitespace) {
                "stdout was empty; print a JSON object such as {\"action\":\"allow\"}".to_string()
            } else {
                format!("{error} in {shown:?}")
            },
        }
    })?;
    let invalid = |detail: String| HookFailure::InvalidOutput { detail };
    match (role, output.action.as_str()) {
        (Role::Guard, "allow") => Ok(Verdict::Allow),
        (Role::Guard, "block") => Ok(Verdict::Block {
            reason: output
                .reason
                .unwrap_or_else(|| "no reason provided".to_string()),
        }),
        (Role::Guard, other) => Err(invalid(format!(
            "unknown action \"{other}\"; a guard answers \"allow\" or \"block\""
        ))),
        (Role::Post, "continue") => Ok(Verdict::Continue),
        (Role::Post, "signal") => match output.signal {
            Some(signal) if !signal.is_empty() => Ok(Verdict::Signal(Signal {
                signal,
                reason: output.reason.unwrap_or_default(),
            })),
            _ => Err(invalid(
                "action \"signal\" without a \"signal\" name".to_string(),
            )),
        },
        (Role::Post, other) => Err(invalid(format!(
            "unknown action \"{other}\"; a PostToolUse hook answers \"continue\" or \"signal\""
        ))),
        (Role::Stop, "continue") => Ok(Verdict::Stopped {
            unrecognized_action: None,
        }),
        (Role::Stop, other) => Ok(Verdict::Stopped {
            unrecognized_action: Some(other.to_string()),
        }),
        (Role::Observe, _) => unreachable!("handled above"),
    }
}

#[derive(Deserialize)]
struct RawOutput {
    action: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    signal: Option<String>,
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.signal, self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_messages_are_verbatim() {
        assert_eq!(
            blocked_message("ralph-guard.sh", "destructive command detected"),
            "blocked by ralph-guard.sh: destructive command detected"
        );
        let cases = [
            (
                HookFailure::TimedOut { timeout_ms: 5000 },
                "hook failed: g.sh timed out after 5000ms (tool blocked by default)",
            ),
            (
                HookFailure::Exited { code: 2 },
                "hook failed: g.sh exited with code 2 (tool blocked by default)",
            ),
            (
                HookFailure::InvalidOutput { detail: "x".into() },
                "hook failed: g.sh returned invalid JSON (tool blocked by default)",
            ),
            (
                HookFailure::Exited { code: 127 },
                "hook failed: g.sh exited with code 127: command not found (check the path in hooks.toml) (tool blocked by default)",
            ),
            (
                HookFailure::Signaled { signal: 9 },
                "hook failed: g.sh killed by signal 9 (SIGKILL) (tool blocked by default)",
            ),
            (
                HookFailure::OutputTooLarge { limit: 1048576 },
                "hook failed: g.sh printed more than 1048576 bytes on stdout (tool blocked by default)",
            ),
        ];
        for (failure, expected) in cases {
            assert_eq!(guard_failed_message("g.sh", &failure), expected);
        }
    }

    #[test]
    fn parses_each_role() {
        let table: &[(&str, Role, &str, Result<Verdict, ()>)] = &[
            (
                "allow",
                Role::Guard,
                r#"{"action":"allow"}"#,
                Ok(Verdict::Allow),
            ),
            (
                "block",
                Role::Guard,
                r#"{"action":"block","reason":"nope"}"#,
                Ok(Verdict::Block {
                    reason: "nope".into(),
                }),
            ),
            (
                "block without reason",
                Role::Guard,
                r#"{"action":"block"}"#,
                Ok(Verdict::Block {
                    reason: "no reason provided".into(),
                }),
            ),
            (
                "trailing newline",
                Role::Guard,
                "{\"action\":\"allow\"}\n",
                Ok(Verdict::Allow),
            ),
            (
                "extra fields",
                Role::Guard,
                r#"{"action":"allow","note":1}"#,
                Ok(Verdict::Allow),
            ),
            (
                "unknown guard action",
                Role::Guard,
                r#"{"action":"deny"}"#,
                Err(()),
            ),
            ("empty", Role::Guard, "", Err(())),
            ("not json", Role::Guard, "allow", Err(())),
            (
                "two objects",
                Role::Guard,
                r#"{"action":"allow"}{"action":"block"}"#,
                Err(()),
            ),
            (
                "continue",
                Role::Post,
                r#"{"action":"continue"}"#,
                Ok(Verdict::Continue),
            ),
            (
                "signal",
                Role::Post,
                r#"{"action":"signal","signal":"converged","reason":"3 runs"}"#,
                Ok(Verdict::Signal(Signal {
                    signal: "converged".into(),
                    reason: "3 runs".into(),
                })),
            ),
            (
                "signal without name",
                Role::Post,
                r#"{"action":"signal"}"#,
                Err(()),
            ),
            (
                "unknown post action",
                Role::Post,
                r#"{"action":"block"}"#,
                Err(()),
            ),
            (
                "stop continue",
                Role::Stop,
                r#"{"action":"continue"}"#,
                Ok(Verdict::Stopped {
                    unrecognized_action: None,
                }),
            ),
            (
                "stop signal is logged, not failed",
                Role::Stop,
                r#"{"action":"signal"}"#,
                Ok(Verdict::Stopped {
                    unrecognized_action: Some("signal".into()),
                }),
            ),
            ("stop garbage", Role::Stop, "nope", Err(())),
            (
                "observe ignores output",
                Role::Observe,
                "garbage",
                Ok(Verdict::Observed),
            ),
        ];
        for (name, role, stdout, expected) in table {
            let got = parse_stdout(*role, stdout.as_bytes()).map_err(|_| ());
            assert_eq!(&got, expected, "case {name}");
        }
    }
}
