//! The command runtime: a hook is `bash -c <command>`, the event on stdin, its answer in its
//! exit status and stdout (read by the hook's [`Protocol`]), stderr forwarded line by line under
//! the hook's name.
//!
//! What forgeflare's own runner gets wrong, and this one does not:
//! - a hook runs in a session of its own; when it ends or times out, everything still in that
//!   session is killed, whichever process group it moved to (`timeout 60 ...`, `set -m`), and
//!   the runner never waits for an orphan that holds the stdout pipe open
//!   (`sleep 30 & sleep 30`). Only a process that starts its own session (`setsid`) stays;
//! - stdin is written while stdout is read, and a hook that exits without reading its input is
//!   fine (the broken pipe is ignored), however large the input;
//! - stdout is read up to a cap, so a hook that floods its output fails instead of eating memory.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt as _;
use std::path::PathBuf;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::time::Instant;

use crate::protocol::exit_code::ExitCodes;
use crate::protocol::{ProcessOutput, Protocol};
use crate::runtime::{HookRequest, HookResponse, StderrCapture};
use crate::verdict::HookFailure;
use spawn::{HookCommand, RunningHook};

mod session;
mod spawn;

/// Bytes of stdout read from a hook; more is a failure.
pub const STDOUT_CAP_BYTES: usize = 1024 * 1024;
/// How long the runner waits, after the hook's main process exits, for its output pipes to
/// close. Only a background process that inherited them keeps them open; it is killed then.
const PIPE_GRACE: Duration = Duration::from_millis(50);

/// A `bash -c` hook, ready to run.
#[derive(Debug)]
pub struct CommandHook {
    pub command: String,
    /// What the agent whose protocol the hook speaks would give it
    /// (`RunnerOptions::protocol_agent_env`): over the runner's variables, under the event's.
    pub agent_env: Vec<(String, String)>,
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
    pub shell: PathBuf,
    /// The environment the hook starts from (`RunnerOptions::base_env`); `None`: this
    /// process's.
    pub base_env: Option<std::sync::Arc<[(std::ffi::OsString, std::ffi::OsString)]>>,
    pub protocol: Protocol,
    pub exit_codes: ExitCodes,
}

impl CommandHook {
    pub(crate) async fn call(&self, request: &HookRequest<'_>) -> HookResponse {
        let capture = StderrCapture::new(request.name, request.forward_stderr);
        let result = match self.run(request, &capture).await {
            Ok(mut output) => {
                output.stderr = capture.text();
                if self.protocol == Protocol::ExitCode {
                    // An exit-code hook's stdout is its log, not an answer.
                    capture.push(&output.stdout);
                    capture.flush_pending();
                }
                self.protocol
                    .answer(&request.view, &output, &self.exit_codes)
            }
            Err(failure) => Err(failure),
        };
        let (stderr, stderr_truncated) = capture.finish();
        HookResponse {
            result,
            stderr,
            stderr_truncated,
        }
    }

    /// Runs the process to its end (or its deadline) and returns how it ended and what it
    /// printed; a timeout, a spawn failure or stdout over the cap is a failure.
    async fn run(
        &self,
        request: &HookRequest<'_>,
        stderr_capture: &StderrCapture<'_>,
    ) -> Result<ProcessOutput, HookFailure> {
        let view = &request.view;
        // The runner's variables, its protocol's agent's, the event's, the hook's own, then
        // hookhost's (None removes an inherited one).
        let env = request
            .env
            .iter()
            .chain(&self.agent_env)
            .map(|(k, v)| (k.as_str(), Some(v.as_str())))
            .chain(view.event.env().map(|(k, v)| (k, Some(v))))
            .chain(self.env.iter().map(|(k, v)| (k.as_str(), Some(v.as_str()))));
        let hook = HookCommand {
            shell: &self.shell,
            command: &self.command,
            cwd: &self.cwd,
            base_env: self.base_env.as_deref(),
            env: env
                .chain([
                    ("HOOKHOST_EVENT", Some(view.event.name())),
                    ("HOOKHOST_HOOK", Some(request.name)),
                    ("HOOKHOST_TOOL", view.call.map(|call| call.tool)),
                    (
                        "HOOKHOST_PHASE",
                        view.spec.gate.then(|| view.phase.as_str()),
                    ),
                    ("HOOKHOST_SESSION_ID", view.event.session_id()),
                ])
                .collect(),
        };
        // The hook leads a session of its own. From here on, however this future ends
        // (finished, timed out, or dropped by the caller), the whole session is killed.
        let RunningHook {
            mut session,
            stdin,
            stdout,
            stderr,
            mut exit,
        } = hook.spawn().map_err(|error| HookFailure::Spawn {
            reason: if error.kind() == std::io::ErrorKind::NotFound && !self.cwd.is_dir() {
                format!("working directory {} does not exist", self.cwd.display())
            } else {
                format!("{}: {error}", self.shell.display())
            },
        })?;
        let (stdin, stdout, stderr) = (Some(stdin), Some(stdout), Some(stderr));
        let deadline = Instant::now() + request.timeout;
        let mut stdout_bytes = Vec::new();

        // The I/O futures borrow `stdout_bytes`; they live only inside this block, so what was
        // read is still there however the block ends.
        let status = {
            let mut write_stdin = std::pin::pin!(async {
                if let Some(mut stdin) = stdin {
                    // A hook may exit without reading its input: a broken pipe is not a failure.
                    let _ = stdin.write_all(&self.protocol.stdin_of(request)).await;
                }
            });
            let mut read_stdout =
                std::pin::pin!(read_capped(stdout, STDOUT_CAP_BYTES, &mut stdout_bytes));
            let mut read_stderr = std::pin::pin!(stderr_capture.drain(stderr));
            let (mut stdin_done, mut stdout_done, mut stderr_done) = (false, false, false);

            let status = loop {
                tokio::select! {
                    status = &mut exit => break status,
                    () = tokio::time::sleep_until(deadline) => {
                        session.kill();
                        let _ = (&mut exit).await;
                        return Err(HookFailure::TimedOut {
                            timeout_ms: request.timeout.as_millis() as u64,
                        });
                    }
                    () = &mut write_stdin, if !stdin_done => stdin_done = true,
                    out = &mut read_stdout, if !stdout_done => {
                        if let Err(failure) = out {
                            session.kill();
                            let _ = (&mut exit).await;
                            return Err(failure);
                        }
                        stdout_done = true;
                    }
                    () = &mut read_stderr, if !stderr_done => stderr_done = true,
                }
            };

            // The main process is gone and its output is in the pipes. Only a background
            // process that inherited them can hold them open: it gets a short grace.
            let grace_end = (Instant::now() + PIPE_GRACE).min(deadline);
            let drain_pipes = async {
                if !stdout_done {
                    (&mut read_stdout).await?;
                }
                if !stderr_done {
                    (&mut read_stderr).await;
                }
                Ok::<(), HookFailure>(())
            };
            if let Ok(Err(failure)) = tokio::time::timeout_at(grace_end, drain_pipes).await {
                return Err(failure);
            }
            status
        };
        session.kill();
        let status = status
            .map_err(std::io::Error::other)
            .and_then(|status| status)
            .map_err(|error| HookFailure::Spawn {
                reason: format!("waiting for the hook failed: {error}"),
            })?;

        Ok(ProcessOutput {
            code: status.code(),
            signal: status.signal(),
            stdout: stdout_bytes,
            stderr: String::new(),
        })
    }
}

/// Reads `pipe` to its end into `out`; what was read stays in `out` if the future is dropped.
async fn read_capped(
    pipe: Option<impl AsyncRead + Unpin>,
    cap: usize,
    out: &mut Vec<u8>,
) -> Result<(), HookFailure> {
    let Some(pipe) = pipe else { return Ok(()) };
    // Read one byte past the cap to tell "exactly at the cap" from "over it".
    let mut limited = pipe.take(cap as u64 + 1);
    // A read error (rare on a pipe) ends the output like EOF would.
    let _ = limited.read_to_end(out).await;
    if out.len() > cap {
        return Err(HookFailure::OutputTooLarge { limit: cap });
    }
    Ok(())
}
