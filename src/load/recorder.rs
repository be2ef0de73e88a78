//! Which recorder a runner is handed: whose `[log]` and `[telemetry]` a runner over layers
//! records with (the organisation's, else the user's; never a project's telemetry), the
//! decision log's writer and the OpenTelemetry export started beside it.

use std::sync::Arc;

use crate::config::{Config, Layer, TelemetrySpec};
use crate::decision::{DecisionLog, Recorder, SharedRecorder};
use crate::recording::OutcomeRecorder;

/// Where the outcomes of runners over `configs` are recorded: the log [`pick_log`] picks, and
/// the telemetry export [`pick_telemetry`] starts. `own_file`: the configuration is one file an
/// embedder loaded itself ([`HookRunner::load`]), not layers found on disk.
pub(super) fn recorder(configs: &[(Layer, Config)], own_file: bool) -> Option<Recorder> {
    recorder_for(configs, own_file)
}

/// [`recorder`], shared, as the runner is handed it.
pub(super) fn handed(recorder: Option<Recorder>) -> Option<Arc<dyn OutcomeRecorder>> {
    recorder.map(|recorder| Arc::new(SharedRecorder::new(recorder)) as Arc<dyn OutcomeRecorder>)
}

fn recorder_for(configs: &[(Layer, Config)], own_file: bool) -> Option<Recorder> {
    let mut problems = Vec::new();
    let export = match pick_telemetry(configs, own_file, &mut problems) {
        Ok(export) => export,
        Err(problem) => {
            problems.push(problem);
            None
        }
    };
    let recorder = Recorder::new(pick_log(configs, own_file, &mut problems), export);
    for problem in problems {
        match &recorder {
            Some(recorder) => recorder.warn_once(problem),
            // Nothing else will say it: telemetry was all there was to record into.
            None => eprintln!("hookhost: {problem}"),
        }
    }
    recorder
}

/// The telemetry export: `[telemetry]` of the organisation's managed file, else of the user's
/// own file (or of the one file an embedder loaded), or the `OTEL_*` variables alone. A project's or a local file's `[telemetry]` is
/// ignored with a warning: a cloned repository must not choose where its users' commands are
/// sent. A problem the variables cause (a file's table is checked when it is parsed) turns
/// telemetry off with a warning: telemetry never changes a decision, nor stops an agent.
#[cfg(feature = "telemetry")]
fn pick_telemetry(
    configs: &[(Layer, Config)],
    own_file: bool,
    problems: &mut Vec<String>,
) -> Result<Option<std::sync::Arc<dyn crate::decision::Export>>, String> {
    let (spec, ignored) = telemetry_table(configs, own_file);
    problems.extend(ignored);
    // `spool = true`: records wait in the decision log for `hookhost log --export`.
    if spec.is_some_and(|spec| spec.spool) {
        return Ok(None);
    }
    match crate::telemetry::Telemetry::configure(spec, &|name| std::env::var(name).ok()) {
        Ok(configured) => Ok(configured.map(|c| std::sync::Arc::new(Starting::start(c)) as _)),
        Err(error) => Err(format!(
            "telemetry is off: {}",
            crate::text::error_chain(&error)
        )),
    }
}

#[cfg(not(feature = "telemetry"))]
fn pick_telemetry(
    _: &[(Layer, Config)],
    _: bool,
    _: &mut Vec<String>,
) -> Result<Option<std::sync::Arc<dyn crate::decision::Export>>, String> {
    Ok(None)
}

/// The `[telemetry]` of `configs` that counts: the organisation's managed file's, else the
/// user's own (or, `own_file`, that of the one file an embedder loaded itself), and a warning
/// for each other file's, which is ignored: a cloned repository must not choose where its
/// users' commands are sent.
pub(super) fn telemetry_table(
    configs: &[(Layer, Config)],
    own_file: bool,
) -> (Option<&TelemetrySpec>, Vec<String>) {
    let mut spec = None;
    let mut ignored = Vec::new();
    for (layer, config) in configs {
        let Some(table) = &config.telemetry else {
            continue;
        };
        let counts = matches!(layer, Layer::Managed | Layer::User) || own_file;
        if counts && spec.is_some() {
            // Only the organisation's comes before: it wins.
            ignored.push(format!(
                "[telemetry] in {} is overridden by the organisation's managed configuration's",
                config.path.display()
            ));
        } else if counts {
            spec = Some(table);
        } else {
            ignored.push(format!(
                "[telemetry] in {} is ignored: only your own hooks.toml ({}) says where \
                 decisions are sent, not a project's",
                config.path.display(),
                crate::dirs::config_dir().map_or_else(
                    || "in the user's configuration directory".to_string(),
                    |dir| dir.join("hooks.toml").display().to_string()
                )
            ));
        }
    }
    (spec, ignored)
}

/// The organisation's `[log]` holds for every layer (one log is recorded into: the user's
/// own `[log]` is then overridden, and `hookhost check` says so); else the user's: a project
/// may not turn it off or redirect it. Without either, the first layer that has one (the
/// project's, then the local file's), confined: a project's log must lie inside the project or
/// hookhost's state directory (a cloned repository must not make hookhost write, or rotate
/// aside, the user's files); one elsewhere is replaced by `decisions.jsonl` in the state
/// directory, with a problem saying so. `own_file`: the one file an embedder loaded itself.
pub(super) fn pick_log(
    configs: &[(Layer, Config)],
    own_file: bool,
    problems: &mut Vec<String>,
) -> Option<DecisionLog> {
    let (layer, config) = configs
        .iter()
        .filter(|(_, config)| config.log.is_some())
        .min_by_key(|(layer, _)| match layer {
            Layer::Managed => 0,
            Layer::User => 1,
            _ => 2,
        })?;
    let spec = config.log.clone()?;
    let log = DecisionLog::new(spec.clone(), config.base_dir());
    if own_file || matches!(layer, Layer::Managed | Layer::User | Layer::Runtime) {
        return Some(log);
    }
    let project = crate::approvals::Coverage::project_dir(&config.path);
    let state = crate::dirs::state_dir();
    let path = log.file.path();
    if within(path, &project) || state.as_deref().is_some_and(|state| within(path, state)) {
        return Some(log.without_following_links());
    }
    let instead = state.map(|state| state.join("decisions.jsonl"));
    problems.push(format!(
        "[log] path {} in {} is outside the project ({}): a project may keep its decision log \
         only inside itself or hookhost's state directory; records go to {} instead",
        crate::text::quote(&spec.path.display().to_string()),
        config.path.display(),
        project.display(),
        instead
            .as_ref()
            .map_or("nowhere (no home directory)".to_string(), |p| p
                .display()
                .to_string()),
    ));
    let spec = crate::config::LogSpec {
        path: instead?,
        ..spec
    };
    Some(DecisionLog::new(spec, config.base_dir()).without_following_links())
}

/// Whether `path` lies inside `dir`, after resolving the symlinks of every part of it that
/// exists (the file itself included): a link inside the project that points out is outside.
fn within(path: &std::path::Path, dir: &std::path::Path) -> bool {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| crate::dirs::lexical(dir));
    let path = crate::dirs::lexical(path);
    let mut existing = path.as_path();
    let mut rest = Vec::new();
    let resolved = loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            break rest.iter().rev().fold(real, |real, part| real.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break path.clone(),
        }
    };
    resolved.starts_with(&dir)
}

/// The OpenTelemetry export as the recorder's [`crate::decision::Export`], started on a thread
/// of its own while the runner loads and the first hooks run (its threads and exporters are
/// most of what telemetry costs a short-lived `agent-hook`); the recorder's writer waits for it
/// on its first record. A flush bounded by `exit_timeout_ms` when the recorder goes away.
#[cfg(feature = "telemetry")]
#[derive(Debug)]
pub(crate) struct Starting {
    thread: std::sync::Mutex<Option<std::thread::JoinHandle<Started>>>,
    started: std::sync::OnceLock<Started>,
}

#[cfg(feature = "telemetry")]
type Started = Result<crate::telemetry::Telemetry, String>;

#[cfg(feature = "telemetry")]
impl Starting {
    pub(crate) fn start(configured: crate::telemetry::Configured) -> Starting {
        let start = |configured: crate::telemetry::Configured| {
            configured
                .start()
                .map_err(|error| crate::text::error_chain(&error))
        };
        let (thread, started) = match std::thread::Builder::new()
            .name("hookhost-otlp-start".into())
            .spawn(move || start(configured))
        {
            Ok(thread) => (Some(thread), std::sync::OnceLock::new()),
            Err(error) => (
                None,
                std::sync::OnceLock::from(Err(format!("cannot start a thread: {error}"))),
            ),
        };
        Starting {
            thread: std::sync::Mutex::new(thread),
            started,
        }
    }

    fn telemetry(&self) -> &Started {
        self.started.get_or_init(|| {
            let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
            match thread.map(std::thread::JoinHandle::join) {
                Some(Ok(started)) => started,
                Some(Err(_)) => Err("its start panicked".to_string()),
                None => Err("it was never started".to_string()),
            }
        })
    }
}

#[cfg(feature = "telemetry")]
impl crate::decision::Export for Starting {
    fn export(&self, records: &[serde_json::Value]) {
        if let Ok(telemetry) = self.telemetry() {
            telemetry.export(records);
        }
    }

    fn count_dropped(&self, records: u64) {
        if let Ok(telemetry) = self.telemetry() {
            telemetry.count_dropped(records);
        }
    }

    fn finish(&self) -> Option<String> {
        match self.telemetry() {
            Ok(telemetry) => telemetry.shutdown(telemetry.exit_timeout()).warning(),
            Err(why) => Some(format!("telemetry is off: {why}")),
        }
    }
}
