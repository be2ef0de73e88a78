//! How a hook fails ([`HookFailure`], one enum for every runtime), and the two messages
//! forgeflare's spec fixes for a guard that blocks or fails (R4), which agents and people
//! match on.

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
    /// once, or more work asked of one host call, than the threat model (docs/sandbox.md) allows.
    #[error("exceeded a sandbox limit: {detail}")]
    SandboxLimit {
        /// Which bound, with its number.
        detail: String,
    },
    /// The user's `[projects]` policy does not let this project hook run.
    #[error("is not allowed to run: {reason}")]
    NotAllowed {
        /// Why, and what to do about it.
        reason: String,
    },
    /// An in-process hook panicked.
    #[error("panicked: {message}")]
    Panicked {
        /// The panic's message.
        message: String,
    },
    /// A hook returned a verdict the contract does not allow.
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
    /// What kind of failure it is, for records and metrics: `timed_out`, `exited`, ...
    pub fn kind(&self) -> &'static str {
        match self {
            HookFailure::TimedOut { .. } => "timed_out",
            HookFailure::Exited { .. } => "exited",
            HookFailure::Signaled { .. } => "signaled",
            HookFailure::InvalidOutput { .. } => "invalid_output",
            HookFailure::OutputTooLarge { .. } => "output_too_large",
            HookFailure::Spawn { .. } => "spawn",
            HookFailure::OutOfFuel => "out_of_fuel",
            HookFailure::MemoryLimit { .. } => "memory_limit",
            HookFailure::Trapped { .. } => "trapped",
            HookFailure::SandboxLimit { .. } => "sandbox_limit",
            HookFailure::NotAllowed { .. } => "not_allowed",
            HookFailure::Panicked { .. } => "panicked",
            HookFailure::InvalidVerdict { .. } => "invalid_verdict",
            HookFailure::Config { .. } => "config",
        }
    }

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
