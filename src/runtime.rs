//! The one question both runtimes answer: "run this hook on this event within this budget,
//! give me a verdict or a failure". The runner calls [`Runtime::call`] and never needs to know
//! which kind of hook it called.

use std::sync::OnceLock;
use std::time::Duration;

use crate::command::CommandHook;
use crate::config::Role;
use crate::event::EventPayload;
use crate::verdict::{HookFailure, Verdict};
use crate::wasm::WasmHook;

/// One call of one hook.
pub(crate) struct HookRequest<'a> {
    pub(crate) name: &'a str,
    pub(crate) role: Role,
    pub(crate) payload: EventPayload<'a>,
    pub(crate) cwd: &'a str,
    pub(crate) timeout: Duration,
    pub(crate) forward_stderr: bool,
    /// Serializations shared by the hooks of a phase.
    pub(crate) cache: &'a EventCache,
}

/// What the hooks of one phase share: each serialization is made once, by the first hook
/// that needs it.
#[derive(Default)]
pub(crate) struct EventCache {
    stdin: OnceLock<Vec<u8>>,
    input: OnceLock<String>,
}

impl HookRequest<'_> {
    /// The event as command hooks read it on stdin.
    pub(crate) fn stdin(&self) -> &[u8] {
        self.cache
            .stdin
            .get_or_init(|| self.payload.to_json(self.cwd))
    }

    /// The tool input as JSON text, as wasm hooks receive it (empty for Stop).
    pub(crate) fn input_json(&self) -> &str {
        self.cache.input.get_or_init(|| match self.payload.call() {
            Some(call) => call.input.to_string(),
            None => String::new(),
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

/// A hook ready to run.
#[derive(Debug)]
pub(crate) enum Runtime {
    Command(CommandHook),
    Wasm(WasmHook),
}

impl Runtime {
    pub(crate) async fn call(&self, request: &HookRequest<'_>) -> HookResponse {
        match self {
            Runtime::Command(hook) => hook.call(request).await,
            Runtime::Wasm(hook) => hook.call(request).await,
        }
    }
}
