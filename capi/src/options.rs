//! `hookhost_options`: how a runner is set up beyond its configuration (the project
//! directory, the agent's name and variables, where state and the compile cache live), as
//! [`hookhost::RunnerOptions`] says.

use std::ffi::c_char;
use std::path::PathBuf;
use std::time::Duration;

use hookhost::RunnerOptions;
use hookhost::wasm::CacheMode;

use crate::boundary::{Failure, Status, guard, handle, str_arg, write_out};

/// A runner's settings. Made by `hookhost_options_new`, changed by the `hookhost_options_set_*`
/// functions, read (never kept) by the `hookhost_runner_*` loaders, freed by
/// `hookhost_options_free`. Not thread-safe: one thread at a time may change it.
#[derive(Debug)]
pub struct Options {
    pub(crate) options: RunnerOptions,
}

/// Makes settings for an agent working in `cwd` (a NUL-terminated UTF-8 path; relative paths
/// resolve against this process's directory now): hooks run in it and are told it, and a
/// project's hooks.toml is looked for in it. Defaults otherwise, except that hook stderr is not
/// forwarded to this process's stderr (reports carry it). On success `*out` is a new handle the
/// caller owns and frees with `hookhost_options_free`.
///
/// Thread-safe. `error`: NULL, or where a message the caller frees goes.
///
/// # Safety
/// `cwd` is NULL or a NUL-terminated string; `out` and `error` are NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_new(
    cwd: *const c_char,
    out: *mut *mut Options,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            let cwd = str_arg(cwd, "cwd")?;
            if cwd.is_empty() {
                return Err(Failure::argument("`cwd` is empty"));
            }
            let cwd = std::path::absolute(cwd)
                .map_err(|e| Failure::argument(format!("`cwd` {cwd:?}: {e}")))?;
            let mut options = RunnerOptions::new(cwd);
            options.forward_stderr = false;
            let handle = Box::into_raw(Box::new(Options { options }));
            write_out(out, handle, "out").inspect_err(|_| {
                // SAFETY: made just above and never handed out.
                drop(Box::from_raw(handle));
            })
        })
    }
}

/// Frees settings made by `hookhost_options_new`. NULL does nothing. A runner loaded with them
/// does not need them any more.
///
/// # Safety
/// `options` is NULL or a live handle no other thread uses; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_free(options: *mut Options) {
    if !options.is_null() {
        // SAFETY: made by `Box::into_raw` in `hookhost_options_new`, freed once.
        drop(unsafe { Box::from_raw(options) });
    }
}

/// Runs `change` on the options behind `options`.
///
/// # Safety
/// `options` is NULL or a live handle no other thread uses; `error` is NULL or valid for a
/// write.
unsafe fn change(
    options: *mut Options,
    error: *mut *mut c_char,
    change: impl FnOnce(&mut RunnerOptions) -> Result<(), Failure>,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error, || {
            handle(options, "options")?;
            change(&mut (*options).options)
        })
    }
}

/// Names the agent (`HOOKHOST_AGENT` for every command hook, and the decision log's `agent`).
///
/// # Safety
/// `options` is a live handle no other thread uses; `name` a NUL-terminated string; `error`
/// NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_set_agent(
    options: *mut Options,
    name: *const c_char,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            let name = str_arg(name, "name")?;
            options.env.retain(|(key, _)| key != "HOOKHOST_AGENT");
            options.env.push(("HOOKHOST_AGENT".into(), name.into()));
            Ok(())
        })
    }
}

/// Adds a variable every command hook gets, on top of this process's environment (an event's
/// `env` adds more per event).
///
/// # Safety
/// `options` is a live handle no other thread uses; `name` and `value` NUL-terminated strings;
/// `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_add_env(
    options: *mut Options,
    name: *const c_char,
    value: *const c_char,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            let name = str_arg(name, "name")?;
            let value = str_arg(value, "value")?;
            if name.is_empty() || name.contains('=') {
                return Err(Failure::argument(format!(
                    "`name` {name:?} is not a variable name (empty, or with `=`)"
                )));
            }
            options.env.push((name.into(), value.into()));
            Ok(())
        })
    }
}

/// Where `convergence.json` lives (default: `{cwd}/.forgeflare`).
///
/// # Safety
/// As `hookhost_options_set_agent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_set_state_dir(
    options: *mut Options,
    dir: *const c_char,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            options.state_dir = Some(PathBuf::from(str_arg(dir, "dir")?));
            Ok(())
        })
    }
}

/// Forwards each hook's stderr to this process's stderr, line by line under the hook's name
/// (default: off; reports carry it either way).
///
/// # Safety
/// `options` is a live handle no other thread uses; `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_set_forward_stderr(
    options: *mut Options,
    forward: bool,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            options.forward_stderr = forward;
            Ok(())
        })
    }
}

/// The shell that runs command hooks as `{shell} -c {command}` (default: `bash` on PATH).
///
/// # Safety
/// As `hookhost_options_set_agent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_set_shell(
    options: *mut Options,
    shell: *const c_char,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            options.shell = PathBuf::from(str_arg(shell, "shell")?);
            Ok(())
        })
    }
}

/// Where compiled wasm hooks are cached: `"default"` (the user's cache directory, or
/// `$HOOKHOST_CACHE_DIR`), `"off"` (compile at every load), or a directory.
///
/// # Safety
/// As `hookhost_options_set_agent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_set_wasm_cache(
    options: *mut Options,
    cache: *const c_char,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            options.cache = match str_arg(cache, "cache")? {
                "default" => CacheMode::Default,
                "off" => CacheMode::Disabled,
                "" => {
                    return Err(Failure::argument(
                        "`cache` is empty: use default, off or a directory",
                    ));
                }
                dir => CacheMode::Dir(PathBuf::from(dir)),
            };
            Ok(())
        })
    }
}

/// How many wasm calls can be in flight at once (1 to 1024; default 64): the size of the
/// instance pool, whose address space is reserved when the first wasm hook loads.
///
/// # Safety
/// `options` is a live handle no other thread uses; `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_set_wasm_instances(
    options: *mut Options,
    instances: u32,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            if !(1..=1024).contains(&instances) {
                return Err(Failure::argument(format!(
                    "`instances` is {instances}: it must be 1 to 1024"
                )));
            }
            options.wasm_instances = instances;
            Ok(())
        })
    }
}

/// How many async hooks run at once (default 8; at least 1); more wait in a queue.
///
/// # Safety
/// `options` is a live handle no other thread uses; `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_set_background_limit(
    options: *mut Options,
    limit: u32,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            if limit == 0 {
                return Err(Failure::argument(
                    "`limit` is 0: at least one async hook must run",
                ));
            }
            options.background_limit = limit as usize;
            Ok(())
        })
    }
}

/// How long a `SessionEnd` fire waits for async hooks to finish (default 10000 ms).
///
/// # Safety
/// `options` is a live handle no other thread uses; `error` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hookhost_options_set_drain_timeout_ms(
    options: *mut Options,
    timeout_ms: u64,
    error: *mut *mut c_char,
) -> Status {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        change(options, error, |options| {
            options.drain_timeout = Duration::from_millis(timeout_ms);
            Ok(())
        })
    }
}
