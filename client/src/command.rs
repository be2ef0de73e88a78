//! `hookhost-client --format AGENT [--event NAME]`: one hook call. The daemon answers it when
//! it can; otherwise this process becomes `hookhost agent-hook` (exec, the agent's stdin handed
//! over unchanged), which answers in process exactly as it does without a daemon. The client
//! itself never decides a call: its last resort, when not even `hookhost` can be run, is a
//! block (exit 2, which every supported agent reads as a block of a tool call).

use std::ffi::OsString;
use std::io::{Read as _, Seek as _, Write as _};
use std::os::fd::FromRawFd as _;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::wire::{DRAIN_MAX_BYTES, EVENT_MAX_BYTES, Reply};
use crate::{AskError, BIN_ENV, DAEMON_ENV, DEFAULT_TIMEOUT, TIMEOUT_ENV};

const USAGE: &str = "usage: hookhost-client --format AGENT [--event NAME] [--socket PATH] \
                     [--timeout DURATION] [--no-start]

Answers an agent's hook call through the `hookhost serve` daemon (started on first use), or,
when the daemon gives no answer, runs `hookhost agent-hook` with the same arguments, which
answers in process. The reply is byte for byte what `hookhost agent-hook` writes.

  --format AGENT       the agent's hook protocol (claude, copilot, gemini, ...), as agent-hook
  --event NAME         the event, when the payload does not name it (Copilot CLI)
  --socket PATH        the daemon's socket [default: $HOOKHOST_SOCKET, else
                       $XDG_RUNTIME_DIR/hookhost/agent.sock, else /tmp/hookhost-UID/agent.sock]
  --timeout DURATION   how long to wait for the daemon before answering in process
                       [default: $HOOKHOST_DAEMON_TIMEOUT, else 30s]
  --no-start           do not start the daemon when none answers

Environment: HOOKHOST_DAEMON=off answers in process without asking; HOOKHOST_BIN names the
hookhost binary [default: the one beside this client, else on the PATH]; HOOKHOST_CLIENT_LOG
names a file to append who answered each call to.";

/// The command line, read.
#[derive(Debug, Default, PartialEq, Eq)]
struct Args {
    format: String,
    event: Option<String>,
    socket: Option<PathBuf>,
    timeout: Option<Duration>,
    no_start: bool,
}

/// Runs the client with this process's arguments, stdin and environment, and exits.
pub fn run() -> ! {
    let args = match parse(std::env::args_os().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => std::process::exit(0),
        Err(problem) => {
            eprintln!("hookhost-client: {problem}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    let mut stdin = Vec::new();
    // A read error leaves what was read: agent-hook then refuses it as it would.
    let mut input = std::io::stdin().lock();
    let _ = (&mut input)
        .take(EVENT_MAX_BYTES + 1)
        .read_to_end(&mut stdin);
    if stdin.len() as u64 > EVENT_MAX_BYTES {
        // Read and dropped: the agent writes the whole event, and may count a pipe closed
        // under it as a failed hook rather than read the refusal agent-hook gives.
        let _ = std::io::copy(
            &mut (&mut input).take(DRAIN_MAX_BYTES),
            &mut std::io::sink(),
        );
    }
    drop(input);
    let when = std::env::var(DAEMON_ENV).unwrap_or_default();
    // An event over the limit is answered in process (with its error), never sent.
    if when != "off" && stdin.len() as u64 <= EVENT_MAX_BYTES {
        let socket = crate::socket_path(args.socket.as_deref(), |name| std::env::var_os(name));
        let bound = args
            .timeout
            .or_else(|| crate::parse_duration(&std::env::var(TIMEOUT_ENV).ok()?))
            .unwrap_or(DEFAULT_TIMEOUT);
        let request = crate::this_process(&args.format, args.event.as_deref());
        let asked = crate::ask(&socket, &request, &stdin, bound);
        crate::trace(&asked);
        match asked {
            Ok(reply) => write_reply(&reply),
            Err(AskError::Connect { .. }) if !args.no_start && !matches!(&*when, "on" | "1") => {
                crate::start_daemon(&hookhost_bin(), &socket);
            }
            Err(_) => {}
        }
    }
    in_process(&args, &stdin)
}

fn parse(mut words: impl Iterator<Item = OsString>) -> Result<Option<Args>, String> {
    let mut args = Args::default();
    let mut format = None;
    while let Some(word) = words.next() {
        let word = word
            .into_string()
            .map_err(|word| format!("an argument is not UTF-8: {}", word.to_string_lossy()))?;
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_string(), Some(value)),
            _ => (word.clone(), None),
        };
        let mut value = |name: &str| -> Result<OsString, String> {
            match inline {
                Some(value) => Ok(value.into()),
                None => words.next().ok_or_else(|| format!("{name} needs a value")),
            }
        };
        let text = |value: OsString, name: &str| {
            value
                .into_string()
                .map_err(|value| format!("{name}: {} is not UTF-8", value.to_string_lossy()))
        };
        match flag.as_str() {
            "--format" => format = Some(text(value("--format")?, "--format")?),
            "--event" => args.event = Some(text(value("--event")?, "--event")?),
            "--socket" => args.socket = Some(PathBuf::from(value("--socket")?)),
            "--timeout" | "--daemon-timeout" => {
                let given = text(value(&flag)?, &flag)?;
                let timeout = crate::parse_duration(&given).ok_or_else(|| {
                    format!("{flag}: {given:?} is not a duration (say 30s, 500ms or 2m)")
                })?;
                args.timeout = Some(timeout);
            }
            "--no-start" if inline.is_none() => args.no_start = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            "-V" | "--version" => {
                println!(
                    "hookhost-client {} (wire {})",
                    env!("CARGO_PKG_VERSION"),
                    crate::wire::VERSION
                );
                return Ok(None);
            }
            _ => return Err(format!("unexpected argument {word:?}")),
        }
    }
    args.format = format.ok_or("--format AGENT is required (claude, copilot, gemini, ...)")?;
    if args.format.is_empty() || args.format.starts_with('-') {
        return Err(format!("--format: {:?} is not an agent", args.format));
    }
    Ok(Some(args))
}

/// Writes the reply as `agent-hook` does (stdout ending in a newline, stderr, the status) and
/// exits.
fn write_reply(reply: &Reply) -> ! {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(reply.stdout.as_bytes());
    if !reply.stdout.is_empty() && !reply.stdout.ends_with('\n') {
        let _ = stdout.write_all(b"\n");
    }
    let _ = stdout.flush();
    let _ = std::io::stderr().write_all(reply.stderr.as_bytes());
    std::process::exit(i32::from(reply.exit_code))
}

/// The `hookhost` binary: `$HOOKHOST_BIN`, else the one beside this client, else the PATH's.
fn hookhost_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os(BIN_ENV).filter(|bin| !bin.is_empty()) {
        return PathBuf::from(bin);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("hookhost")))
        .filter(|beside| beside.is_file())
        .unwrap_or_else(|| PathBuf::from("hookhost"))
}

/// Becomes `hookhost agent-hook` with the same arguments, reading `stdin` as its stdin.
fn in_process(args: &Args, stdin: &[u8]) -> ! {
    let bin = hookhost_bin();
    let mut command = Command::new(&bin);
    command
        .args(["agent-hook", "--format", &args.format])
        .args(args.event.iter().flat_map(|event| ["--event", event]))
        // This call already asked (or was told not to): agent-hook answers it itself.
        .arg("--daemon=off");
    let problem = match event_file(stdin) {
        Ok(file) => {
            command.stdin(Stdio::from(file));
            command.exec()
        }
        Err(error) => error,
    };
    // The last resort: hookhost cannot be run, so nothing can decide the call. Exit 2
    // blocks a tool call in Claude Code and Gemini CLI, and Copilot CLI denies on any failure.
    eprintln!(
        "hookhost-client: no daemon answered and `{} agent-hook` cannot be run: {problem}; \
         the call is blocked. Install hookhost beside hookhost-client or set {BIN_ENV}.",
        bin.display()
    );
    std::process::exit(2)
}

/// A file holding `bytes`, read from its start: the agent-hook's stdin.
fn event_file(bytes: &[u8]) -> std::io::Result<std::fs::File> {
    let mut file = anonymous_file()?;
    file.write_all(bytes)?;
    file.rewind()?;
    Ok(file)
}

/// A file with no name: a memfd, else an unnamed file in the temporary directory.
fn anonymous_file() -> std::io::Result<std::fs::File> {
    // SAFETY: the name is a NUL-terminated literal; the returned descriptor is owned here.
    let fd = unsafe { libc::memfd_create(c"hookhost-event".as_ptr(), libc::MFD_CLOEXEC) };
    if fd >= 0 {
        // SAFETY: `fd` was just opened and nothing else owns it.
        return Ok(unsafe { std::fs::File::from_raw_fd(fd) });
    }
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_TMPFILE)
        .open(std::env::temp_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Result<Option<Args>, String> {
        parse(words.iter().map(OsString::from))
    }

    #[test]
    fn flags_are_read_as_agent_hook_reads_them() {
        let read = args(&[
            "--format",
            "copilot",
            "--event=preToolUse",
            "--socket",
            "/s",
            "--timeout=500ms",
            "--no-start",
        ]);
        let expected = Args {
            format: "copilot".into(),
            event: Some("preToolUse".into()),
            socket: Some("/s".into()),
            timeout: Some(Duration::from_millis(500)),
            no_start: true,
        };
        assert_eq!(read, Ok(Some(expected)));
        #[rustfmt::skip]
        let refused: [(&[&str], &str); 5] = [
            (&[], "--format AGENT is required"),
            (&["--format"], "--format needs a value"),
            (&["--format", "--event"], "--format: \"--event\" is not an agent"),
            (&["--format", "claude", "--timeout", "soon"], "--timeout: \"soon\" is not a duration"),
            (&["--format", "claude", "extra"], "unexpected argument \"extra\""),
        ];
        for (words, expected) in refused {
            let error = args(words).unwrap_err();
            assert!(error.contains(expected), "{words:?}: {error}");
        }
    }

    #[test]
    fn the_event_file_reads_back_from_its_start() {
        let mut file = event_file(b"{\"hook_event_name\":\"Stop\"}").unwrap();
        let mut read = String::new();
        file.read_to_string(&mut read).unwrap();
        assert_eq!(read, "{\"hook_event_name\":\"Stop\"}");
    }
}
