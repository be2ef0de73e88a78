//! `hookhost init`, the library half: what to write so that an agent calls hookhost on every
//! event hookhost serves for it, and a hooks.toml with a profile's policies, and how to take
//! both out again.
//!
//! ```text
//! Agent, Scope, Profile, Options, Roots
//!     ──Plan::new──▶ for each file: what it holds now, what it will hold
//!         ├─ the agent's settings   (agents: which file, which events, which entry shape;
//!         │                          settings: merged as text by json, the user's bytes kept)
//!         └─ hooks.toml             (profile: the policies; toml_block: one marked block)
//!     ──Plan::diff──▶ a unified diff per file (`--dry-run`: nothing written)
//!     ──Plan::apply──▶ each file written atomically (temp file, fsync, rename), all or none
//! Plan::remove ──▶ the same files with exactly what init added taken out
//! ```
//!
//! Three promises, each with its tests:
//! - **Idempotent**: a second `init` plans no change, byte for byte.
//! - **Reversible**: `remove` after `init` gives back every file as it was, byte for byte
//!   (a file init created is deleted again), whatever the user's own hooks, keys, comments
//!   and formatting.
//! - **Nothing half-done**: bad input (a settings file that is not JSON, an unknown agent or
//!   profile, a hooks.toml that would not parse) is an error naming the file, line and column
//!   before anything is written; a failed write puts back the files already written.
//!
//! hookhost's entries are recognised by their command (`hookhost agent-hook ...`,
//! `hookhost-client ...`, under any directory), so entries a user wrote by hand from
//! docs/agents.md are taken over rather than doubled.

mod agents;
mod command;
mod diff;
mod error;
mod json;
mod names;
mod options;
mod plan;
mod profile;
mod roots;
mod settings;
mod toml_block;
mod write;

pub use agents::{Agent, AgentEvent, AgentSpec, EntryShape, LeftOut};
pub use command::is_hookhost_command;
pub use error::InitError;
pub use names::UnknownName;
pub use options::{Options, Scope};
pub use plan::{FileChange, FileRole, Plan};
pub use profile::Profile;
pub use roots::Roots;
