//! What every language boundary needs, once: the C ABI (`capi/`), and the Go, Python and Node
//! packages built on it or beside it, all map these same shapes.
//!
//! - **The event as JSON in** ([`EventJson`]): the event model's documented shape, read with
//!   errors that name the key at fault;
//! - **the outcome as JSON out** ([`outcome_json`]): every field of [`crate::Outcome`],
//!   documented field by field in docs/embedding.md;
//! - **foreign callbacks as hooks** ([`foreign_hook`], [`ForeignHookSpec`]): a function in
//!   another language becomes a [`crate::NativeHook`] that reads the JSON a command hook reads
//!   and answers what a command hook prints, parsed by the same protocol code, within
//!   hookhost's deadline;
//! - **cancelling a fire in flight** ([`fire_cancellable`], [`CancelToken`]): from any thread,
//!   leaving no hook process or wasm instance behind, with a clear [`Cancelled`] result.
//!
//! [`fire_json`] is the whole round trip of one event. A leaf over the runner's API: nothing
//! in the library imports it.

mod event;
mod fire;
mod foreign;
mod outcome;

pub use crate::cancel::CancelToken;
pub use event::{EventJson, EventJsonError};
pub use fire::{Cancelled, FireError, fire_cancellable, fire_json};
pub use foreign::{CallSite, CallbackError, ForeignCall, ForeignHookSpec, foreign_hook};
pub use outcome::{flushed_json, outcome_json, outcome_value};
