//! The boundary itself: status codes, error messages handed to the caller, strings and bytes
//! in and out, and [`guard`], which every exported function's body runs in so that no panic
//! crosses into C.

use std::ffi::{CStr, CString, c_char};
use std::panic::AssertUnwindSafe;

/// What a function did. Every function that can fail returns one, and, when its `error`
/// argument is not NULL, sets `*error` to a message (NULL on success) that the caller frees
/// with `hookhost_string_free`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Done.
    Ok = 0,
    /// An argument is NULL, not UTF-8, or out of range; the message names it.
    InvalidArgument = 1,
    /// A configuration file did not load (the message is hookhost's, with file, line and
    /// column).
    Config = 2,
    /// The event's JSON was refused (the message names the key at fault).
    Event = 3,
    /// The fire was cancelled through its `hookhost_cancel` before its hooks answered: there
    /// is no decision, and the caller must not act as if the hooks had allowed anything.
    Cancelled = 4,
    /// The runner was closed (`hookhost_runner_close`) before or during the call.
    Closed = 5,
    /// A hook could not be registered: its spec is invalid (the message says how).
    Hook = 6,
    /// `hookhost_call_answer` or `hookhost_call_fail` was given a call that is NULL.
    Call = 7,
    /// hookhost itself failed (a panic caught at the boundary): a bug, please report it with
    /// the message.
    Internal = 8,
}

/// A failure on its way to the caller.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: Status,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: Status, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn argument(message: impl Into<String>) -> Failure {
        Failure::new(Status::InvalidArgument, message)
    }
}

/// Runs `body`, catching any panic, and reports its failure through `error`.
///
/// # Safety
/// `error` is NULL or valid for one write.
pub(crate) unsafe fn guard(
    error: *mut *mut c_char,
    body: impl FnOnce() -> Result<(), Failure>,
) -> Status {
    let result = match std::panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(panic) => Err(Failure::new(
            Status::Internal,
            format!(
                "hookhost panicked: {} (a bug: please report it with this message)",
                panic_text(panic.as_ref())
            ),
        )),
    };
    let (status, message) = match result {
        Ok(()) => (Status::Ok, None),
        Err(failure) => (failure.status, Some(failure.message)),
    };
    if !error.is_null() {
        // SAFETY: the caller passes NULL or a pointer valid for one write.
        unsafe { *error = message.map_or(std::ptr::null_mut(), owned_c_string) };
    }
    status
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// A string the caller owns and frees with `hookhost_string_free`. A NUL inside (which no
/// message or JSON of hookhost's has) would end the string early, so it is replaced.
pub(crate) fn owned_c_string(text: impl Into<Vec<u8>>) -> *mut c_char {
    let mut bytes = text.into();
    bytes
        .iter_mut()
        .filter(|b| **b == 0)
        .for_each(|b| *b = b'?');
    CString::new(bytes).expect("no NUL left inside").into_raw()
}

/// A NUL-terminated UTF-8 argument named `what`.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string that stays valid for `'a`.
pub(crate) unsafe fn str_arg<'a>(text: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(Failure::argument(format!("`{what}` is NULL")));
    }
    // SAFETY: not NULL, and NUL-terminated by the caller's contract.
    let text = unsafe { CStr::from_ptr(text) };
    text.to_str()
        .map_err(|_| Failure::argument(format!("`{what}` is not UTF-8")))
}

/// An optional NUL-terminated UTF-8 argument: NULL is `None`.
///
/// # Safety
/// As [`str_arg`].
pub(crate) unsafe fn optional_str_arg<'a>(
    text: *const c_char,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    if text.is_null() {
        return Ok(None);
    }
    // SAFETY: as the caller's.
    unsafe { str_arg(text, what) }.map(Some)
}

/// `len` bytes at `data` (NULL only with a length of 0).
///
/// # Safety
/// `data` is valid for reads of `len` bytes for `'a`, or NULL with `len == 0`.
pub(crate) unsafe fn bytes_arg<'a>(
    data: *const u8,
    len: usize,
    what: &str,
) -> Result<&'a [u8], Failure> {
    if data.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(Failure::argument(format!("`{what}` is NULL")))
        };
    }
    // SAFETY: valid for `len` bytes by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// A handle argument: a reference to what `pointer` points at.
///
/// # Safety
/// `pointer` is NULL or points at a live `T` for `'a`.
pub(crate) unsafe fn handle<'a, T>(pointer: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: NULL or live, by the caller's contract.
    unsafe { pointer.as_ref() }.ok_or_else(|| Failure::argument(format!("`{what}` is NULL")))
}

/// Writes `value` to an out-parameter named `what`.
///
/// # Safety
/// `out` is NULL or valid for one write.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::argument(format!("`{what}` is NULL")));
    }
    // SAFETY: not NULL, valid for one write by the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// Frees a string that hookhost returned (an error message, an outcome's JSON). NULL does
/// nothing. Thread-safe; the string must not be used afterwards, nor freed twice.
///
/// # Safety
/// `text` is NULL or a string hookhost returned and that was not freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_string_free(text: *mut c_char) {
    if !text.is_null() {
        // SAFETY: made by `CString::into_raw` in `owned_c_string`, not freed yet.
        drop(unsafe { CString::from_raw(text) });
    }
}
