//! The client's side of one call from inside `hookhost` (`agent-hook --daemon`): send the
//! agent's stdin and this process's context, take back the reply. Any failure (no socket, a
//! refusal, a daemon that dies or stays silent past the bound) is an error the caller answers
//! in process: the client never allows a call on its own. The `hookhost-client` binary makes
//! the same call through the same code (`hookhost_client::ask`) without loading hookhost.

use std::path::Path;
use std::time::Duration;

pub use hookhost_client::AskError as ClientError;

use crate::agent::{AgentFormat, AgentReply};

/// Asks the daemon on `socket` for the reply to `stdin`, waiting at most `bound` for each step.
pub fn ask(
    socket: &Path,
    format: AgentFormat,
    event: Option<&str>,
    stdin: &[u8],
    bound: Duration,
) -> Result<AgentReply, ClientError> {
    let request = hookhost_client::this_process(format.as_str(), event);
    hookhost_client::ask(socket, &request, stdin, bound).map(AgentReply::from)
}
