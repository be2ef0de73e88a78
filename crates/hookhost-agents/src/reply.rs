//! What `agent-hook` answers, and the answers for when no hook could run at all: a
//! configuration that does not load, an event that cannot be read. A tool call is then refused,
//! never silently allowed.

use super::{AgentEvent, render_outcome};
use crate::config::ConfigError;
use crate::dialect::{AgentFormat, BlockAs};
use crate::event::catalog;
use crate::outcome::{Block, Decision, Notice, Outcome};
use crate::verdict::HookFailure;
use hookhost_client::wire::Reply;

/// What `agent-hook` answers the agent: stdout, stderr and the exit status.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentReply {
    /// The answer the agent parses (JSON, or empty for "no objection").
    pub stdout: String,
    /// Diagnostics: what the agent cannot read on this event, hookhost's warnings, failed hooks.
    /// With exit status 2, the reason the agent reads.
    pub stderr: String,
    /// 0, or 2 where the agent reads a block (or Copilot's postToolUseFailure context) only from
    /// the exit status; 1 when the event could not be read and is not a tool call.
    pub exit_code: u8,
}

impl AgentReply {
    /// Exit 0 with `out` as the JSON answer; nothing at all when it is empty (no objection).
    pub(super) fn json(out: serde_json::Map<String, serde_json::Value>) -> AgentReply {
        AgentReply {
            stdout: if out.is_empty() {
                String::new()
            } else {
                serde_json::Value::Object(out).to_string()
            },
            stderr: String::new(),
            exit_code: 0,
        }
    }
}

/// The answer when the configuration does not load: on a tool call (PreToolUse,
/// PermissionRequest) a deny naming the problem (`hook failed: FILE could not be loaded: ...`),
/// never a silent allow; elsewhere a message for the user, and stderr. `event` is hookhost's
/// name for the event, when it is known.
pub fn config_failure_reply(
    format: AgentFormat,
    event: Option<&str>,
    error: &ConfigError,
) -> AgentReply {
    let by = error.path().display().to_string();
    let failure = HookFailure::Config {
        reason: error.one_line(),
    };
    let problem = failure.to_string();
    unrunnable(format, event, Block::failed(&by, failure), &by, &problem)
}

/// The answer when the agent's event cannot be read: as [`config_failure_reply`], with
/// `blocked by hookhost agent-hook: PROBLEM` on a tool call. When nothing says which event it
/// was, exit status 1: the agents' "non-blocking error", the only answer that means the same
/// on every event.
pub fn input_failure_reply(format: AgentFormat, event: Option<&str>, problem: &str) -> AgentReply {
    const BY: &str = "hookhost agent-hook";
    unrunnable(
        format,
        event,
        Block::decided(BY, problem.to_string()),
        BY,
        problem,
    )
}

fn unrunnable(
    format: AgentFormat,
    event: Option<&str>,
    block: Block,
    by: &str,
    problem: &str,
) -> AgentReply {
    // Which event this is cannot be told: refused the way every agent reads a refusal of a tool
    // call (exit 2: Claude Code, Gemini CLI, Codex CLI and Cursor block, Copilot CLI denies on
    // any failure). Exit 1 would be a non-blocking error: the tool would run, unguarded.
    let Some(name) = event else {
        return AgentReply {
            stdout: String::new(),
            stderr: format!("hookhost: {by}: {problem}; refused, as the event cannot be told\n"),
            exit_code: 2,
        };
    };
    let mut outcome = Outcome::new(name);
    let spec = catalog::spec(name);
    // A tool call is refused: a built-in gate about a tool, or an agent's own event where it
    // reads a permission (Cursor's beforeShellExecution, ...).
    let permission = spec.is_custom() && format.spec(name).block == BlockAs::Permission;
    if (!spec.is_custom() && spec.has_tool() && spec.gate) || permission {
        outcome.decision = Decision::Block(block);
    } else {
        outcome.notices.push(Notice {
            by: by.to_string(),
            reason: format!("no hook ran: {problem}"),
        });
    }
    let agent_event = AgentEvent {
        format,
        name: name.to_string(),
        session_id: None,
        cwd: None,
        tool: None,
        fields: Vec::new(),
    };
    let mut reply = render_outcome(&agent_event, &outcome);
    if reply.exit_code == 0 && !reply.stderr.contains(problem) {
        reply
            .stderr
            .push_str(&format!("hookhost: {by}: {problem}\n"));
    }
    reply
}

// The daemon's wire carries a reply as `hookhost_client`'s `Reply` (the client binary prints it
// as the agent reads it): the same three parts.
impl From<AgentReply> for Reply {
    fn from(reply: AgentReply) -> Reply {
        Reply {
            exit_code: reply.exit_code,
            stdout: reply.stdout,
            stderr: reply.stderr,
        }
    }
}

impl From<Reply> for AgentReply {
    fn from(reply: Reply) -> AgentReply {
        AgentReply {
            stdout: reply.stdout,
            stderr: reply.stderr,
            exit_code: reply.exit_code,
        }
    }
}
