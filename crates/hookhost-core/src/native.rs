//! In-process hooks: Rust closures an agent registers through the native API (seed 004's
//! callbacks, Code-Forge's session-only hooks). They run with the same event patterns,
//! matchers, order, timeouts, fail modes and reports as command and wasm hooks.
//!
//! A closure that panics is a hook failure ("panicked: ..."), never a crashed agent. A sync
//! closure runs inline on the agent's task (a few microseconds for a policy): it cannot be
//! interrupted, so one that overruns its `timeout` counts as timed out once it returns. An async
//! closure runs as its own task and is cancelled at its deadline, or when the fire that called
//! it is dropped.
//!
//! A foreign hook (a callback in another language, built by `hookhost::embed`) answers like a
//! command hook: it gets the event in a command-hook protocol's JSON and its answer is read by
//! that protocol's code, so it cannot answer anything a command hook could not. Its deadline
//! is enforced here; a late answer is discarded, and its [`CancelToken`] tells it so.

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cancel::CancelToken;
use crate::config::OnFailure;
use crate::event::{Event, OwnedEvent, Phase, ToolCall};
use crate::matcher::{EventPattern, ToolMatcher};
use crate::outcome::Decision;
use crate::protocol::exit_code::ExitCodes;
use crate::protocol::{ProcessOutput, Protocol};
use crate::runtime::HookEvent;
use crate::runtime::{HookRequest, HookResponse};
use crate::verdict::Mode;
use crate::verdict::{HookFailure, Verdict};

type SyncHandler = dyn Fn(&HookInput<'_>) -> Verdict + Send + Sync;
type AsyncHandler =
    dyn Fn(OwnedInput) -> Pin<Box<dyn Future<Output = Verdict> + Send>> + Send + Sync;
/// A foreign hook: the event in its protocol's JSON and a token set when the call is abandoned,
/// in; what it printed (the protocol's answer), or how it failed, out.
pub type ForeignHandler = dyn Fn(Vec<u8>, CancelToken) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, HookFailure>> + Send>>
    + Send
    + Sync;

/// A hook written as a Rust closure, ready to register with [`crate::Runner::register`].
///
/// ```
/// use hookhost::{NativeHook, Verdict};
/// let guard = NativeHook::new("no-force-push", "PreToolUse", |input| {
///     let command = input.tool_call().and_then(|call| call.input["command"].as_str());
///     match command {
///         Some(c) if c.contains("push --force") => Verdict::block("force pushes rewrite history"),
///         _ => Verdict::allow(),
///     }
/// })
/// .unwrap()
/// .with_matcher("Bash")
/// .unwrap();
/// # let _ = guard;
/// ```
pub struct NativeHook {
    pub(crate) name: String,
    pub(crate) events: EventPattern,
    pub(crate) matcher: ToolMatcher,
    pub(crate) phase: Phase,
    pub(crate) timeout: Option<Duration>,
    pub(crate) on_failure: Option<OnFailure>,
    pub(crate) background: bool,
    pub(crate) mode: Mode,
    handler: Handler,
}

#[derive(Clone)]
enum Handler {
    Sync(Arc<SyncHandler>),
    Async(Arc<AsyncHandler>),
    Foreign {
        protocol: Protocol,
        handler: Arc<ForeignHandler>,
    },
}

/// A native hook could not be built: its event pattern or matcher is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid native hook {name}: {message}")]
pub struct NativeHookError {
    /// The hook's name.
    pub name: String,
    /// What is wrong.
    pub message: String,
}

impl NativeHook {
    /// A hook named `name` for `events` (a name, a glob such as `tool:*`, or a comma list),
    /// answering with `handler`.
    pub fn new(
        name: impl Into<String>,
        events: &str,
        handler: impl Fn(&HookInput<'_>) -> Verdict + Send + Sync + 'static,
    ) -> Result<NativeHook, NativeHookError> {
        NativeHook::with_handler(name.into(), events, Handler::Sync(Arc::new(handler)))
    }

    /// A hook whose handler is async: it gets its own copy of the event and runs as a task,
    /// cancelled at its deadline.
    pub fn new_async<F>(
        name: impl Into<String>,
        events: &str,
        handler: impl Fn(OwnedInput) -> F + Send + Sync + 'static,
    ) -> Result<NativeHook, NativeHookError>
    where
        F: Future<Output = Verdict> + Send + 'static,
    {
        let handler: Arc<AsyncHandler> = Arc::new(move |input| Box::pin(handler(input)));
        NativeHook::with_handler(name.into(), events, Handler::Async(handler))
    }

    /// A hook in another language that answers in `protocol`, as a command hook would (see
    /// `hookhost::embed`). The exit-code protocol has no JSON answer, so it is refused.
    pub fn foreign(
        name: String,
        events: &str,
        protocol: Protocol,
        handler: Arc<ForeignHandler>,
    ) -> Result<NativeHook, NativeHookError> {
        if protocol == Protocol::ExitCode {
            return Err(NativeHookError {
                name,
                message: "a callback answers in JSON; the exit-code protocol reads an exit status: use forgeflare, claude, copilot or gemini".to_string(),
            });
        }
        NativeHook::with_handler(name, events, Handler::Foreign { protocol, handler })
    }

    fn with_handler(
        name: String,
        events: &str,
        handler: Handler,
    ) -> Result<NativeHook, NativeHookError> {
        let events = EventPattern::parse([events]).map_err(|message| NativeHookError {
            name: name.clone(),
            message,
        })?;
        Ok(NativeHook {
            name,
            events,
            matcher: ToolMatcher::Any,
            phase: Phase::Guard,
            timeout: None,
            on_failure: None,
            background: false,
            mode: Mode::Enforce,
            handler,
        })
    }

    /// Fires only where `matcher` (Claude Code's semantics, as in hooks.toml) matches.
    pub fn with_matcher(mut self, matcher: &str) -> Result<NativeHook, NativeHookError> {
        self.matcher = ToolMatcher::claude(matcher).map_err(|message| NativeHookError {
            name: self.name.clone(),
            message,
        })?;
        Ok(self)
    }

    /// Fires only where `matcher` matches.
    pub fn with_tool_matcher(mut self, matcher: ToolMatcher) -> NativeHook {
        self.matcher = matcher;
        self
    }

    /// Runs as an observer: after the guards, seeing their outcome; its answer is ignored.
    pub fn observe(mut self) -> NativeHook {
        self.phase = Phase::Observe;
        self
    }

    /// An observer that runs in the background (`async = true` in hooks.toml).
    pub fn background(mut self) -> NativeHook {
        self.phase = Phase::Observe;
        self.background = true;
        self
    }

    /// The hook's budget (default: the event's, 5000 ms or 3000 ms for Stop).
    pub fn with_timeout(mut self, timeout: Duration) -> NativeHook {
        self.timeout = Some(timeout);
        self
    }

    /// What the hook's failure means (default: the event's; PreToolUse guards fail closed).
    pub fn with_on_failure(mut self, on_failure: OnFailure) -> NativeHook {
        self.on_failure = Some(on_failure);
        self
    }

    /// Whether its answers are enforced (default [`Mode::Enforce`]).
    pub fn with_mode(mut self, mode: Mode) -> NativeHook {
        self.mode = mode;
        self
    }

    pub(crate) async fn call(&self, request: &HookRequest<'_>) -> HookResponse {
        let started = Instant::now();
        let result = match &self.handler {
            Handler::Sync(handler) => {
                let input = HookInput { view: request.view };
                match std::panic::catch_unwind(AssertUnwindSafe(|| handler(&input))) {
                    Ok(_) if started.elapsed() > request.timeout => Err(HookFailure::TimedOut {
                        timeout_ms: request.timeout.as_millis() as u64,
                    }),
                    Ok(verdict) => Ok(verdict),
                    Err(panic) => Err(panicked(panic.as_ref())),
                }
            }
            Handler::Async(handler) => {
                let task = tokio::spawn(handler(OwnedInput::of(&request.view)));
                // Aborted at its deadline, and when this call is dropped (its fire cancelled):
                // a dropped JoinHandle alone would leave the task running.
                let abort = AbortOnDrop(task.abort_handle());
                match tokio::time::timeout(request.timeout, task).await {
                    Err(_) => {
                        drop(abort);
                        Err(HookFailure::TimedOut {
                            timeout_ms: request.timeout.as_millis() as u64,
                        })
                    }
                    Ok(Ok(verdict)) => Ok(verdict),
                    Ok(Err(join)) if join.is_panic() => Err(panicked(join.into_panic().as_ref())),
                    Ok(Err(_)) => Err(HookFailure::Trapped {
                        message: "the task was cancelled".to_string(),
                    }),
                }
            }
            Handler::Foreign { protocol, handler } => {
                call_foreign(*protocol, handler.as_ref(), request).await
            }
        };
        HookResponse {
            result,
            stderr: String::new(),
            stderr_truncated: false,
        }
    }
}

impl fmt::Debug for NativeHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NativeHook")
            .field("name", &self.name)
            .field("events", &self.events.to_string())
            .field("matcher", &self.matcher.to_string())
            .field("phase", &self.phase)
            .field("background", &self.background)
            .finish_non_exhaustive()
    }
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// One call of a foreign hook: its protocol's JSON out, its answer back through the protocol's
/// own reader, within the deadline. The token is cancelled when the deadline passes or this
/// call is dropped, never after an answer.
async fn call_foreign(
    protocol: Protocol,
    handler: &ForeignHandler,
    request: &HookRequest<'_>,
) -> Result<Verdict, HookFailure> {
    let json = protocol.stdin_of(request).to_vec();
    let token = CancelToken::new();
    let abandon = token.cancel_on_drop();
    let answer = tokio::time::timeout(request.timeout, handler(json, token)).await;
    let stdout = match answer {
        Err(_) => {
            drop(abandon);
            return Err(HookFailure::TimedOut {
                timeout_ms: request.timeout.as_millis() as u64,
            });
        }
        Ok(answer) => {
            abandon.disarm();
            answer?
        }
    };
    let output = ProcessOutput {
        code: Some(0),
        signal: None,
        stdout,
        stderr: String::new(),
    };
    protocol.answer(&request.view, &output, &ExitCodes::default())
}

fn panicked(payload: &(dyn std::any::Any + Send)) -> HookFailure {
    HookFailure::Panicked {
        message: panic_message(payload),
    }
}

/// A panic's message, from its payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// What a native hook sees of an event.
#[derive(Debug, Clone, Copy)]
pub struct HookInput<'a> {
    view: HookEvent<'a>,
}

impl<'a> HookInput<'a> {
    /// The event as the agent fired it.
    pub fn event(&self) -> &'a Event<'a> {
        self.view.event
    }

    /// The event's name.
    pub fn name(&self) -> &'a str {
        self.view.event.name()
    }

    /// The tool call as this hook sees it: its input as rewritten by the guards before it.
    pub fn tool_call(&self) -> Option<ToolCall<'a>> {
        self.view.call
    }

    /// A payload field.
    pub fn field(&self, name: &str) -> Option<&'a Value> {
        self.view.event.field(name)
    }

    /// Guard or observer.
    pub fn phase(&self) -> Phase {
        self.view.phase
    }

    /// For an observer: what the guards decided.
    pub fn observed(&self) -> Option<&'a Decision> {
        self.view.observed
    }

    /// The agent's working directory.
    pub fn cwd(&self) -> &'a str {
        self.view.cwd
    }
}

/// What an async native hook gets: its own copy of the event.
#[derive(Debug, Clone)]
pub struct OwnedInput {
    event: OwnedEvent,
    /// The tool input as this hook sees it (rewritten by the guards before it), if any.
    pub input: Option<Value>,
    /// Guard or observer.
    pub phase: Phase,
    /// For an observer: what the guards decided.
    pub observed: Option<Decision>,
    /// The agent's working directory.
    pub cwd: String,
}

impl OwnedInput {
    pub(crate) fn of(view: &HookEvent<'_>) -> OwnedInput {
        OwnedInput {
            event: view.event.to_owned_event(),
            input: view.call.map(|call| call.input.clone()),
            phase: view.phase,
            observed: view.observed.cloned(),
            cwd: view.cwd.to_string(),
        }
    }

    /// The event (its tool call carries the input as the agent fired it; see
    /// [`OwnedInput::input`] for the input as this hook sees it).
    pub fn event(&self) -> Event<'_> {
        self.event.view()
    }
}
