//! Foreign callbacks as hooks: a function in another language (Go, Python, JavaScript, C)
//! becomes a [`NativeHook`] that answers exactly as a command hook does.
//!
//! The callback gets a [`ForeignCall`]: the event as the hook sees it, in its protocol's JSON
//! (forgeflare's by default: the rewritten input, the phase, what the guards decided for an
//! observer; the same bytes a command hook reads on stdin, written by the same code), and a
//! [`CancelToken`]. It answers the JSON such a command hook prints, read by the same code
//! (`{"action": "block", "reason": ...}` in forgeflare's protocol), or fails.
//!
//! Where the callback is called ([`CallSite`]): `Deferred` calls it on the thread that runs the
//! hook, and it must return at once and answer later, from any thread (a JavaScript engine's
//! one thread, which hands the call to its event loop); `Blocking` calls it on a thread of the
//! async runtime's blocking pool, never on a worker, where it may take its time (Go, Python).
//! Either way the deadline is hookhost's: a late answer is discarded and the hook has timed
//! out; the call's token is cancelled then, and when the fire that made the call is cancelled.
//! A callback that fails, panics, or drops its call without answering is a hook failure like
//! any other: a guard fails closed.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::oneshot;

use crate::cancel::CancelToken;
use crate::config::OnFailure;
use crate::matcher::ToolMatcher;
use crate::native::{ForeignHandler, NativeHook, NativeHookError, panic_message};
use crate::protocol::Protocol;
use crate::verdict::{HookFailure, Mode};

/// How a callback failed to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallbackError {
    /// It returned an error (a Go `error`, a Python exception): the hook failed with
    /// `trapped: {message}`.
    Failed(String),
    /// It panicked (a Go panic, a Rust panic caught at the boundary): the hook failed with
    /// `panicked: {message}`.
    Panicked(String),
}

impl CallbackError {
    fn failure(self) -> HookFailure {
        match self {
            CallbackError::Failed(message) => HookFailure::Trapped { message },
            CallbackError::Panicked(message) => HookFailure::Panicked { message },
        }
    }
}

/// Where a callback is called; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CallSite {
    /// On the thread that runs the hook; it returns at once and answers later.
    Deferred,
    /// On a thread of the blocking pool, where it may block until it answers.
    #[default]
    Blocking,
}

/// The answer a call is waiting for; taken once.
type Reply = Arc<Mutex<Option<oneshot::Sender<Result<Vec<u8>, CallbackError>>>>>;

/// One call of a foreign hook. Answer it exactly once, from any thread: [`ForeignCall::answer`]
/// or [`ForeignCall::fail`]. Dropped without either, the hook fails ("dropped its call without
/// answering").
#[derive(Debug)]
pub struct ForeignCall {
    json: Vec<u8>,
    cancel: CancelToken,
    reply: Reply,
}

impl ForeignCall {
    /// The event as this hook sees it, in its protocol's JSON.
    pub fn event_json(&self) -> &[u8] {
        &self.json
    }

    /// Cancelled when hookhost abandons the call: its deadline passed, or its fire was
    /// cancelled. An answer after that is discarded.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// Answers with what a command hook of the protocol would print (forgeflare's:
    /// `{"action": ...}`).
    pub fn answer(self, json: Vec<u8>) {
        self.reply_with(Ok(json));
    }

    /// The callback failed: the hook fails.
    pub fn fail(self, error: CallbackError) {
        self.reply_with(Err(error));
    }

    fn reply_with(&self, answer: Result<Vec<u8>, CallbackError>) {
        if let Some(sender) = take(&self.reply) {
            // The receiver is gone when the call was abandoned: the answer is discarded.
            let _ = sender.send(answer);
        }
    }
}

fn take(reply: &Reply) -> Option<oneshot::Sender<Result<Vec<u8>, CallbackError>>> {
    reply.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// A hook named `name` for `events` (a name, a glob, a comma list, as in hooks.toml) that
/// calls `callback` where `site` says and reads its answer in `protocol` (forgeflare's, unless
/// the language's agent SDK speaks Claude Code's). Refine it with [`NativeHook`]'s builders
/// (`with_matcher`, `with_timeout`, `with_on_failure`, `observe`, `background`, `with_mode`)
/// and register it with [`HookRunner::register`](hookhost_core::Runner::register).
pub fn foreign_hook(
    name: impl Into<String>,
    events: &str,
    protocol: Protocol,
    site: CallSite,
    callback: impl Fn(ForeignCall) + Send + Sync + 'static,
) -> Result<NativeHook, NativeHookError> {
    let callback = Arc::new(callback);
    let handler: Arc<ForeignHandler> = Arc::new(move |json, cancel| {
        let (sender, receiver) = oneshot::channel();
        let reply: Reply = Arc::new(Mutex::new(Some(sender)));
        let call = ForeignCall {
            json,
            cancel,
            reply: reply.clone(),
        };
        let callback = callback.clone();
        let run = move || {
            if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(|| callback(call)))
                && let Some(sender) = take(&reply)
            {
                let _ = sender.send(Err(CallbackError::Panicked(panic_message(panic.as_ref()))));
            }
        };
        match site {
            CallSite::Deferred => run(),
            // Not awaited: a callback that overruns its deadline keeps its pool thread until
            // it returns, and its answer is discarded.
            CallSite::Blocking => drop(tokio::task::spawn_blocking(run)),
        }
        Box::pin(async move {
            match receiver.await {
                Ok(answer) => answer.map_err(CallbackError::failure),
                Err(_) => Err(HookFailure::Trapped {
                    message: "the callback dropped its call without answering".to_string(),
                }),
            }
        }) as Pin<Box<dyn Future<Output = _> + Send>>
    });
    NativeHook::foreign(name.into(), events, protocol, handler)
}

/// A spec's `matcher`, as hooks.toml reads one.
fn tool_matcher(matcher: &serde_json::Value) -> Result<ToolMatcher, String> {
    use serde_json::Value;
    let table = match matcher {
        Value::String(pattern) => return ToolMatcher::claude(pattern),
        Value::Object(table) if table.len() == 1 => table,
        _ => {
            return Err(
                "`matcher` must be a string (Claude Code's matcher) or one of {\"glob\": ...}, {\"regex\": ...}, {\"exact\": ...}".to_string(),
            );
        }
    };
    let (kind, pattern) = table.iter().next().expect("one entry");
    let Some(pattern) = pattern.as_str() else {
        return Err(format!("`matcher.{kind}` must be a string"));
    };
    match kind.as_str() {
        "glob" => ToolMatcher::glob(pattern),
        "regex" => ToolMatcher::regex(pattern),
        "exact" => Ok(ToolMatcher::Exact(pattern.to_string())),
        other => Err(format!(
            "unknown `matcher` kind {}: use glob, regex or exact",
            crate::text::quote(other)
        )),
    }
}

/// A foreign hook described in JSON, as the C ABI and the language packages register one:
///
/// ```json
/// {"name": "no-sudo", "event": "PreToolUse", "matcher": "Bash", "timeout_ms": 500,
///  "phase": "guard", "async": false, "on_failure": "block", "mode": "enforce",
///  "protocol": "forgeflare", "call": "blocking"}
/// ```
///
/// Only `name` and `event` are required; the others default as in hooks.toml (`matcher`: every
/// tool, and an object `{"glob": ...}`, `{"regex": ...}` or `{"exact": ...}` as in hooks.toml; `timeout_ms`: the event's; `phase`: guard; `on_failure` and `mode`: the event's and
/// enforce; `protocol`: forgeflare; `call`: blocking). Unknown keys are errors.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForeignHookSpec {
    /// The hook's name, as reports and messages show it.
    pub name: String,
    /// The events it runs for: a name, a glob (`tool:*`), or a comma list.
    pub event: String,
    /// As hooks.toml's `matcher`: a string is Claude Code's matcher (`Bash`, `Edit|Write`, a
    /// regex), an object `{"glob": "mcp__*"}`, `{"regex": "^mcp__"}` or `{"exact": "Bash"}`;
    /// default: everything.
    #[serde(default)]
    pub matcher: Option<serde_json::Value>,
    /// Its budget in milliseconds; default: the event's.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// `guard` (default) or `observe`.
    #[serde(default)]
    pub phase: Option<String>,
    /// An observer that runs in the background (hooks.toml's `async = true`).
    #[serde(default, rename = "async")]
    pub background: bool,
    /// `block` or `allow`: what its failure means; default: the event's.
    #[serde(default)]
    pub on_failure: Option<String>,
    /// `enforce` (default), `monitor` or `warn`.
    #[serde(default)]
    pub mode: Option<String>,
    /// The protocol it answers in: `forgeflare` (default), `claude`, `copilot` or `gemini`.
    #[serde(default)]
    pub protocol: Option<String>,
    /// `blocking` (default) or `deferred`: where the callback is called ([`CallSite`]).
    #[serde(default)]
    pub call: Option<String>,
}

impl ForeignHookSpec {
    /// Reads a spec from its JSON; a message that names the key at fault otherwise.
    pub fn parse(json: &[u8]) -> Result<ForeignHookSpec, String> {
        serde_json::from_slice(json).map_err(|error| format!("invalid hook spec: {error}"))
    }

    /// The hook, calling `callback`.
    pub fn build(
        &self,
        callback: impl Fn(ForeignCall) + Send + Sync + 'static,
    ) -> Result<NativeHook, NativeHookError> {
        let invalid = |message: String| NativeHookError {
            name: self.name.clone(),
            message,
        };
        let protocol = match self.protocol.as_deref() {
            None => Protocol::Forgeflare,
            Some(name) => Protocol::from_name(name).ok_or_else(|| {
                invalid(format!(
                    "unknown protocol {}: use forgeflare, claude, copilot or gemini",
                    crate::text::quote(name)
                ))
            })?,
        };
        let site = match self.call.as_deref() {
            None | Some("blocking") => CallSite::Blocking,
            Some("deferred") => CallSite::Deferred,
            Some(other) => {
                return Err(invalid(format!(
                    "unknown `call` {}: use blocking or deferred",
                    crate::text::quote(other)
                )));
            }
        };
        let mut hook = foreign_hook(&self.name, &self.event, protocol, site, callback)?;
        if let Some(matcher) = &self.matcher {
            hook = hook.with_tool_matcher(tool_matcher(matcher).map_err(invalid)?);
        }
        if let Some(ms) = self.timeout_ms {
            if ms == 0 {
                return Err(invalid("`timeout_ms` must be at least 1".to_string()));
            }
            hook = hook.with_timeout(Duration::from_millis(ms));
        }
        match self.phase.as_deref() {
            None | Some("guard") => {}
            Some("observe") => hook = hook.observe(),
            Some(other) => {
                return Err(invalid(format!(
                    "unknown `phase` {}: use guard or observe",
                    crate::text::quote(other)
                )));
            }
        }
        if self.background {
            hook = hook.background();
        }
        match self.on_failure.as_deref() {
            None => {}
            Some("block") => hook = hook.with_on_failure(OnFailure::Block),
            Some("allow") => hook = hook.with_on_failure(OnFailure::Allow),
            Some(other) => {
                return Err(invalid(format!(
                    "unknown `on_failure` {}: use block or allow",
                    crate::text::quote(other)
                )));
            }
        }
        if let Some(mode) = &self.mode {
            let mode = Mode::from_name(mode).ok_or_else(|| {
                invalid(format!(
                    "unknown `mode` {}: use enforce, monitor or warn",
                    crate::text::quote(mode)
                ))
            })?;
            hook = hook.with_mode(mode);
        }
        Ok(hook)
    }
}
