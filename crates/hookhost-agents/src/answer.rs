//! One agent hook call, from the agent's stdin bytes to the reply: the body of
//! `hookhost agent-hook`, and of `hookhost serve` answering the same call for a client. Both
//! go through [`answer`] (or [`AgentCall::prepare`] then [`AgentCall::finish`], when the
//! caller keeps runners loaded), so that they answer byte for byte the same.
//!
//! What the call depends on besides its stdin is the [`Caller`]: the agent's working directory
//! (used when the event names none) and its environment (what command hooks start from, and
//! which project-directory variables the agent already set).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{AgentEvent, AgentFormat, AgentReply};
use crate::config::ConfigError;
use crate::load::Layers;
use crate::runner::{HookRunner, RunnerOptions};

/// The largest event read from an agent's stdin; more is an input error (a tool call is
/// refused). The CLI's `--input-file` limit is the same, and so is the `hookhost-client`
/// binary's (it sends nothing larger to the daemon): one constant, the client crate's.
pub const EVENT_MAX_BYTES: u64 = hookhost_client::wire::EVENT_MAX_BYTES;

/// How long async hooks may still run after the answer is decided: a one-shot process has no
/// background to leave them in.
const DRAIN: Duration = Duration::from_secs(10);

/// The process an agent ran its hook command as: where it ran and with which environment.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Its working directory, or why it could not be read (said when the event names no cwd).
    pub cwd: Result<PathBuf, String>,
    /// Its environment; `None`: this process's (the caller is this process).
    pub env: Option<Arc<[(OsString, OsString)]>>,
}

impl Caller {
    /// This process, as `agent-hook` is: its cwd and its own environment.
    pub fn this_process() -> Caller {
        Caller {
            cwd: std::env::current_dir().map_err(|error| error.to_string()),
            env: None,
        }
    }

    /// One variable of the caller's environment.
    pub fn var_os(&self, name: &str) -> Option<OsString> {
        match &self.env {
            Some(env) => env
                .iter()
                .find(|(key, _)| key == OsStr::new(name))
                .map(|(_, value)| value.clone()),
            None => std::env::var_os(name),
        }
    }
}

/// A call whose event was read and whose configuration files were found, ready to run: what
/// [`AgentCall::prepare`] gives when it is not already answered.
#[derive(Debug)]
pub struct AgentCall {
    /// The agent's event.
    pub event: AgentEvent,
    /// The directory the layered configuration was discovered from and hooks run in.
    pub cwd: PathBuf,
    /// The configuration files of that directory.
    pub layers: Layers,
    /// How to load a runner for this call (the caller's environment included).
    pub options: RunnerOptions,
}

/// What [`AgentCall::prepare`] found: either the answer already (the event cannot be read, or
/// nothing is configured), or a call to run.
#[derive(Debug)]
pub enum Prepared {
    /// The reply, without any hook to run.
    Answered(AgentReply),
    /// Hooks to run.
    Call(Box<AgentCall>),
}

impl AgentCall {
    /// Reads the agent's event from `stdin` (at most [`EVENT_MAX_BYTES`], UTF-8 JSON) and finds
    /// the configuration of its cwd. `event_arg` is `--event`. Anything unreadable is answered
    /// here (a tool call refused, never allowed).
    pub fn prepare(
        format: AgentFormat,
        event_arg: Option<&str>,
        stdin: &[u8],
        caller: &Caller,
    ) -> Prepared {
        let text = match read_event(stdin) {
            Ok(text) => text,
            Err(problem) => {
                return Prepared::Answered(unreadable(format, event_arg, stdin, &problem));
            }
        };
        let event = match super::parse_event(format, text, event_arg) {
            Ok(event) => event,
            Err(error) => {
                let name = super::event_name(format, stdin, event_arg);
                let problem = crate::text::error_chain(&error);
                return Prepared::Answered(super::input_failure_reply(
                    format,
                    name.as_deref(),
                    &problem,
                ));
            }
        };
        // A relative cwd in the event is the caller's, wherever this runs.
        let cwd = match (event.cwd.clone(), &caller.cwd) {
            (Some(cwd), Ok(base)) if cwd.is_relative() => Ok(base.join(cwd)),
            (Some(cwd), _) => Ok(cwd),
            (None, own) => own.clone(),
        };
        let cwd = match cwd {
            Ok(cwd) => std::path::absolute(&cwd).unwrap_or(cwd),
            Err(error) => {
                let problem = format!("cannot read the current directory: {error}");
                return Prepared::Answered(super::input_failure_reply(
                    format,
                    Some(&event.name),
                    &problem,
                ));
            }
        };
        let layers = Layers::discover(&cwd);
        if layers.is_empty() {
            // Unconfigured: no hooks, nothing to say.
            return Prepared::Answered(AgentReply::default());
        }
        let mut options = RunnerOptions::new(&cwd);
        options.forward_stderr = false;
        options.env = project_dir_env(format, &cwd, caller);
        options.base_env = caller.env.clone();
        // A script imported from another agent finds its files too.
        options.protocol_agent_env = true;
        // One event: its hooks run one after another, async ones beside them.
        #[cfg(feature = "wasm")]
        {
            options.wasm_instances = u32::try_from(options.background_limit)
                .unwrap_or(u32::MAX)
                .saturating_add(1);
        }
        Prepared::Call(Box::new(AgentCall {
            event,
            cwd,
            layers,
            options,
        }))
    }

    /// Loads this call's runner from its layers.
    pub fn load(&self) -> Result<HookRunner, ConfigError> {
        HookRunner::load_layers(&self.layers, self.options.clone())
    }

    /// Runs the event through `runner` (or, when the configuration did not load, refuses it
    /// naming the problem, and records the block where the layers that do load say) and
    /// renders the agent's answer. Async hooks get up to 10 s to finish first.
    pub async fn finish(self, runner: Result<HookRunner, ConfigError>) -> AgentReply {
        let runner = match runner {
            Ok(runner) => runner,
            Err(error) => {
                let event = &self.event;
                let reply = super::config_failure_reply(event.format, Some(&event.name), &error);
                let failed = HookRunner::fail_closed_in(&self.layers, error, self.options);
                failed.fire(&event.event()).await;
                return reply;
            }
        };
        let mut outcome = runner.fire(&self.event.event()).await;
        let flushed = runner.flush(DRAIN).await;
        outcome.reports.extend(flushed.reports);
        super::render_outcome(&self.event, &outcome)
    }
}

/// The whole of one agent hook call: `hookhost agent-hook`'s answer to `stdin` from `caller`.
pub async fn answer(
    format: AgentFormat,
    event_arg: Option<&str>,
    stdin: &[u8],
    caller: &Caller,
) -> AgentReply {
    match AgentCall::prepare(format, event_arg, stdin, caller) {
        Prepared::Answered(reply) => reply,
        Prepared::Call(call) => {
            let runner = call.load();
            call.finish(runner).await
        }
    }
}

/// The answer when the agent's event could not be read at all (`problem` says why; `stdin`:
/// what of it was read): a tool call, named by `event_arg` or found in `stdin`, is refused.
pub fn unreadable(
    format: AgentFormat,
    event_arg: Option<&str>,
    stdin: &[u8],
    problem: &str,
) -> AgentReply {
    let name = super::event_name(format, stdin, event_arg);
    super::input_failure_reply(format, name.as_deref(), problem)
}

/// The event's text: at most [`EVENT_MAX_BYTES`] of UTF-8.
fn read_event(stdin: &[u8]) -> Result<&str, String> {
    if stdin.len() as u64 > EVENT_MAX_BYTES {
        return Err(format!(
            "the event on stdin is larger than {EVENT_MAX_BYTES} bytes; hookhost reads at most that"
        ));
    }
    std::str::from_utf8(stdin)
        .map_err(|error| format!("the event on stdin is not UTF-8 text: {error}"))
}

/// The project-directory variables an imported script may use, where the agent did not set
/// them (Gemini CLI sets both to the cwd; Claude Code sets `CLAUDE_PROJECT_DIR`). For policy
/// tests (`hookhost test`), which run the hooks as the agent would.
#[doc(hidden)]
pub fn project_dir_env(format: AgentFormat, cwd: &Path, caller: &Caller) -> Vec<(String, String)> {
    format
        .project_dir_variables()
        .iter()
        .filter(|name| caller.var_os(name).is_none())
        .map(|name| (name.to_string(), cwd.display().to_string()))
        .collect()
}
