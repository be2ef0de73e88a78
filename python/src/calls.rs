//! One fire, and one call of a Python hook: what runs on the runtime's threads, and how its
//! failures become Python exceptions.

use hookhost::HookRunner;
use hookhost::embed::{CallbackError, CancelToken, FireError, ForeignCall, fire_json};
use pyo3::prelude::*;

use crate::{CancelledError, ClosedError, EventError};

/// Why a fire gave no outcome.
#[derive(Debug)]
pub enum FireFailure {
    /// The event's JSON was refused, or the fire was cancelled.
    Fire(FireError),
    /// The runner was closed while the fire ran.
    Closed(String),
}

impl From<FireFailure> for PyErr {
    fn from(failure: FireFailure) -> PyErr {
        match failure {
            FireFailure::Fire(FireError::Event(error)) => {
                EventError::new_err(hookhost::text::error_chain(&error))
            }
            FireFailure::Fire(FireError::Cancelled(cancelled)) => {
                CancelledError::new_err(cancelled.to_string())
            }
            FireFailure::Closed(message) => ClosedError::new_err(message),
        }
    }
}

/// Fires `event` (JSON text) through `runner` until it answers, `cancel` is cancelled, or the
/// runner is `closed`: then the fire is dropped (its command hooks killed, its wasm calls
/// stopped, its Python hooks told through their flag) and there is no outcome.
pub async fn fire(
    runner: HookRunner,
    event: String,
    cancel: CancelToken,
    closed: CancelToken,
) -> Result<String, FireFailure> {
    tokio::select! {
        biased;
        () = closed.cancelled() => Err(FireFailure::Closed(
            "the runner was closed before the event's hooks answered: there is no decision".into(),
        )),
        result = fire_json(&runner, event.as_bytes(), Some(&cancel)) => match result {
            // The outcome's JSON is UTF-8: serde_json writes nothing else.
            Ok(json) => Ok(String::from_utf8_lossy(&json).into_owned()),
            Err(error) => Err(FireFailure::Fire(error)),
        },
    }
}

/// Calls a Python hook (the Python half's adapter: `callback(event_json, flag) -> str`) for
/// `call`, under the GIL, and answers the call with what it returned, or fails it with the
/// exception (`TypeName: message`).
pub fn call_python(callback: &Py<PyAny>, call: ForeignCall) {
    let answer = Python::attach(|py| {
        let event = String::from_utf8_lossy(call.event_json()).into_owned();
        let flag = CancelFlag {
            token: call.cancel_token().clone(),
        };
        callback
            .call1(py, (event, flag))
            .and_then(|answer| answer.extract::<String>(py))
            .map_err(|error| error.to_string())
    });
    match answer {
        Ok(json) => call.answer(json.into_bytes()),
        Err(message) => call.fail(CallbackError::Failed(message)),
    }
}

/// What a Python hook that takes a second argument gets: `cancelled` turns true when hookhost
/// abandons the call (its timeout passed, or its fire was cancelled); its answer is then
/// discarded, so a long hook may stop early.
#[pyclass(frozen, module = "hookhost._native")]
#[derive(Debug)]
pub struct CancelFlag {
    token: CancelToken,
}

#[pymethods]
impl CancelFlag {
    /// True once hookhost abandoned the call.
    #[getter]
    fn cancelled(&self) -> bool {
        self.token.is_cancelled()
    }
}

/// A fire started by `fire_then`: `cancel()` stops it (it then fails with `CancelledError`).
#[pyclass(frozen, module = "hookhost._native")]
#[derive(Debug)]
pub struct FireHandle {
    token: CancelToken,
}

impl FireHandle {
    pub fn new(token: CancelToken) -> FireHandle {
        FireHandle { token }
    }
}

#[pymethods]
impl FireHandle {
    /// Cancels the fire; nothing if it already answered.
    fn cancel(&self) {
        self.token.cancel();
    }
}
