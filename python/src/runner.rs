//! `NativeRunner`: a [`HookRunner`] as the Python half sees it. Events and outcomes cross as
//! JSON text (json.dumps / json.loads on the Python side): one documented shape, no hand-written
//! conversion per field.

use std::path::PathBuf;
use std::sync::Mutex;

use hookhost::agent::sdk::{SdkAnswer, sdk_callback};
use hookhost::embed::{CancelToken, ForeignHookSpec};
use hookhost::{HookRunner, Layers, RunnerOptions};
use pyo3::prelude::*;

use crate::calls::{FireHandle, call_python, fire};
use crate::runtime::{block_on, spawn_then};
use crate::{ClosedError, ConfigError};

/// A loaded runner, until `close`.
#[pyclass(frozen, module = "hookhost._native")]
#[derive(Debug)]
pub struct NativeRunner {
    runner: Mutex<Option<HookRunner>>,
    /// Cancelled by `close`: fires in flight stop and raise `ClosedError`.
    closed: CancelToken,
}

impl NativeRunner {
    fn new(runner: HookRunner) -> NativeRunner {
        NativeRunner {
            runner: Mutex::new(Some(runner)),
            closed: CancelToken::new(),
        }
    }

    /// The runner, or `ClosedError` once closed. A fire holds its own clone: closing does not
    /// wait for fires in flight, it refuses new ones.
    fn runner(&self) -> PyResult<HookRunner> {
        self.runner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| ClosedError::new_err("the runner is closed: it runs no more events"))
    }
}

/// The options every constructor takes, as the Python half passes them.
fn options(
    cwd: Option<PathBuf>,
    env: Option<Vec<(String, String)>>,
    state_dir: Option<PathBuf>,
    forward_stderr: bool,
) -> PyResult<RunnerOptions> {
    let cwd = match cwd {
        Some(cwd) => cwd,
        None => std::env::current_dir().map_err(|error| {
            ConfigError::new_err(format!("cannot read the current directory: {error}"))
        })?,
    };
    let mut options = RunnerOptions::new(std::path::absolute(&cwd).unwrap_or(cwd));
    options.env = env.unwrap_or_default();
    options.state_dir = state_dir;
    options.forward_stderr = forward_stderr;
    Ok(options)
}

/// A runner, or the error as `ConfigError`; with `fail_closed`, a runner that blocks every
/// gate event with the error instead.
fn loaded(
    result: Result<HookRunner, hookhost::ConfigError>,
    options: RunnerOptions,
    fail_closed: bool,
) -> PyResult<NativeRunner> {
    match result {
        Ok(runner) => Ok(NativeRunner::new(runner)),
        Err(error) if fail_closed => Ok(NativeRunner::new(HookRunner::fail_closed(error, options))),
        Err(error) => Err(ConfigError::new_err(error.to_string())),
    }
}

#[pymethods]
impl NativeRunner {
    /// `HookRunner::load`: one hooks.toml (a missing file: no hooks), the organisation's
    /// managed file first where the machine has one.
    #[staticmethod]
    #[pyo3(signature = (path, cwd=None, env=None, state_dir=None, forward_stderr=false, fail_closed=false))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        cwd: Option<PathBuf>,
        env: Option<Vec<(String, String)>>,
        state_dir: Option<PathBuf>,
        forward_stderr: bool,
        fail_closed: bool,
    ) -> PyResult<NativeRunner> {
        let options = options(cwd, env, state_dir, forward_stderr)?;
        let load_options = options.clone();
        // Loading compiles wasm hooks (or reads them from the compile cache): not under the GIL.
        let result = py.detach(move || HookRunner::load(path, load_options));
        loaded(result, options, fail_closed)
    }

    /// `HookRunner::load_layers`: the user's file, the project's and its local override
    /// (`discover`: found from `cwd` as `hookhost agent-hook` finds them; a path given here
    /// replaces the one found), under the `[projects]` policy.
    #[staticmethod]
    #[pyo3(signature = (cwd=None, user=None, project=None, local=None, discover=true, env=None, state_dir=None, forward_stderr=false, fail_closed=false))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments, one per option.
    fn layers(
        py: Python<'_>,
        cwd: Option<PathBuf>,
        user: Option<PathBuf>,
        project: Option<PathBuf>,
        local: Option<PathBuf>,
        discover: bool,
        env: Option<Vec<(String, String)>>,
        state_dir: Option<PathBuf>,
        forward_stderr: bool,
        fail_closed: bool,
    ) -> PyResult<NativeRunner> {
        let options = options(cwd, env, state_dir, forward_stderr)?;
        let mut layers = if discover {
            Layers::discover(&options.cwd)
        } else {
            Layers {
                approvals: hookhost::approvals::Approvals::default_path(),
                ..Layers::default()
            }
        };
        if let Some(project) = project {
            let beside = project.with_file_name("hooks.local.toml");
            layers.local = beside.exists().then_some(beside);
            layers.project = Some(project);
        }
        layers.user = user.or(layers.user);
        layers.local = local.or(layers.local);
        let load_options = options.clone();
        let result = py.detach(move || HookRunner::load_layers(&layers, load_options));
        loaded(result, options, fail_closed)
    }

    /// Fires the event of `event` (JSON text) and returns the outcome's JSON text, the calling
    /// thread waiting with the GIL released.
    fn fire(&self, py: Python<'_>, event: String) -> PyResult<String> {
        let runner = self.runner()?;
        let work = fire(runner, event, CancelToken::new(), self.closed.clone());
        block_on(py, work)?.map_err(PyErr::from)
    }

    /// `fire` for asyncio: returns at once a handle that can cancel the fire, and calls
    /// `done(outcome_json, None)` or `done(None, error)` from the runtime's thread.
    fn fire_then(&self, event: String, done: Py<PyAny>) -> PyResult<FireHandle> {
        let runner = self.runner()?;
        let cancel = CancelToken::new();
        let work = fire(runner, event, cancel.clone(), self.closed.clone());
        spawn_then(work, done, |py, result| {
            Ok(result?.into_pyobject(py)?.into_any().unbind())
        });
        Ok(FireHandle::new(cancel))
    }

    /// Adds `callback` as an in-process hook described by `spec` (embed's `ForeignHookSpec`
    /// JSON). `callback(event_json, cancel_flag)` returns the answer's JSON text; it is called
    /// on a thread of the runtime's blocking pool, under the GIL.
    fn register(&self, spec: &str, callback: Py<PyAny>) -> PyResult<()> {
        let runner = self.runner()?;
        let spec = ForeignHookSpec::parse(spec.as_bytes()).map_err(ConfigError::new_err)?;
        if spec.call.as_deref().is_some_and(|call| call != "blocking") {
            return Err(ConfigError::new_err(
                "a Python hook is called on a thread of its own: `call` must be \"blocking\"",
            ));
        }
        let hook = spec
            .build(move |call| call_python(&callback, call))
            .map_err(|error| ConfigError::new_err(error.to_string()))?;
        runner.register(hook);
        Ok(())
    }

    /// The Claude Agent SDK's hook callback: `input` is the SDK's hook input as JSON; returns
    /// the callback's output as JSON and the diagnostics Claude Code would have read on stderr.
    fn claude(&self, py: Python<'_>, input: String) -> PyResult<(String, String)> {
        let runner = self.runner()?;
        let answer = block_on(py, async move { sdk_callback(&runner, &input).await })?;
        Ok(sdk_json(answer))
    }

    /// `claude` for `async` callbacks: returns at once, and calls `done((output, diagnostics),
    /// None)` or `done(None, error)` from the runtime's thread when the hooks have run.
    fn claude_then(&self, input: String, done: Py<PyAny>) -> PyResult<()> {
        let runner = self.runner()?;
        spawn_then(
            async move { sdk_callback(&runner, &input).await },
            done,
            |py, answer| Ok(sdk_json(answer).into_pyobject(py)?.into_any().unbind()),
        );
        Ok(())
    }

    /// Refuses every later fire, and cancels the fires in flight: both raise `ClosedError`.
    fn close(&self) {
        self.runner.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.closed.cancel();
    }

    /// True once `close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.runner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_none()
    }

    /// The configuration error a fail-closed runner blocks with, if any.
    #[getter]
    fn load_error(&self) -> PyResult<Option<String>> {
        Ok(self.runner()?.load_error().map(|error| error.to_string()))
    }
}

fn sdk_json(answer: SdkAnswer) -> (String, String) {
    (
        serde_json::Value::Object(answer.output).to_string(),
        answer.diagnostics,
    )
}
