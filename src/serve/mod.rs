//! `hookhost serve`: a per-user daemon that answers agents' hook calls with runners kept
//! loaded, and the thin client an agent's hook command runs instead of a whole `agent-hook`.
//!
//! ```text
//! agent ──stdin──▶ client ──frames over a Unix socket──▶ daemon: peer uid checked (socket)
//!                    │                                     │ request bounded, deadline (wire)
//!                    │                                     ▼
//!                    │                      agent::AgentCall::prepare (as agent-hook)
//!                    │                                     ▼
//!                    │              a cached runner, its files stat'ed first (cache)
//!                    │                                     ▼
//!                    │                      AgentCall::finish ──▶ AgentReply
//!                    ◀─────────────── answer frame ────────┘
//!                    └─ any failure: agent::answer in process, exactly agent-hook's answer
//! ```
//!
//! A leaf over the library: it uses `agent` and the runner, and nothing below names it.

mod cache;
pub mod client;
mod daemon;
pub mod socket;
pub mod wire;

pub use client::{ClientError, ask};
pub use daemon::{Daemon, ServeOptions};
pub use socket::{SOCKET_ENV, SocketError, socket_path};

/// The variable that makes the client use the daemon: `1` (or `on`) to use it when it runs,
/// `start` to also start it when it does not.
pub const DAEMON_ENV: &str = "HOOKHOST_DAEMON";

/// The variable that bounds how long the client waits for the daemon, in seconds (default 30).
pub const TIMEOUT_ENV: &str = "HOOKHOST_DAEMON_TIMEOUT";

/// The file the client appends who answered each call to (`daemon`, or `in process: WHY`):
/// for tests, and for a user asking whether the daemon is used.
pub const CLIENT_LOG_ENV: &str = "HOOKHOST_CLIENT_LOG";
