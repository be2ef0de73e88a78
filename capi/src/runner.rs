//! `hookhost_runner`: a runner loaded from a hooks.toml or from layers, its fires (event JSON
//! in, outcome JSON out), its async hooks' reports, and its end; and the one async runtime
//! every runner of the process shares.
//!
//! A fire runs on the caller's thread (`block_on`): a call with no hooks costs no thread hop.
//! Spawned work (async hooks, blocking callbacks, a command hook's reaping) runs on the
//! runtime's workers and blocking pool.

use std::ffi::c_char;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use hookhost::embed::{CancelToken, FireError, fire_json, flushed_json};
use hookhost::{HookRunner, Layers};

use crate::boundary::{
    Failure, Status, bytes_arg, guard, handle, optional_str_arg, owned_c_string, str_arg, write_out,
};
use crate::cancel::Cancel;
use crate::options::Options;

/// A loaded runner. Thread-safe: any number of threads may fire through one runner at once,
/// and register hooks, flush and close it meanwhile. Only `hookhost_runner_free` needs every
/// other call on it to have returned.
#[derive(Debug)]
pub struct Runner {
    pub(crate) runner: HookRunner,
    /// Cancelled by `hookhost_runner_close`: fires in flight stop, later ones are refused.
    closed: CancelToken,
}

/// The runtime every runner of this process runs on: its workers run async hooks and spawned
/// work, its blocking pool runs blocking callbacks.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(2, 4);
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("hookhost-worker")
            .enable_all()
            .build()
            .expect("hookhost cannot start its async runtime (threads or an epoll instance)")
    })
}

/// Runs `future` to its end on the caller's thread. On a thread already inside the runtime
/// (a blocking callback that fires again), on a thread of its own, since a runtime cannot be
/// blocked on from inside itself.
pub(crate) fn block_on<T: Send>(future: impl Future<Output = T> + Send) -> T {
    if tokio::runtime::Handle::try_current().is_ok() {
        return std::thread::scope(|scope| {
            scope
                .spawn(|| runtime().block_on(future))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
    }
    runtime().block_on(future)
}

/// Hands a loaded runner (or a load error) to the caller.
///
/// # Safety
/// `out` is NULL or valid for a write.
unsafe fn hand_out(
    loaded: Result<HookRunner, hookhost::ConfigError>,
    out: *mut *mut Runner,
) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::argument("`out` is NULL"));
    }
    let runner = loaded
        .map_err(|error| Failure::new(Status::Config, hookhost::text::error_chain(&error)))?;
    let handle = Box::into_raw(Box::new(Runner {
        runner,
        closed: CancelToken::new(),
    }));
    // SAFETY: not NULL, valid for a write by the caller's contract.
    unsafe { write_out(out, handle, "out") }
}

/// Loads `config_path` (a hooks.toml; a missing file is a runner with no hooks) with
/// `options`, under the organisation's managed file when this machine has one. On success
/// `*out` is a new runner the caller owns: close it with `hookhost_runner_close` and free it
/// with `hookhost_runner_free`. An invalid file is `HOOKHOST_STATUS_CONFIG`, with hookhost's
/// message (file, line, column, hook); nothing is returned then, and an agent should not run
/// tools unguarded on it.
///
/// Thread-safe. `options` is only read: the caller keeps it and may free it afterwards.
/// Compiling wasm hooks may take seconds the first time (later loads read the compile cache).
///
/// # Safety
/// `options` is a live handle no thread changes meanwhile; `config_path` a NUL-terminated
/// string; `out` and `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_runner_load(
    options: *const Options,
    config_path: *const c_char,
    out: *mut *mut Runner,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let options = handle(options, "options")?.options.clone();
            let path = PathBuf::from(str_arg(config_path, "config_path")?);
            let path = options.cwd.join(path);
            hand_out(block_on(async { HookRunner::load(&path, options) }), out)
        })
    }
}

/// Loads layered configuration: the organisation's managed file (when this machine has one),
/// then `user`, `project` and `local` (each a path, or NULL for none; a path that does not
/// exist is no hooks), with the user's (or the organisation's) `[projects]` policy applied to
/// the project's and local files. Ownership, errors and threads as `hookhost_runner_load`.
///
/// # Safety
/// `options` is a live handle no thread changes meanwhile; `user`, `project`, `local` NULL or
/// NUL-terminated strings; `out` and `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_runner_load_layers(
    options: *const Options,
    user: *const c_char,
    project: *const c_char,
    local: *const c_char,
    out: *mut *mut Runner,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let options = handle(options, "options")?.options.clone();
            let path = |text: *const c_char, what: &str| -> Result<Option<PathBuf>, Failure> {
                Ok(optional_str_arg(text, what)?.map(|p| options.cwd.join(p)))
            };
            let layers = Layers {
                user: path(user, "user")?,
                project: path(project, "project")?,
                local: path(local, "local")?,
                approvals: hookhost::approvals::Approvals::default_path(),
            };
            hand_out(
                block_on(async { HookRunner::load_layers(&layers, options) }),
                out,
            )
        })
    }
}

/// Loads the layers an agent working in the options' `cwd` uses, as `hookhost agent-hook`
/// does: the organisation's, the user's (`~/.config/hookhost/hooks.toml`), the project's
/// (`.forgeflare/hooks.toml`, else `hooks.toml`) and its `hooks.local.toml`. Ownership, errors
/// and threads as `hookhost_runner_load`.
///
/// # Safety
/// As `hookhost_runner_load`, without `config_path`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_runner_discover(
    options: *const Options,
    out: *mut *mut Runner,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let options = handle(options, "options")?.options.clone();
            let layers = Layers::discover(&options.cwd);
            hand_out(
                block_on(async { HookRunner::load_layers(&layers, options) }),
                out,
            )
        })
    }
}

/// Fires one event through every hook it reaches and returns the merged outcome.
///
/// `event_json`/`event_len`: the event as JSON (UTF-8, not NUL-terminated: `event_len` bytes
/// are read), in the event model's shape: `{"event": "PreToolUse", "session_id": ..., "tool":
/// "Bash", "input": {...}, ...}` (docs/embedding.md). On success `*outcome_json` is the
/// outcome as NUL-terminated JSON (docs/embedding.md, "The outcome's JSON"), its length in
/// `*outcome_len` when that is not NULL; the caller frees it with `hookhost_string_free`.
///
/// `cancel`: NULL, or a handle another thread may trigger to stop this fire: its hooks are
/// stopped and the status is `HOOKHOST_STATUS_CANCELLED`, with no outcome. Closing the runner
/// meanwhile stops it the same way, with `HOOKHOST_STATUS_CLOSED`. A refused event is
/// `HOOKHOST_STATUS_EVENT` and runs nothing.
///
/// Blocks the calling thread until the hooks answered (each within its timeout). Thread-safe:
/// many threads may fire through one runner at once. Callbacks registered on the runner may
/// run on this thread while it waits (a `deferred` one always does for a foreground hook).
///
/// # Safety
/// `runner` is a live handle; `event_json` valid for `event_len` bytes; `cancel` NULL or a live
/// handle; `outcome_json`, `outcome_len` and `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_runner_fire(
    runner: *const Runner,
    event_json: *const u8,
    event_len: usize,
    cancel: *const Cancel,
    outcome_json: *mut *mut c_char,
    outcome_len: *mut usize,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let runner = handle(runner, "runner")?;
            let event = bytes_arg(event_json, event_len, "event_json")?;
            let cancel = cancel.as_ref().map(|cancel| cancel.token.clone());
            if outcome_json.is_null() {
                return Err(Failure::argument("`outcome_json` is NULL"));
            }
            if runner.closed.is_cancelled() {
                return Err(closed());
            }
            let fired = block_on(async {
                tokio::select! {
                    biased;
                    fired = fire_json(&runner.runner, event, cancel.as_ref()) => Some(fired),
                    () = runner.closed.cancelled() => None,
                }
            });
            let json = match fired {
                None => return Err(closed()),
                Some(Ok(json)) => json,
                Some(Err(FireError::Event(error))) => {
                    return Err(Failure::new(
                        Status::Event,
                        hookhost::text::error_chain(&error),
                    ));
                }
                Some(Err(FireError::Cancelled(cancelled))) => {
                    return Err(Failure::new(Status::Cancelled, cancelled.to_string()));
                }
            };
            if !outcome_len.is_null() {
                outcome_len.write(json.len());
            }
            outcome_json.write(owned_c_string(json));
            Ok(())
        })
    }
}

fn closed() -> Failure {
    Failure::new(
        Status::Closed,
        "the runner is closed (hookhost_runner_close): load a new one to fire events",
    )
}

/// Waits until the runner's async hooks have finished, or `timeout_ms` passed, and returns the
/// reports of those that finished since the last flush: `{"reports": [...], "pending": N}`
/// (each report in the outcome's `reports` shape; `pending`: still running or queued). On
/// success `*reports_json` is NUL-terminated JSON the caller frees with
/// `hookhost_string_free`. Firing `SessionEnd` flushes too. Blocks the calling thread;
/// thread-safe.
///
/// # Safety
/// `runner` is a live handle; `reports_json` and `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_runner_flush(
    runner: *const Runner,
    timeout_ms: u64,
    reports_json: *mut *mut c_char,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let runner = handle(runner, "runner")?;
            if reports_json.is_null() {
                return Err(Failure::argument("`reports_json` is NULL"));
            }
            let flushed = block_on(runner.runner.flush(Duration::from_millis(timeout_ms)));
            reports_json.write(owned_c_string(flushed_json(&flushed)));
            Ok(())
        })
    }
}

/// Closes the runner: fires in flight stop their hooks and return `HOOKHOST_STATUS_CLOSED`,
/// and every later fire is refused with it; registering hooks and flushing still work. Returns
/// at once; thread-safe, from any thread, any number of times. NULL does nothing. Async hooks
/// already running go on until they finish (flush first to wait for them).
///
/// # Safety
/// `runner` is NULL or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_runner_close(runner: *const Runner) {
    // SAFETY: NULL or live, by the caller's contract.
    if let Some(runner) = unsafe { runner.as_ref() } {
        runner.closed.cancel();
    }
}

/// Frees the runner. Its hooks go with it once no call uses them any more (each callback's
/// `free_user_data` runs then, on whichever thread drops the last use). NULL does nothing.
///
/// # Safety
/// `runner` is NULL or a live handle on which no other call is running or will be made (close
/// it, and let every fire return, first); it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_runner_free(runner: *mut Runner) {
    if !runner.is_null() {
        // SAFETY: made by `Box::into_raw` in `hand_out`, freed once.
        let runner = unsafe { Box::from_raw(runner) };
        // Dropped inside the runtime: a runner's drop may touch tokio resources.
        let _entered = runtime().enter();
        drop(runner);
    }
}
