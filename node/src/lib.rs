//! `hookhost`'s Node addon (napi-rs): the native half of the `hookhost` npm package.
//!
//! The JavaScript half (`node/index.js`, typed by `node/index.d.ts`) holds the API users see
//! (typed outcomes, hooks as functions, the Claude Agent SDK helper); this addon holds a
//! [`hookhost::HookRunner`] fired on napi's tokio runtime, off the JavaScript thread, with every
//! fire a Promise:
//!
//! ```text
//! runner.fire(event) ──▶ NativeRunner.fire ──▶ HookRunner::fire on napi's tokio threads
//!   Promise ◀── FireResult (outcome JSON, or the error's kind and message) ◀──┘
//!                          a JavaScript hook ◀── thread-safe call (id, event JSON) ──┘
//!   NativeRunner.answer(id, json) / .fail(id, message) ──▶ the hook's answer ──▶ the fire
//! ```
//!
//! Nothing throws or panics across the boundary unannounced: errors are values
//! ([`FireResult`]), a JavaScript hook's exception is a failed hook (the JavaScript half catches
//! it and calls `fail`), and a panic inside a fire is turned into an error by the runtime.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use hookhost::agent::sdk::{claude_events, sdk_callback};
use hookhost::embed::{
    CallbackError, CancelToken, FireError, ForeignCall, ForeignHookSpec, fire_json,
};
use hookhost::{HookRunner, Layers, RunnerOptions};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;

/// The JavaScript half's dispatcher for one registered hook: `([callId, eventJson]) => void`. It
/// never throws (it catches the hook's exceptions and calls `fail`). Weak: a registered hook
/// does not keep Node's event loop alive.
type Dispatcher = ThreadsafeFunction<(u32, String), (), (u32, String), Status, false, true>;

/// Calls of JavaScript hooks waiting for their answer, by id.
fn pending() -> &'static Mutex<HashMap<u32, ForeignCall>> {
    static PENDING: OnceLock<Mutex<HashMap<u32, ForeignCall>>> = OnceLock::new();
    PENDING.get_or_init(Mutex::default)
}

fn take_call(id: u32) -> Option<ForeignCall> {
    pending()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&id)
}

/// How a fire ended: the outcome's JSON, or an error's kind (`event`: the event's JSON was
/// refused; `cancelled`; `closed`) and hookhost's message.
#[napi(object)]
#[derive(Debug)]
pub struct FireResult {
    /// The outcome's JSON (docs/embedding.md, "The outcome's JSON").
    pub outcome: Option<String>,
    /// `event`, `cancelled` or `closed`.
    pub error_kind: Option<String>,
    /// hookhost's message.
    pub error: Option<String>,
}

impl FireResult {
    fn failed(kind: &str, message: String) -> FireResult {
        FireResult {
            outcome: None,
            error_kind: Some(kind.to_string()),
            error: Some(message),
        }
    }
}

/// What the Claude Agent SDK's hook callback answers: its output as JSON, and what Claude Code
/// would have read on the hook's stderr.
#[napi(object)]
#[derive(Debug)]
pub struct ClaudeAnswer {
    /// The callback's output (`SyncHookJSONOutput`) as JSON; `{}` for no objection.
    pub output: String,
    /// Diagnostics for the agent's log; empty when there is nothing to say.
    pub diagnostics: String,
}

/// Options every constructor takes.
#[napi(object)]
#[derive(Debug, Default)]
pub struct NativeOptions {
    /// The agent's working directory (default: the process's).
    pub cwd: Option<String>,
    /// Variables for every command hook.
    pub env: Option<HashMap<String, String>>,
    /// Where convergence.json lives (default `{cwd}/.forgeflare`).
    pub state_dir: Option<String>,
    /// Copy hooks' stderr to this process's stderr (reports carry it either way).
    pub forward_stderr: Option<bool>,
    /// A configuration that does not load blocks every gate event instead of throwing.
    pub fail_closed: Option<bool>,
    /// `layers`: the user's hooks.toml (default: found as `hookhost agent-hook` finds it).
    pub user: Option<String>,
    /// `layers`: the project's hooks.toml.
    pub project: Option<String>,
    /// `layers`: the project's local override.
    pub local: Option<String>,
    /// `layers`: find the files from `cwd` (default true); false loads only those given.
    pub discover: Option<bool>,
}

fn runner_options(options: &NativeOptions) -> Result<RunnerOptions> {
    let cwd = match &options.cwd {
        Some(cwd) => PathBuf::from(cwd),
        None => std::env::current_dir().map_err(|error| {
            Error::from_reason(format!("cannot read the current directory: {error}"))
        })?,
    };
    let mut runner = RunnerOptions::new(std::path::absolute(&cwd).unwrap_or(cwd));
    if let Some(env) = &options.env {
        let mut env: Vec<(String, String)> = env.clone().into_iter().collect();
        env.sort();
        runner.env = env;
    }
    runner.state_dir = options.state_dir.as_ref().map(PathBuf::from);
    runner.forward_stderr = options.forward_stderr.unwrap_or(false);
    Ok(runner)
}

/// The Claude Code events hookhost reads: the Claude Agent SDK helper's default.
#[napi]
pub fn claude_events_list() -> Vec<String> {
    claude_events().map(str::to_string).collect()
}

/// A loaded runner, until `close`.
#[napi]
#[derive(Debug)]
pub struct NativeRunner {
    runner: Mutex<Option<HookRunner>>,
    /// Cancelled by `close`: fires in flight stop with a `closed` error.
    closed: CancelToken,
}

/// A fire's cancellation: `cancel()` stops the fire it was passed to.
#[napi]
#[derive(Debug, Default)]
pub struct CancelHandle {
    token: CancelToken,
}

#[napi]
impl CancelHandle {
    /// A handle that cancels nothing yet.
    #[napi(constructor)]
    pub fn new() -> CancelHandle {
        CancelHandle::default()
    }

    /// Cancels the fire (nothing if it already answered).
    #[napi]
    pub fn cancel(&self) {
        self.token.cancel();
    }
}

impl NativeRunner {
    fn loaded(
        result: std::result::Result<HookRunner, hookhost::ConfigError>,
        options: RunnerOptions,
        fail_closed: bool,
    ) -> Result<NativeRunner> {
        let runner = match result {
            Ok(runner) => runner,
            Err(error) if fail_closed => HookRunner::fail_closed(error, options),
            Err(error) => return Err(Error::from_reason(error.to_string())),
        };
        Ok(NativeRunner {
            runner: Mutex::new(Some(runner)),
            closed: CancelToken::new(),
        })
    }

    fn runner(&self) -> Option<HookRunner> {
        self.runner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

const CLOSED: &str = "the runner is closed: it runs no more events";

#[napi]
impl NativeRunner {
    /// `HookRunner::load`: one hooks.toml (a missing file: no hooks). Throws hookhost's message
    /// for a file that does not load, unless `failClosed`.
    #[napi(factory)]
    pub fn load(path: String, options: Option<NativeOptions>) -> Result<NativeRunner> {
        let options = options.unwrap_or_default();
        let runner = runner_options(&options)?;
        let result = HookRunner::load(path, runner.clone());
        NativeRunner::loaded(result, runner, options.fail_closed.unwrap_or(false))
    }

    /// `HookRunner::load_layers`: the user's, the project's and the local file (found from
    /// `cwd` unless `discover` is false; a path given replaces the one found).
    #[napi(factory)]
    pub fn layers(options: Option<NativeOptions>) -> Result<NativeRunner> {
        let options = options.unwrap_or_default();
        let runner = runner_options(&options)?;
        let mut layers = if options.discover.unwrap_or(true) {
            Layers::discover(&runner.cwd)
        } else {
            Layers {
                approvals: hookhost::approvals::Approvals::default_path(),
                ..Layers::default()
            }
        };
        if let Some(project) = &options.project {
            let project = PathBuf::from(project);
            let beside = project.with_file_name("hooks.local.toml");
            layers.local = beside.exists().then_some(beside);
            layers.project = Some(project);
        }
        layers.user = options.user.as_ref().map(PathBuf::from).or(layers.user);
        layers.local = options.local.as_ref().map(PathBuf::from).or(layers.local);
        let result = HookRunner::load_layers(&layers, runner.clone());
        NativeRunner::loaded(result, runner, options.fail_closed.unwrap_or(false))
    }

    /// Fires the event of `event` (JSON text) on napi's tokio threads; `cancel` can stop it.
    #[napi(ts_return_type = "Promise<FireResult>")]
    pub fn fire<'env>(
        &self,
        env: &'env Env,
        event: String,
        cancel: Option<&CancelHandle>,
    ) -> Result<PromiseRaw<'env, FireResult>> {
        let runner = self.runner();
        let closed = self.closed.clone();
        let cancel = cancel
            .map(|handle| handle.token.clone())
            .unwrap_or_default();
        env.spawn_future(async move {
            let Some(runner) = runner else {
                return Ok(FireResult::failed("closed", CLOSED.to_string()));
            };
            Ok(tokio::select! {
                biased;
                () = closed.cancelled() => FireResult::failed(
                    "closed",
                    "the runner was closed before the event's hooks answered: there is no decision".to_string(),
                ),
                result = fire_json(&runner, event.as_bytes(), Some(&cancel)) => match result {
                    Ok(json) => FireResult {
                        outcome: Some(String::from_utf8_lossy(&json).into_owned()),
                        error_kind: None,
                        error: None,
                    },
                    Err(FireError::Event(error)) => {
                        FireResult::failed("event", hookhost::text::error_chain(&error))
                    }
                    Err(FireError::Cancelled(cancelled)) => {
                        FireResult::failed("cancelled", cancelled.to_string())
                    }
                },
            })
        })
    }

    /// The Claude Agent SDK's hook callback: `input` is the SDK's hook input as JSON.
    #[napi(ts_return_type = "Promise<ClaudeAnswer>")]
    pub fn claude<'env>(
        &self,
        env: &'env Env,
        input: String,
    ) -> Result<PromiseRaw<'env, ClaudeAnswer>> {
        let runner = self.runner();
        env.spawn_future(async move {
            let runner = runner.ok_or_else(|| Error::from_reason(CLOSED))?;
            let answer = sdk_callback(&runner, &input).await;
            Ok(ClaudeAnswer {
                output: serde_json::Value::Object(answer.output).to_string(),
                diagnostics: answer.diagnostics,
            })
        })
    }

    /// Adds a JavaScript hook described by `spec` (embed's `ForeignHookSpec` JSON).
    /// `dispatch([callId, eventJson])` is called on the JavaScript thread for each call; the
    /// hook's answer comes back through `answer(callId, json)` or `fail(callId, message)`.
    #[napi(ts_args_type = "spec: string, dispatch: (call: [number, string]) => void")]
    pub fn register(&self, spec: String, dispatch: Dispatcher) -> Result<()> {
        let runner = self.runner().ok_or_else(|| Error::from_reason(CLOSED))?;
        let mut spec = ForeignHookSpec::parse(spec.as_bytes()).map_err(Error::from_reason)?;
        // The JavaScript thread is the event loop's: the call is handed to it and answered later.
        spec.call = Some("deferred".to_string());
        let hook = spec
            .build(move |call| {
                static NEXT: AtomicU32 = AtomicU32::new(0);
                let id = NEXT.fetch_add(1, Ordering::Relaxed);
                let event = String::from_utf8_lossy(call.event_json()).into_owned();
                pending()
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id, call);
                let status = dispatch.call((id, event), ThreadsafeFunctionCallMode::NonBlocking);
                if status != Status::Ok
                    && let Some(call) = take_call(id)
                {
                    call.fail(CallbackError::Failed(format!(
                        "the JavaScript hook could not be called ({status}): is Node exiting?"
                    )));
                }
            })
            .map_err(|error| Error::from_reason(error.to_string()))?;
        runner.register(hook);
        Ok(())
    }

    /// A JavaScript hook's answer to call `call_id`: what a forgeflare-protocol command hook
    /// prints. An answer after the call's deadline is discarded.
    #[napi]
    pub fn answer(&self, call_id: u32, json: String) {
        if let Some(call) = take_call(call_id) {
            call.answer(json.into_bytes());
        }
    }

    /// A JavaScript hook threw (or answered something that is not JSON text): the hook failed
    /// with `message`.
    #[napi]
    pub fn fail(&self, call_id: u32, message: String) {
        if let Some(call) = take_call(call_id) {
            call.fail(CallbackError::Failed(message));
        }
    }

    /// True once hookhost abandoned call `call_id` (its deadline passed, or its fire was
    /// cancelled) or it was answered: an answer now is discarded.
    #[napi]
    pub fn call_cancelled(&self, call_id: u32) -> bool {
        pending()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&call_id)
            .is_none_or(|call| call.cancel_token().is_cancelled())
    }

    /// Refuses every later fire and stops the fires in flight (both: a `closed` error).
    #[napi]
    pub fn close(&self) {
        self.runner.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.closed.cancel();
    }

    /// True once `close` was called.
    #[napi(getter)]
    pub fn closed(&self) -> bool {
        self.runner().is_none()
    }

    /// The configuration error a fail-closed runner blocks with, if any.
    #[napi(getter)]
    pub fn load_error(&self) -> Option<String> {
        self.runner()
            .and_then(|runner| runner.load_error().map(|error| error.to_string()))
    }
}
