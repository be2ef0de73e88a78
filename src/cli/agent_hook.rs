//! `hookhost agent-hook --format claude|copilot|gemini|codex|cursor [--event NAME]`: the one hook
//! command Claude Code, Copilot CLI, Gemini CLI, Codex CLI or Cursor runs. A thin layer over
//! `hookhost::agent::answer`: read the agent's event (bounded), answer in the agent's format and
//! exit status.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use hookhost::agent::{self, AgentFormat, AgentReply, Caller};
use hookhost::serve::{self, ClientError};

#[derive(clap::Args)]
pub struct AgentHookArgs {
    /// The agent whose hook protocol to speak
    #[arg(long, value_name = "AGENT", value_parser = hookhost::agent::AgentFormat::NAMES)]
    format: String,
    /// The event, when the payload does not name it (Copilot CLI: preToolUse, agentStop, ...);
    /// it wins over the payload's name
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// Ask the `hookhost serve` daemon, answering in process when it cannot (not running,
    /// refusing, dying or silent past --daemon-timeout); `start`: also start it when it is
    /// not running [default: $HOOKHOST_DAEMON: on, start or off]
    #[arg(long, value_name = "WHEN", num_args = 0..=1, default_missing_value = "on",
          value_parser = ["on", "start", "off"])]
    daemon: Option<String>,
    /// The daemon's socket [default: $HOOKHOST_SOCKET, else
    /// $XDG_RUNTIME_DIR/hookhost/agent.sock, else /tmp/hookhost-UID/agent.sock]
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// How long to wait for the daemon before answering in process [default:
    /// $HOOKHOST_DAEMON_TIMEOUT, else 30s]
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    daemon_timeout: Option<Duration>,
}

pub async fn run(args: AgentHookArgs) -> Result<ExitCode> {
    let format = AgentFormat::from_name(&args.format).expect("clap checks the format");
    let event_arg = args.event.as_deref();
    let stdin = match read_stdin() {
        Ok(stdin) => stdin,
        Err(problem) => {
            return Ok(write_reply(&agent::unreadable(
                format,
                event_arg,
                &[],
                &problem,
            )));
        }
    };
    if let Some(reply) = from_daemon(&args, format, &stdin) {
        return Ok(write_reply(&reply));
    }
    let reply = agent::answer(format, event_arg, &stdin, &Caller::this_process()).await;
    Ok(write_reply(&reply))
}

/// The daemon's reply, when `--daemon` (or `$HOOKHOST_DAEMON`) asks for one and the daemon
/// gives it; `None`: answer in process. An event over the size limit is answered in process
/// (with its error), never sent.
fn from_daemon(args: &AgentHookArgs, format: AgentFormat, stdin: &[u8]) -> Option<AgentReply> {
    let when = match &args.daemon {
        Some(when) => when.clone(),
        None => std::env::var(serve::DAEMON_ENV).unwrap_or_default(),
    };
    let start = match when.as_str() {
        "on" | "1" => false,
        "start" => true,
        _ => return None,
    };
    if stdin.len() as u64 > agent::EVENT_MAX_BYTES {
        return None;
    }
    let socket = serve::socket_path(args.socket.as_deref(), |name| std::env::var_os(name));
    let bound = args
        .daemon_timeout
        .or_else(|| serve::parse_duration(&std::env::var(serve::TIMEOUT_ENV).ok()?))
        .unwrap_or(serve::DEFAULT_TIMEOUT);
    let asked = serve::ask(&socket, format, args.event.as_deref(), stdin, bound);
    serve::trace(&asked);
    match asked {
        Ok(reply) => Some(reply),
        Err(ClientError::Connect { .. }) if start => {
            super::serve::start_detached(&socket);
            None
        }
        Err(_) => None,
    }
}

/// The agent's stdin, read up to one byte over the limit (`agent::answer` refuses more). The
/// rest of a larger event is read and dropped: the agent writes it all, and may count a pipe
/// closed under it as a failed hook rather than read the refusal.
pub fn read_stdin() -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut stdin = std::io::stdin().lock();
    (&mut stdin)
        .take(agent::EVENT_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read the event on stdin: {error}"))?;
    if bytes.len() as u64 > agent::EVENT_MAX_BYTES {
        let _ = std::io::copy(
            &mut stdin.take(hookhost_client::wire::DRAIN_MAX_BYTES),
            &mut std::io::sink(),
        );
    }
    Ok(bytes)
}

/// Writes the reply as the agent reads it: stdout (ending in a newline), stderr, the status.
pub fn write_reply(reply: &AgentReply) -> ExitCode {
    match reply.stdout.ends_with('\n') || reply.stdout.is_empty() {
        true => print!("{}", reply.stdout),
        false => println!("{}", reply.stdout),
    }
    eprint!("{}", reply.stderr);
    ExitCode::from(reply.exit_code)
}
