//! C callbacks as hooks: `hookhost_runner_register` turns a function pointer and its user
//! data into a hook of the runner ([`hookhost::embed::ForeignHookSpec`] describes it), and
//! `hookhost_call` is one call of it, answered once from any thread.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use hookhost::embed::{CallbackError, ForeignCall, ForeignHookSpec};

use crate::boundary::{Failure, Status, bytes_arg, guard, handle, optional_str_arg};
use crate::runner::Runner;

/// One call of a callback hook: the event as the hook sees it, and the answer hookhost waits
/// for. Owned by the callback from the moment it is called until it answers with
/// `hookhost_call_answer` or `hookhost_call_fail` (exactly once, from any thread), which frees
/// it. A call never answered is never freed, and its hook times out.
#[derive(Debug)]
pub struct Call {
    call: ForeignCall,
}

/// A hook's callback: `user_data` as registered, and the call to answer. Called once per event
/// the hook reaches, possibly from several threads at once (fires in parallel), so it must be
/// thread-safe. Where it is called depends on the spec's `call`:
/// - `"blocking"` (default): on a thread of hookhost's blocking pool, never on the firing
///   thread; it may take its time (up to its timeout) and answer before or after returning;
/// - `"deferred"`: on the thread that runs the hook (the firing thread, for a foreground
///   hook); it must return at once, without calling back into the runner, and answer later
///   from another thread.
///
/// It must not unwind (a C++ exception or a Go panic across this call aborts the process):
/// report a failure with `hookhost_call_fail` instead.
pub type Callback = Option<unsafe extern "C" fn(user_data: *mut c_void, call: *mut Call)>;

/// Frees a callback's user data, once the runner no longer needs it.
pub type FreeFn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// A registered callback: its function, its user data, and what frees the user data.
struct Registered {
    callback: Callback,
    user_data: *mut c_void,
    free: FreeFn,
}

// SAFETY: the registering caller promises (in `hookhost_runner_register`'s contract) that the
// callback may be called, and the user data used and freed, from any thread.
unsafe impl Send for Registered {}
// SAFETY: as above; calls in parallel are part of the same promise.
unsafe impl Sync for Registered {}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(free) = self.free {
            // SAFETY: called once, when the last use of the hook is gone, per the contract.
            unsafe { free(self.user_data) };
        }
    }
}

/// Registers `callback` as a hook of `runner`, after every hook already there (hooks.toml's
/// first, then earlier registrations, in order), described by `spec_json` (NUL-terminated):
///
/// `{"name": "no-sudo", "event": "PreToolUse", "matcher": "Bash", "timeout_ms": 500,
///   "phase": "guard", "async": false, "on_failure": "block", "mode": "enforce",
///   "protocol": "forgeflare", "call": "blocking"}`
///
/// Only `name` and `event` are required; see docs/embedding.md. The callback gets the event in
/// the protocol's JSON (what a command hook of that protocol reads on stdin) and answers what
/// such a hook prints (forgeflare's `{"action": "allow"}`, `{"action": "block", "reason":
/// ...}`). A late answer is discarded and the hook has timed out; a failure, like a timeout,
/// blocks where a failing guard blocks (PreToolUse, `on_failure = "block"`).
///
/// `user_data` is passed to every call; `free_user_data` (or NULL) is called with it once the
/// runner and every call in flight are done with it (after `hookhost_runner_free`), or at once
/// when registering fails (`HOOKHOST_STATUS_HOOK`, with a message naming what is wrong).
/// Thread-safe: hooks may be registered while other threads fire (a fire in flight keeps the
/// hooks it started with).
///
/// # Safety
/// `runner` is a live handle; `spec_json` a NUL-terminated string; `callback` a function that
/// may be called from any thread, in parallel, until `free_user_data` is called; `user_data`
/// whatever that function and `free_user_data` accept, from any thread; `error` NULL or valid
/// for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_runner_register(
    runner: *const Runner,
    spec_json: *const c_char,
    callback: Callback,
    user_data: *mut c_void,
    free_user_data: FreeFn,
    error: *mut *mut c_char,
) -> Status {
    // From here on, the user data is freed however this ends.
    let registered = Registered {
        callback,
        user_data,
        free: free_user_data,
    };
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let runner = handle(runner, "runner")?;
            let callback = registered
                .callback
                .ok_or_else(|| Failure::argument("`callback` is NULL"))?;
            let registered = Arc::new(registered);
            let spec = optional_str_arg(spec_json, "spec_json")?
                .ok_or_else(|| Failure::argument("`spec_json` is NULL"))?;
            let spec = ForeignHookSpec::parse(spec.as_bytes())
                .map_err(|message| Failure::new(Status::Hook, message))?;
            let hook = spec
                .build(move |call| {
                    let call = Box::into_raw(Box::new(Call { call }));
                    // The registering caller's contract: callable from any thread (this closure is
                    // inside the function's unsafe block).
                    callback(registered.user_data, call);
                })
                .map_err(|error| Failure::new(Status::Hook, error.to_string()))?;
            runner.runner.register(hook);
            Ok(())
        })
    }
}

/// The event as the call's hook sees it: `*len` bytes of JSON (not NUL-terminated), owned by
/// the call and valid until it is answered. NULL when `call` is NULL.
///
/// # Safety
/// `call` is NULL or a call not answered yet; `len` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_call_event(call: *const Call, len: *mut usize) -> *const u8 {
    // SAFETY: NULL or live, by the caller's contract.
    let Some(call) = (unsafe { call.as_ref() }) else {
        return std::ptr::null();
    };
    let json = call.call.event_json();
    if !len.is_null() {
        // SAFETY: valid for a write by the caller's contract.
        unsafe { len.write(json.len()) };
    }
    json.as_ptr()
}

/// True once hookhost abandoned the call: its timeout passed, or its fire was cancelled or its
/// runner closed. Its answer will be discarded; a long callback polls this to stop early.
/// Thread-safe. False when `call` is NULL.
///
/// # Safety
/// `call` is NULL or a call not answered yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_call_is_cancelled(call: *const Call) -> bool {
    // SAFETY: NULL or live, by the caller's contract.
    unsafe { call.as_ref() }.is_some_and(|call| call.call.cancel_token().is_cancelled())
}

/// Answers the call with what a command hook of its protocol would print (`len` bytes of
/// JSON), and frees it. From any thread, once; the call must not be used afterwards. Invalid
/// JSON is the hook's failure ("returned invalid JSON"), as for a command hook.
///
/// # Safety
/// `call` is NULL or a call not answered yet; `json` valid for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_call_answer(
    call: *mut Call,
    json: *const u8,
    len: usize,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let call = take(call)?;
            let json = bytes_arg(json, len, "json")?;
            call.call.answer(json.to_vec());
            Ok(())
        })
    }
}

/// Answers the call with a failure, and frees it: `message` (NUL-terminated; NULL for none)
/// is what the hook's report and a fail-closed block say, as `trapped: {message}`, or as
/// `panicked: {message}` when `panicked` is true (a Go panic, a C++ exception caught by the
/// callback). From any thread, once; the call must not be used afterwards.
///
/// # Safety
/// `call` is NULL or a call not answered yet; `message` NULL or a NUL-terminated string;
/// `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_call_fail(
    call: *mut Call,
    message: *const c_char,
    panicked: bool,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let call = take(call)?;
            let message = optional_str_arg(message, "message")
                .unwrap_or(Some("(a message that is not UTF-8)"))
                .unwrap_or("the callback failed without a message")
                .to_string();
            call.call.fail(if panicked {
                CallbackError::Panicked(message)
            } else {
                CallbackError::Failed(message)
            });
            Ok(())
        })
    }
}

/// Takes ownership of a call handed out to a callback.
///
/// # Safety
/// `call` is NULL or a call not answered yet.
unsafe fn take(call: *mut Call) -> Result<Box<Call>, Failure> {
    if call.is_null() {
        return Err(Failure::new(Status::Call, "`call` is NULL"));
    }
    // SAFETY: made by `Box::into_raw` when the callback was called, taken once.
    Ok(unsafe { Box::from_raw(call) })
}
