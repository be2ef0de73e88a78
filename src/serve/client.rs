//! The client's side of one call: send the agent's stdin and context, take back the reply. Any
//! failure (no socket, a refusal, a daemon that dies or stays silent past the bound) is an
//! error the caller answers in process: the client never allows a call on its own.

use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::wire::{self, Answer, RequestHeader};
use crate::agent::{AgentFormat, AgentReply};

/// Why the daemon gave no reply: the caller answers in process.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The socket could not be reached (no daemon).
    #[error("cannot connect to {}", socket.display())]
    Connect {
        /// The socket.
        socket: std::path::PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The caller's context cannot be sent as text (a variable or the cwd is not UTF-8).
    #[error("the caller's {0} is not UTF-8: it cannot be sent to the daemon")]
    NotUtf8(&'static str),
    /// The exchange failed: the daemon died, closed, or did not answer in time.
    #[error("no answer from the daemon")]
    Exchange(#[source] std::io::Error),
    /// The daemon answered with an error.
    #[error("the daemon refused the call: {0}")]
    Refused(String),
}

/// Asks the daemon on `socket` for the reply to `stdin`, waiting at most `bound` for each step.
pub fn ask(
    socket: &Path,
    format: AgentFormat,
    event: Option<&str>,
    stdin: &[u8],
    bound: Duration,
) -> Result<AgentReply, ClientError> {
    let header = header(format, event)?;
    let mut stream = UnixStream::connect(socket).map_err(|source| ClientError::Connect {
        socket: socket.to_path_buf(),
        source,
    })?;
    let exchange = |stream: &mut UnixStream| -> std::io::Result<Vec<u8>> {
        stream.set_read_timeout(Some(bound))?;
        stream.set_write_timeout(Some(bound))?;
        let header = serde_json::to_vec(&header).map_err(std::io::Error::other)?;
        let sent =
            wire::write_frame(stream, &header).and_then(|()| wire::write_frame(stream, stdin));
        // A daemon that refuses answers at once and closes: its answer is still there to read
        // after our write failed.
        match (wire::read_frame(stream, wire::ANSWER_MAX_BYTES), sent) {
            (Ok(answer), _) => Ok(answer),
            (Err(_), Err(error)) | (Err(error), Ok(())) => Err(error),
        }
    };
    let answer = exchange(&mut stream).map_err(ClientError::Exchange)?;
    let answer: Answer = serde_json::from_slice(&answer)
        .map_err(|error| ClientError::Exchange(std::io::Error::other(error)))?;
    match answer {
        Answer::Reply {
            exit_code,
            stdout,
            stderr,
        } => Ok(AgentReply {
            stdout,
            stderr,
            exit_code,
        }),
        Answer::Error(message) => Err(ClientError::Refused(message)),
    }
}

/// This process's context, as the daemon needs it.
fn header(format: AgentFormat, event: Option<&str>) -> Result<RequestHeader, ClientError> {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => Ok(cwd
            .into_os_string()
            .into_string()
            .map_err(|_| ClientError::NotUtf8("working directory"))?),
        Err(error) => Err(error.to_string()),
    };
    let env = std::env::vars_os()
        .map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect::<Option<Vec<_>>>()
        .ok_or(ClientError::NotUtf8("environment"))?;
    Ok(RequestHeader {
        version: wire::VERSION,
        format: format.as_str().to_string(),
        event: event.map(str::to_string),
        cwd,
        env,
    })
}
