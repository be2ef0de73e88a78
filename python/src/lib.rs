//! `hookhost._native`: the native half of the `hookhost` Python package (PyO3, the stable ABI).
//!
//! The Python half (`python/hookhost/`) holds the API users see (typed outcomes, `async`
//! fires, decorators, the Claude Agent SDK helper); this module holds what must be native: a
//! [`hookhost::HookRunner`] driven on a tokio runtime of this module's own (`runtime`), with
//! the GIL released while hooks run, Python callables as in-process hooks, and hookhost's
//! errors as Python exceptions.
//!
//! ```text
//! Python: Runner.fire(event) ──▶ NativeRunner.fire (GIL released) ──▶ HookRunner::fire on the
//!         await fire_async ────▶ NativeRunner.fire_then(done) ──────▶ runtime's threads; done(...)
//!                                                                      from there, under the GIL
//! ```
//!
//! Nothing panics into Python: PyO3 turns a panic in a method into `PanicException`, and a
//! panic in a fire running on the runtime is a `HookhostError` handed to its callback.

mod calls;
mod runner;
mod runtime;

use pyo3::prelude::*;

pyo3::create_exception!(
    _native,
    HookhostError,
    pyo3::exceptions::PyException,
    "An error from hookhost: the message is hookhost's."
);
pyo3::create_exception!(
    _native,
    ConfigError,
    HookhostError,
    "A hooks.toml that does not load (the message names the file, line and hook), or bad options."
);
pyo3::create_exception!(
    _native,
    EventError,
    HookhostError,
    "An event hookhost cannot read: the message names the key at fault."
);
pyo3::create_exception!(
    _native,
    CancelledError,
    HookhostError,
    "The fire was cancelled before its hooks answered: there is no decision."
);
pyo3::create_exception!(
    _native,
    ClosedError,
    HookhostError,
    "The runner was closed: it runs no more events."
);

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("HookhostError", py.get_type::<HookhostError>())?;
    module.add("ConfigError", py.get_type::<ConfigError>())?;
    module.add("EventError", py.get_type::<EventError>())?;
    module.add("CancelledError", py.get_type::<CancelledError>())?;
    module.add("ClosedError", py.get_type::<ClosedError>())?;
    module.add_class::<runner::NativeRunner>()?;
    module.add_class::<calls::CancelFlag>()?;
    module.add_class::<calls::FireHandle>()?;
    Ok(())
}
