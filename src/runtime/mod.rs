//! The seam between the runner and the runtimes: the one question every runtime answers, "run
//! this hook on this event within this budget, give me a verdict or a failure".
//!
//! A runtime (`command`, `wasm`, `native`) takes a [`HookRequest`] and gives a [`HookResponse`];
//! what both carry lives here, below the runtimes and the runner, so that no runtime knows the
//! runner or another runtime. The runner's `Runtime` enum dispatches to them from above.

use std::sync::OnceLock;
use std::time::Duration;

use crate::protocol::{HookEvent, Protocol};
use crate::verdict::{HookFailure, Verdict};

mod stderr;

pub(crate) use stderr::StderrCapture;

/// One call of one hook.
pub(crate) struct HookRequest<'a> {
    pub(crate) name: &'a str,
    pub(crate) view: HookEvent<'a>,
    pub(crate) timeout: Duration,
    pub(crate) forward_stderr: bool,
    /// Variables the runner adds to command hooks' environment (the event's come with it).
    pub(crate) env: &'a [(String, String)],
    /// Serializations shared by the hooks of a phase.
    pub(crate) cache: &'a EventCache,
}

/// What the hooks of one phase share: each serialization is made once, by the first hook
/// that needs it. A new cache is made whenever what hooks see changes (a phase, a rewrite).
#[derive(Default)]
pub(crate) struct EventCache {
    forgeflare: OnceLock<Vec<u8>>,
    claude: OnceLock<Vec<u8>>,
    copilot: OnceLock<Vec<u8>>,
    gemini: OnceLock<Vec<u8>>,
    codex: OnceLock<Vec<u8>>,
    cursor: OnceLock<Vec<u8>>,
    #[cfg(feature = "wasm")]
    input: OnceLock<String>,
    #[cfg(feature = "wasm")]
    payload: OnceLock<String>,
}

impl HookRequest<'_> {
    /// The event as a command hook of `protocol` reads it on stdin.
    pub(crate) fn stdin(&self, protocol: Protocol) -> &[u8] {
        let slot = match protocol {
            Protocol::Forgeflare | Protocol::ExitCode => &self.cache.forgeflare,
            Protocol::Claude => &self.cache.claude,
            Protocol::Copilot => &self.cache.copilot,
            Protocol::Gemini => &self.cache.gemini,
            Protocol::Codex => &self.cache.codex,
            Protocol::Cursor => &self.cache.cursor,
        };
        slot.get_or_init(|| protocol.stdin(&self.view))
    }

    /// The tool input as JSON text, as wasm hooks receive it (empty without a tool).
    #[cfg(feature = "wasm")]
    pub(crate) fn input_json(&self) -> &str {
        self.cache.input.get_or_init(|| match self.view.call {
            // Straight into a buffer (`Display` goes through the formatter, a few times slower);
            // a `Value` always serializes.
            Some(call) => serde_json::to_string(call.input).unwrap_or_default(),
            None => String::new(),
        })
    }

    /// The event's own fields as a JSON object, as wasm hooks receive them.
    #[cfg(feature = "wasm")]
    pub(crate) fn payload_json(&self) -> &str {
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

/// What one call produced.
pub(crate) struct HookResponse {
    pub(crate) result: Result<Verdict, HookFailure>,
    /// What the hook wrote on stderr (up to a cap).
    pub(crate) stderr: String,
    pub(crate) stderr_truncated: bool,
}
