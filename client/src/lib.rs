//! hookhost's thin client: the command an agent's hook settings name when a `hookhost serve`
//! daemon keeps the project's hooks loaded (`hookhost-client --format claude`).
//!
//! ```text
//! agent ──stdin, env, cwd──▶ hookhost-client ──wire: a Unix socket──▶ hookhost serve
//!                                  │                                        │
//!                                  ◀──────── stdout, stderr, exit status ───┘
//!                                  │
//!                                  └─ no daemon, a refusal, a daemon that dies or stays
//!                                     silent: exec `hookhost agent-hook` with the same stdin,
//!                                     which answers in process, byte for byte the same
//! ```
//!
//! Its start is the cost an agent pays per hook call, so it is std and libc only: no argument
//! parser, no serde, no async runtime. `wire` is what it and the daemon say to each other (the
//! `hookhost` crate's daemon reads requests with it); [`run`] is the whole command.

mod command;
mod trust;
pub mod wire;

use std::ffi::OsString;
use std::fmt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

pub use command::run;
pub use trust::Untrusted;
pub use wire::{Answer, Reply, Request};

/// The variable that names the socket (both the daemon's and the client's).
pub const SOCKET_ENV: &str = "HOOKHOST_SOCKET";

/// The variable that says whether to use the daemon: `on` (or `1`) to use a running one,
/// `start` to also start it when none answers, `off` to answer in process.
pub const DAEMON_ENV: &str = "HOOKHOST_DAEMON";

/// The variable that bounds how long the client waits for the daemon (`30s`, `500ms`, or
/// seconds; default 30 s).
pub const TIMEOUT_ENV: &str = "HOOKHOST_DAEMON_TIMEOUT";

/// The file the client appends who answered each call to (`daemon`, or `in process: WHY`):
/// for tests, and for a user asking whether the daemon is used.
pub const CLIENT_LOG_ENV: &str = "HOOKHOST_CLIENT_LOG";

/// The `hookhost` binary the client runs when the daemon gives no answer [default: the
/// `hookhost` beside the client, else on the PATH].
pub const BIN_ENV: &str = "HOOKHOST_BIN";

/// How long the client waits for each step of a call by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// This process's uid.
pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The socket to use: `explicit` (`--socket`), else `$HOOKHOST_SOCKET` from `env`, else
/// `$XDG_RUNTIME_DIR/hookhost/agent.sock`, else `/tmp/hookhost-UID/agent.sock`.
pub fn socket_path(explicit: Option<&Path>, env: impl Fn(&str) -> Option<OsString>) -> PathBuf {
    if let Some(path) = explicit {
        return path.to_path_buf();
    }
    let set = |name: &str| env(name).filter(|value| !value.is_empty());
    if let Some(path) = set(SOCKET_ENV) {
        return PathBuf::from(path);
    }
    let dir = match set("XDG_RUNTIME_DIR") {
        Some(runtime) => PathBuf::from(runtime).join("hookhost"),
        None => PathBuf::from(format!("/tmp/hookhost-{}", uid())),
    };
    dir.join("agent.sock")
}

/// A duration as the client's flags and variables take it: `30s`, `500ms`, `2m`, or a number
/// of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "" | "s" => number,
        "ms" => number / 1000.0,
        "m" => number * 60.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(seconds).ok()
}

/// Why the daemon gave no reply: the caller answers in process.
#[derive(Debug)]
pub enum AskError {
    /// The socket could not be reached (no daemon).
    Connect {
        /// The socket.
        socket: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The exchange failed: the daemon died, closed, or did not answer in time.
    Exchange(std::io::Error),
    /// The socket, its directory or the process answering on it is not this user's: another
    /// local user could answer every call and read the caller's environment. Nothing was sent.
    Untrusted(Untrusted),
    /// The daemon answered with an error.
    Refused(String),
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::Connect { socket, .. } => write!(f, "cannot connect to {}", socket.display()),
            AskError::Exchange(_) => f.write_str("no answer from the daemon"),
            AskError::Untrusted(untrusted) => write!(f, "{untrusted}"),
            AskError::Refused(message) => write!(f, "the daemon refused the call: {message}"),
        }
    }
}

impl std::error::Error for AskError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AskError::Connect { source, .. } | AskError::Exchange(source) => Some(source),
            AskError::Untrusted(_) | AskError::Refused(_) => None,
        }
    }
}

/// Asks the daemon on `socket` for the reply to `stdin`, waiting at most `bound` for each step.
/// Any failure is an error: the client never answers a call on its own.
///
/// Nothing is sent unless the socket can only be this user's daemon: its directory is this
/// user's and closed to others, the socket is this user's, and the process answering on it
/// runs as this user (`SO_PEERCRED`); the daemon checks the same from its side. Otherwise
/// another local user who created the directory first (`/tmp/hookhost-UID` is the default
/// without `XDG_RUNTIME_DIR`) would answer every call and receive the caller's environment.
pub fn ask(
    socket: &Path,
    request: &Request,
    stdin: &[u8],
    bound: Duration,
) -> Result<Reply, AskError> {
    let connect_error = |source| AskError::Connect {
        socket: socket.to_path_buf(),
        source,
    };
    trust::check_path(socket).map_err(AskError::Untrusted)?;
    let mut stream = UnixStream::connect(socket).map_err(connect_error)?;
    trust::check_peer(&stream, socket).map_err(AskError::Untrusted)?;
    let exchange = |stream: &mut UnixStream| -> std::io::Result<Vec<u8>> {
        stream.set_read_timeout(Some(bound))?;
        stream.set_write_timeout(Some(bound))?;
        let header = request.encode();
        let sent =
            wire::write_frame(stream, &header).and_then(|()| wire::write_frame(stream, stdin));
        // A daemon that refuses answers at once and closes: its answer is still there to read
        // after our write failed.
        match (wire::read_frame(stream, wire::ANSWER_MAX_BYTES), sent) {
            (Ok(answer), _) => Ok(answer),
            (Err(_), Err(error)) | (Err(error), Ok(())) => Err(error),
        }
    };
    let answer = exchange(&mut stream).map_err(AskError::Exchange)?;
    match Answer::decode(&answer) {
        Ok(Answer::Reply(reply)) => Ok(reply),
        Ok(Answer::Error(message)) => Err(AskError::Refused(message)),
        Err(error) => Err(AskError::Exchange(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            error,
        ))),
    }
}

/// This process's call: its cwd and whole environment, as the daemon needs them.
pub fn this_process(format: &str, event: Option<&str>) -> Request {
    Request {
        format: format.to_string(),
        event: event.map(str::to_string),
        cwd: std::env::current_dir().map_err(|error| error.to_string()),
        env: std::env::vars_os().collect(),
    }
}

/// With `$HOOKHOST_CLIENT_LOG` set, appends who answered to that file (`daemon`, or `in
/// process: WHY`): stdout and stderr must stay the reply alone, byte for byte.
pub fn trace<T>(asked: &Result<T, AskError>) {
    use std::io::Write as _;
    let Some(path) = std::env::var_os(CLIENT_LOG_ENV) else {
        return;
    };
    let line = match asked {
        Ok(_) => "daemon\n".to_string(),
        Err(error) => {
            let mut line = format!("in process: {error}");
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                line.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            line + "\n"
        }
    };
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = file.write_all(line.as_bytes());
    }
}

/// Starts `HOOKHOST serve --socket SOCKET` detached from the caller (a session of its own,
/// stdin and stdout on /dev/null, stderr appended to SOCKET.log), without waiting for it: the
/// call that starts it is answered in process, the next one by the daemon. The socket's
/// directory is created private (0700) when missing; one that exists with other modes is
/// refused by the daemon, into that log.
pub fn start_daemon(hookhost: &Path, socket: &Path) {
    use std::os::unix::fs::DirBuilderExt as _;
    if let Some(dir) = socket.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        let _ = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir);
    }
    let mut log = socket.as_os_str().to_owned();
    log.push(".log");
    let stderr = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .map(Stdio::from)
        .unwrap_or_else(|_| Stdio::null());
    let mut command = Command::new(hookhost);
    command
        .arg("serve")
        .arg("--socket")
        .arg(socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    // SAFETY: setsid is async-signal-safe and touches nothing of the parent's.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    // Not waited for: the daemon outlives this call.
    let _ = command.spawn();
}

#[cfg(test)]
mod tests_wire;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_is_the_flag_then_the_variable_then_the_runtime_dir_then_tmp() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| OsString::from(value))
            }
        };
        let given = Path::new("/x/s.sock");
        // `--socket`, the variables set, the socket.
        type Case<'a> = (
            Option<&'a Path>,
            &'static [(&'static str, &'static str)],
            String,
        );
        #[rustfmt::skip]
        let cases: [Case; 5] = [
            (Some(given), &[(SOCKET_ENV, "/y.sock")], "/x/s.sock".into()),
            (None, &[(SOCKET_ENV, "/y.sock"), ("XDG_RUNTIME_DIR", "/run/user/1")], "/y.sock".into()),
            (None, &[(SOCKET_ENV, ""), ("XDG_RUNTIME_DIR", "/run/user/1")], "/run/user/1/hookhost/agent.sock".into()),
            (None, &[("XDG_RUNTIME_DIR", "/run/user/1")], "/run/user/1/hookhost/agent.sock".into()),
            (None, &[], format!("/tmp/hookhost-{}/agent.sock", uid())),
        ];
        for (explicit, vars, expected) in cases {
            assert_eq!(
                socket_path(explicit, env(vars)),
                PathBuf::from(expected),
                "{vars:?}"
            );
        }
    }

    #[test]
    fn durations_are_seconds_unless_they_say_otherwise() {
        #[rustfmt::skip]
        let cases: [(&str, Option<Duration>); 8] = [
            ("30", Some(Duration::from_secs(30))),
            ("30s", Some(Duration::from_secs(30))),
            ("1.5", Some(Duration::from_millis(1500))),
            ("250ms", Some(Duration::from_millis(250))),
            ("2m", Some(Duration::from_secs(120))),
            ("", None),
            ("10h", None),
            ("-1", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text), expected, "{text:?}");
        }
    }
}
