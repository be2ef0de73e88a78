//! `hookhost_cancel`: a fire's cancellation handle. The caller passes it to
//! `hookhost_runner_fire` and triggers it from any other thread (a Go context's cancellation,
//! a deadline, the user's Ctrl-C); the fire then stops its hooks and returns
//! `HOOKHOST_STATUS_CANCELLED`.

use hookhost::embed::CancelToken;

/// A cancellation handle. Thread-safe: any thread may trigger it while a fire uses it. One
/// handle may serve several fires: triggering it cancels all of them, and every later fire
/// given it is cancelled at once.
#[derive(Debug)]
pub struct Cancel {
    pub(crate) token: CancelToken,
}

/// Makes a cancellation handle, not triggered. The caller owns it and frees it with
/// `hookhost_cancel_free` once no fire uses it. Thread-safe; never fails (NULL only when
/// memory runs out, which aborts first).
#[unsafe(no_mangle)]
pub extern "C" fn hookhost_cancel_new() -> *mut Cancel {
    Box::into_raw(Box::new(Cancel {
        token: CancelToken::new(),
    }))
}

/// Triggers the handle: every fire using it stops its hooks (a command hook's processes are
/// killed, a wasm instance dropped, a callback's call marked cancelled) and returns
/// `HOOKHOST_STATUS_CANCELLED`. Thread-safe, from any thread, any number of times; NULL does
/// nothing. Returns at once: the fire returns on its own thread.
///
/// # Safety
/// `cancel` is NULL or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_cancel_trigger(cancel: *const Cancel) {
    // SAFETY: NULL or live, by the caller's contract.
    if let Some(cancel) = unsafe { cancel.as_ref() } {
        cancel.token.cancel();
    }
}

/// Frees a handle. NULL does nothing.
///
/// # Safety
/// `cancel` is NULL or a live handle that no fire uses any more, and no thread triggers; it
/// must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_cancel_free(cancel: *mut Cancel) {
    if !cancel.is_null() {
        // SAFETY: made by `Box::into_raw` in `hookhost_cancel_new`, freed once.
        drop(unsafe { Box::from_raw(cancel) });
    }
}
