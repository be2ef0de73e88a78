//! The C ABI called as C calls it: status codes and messages for bad arguments, a runner's
//! life (load, fire, close, free), a C callback with its user data freed once, a cancel from
//! another thread. The Go package's tests (go/) drive the same functions through cgo.

use std::ffi::{CStr, CString, c_char, c_void};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hookhost_capi::*;

/// A status and its message, the message freed.
fn outcome(status: Status, message: *mut c_char) -> (Status, String) {
    let text = if message.is_null() {
        String::new()
    } else {
        // SAFETY: a message hookhost returned, NUL-terminated.
        let text = unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: freed once, not used afterwards.
        unsafe { hookhost_string_free(message) };
        text
    };
    (status, text)
}

/// A runner for a fresh directory holding `hooks_toml`.
fn runner(dir: &tempfile::TempDir, hooks_toml: &str) -> *mut Runner {
    std::fs::write(dir.path().join("hooks.toml"), hooks_toml).unwrap();
    let cwd = CString::new(dir.path().to_str().unwrap()).unwrap();
    let mut options = null_mut();
    let mut message = null_mut();
    // SAFETY: valid strings and out-parameters, as C would pass them.
    unsafe {
        assert_eq!(
            outcome(
                hookhost_options_new(cwd.as_ptr(), &mut options, &mut message),
                message
            ),
            (Status::Ok, String::new())
        );
        let mut runner = null_mut();
        let path = CString::new("hooks.toml").unwrap();
        let status = hookhost_runner_load(options, path.as_ptr(), &mut runner, &mut message);
        hookhost_options_free(options);
        assert_eq!(outcome(status, message), (Status::Ok, String::new()));
        runner
    }
}

/// Fires `event` and returns the status, and the outcome's JSON or the message.
fn fire(runner: *const Runner, event: &str, cancel: *const Cancel) -> (Status, String) {
    let mut json = null_mut();
    let mut len = 0;
    let mut message = null_mut();
    // SAFETY: a live runner, a valid buffer and out-parameters.
    let status = unsafe {
        hookhost_runner_fire(
            runner,
            event.as_ptr(),
            event.len(),
            cancel,
            &mut json,
            &mut len,
            &mut message,
        )
    };
    if status == Status::Ok {
        let (_, text) = outcome(status, json);
        assert_eq!(text.len(), len);
        (status, text)
    } else {
        outcome(status, message)
    }
}

#[test]
fn the_abi_version_is_the_headers() {
    assert_eq!(hookhost_abi_version(), HOOKHOST_ABI_VERSION);
    // SAFETY: a static NUL-terminated string.
    let version = unsafe { CStr::from_ptr(hookhost_version()) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn bad_arguments_are_statuses_with_messages() {
    let mut options = null_mut();
    let mut message = null_mut();
    // SAFETY: NULL where the contract allows a check, valid out-parameters.
    unsafe {
        let status = hookhost_options_new(null(), &mut options, &mut message);
        assert_eq!(
            outcome(status, message),
            (Status::InvalidArgument, "`cwd` is NULL".into())
        );
        let cwd = CString::new("/").unwrap();
        assert_eq!(
            hookhost_options_new(cwd.as_ptr(), &mut options, null_mut()),
            Status::Ok
        );
        let status = hookhost_options_set_wasm_instances(options, 0, &mut message);
        assert_eq!(
            outcome(status, message),
            (
                Status::InvalidArgument,
                "`instances` is 0: it must be 1 to 1024".into()
            )
        );
        let name = CString::new("A=B").unwrap();
        let value = CString::new("x").unwrap();
        let status = hookhost_options_add_env(options, name.as_ptr(), value.as_ptr(), &mut message);
        assert_eq!(status, Status::InvalidArgument);
        hookhost_string_free(message);
        hookhost_options_free(options);
        let status = hookhost_runner_fire(
            null(),
            null(),
            0,
            null(),
            null_mut(),
            null_mut(),
            &mut message,
        );
        assert_eq!(
            outcome(status, message),
            (Status::InvalidArgument, "`runner` is NULL".into())
        );
        let status = hookhost_call_answer(null_mut(), null(), 0, &mut message);
        assert_eq!(
            outcome(status, message),
            (Status::Call, "`call` is NULL".into())
        );
    }
}

#[test]
fn a_bad_configuration_and_a_bad_event_say_where() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hooks.toml"), "[[hooks]]\nevent = 3\n").unwrap();
    let cwd = CString::new(dir.path().to_str().unwrap()).unwrap();
    let path = CString::new("hooks.toml").unwrap();
    let (mut options, mut runner, mut message) = (null_mut(), null_mut(), null_mut());
    // SAFETY: valid strings and out-parameters.
    let (status, text) = unsafe {
        hookhost_options_new(cwd.as_ptr(), &mut options, null_mut());
        let status = hookhost_runner_load(options, path.as_ptr(), &mut runner, &mut message);
        hookhost_options_free(options);
        outcome(status, message)
    };
    assert_eq!(status, Status::Config);
    assert!(text.contains("hooks.toml:2:"), "{text}");
    assert!(runner.is_null());

    let runner = self::runner(&dir, "");
    let (status, text) = fire(runner, r#"{"event":"PreToolUse"}"#, null());
    assert_eq!(
        (status, text.as_str()),
        (
            Status::Event,
            "the event's `tool` is missing: a PreToolUse event is about a tool call; give `tool` (the tool's name) and `input`"
        )
    );
    // SAFETY: a live runner, freed once.
    unsafe { hookhost_runner_free(runner) };
}

static FREED: AtomicUsize = AtomicUsize::new(0);

/// A blocking C callback: blocks `rm` commands, answering in forgeflare's protocol.
unsafe extern "C" fn guard(user_data: *mut c_void, call: *mut Call) {
    // SAFETY: the call is live until answered; the user data is the test's static string.
    unsafe {
        let mut len = 0;
        let event = std::slice::from_raw_parts(hookhost_call_event(call, &mut len), len);
        let event: serde_json::Value = serde_json::from_slice(event).unwrap();
        let word = CStr::from_ptr(user_data as *const c_char).to_str().unwrap();
        let answer = if event["input"]["command"]
            .as_str()
            .unwrap()
            .starts_with(word)
        {
            format!(r#"{{"action":"block","reason":"no {word} here"}}"#)
        } else {
            r#"{"action":"allow"}"#.to_string()
        };
        let status = hookhost_call_answer(call, answer.as_ptr(), answer.len(), null_mut());
        assert_eq!(status, Status::Ok);
    }
}

unsafe extern "C" fn count_free(_user_data: *mut c_void) {
    FREED.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn a_c_callback_guards_and_its_user_data_is_freed_once() {
    let dir = tempfile::tempdir().unwrap();
    let runner = runner(&dir, "");
    let spec = CString::new(r#"{"name":"c-guard","event":"PreToolUse","matcher":"Bash"}"#).unwrap();
    let mut message = null_mut();
    // SAFETY: a live runner; the callback is thread-safe, its user data a static string.
    let status = unsafe {
        hookhost_runner_register(
            runner,
            spec.as_ptr(),
            Some(guard),
            c"rm".as_ptr() as *mut c_void,
            Some(count_free),
            &mut message,
        )
    };
    assert_eq!(outcome(status, message), (Status::Ok, String::new()));
    let (status, json) = fire(
        runner,
        r#"{"event":"PreToolUse","tool":"Bash","input":{"command":"rm -rf /"}}"#,
        null(),
    );
    assert_eq!(status, Status::Ok);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        json["decision"]["message"],
        "blocked by c-guard: no rm here"
    );
    // An invalid spec: refused, and its user data freed at once.
    let bad = CString::new(r#"{"name":"x"}"#).unwrap();
    // SAFETY: as above.
    let status = unsafe {
        hookhost_runner_register(
            runner,
            bad.as_ptr(),
            Some(guard),
            null_mut(),
            Some(count_free),
            &mut message,
        )
    };
    let (status, text) = outcome(status, message);
    assert_eq!(status, Status::Hook);
    assert!(
        text.starts_with("invalid hook spec: missing field `event`"),
        "{text}"
    );
    assert_eq!(FREED.load(Ordering::SeqCst), 1);
    // SAFETY: every call on the runner has returned.
    unsafe {
        hookhost_runner_close(runner);
        hookhost_runner_free(runner);
    }
    // Freed by whichever thread drops the last use (the header says so): a worker that
    // finished the fire may still hold it a moment after the fire returned.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while FREED.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(FREED.load(Ordering::SeqCst), 2);
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(FREED.load(Ordering::SeqCst), 2, "freed once, not twice");
}

#[test]
fn a_cancel_from_another_thread_and_a_close_stop_a_fire() {
    let dir = tempfile::tempdir().unwrap();
    let runner = runner(
        &dir,
        "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"sleep 30\"\ntimeout_ms = 60000\n",
    );
    let event = r#"{"event":"PreToolUse","tool":"Bash","input":{}}"#;
    let cancel = hookhost_cancel_new();
    let trigger = cancel as usize;
    let started = Instant::now();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: the handle lives until the fire returned and this thread was joined.
        unsafe { hookhost_cancel_trigger(trigger as *const Cancel) };
    });
    let (status, text) = fire(runner, event, cancel);
    canceller.join().unwrap();
    assert_eq!(status, Status::Cancelled);
    assert!(
        text.starts_with("the PreToolUse fire was cancelled"),
        "{text}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // SAFETY: no fire uses it any more.
    unsafe { hookhost_cancel_free(cancel) };

    let closer = runner as usize;
    let closing = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: the runner is freed only after this thread was joined.
        unsafe { hookhost_runner_close(closer as *const Runner) };
    });
    let (status, text) = fire(runner, event, null());
    closing.join().unwrap();
    assert_eq!(
        (status, text.as_str()),
        (
            Status::Closed,
            "the runner is closed (hookhost_runner_close): load a new one to fire events"
        )
    );
    assert_eq!(fire(runner, event, null()).0, Status::Closed);
    // SAFETY: every call on the runner has returned.
    unsafe { hookhost_runner_free(runner) };
}
