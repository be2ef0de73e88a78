//! OpenTelemetry export of decision records (feature `telemetry`): each record the decision
//! log writes becomes a span per event with a child span per hook, adds to a few metrics, and,
//! with `logs = true`, is also sent as a log record linked to its span; over OTLP/HTTP
//! (protobuf) or gRPC.
//!
//! ```text
//! [telemetry] + OTEL_* ──settings──▶ Settings ──pipeline──▶ providers (batch processors, a
//!                                                           periodic reader; one runtime
//!                                                           thread carries every request)
//! records ──Telemetry::export──▶ emit: spans, metrics, log records ──▶ collector
//! exit ──Telemetry::shutdown(bound)──▶ flushed, or given up on at the bound: Shutdown
//! ```
//!
//! A leaf: it reads records (JSON, already masked) and knows nothing of the runner. Nothing it
//! does changes a decision: an export never panics across [`Telemetry::export`], and never
//! waits on the collector (the SDK's processors do, on threads of their own, each request
//! bounded by `timeout_ms`, retries included). The one wait is [`Telemetry::shutdown`], bounded
//! by what the caller passes (`exit_timeout_ms` at the end of a short-lived process).
//!
//! Metrics use delta temporality unless `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`
//! says otherwise: `hookhost agent-hook` is one process per tool call, and each process reports
//! what it saw; cumulative series from thousands of one-event processes would each start anew.

mod emit;
mod pipeline;
mod settings;
mod tally;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use opentelemetry::logs::LoggerProvider as _;
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::logs::SdkLogger;
use opentelemetry_sdk::trace::SdkTracer;

pub use settings::{DEFAULT_EXIT_TIMEOUT, DEFAULT_TIMEOUT};

use crate::config::TelemetrySpec;
use emit::Instruments;
use pipeline::{Providers, RuntimeThread};
use tally::Tally;

/// Why telemetry could not start. Configuration that the file holds is checked when it is
/// parsed; these come from the environment or from the machine.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// An `OTEL_*` variable holds something hookhost cannot use.
    #[error("{name}={value:?} is not {expected}")]
    Variable {
        /// The variable.
        name: &'static str,
        /// What it holds.
        value: String,
        /// What it should hold.
        expected: &'static str,
    },
    /// The runtime thread that carries requests could not start.
    #[error("cannot start the telemetry thread")]
    Runtime(#[source] std::io::Error),
    /// The HTTP client or gRPC metadata could not be built.
    #[error("cannot build the OTLP client")]
    Client(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The OTLP exporter refused its configuration.
    #[error("cannot build the OTLP exporter")]
    Exporter(#[source] opentelemetry_otlp::ExporterBuildError),
}

/// What a shutdown sent and lost, for a warning.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shutdown {
    /// Spans the collector accepted, since the start.
    pub spans_sent: u64,
    /// Spans made that it did not accept (refused, timed out, or still queued at the bound).
    pub spans_lost: u64,
    /// Log records the collector accepted.
    pub logs_sent: u64,
    /// Log records made that it did not accept.
    pub logs_lost: u64,
    /// Whether the last metrics export reached the collector (true when nothing was measured).
    pub metrics_sent: bool,
    /// Whether the flush was given up on at the bound.
    pub timed_out: bool,
    /// How long the shutdown took.
    pub elapsed: Duration,
}

impl Shutdown {
    /// One line for a warning when something was lost; `None` when everything arrived.
    pub fn warning(&self) -> Option<String> {
        if self.spans_lost == 0 && self.logs_lost == 0 && self.metrics_sent {
            return None;
        }
        let mut lost = vec![format!("{} span(s)", self.spans_lost)];
        if self.logs_lost > 0 {
            lost.push(format!("{} log record(s)", self.logs_lost));
        }
        if !self.metrics_sent {
            lost.push("the metrics".to_string());
        }
        let why = if self.timed_out {
            format!(
                "the collector did not answer within {} ms",
                self.elapsed.as_millis()
            )
        } else {
            "the collector refused them or could not be reached".to_string()
        };
        Some(format!(
            "telemetry: {} not exported ({why})",
            lost.join(", ")
        ))
    }
}

/// Telemetry configured and not started yet ([`Telemetry::configure`]).
#[derive(Debug)]
pub struct Configured {
    settings: settings::Settings,
}

impl Configured {
    /// Where spans go: the collector's URL (OTLP/HTTP's `/v1/traces` left out, as
    /// `endpoint` is written).
    pub fn endpoint(&self) -> &str {
        let endpoint = &self.settings.traces.endpoint;
        endpoint.strip_suffix("/v1/traces").unwrap_or(endpoint)
    }

    /// Starts the exporters: the runtime thread, the SDK's providers.
    pub fn start(self) -> Result<Telemetry, TelemetryError> {
        let settings = self.settings;
        let runtime = RuntimeThread::start()?;
        let tally = Arc::new(Tally::default());
        let providers = pipeline::build(&settings, &runtime, &tally)?;
        let scope = || {
            opentelemetry::InstrumentationScope::builder("hookhost")
                .with_version(env!("CARGO_PKG_VERSION"))
                .build()
        };
        let tracer = providers.traces.tracer_with_scope(scope());
        let meter = providers.metrics.meter_with_scope(scope());
        let logger = providers
            .logs
            .as_ref()
            .map(|logs| logs.logger_with_scope(scope()));
        Ok(Telemetry {
            instruments: Instruments::new(&meter),
            providers: Arc::new(providers),
            tracer,
            logger,
            tally,
            runtime,
            exit_timeout: settings.exit_timeout,
            shut: AtomicBool::new(false),
        })
    }
}

/// The OTLP exporter of decision records: made once per process, fed from the decision log's
/// writer thread, shut down at exit.
#[derive(Debug)]
pub struct Telemetry {
    providers: Arc<Providers>,
    tracer: SdkTracer,
    logger: Option<SdkLogger>,
    instruments: Instruments,
    tally: Arc<Tally>,
    runtime: RuntimeThread,
    exit_timeout: Duration,
    shut: AtomicBool,
}

impl Telemetry {
    /// None when telemetry is off. `env` looks up environment variables (so tests and
    /// embedders can pass their own).
    ///
    /// Off unless a `[telemetry]` table or `OTEL_EXPORTER_OTLP_ENDPOINT` (or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) asks for it, and off whenever
    /// `OTEL_SDK_DISABLED=true`. Costs a thread or four (the runtime thread, the SDK's
    /// processors) and no request: nothing is sent before the first export.
    pub fn new(
        spec: Option<&TelemetrySpec>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<Telemetry>, TelemetryError> {
        match Telemetry::configure(spec, env)? {
            Some(configured) => configured.start().map(Some),
            None => Ok(None),
        }
    }

    /// [`Telemetry::new`] in two steps: the configuration read now (cheap; where a variable's
    /// problem shows), the exporters started later, on another thread if the caller likes
    /// (most of the cost of a short-lived process's telemetry).
    pub fn configure(
        spec: Option<&TelemetrySpec>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<Configured>, TelemetryError> {
        Ok(settings::resolve(spec, env)?.map(|settings| Configured { settings }))
    }
    /// The bound on the flush at exit: `exit_timeout_ms`, or [`DEFAULT_EXIT_TIMEOUT`]. What
    /// the caller passes to [`Telemetry::shutdown`] when the process ends.
    pub fn exit_timeout(&self) -> Duration {
        self.exit_timeout
    }

    /// Exports the records (called on a background thread, may block briefly, must never
    /// panic, never block past the configured bounds).
    ///
    /// Only queues: spans and log records go to the SDK's batch processors (sent within
    /// seconds, or at shutdown), measurements to the meter. A record that is not an object is
    /// skipped; a full queue drops spans (counted as lost).
    pub fn export(&self, records: &[serde_json::Value]) {
        if self.shut.load(Ordering::Relaxed) {
            return;
        }
        for record in records.iter().filter(|record| record.is_object()) {
            self.tally.measured.store(true, Ordering::Relaxed);
            let emitted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                emit::emit(
                    record,
                    &self.tracer,
                    self.logger.as_ref(),
                    &self.instruments,
                )
            }));
            if let Ok((spans, logs)) = emitted {
                self.tally.spans.fetch_add(spans, Ordering::Relaxed);
                self.tally.logs.fetch_add(logs, Ordering::Relaxed);
            }
        }
    }

    /// Counts records the decision log could not write (a metric).
    pub fn count_dropped(&self, n: u64) {
        if n > 0 && !self.shut.load(Ordering::Relaxed) {
            self.tally.measured.store(true, Ordering::Relaxed);
            self.instruments.dropped.add(n, &[]);
        }
    }

    /// Flushes what is pending, waiting at most `timeout`; returns what was sent / lost (for
    /// a warning).
    ///
    /// The three providers shut down at once, on threads of their own; at the bound the
    /// shutdown gives up, stops the runtime thread (cancelling requests in flight) and counts
    /// what had not arrived as lost. It gives up at once when the collector refused the
    /// connection and was never reached (nothing listens: retries would find the port closed
    /// until the bound). Later calls return the same counts at once.
    pub fn shutdown(&self, timeout: Duration) -> Shutdown {
        let started = Instant::now();
        let mut timed_out = false;
        if !self.shut.swap(true, Ordering::SeqCst) {
            let (done, finished) = std::sync::mpsc::channel::<()>();
            let providers = self.providers.clone();
            let spawned = std::thread::Builder::new()
                .name("hookhost-otlp-flush".into())
                .spawn(move || {
                    std::thread::scope(|scope| {
                        scope.spawn(|| providers.metrics.shutdown_with_timeout(timeout));
                        if let Some(logs) = &providers.logs {
                            scope.spawn(|| logs.shutdown_with_timeout(timeout));
                        }
                        let _ = providers.traces.shutdown_with_timeout(timeout);
                    });
                    let _ = done.send(());
                });
            timed_out = spawned.is_err();
            let deadline = started + timeout;
            while spawned.is_ok() {
                let left = deadline.saturating_duration_since(Instant::now());
                match finished.recv_timeout(left.min(Duration::from_millis(1))) {
                    Err(RecvTimeoutError::Timeout) if left.is_zero() => timed_out = true,
                    // Nothing listens where the collector should be: what is left would only
                    // be retried against a closed port until the bound.
                    Err(RecvTimeoutError::Timeout) if !self.tally.collector_down() => continue,
                    _ => {}
                }
                break;
            }
            self.runtime.stop();
        }
        let tally = &self.tally;
        let load = |n: &std::sync::atomic::AtomicU64| n.load(Ordering::Relaxed);
        Shutdown {
            spans_sent: load(&tally.spans_sent),
            spans_lost: load(&tally.spans).saturating_sub(load(&tally.spans_sent)),
            logs_sent: load(&tally.logs_sent),
            logs_lost: load(&tally.logs).saturating_sub(load(&tally.logs_sent)),
            metrics_sent: !tally.measured.load(Ordering::Relaxed)
                || tally.metrics_sent.load(Ordering::Relaxed),
            timed_out,
            elapsed: started.elapsed(),
        }
    }
}

/// A telemetry dropped without [`Telemetry::shutdown`] flushes within its exit bound: the
/// SDK's providers would otherwise wait up to 5 s each on a dead collector when they drop.
impl Drop for Telemetry {
    fn drop(&mut self) {
        if !self.shut.load(Ordering::Relaxed) {
            self.shutdown(self.exit_timeout);
        }
    }
}
