//! The tokio runtime every runner of the process fires on, and the two ways a fire comes back
//! to Python: blocking (the calling thread waits, the GIL released) or through a callback
//! called from the runtime's thread (what `async` fires build on).

use std::future::Future;
use std::sync::OnceLock;

use pyo3::prelude::*;

use crate::HookhostError;

/// The runtime, started at the first fire: worker threads named `hookhost`, timers and I/O on
/// (command hooks' pipes and deadlines).
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .thread_name("hookhost")
            .enable_all()
            .build()
            .expect("hookhost: cannot start the tokio runtime")
    })
}

/// Runs `work` to completion on this thread, inside the runtime (what it spawns, and timers
/// and pipes, go to the runtime's workers), with the GIL released. Run here rather than spawned
/// and awaited: a fire with no hooks then costs no thread hop (python/bench/fire.py, one run
/// each under heavy CPU steal: 166.6 µs spawned, 24.7 µs here). A panic in `work` is a `HookhostError`, never an
/// abort.
pub fn block_on<T: Send + 'static>(
    py: Python<'_>,
    work: impl Future<Output = T> + Send + 'static,
) -> PyResult<T> {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runtime().block_on(work)))
    })
    .map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|text| (*text).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        HookhostError::new_err(format!(
            "hookhost panicked while firing the event: {message}"
        ))
    })
}

/// Runs `work` on the runtime and calls `done(result, None)` with its value turned into Python
/// by `convert`, or `done(None, error)`, from the runtime's thread. `done` must not raise (the
/// Python half's callbacks hand the result to the event loop and return); if it does, the error
/// is printed as an unraisable exception.
pub fn spawn_then<T: Send + 'static>(
    work: impl Future<Output = T> + Send + 'static,
    done: Py<PyAny>,
    convert: impl FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static,
) {
    let handle = runtime().spawn(work);
    runtime().spawn(async move {
        let result = handle.await;
        Python::attach(|py| {
            let args = match result.map_err(|error| panicked(&error)) {
                Ok(value) => match convert(py, value) {
                    Ok(value) => (value, py.None()),
                    Err(error) => (py.None(), error.into_value(py).into_any()),
                },
                Err(error) => (py.None(), error.into_value(py).into_any()),
            };
            if let Err(error) = done.call1(py, args) {
                error.write_unraisable(py, Some(done.bind(py)));
            }
        });
    });
}

fn panicked(error: &tokio::task::JoinError) -> PyErr {
    HookhostError::new_err(format!("hookhost panicked while firing the event: {error}"))
}
