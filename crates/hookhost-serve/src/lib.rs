//! `hookhost serve`: a per-user daemon that answers agents' hook calls with runners kept
//! loaded, and the thin client an agent's hook command runs instead of a whole `agent-hook`.
//!
//! ```text
//! agent ──stdin──▶ client ──frames over a Unix socket──▶ daemon: peer uid checked (socket)
//! (hookhost-client,  │                                     │ request bounded, deadline (wire)
//!  or agent-hook     │                                     │
//!  --daemon)         │                                     │
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
//! A leaf over the library: it uses the agents' crate (`hookhost-agents`) and the loading layer,
//! and nothing below names it. Embedders reach it as `hookhost::serve`. What
//! the bytes on the socket mean is the `hookhost-client` crate's (std only, so that the client
//! binary an agent spawns per call loads nothing else); this module is the daemon around it.

mod cache;
pub mod client;
mod daemon;
pub mod socket;
pub mod wire;

// What the moved modules name by their old paths (`crate::agent`, `crate::runner`, ...).
use hookhost_agents as agent;
use hookhost_core::{ConfigError, config, text};
use hookhost_load::{load, runner};

pub use client::{ClientError, ask};
pub use daemon::{Daemon, ServeOptions};
pub use hookhost_client::{
    BIN_ENV, CLIENT_LOG_ENV, DAEMON_ENV, DEFAULT_TIMEOUT, SOCKET_ENV, TIMEOUT_ENV, parse_duration,
    socket_path, start_daemon, trace,
};
pub use socket::SocketError;
