//! The seam between the runner and the runtimes: the one question every runtime answers, "run
//! this hook on this event within this budget, give me a verdict or a failure".
//!
//! A runtime (`command`, `wasm`, `native`) takes a [`HookRequest`] and gives a [`HookResponse`];
//! what both carry lives here, below the runtimes and the runner, so that no runtime knows the
//! runner or another runtime. The runner's `Runtime` enum dispatches to them from above: to
//! its own (command, native) by name, to a runtime a layer above plugs in (wasm) through
//! [`PluggedRuntime`]. The seam knows no agent and no command-hook protocol.

#[cfg(feature = "wasm")]
use std::sync::OnceLock;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::event::{Event, EventSpec, Phase, ToolCall};
use crate::outcome::Decision;
use crate::verdict::{HookFailure, Verdict};

pub mod rules;
mod stderr;

pub use stderr::StderrCapture;

/// One call of one hook.
#[derive(Debug)]
pub struct HookRequest<'a> {
    pub name: &'a str,
    pub view: HookEvent<'a>,
    pub timeout: Duration,
    pub forward_stderr: bool,
    /// Variables the runner adds to command hooks' environment (the event's come with it).
    pub env: &'a [(String, String)],
    /// Serializations shared by the hooks of a phase.
    pub cache: &'a EventCache,
}

/// The event as one hook sees it.
#[derive(Debug, Clone, Copy)]
pub struct HookEvent<'a> {
    pub event: &'a Event<'a>,
    pub spec: &'static EventSpec,
    /// The tool call as this hook sees it: its input as rewritten by the guards before it.
    pub call: Option<ToolCall<'a>>,
    pub phase: Phase,
    /// For observers of a gate event: what the guards decided.
    pub observed: Option<&'a Decision>,
    pub cwd: &'a str,
}

/// What the hooks of one phase share: each serialization is made once, by the first hook
/// that needs it. A new cache is made whenever what hooks see changes (a phase, a rewrite).
///
/// The seam knows no agent and no protocol: a serialization is filed under the name of its
/// shape (a command-hook protocol's, "forgeflare" for hookhost's own), whoever asks for it.
/// One serialization of the event: its shape's name and its bytes.
type Shape = (&'static str, Arc<[u8]>);

#[derive(Debug, Default)]
pub struct EventCache {
    shapes: Mutex<Vec<Shape>>,
    #[cfg(feature = "wasm")]
    input: OnceLock<String>,
    #[cfg(feature = "wasm")]
    payload: OnceLock<String>,
}

impl EventCache {
    /// The event serialized as `shape`, made by `make` the first time a hook asks for it.
    pub fn shaped(&self, shape: &'static str, make: impl FnOnce() -> Vec<u8>) -> Arc<[u8]> {
        let find = |shapes: &[(&'static str, Arc<[u8]>)]| {
            shapes
                .iter()
                .find(|(name, _)| *name == shape)
                .map(|(_, bytes)| bytes.clone())
        };
        if let Some(bytes) = find(&self.shapes.lock().unwrap_or_else(|e| e.into_inner())) {
            return bytes;
        }
        // Made outside the lock: two hooks that race make it twice, and keep the first.
        let made: Arc<[u8]> = make().into();
        let mut shapes = self.shapes.lock().unwrap_or_else(|e| e.into_inner());
        match find(&shapes) {
            Some(bytes) => bytes,
            None => {
                shapes.push((shape, made.clone()));
                made
            }
        }
    }
}

impl HookRequest<'_> {
    /// The tool input as JSON text, as wasm hooks receive it (empty without a tool).
    #[cfg(feature = "wasm")]
    pub fn input_json(&self) -> &str {
        self.cache.input.get_or_init(|| match self.view.call {
            // Straight into a buffer (`Display` goes through the formatter, a few times slower);
            // a `Value` always serializes.
            Some(call) => serde_json::to_string(call.input).unwrap_or_default(),
            None => String::new(),
        })
    }

    /// The event's own fields as a JSON object, as wasm hooks receive them.
    #[cfg(feature = "wasm")]
    pub fn payload_json(&self) -> &str {
        self.cache.payload.get_or_init(|| {
            // Tool events mostly carry none.
            if self.view.event.fields().next().is_none() {
                return "{}".to_string();
            }
            let object: serde_json::Map<String, serde_json::Value> = self
                .view
                .event
                .fields()
                .map(|(name, value)| (name.to_string(), value.clone()))
                .collect();
            serde_json::Value::Object(object).to_string()
        })
    }
}

/// A runtime a layer above plugs into the runner (the wasm runtime): the runner calls it
/// through this, and never names it. The command and native runtimes are the runner's own.
#[cfg_attr(not(feature = "wasm"), allow(dead_code))]
pub trait PluggedRuntime: Send + Sync + std::fmt::Debug {
    /// What reports and the decision log call its hooks: "wasm".
    fn kind(&self) -> &'static str;
    /// The SHA-256 of what runs, and the trusted keys whose signatures verified.
    fn provenance(&self) -> (Option<String>, Vec<String>);
    /// Runs the hook on `request`.
    fn call<'a>(&'a self, request: &'a HookRequest<'a>) -> Calling<'a>;
    /// Itself, for the layer that plugged it in (what it reports of its hooks).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A plugged runtime's call under way.
pub type Calling<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = HookResponse> + Send + 'a>>;

/// What one call produced.
#[derive(Debug)]
pub struct HookResponse {
    pub result: Result<Verdict, HookFailure>,
    /// What the hook wrote on stderr (up to a cap).
    pub stderr: String,
    pub stderr_truncated: bool,
}
