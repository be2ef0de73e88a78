//! What reached the collector and what did not: counts kept by exporters that wrap the OTLP
//! ones, so that a shutdown can say what was lost, and notes of a collector that nothing
//! answers for, so that it need not wait for retries that cannot succeed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::logs::{LogBatch, LogExporter};
use opentelemetry_sdk::metrics::Temporality;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};

/// What reached the collector, and what did not, since the start.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) spans: AtomicU64,
    pub(super) spans_sent: AtomicU64,
    pub(super) logs: AtomicU64,
    pub(super) logs_sent: AtomicU64,
    /// Whether anything was measured (an export with nothing in it is skipped).
    pub(super) measured: AtomicBool,
    /// Whether the last metrics export reached the collector.
    pub(super) metrics_sent: AtomicBool,
    /// Whether a connection to the collector was refused (nothing listens) ...
    pub(super) unreachable: AtomicBool,
    /// ... and whether one was ever made (gRPC) or answered (HTTP).
    pub(super) reached: AtomicBool,
}

impl Tally {
    /// A collector that refused a connection and never answered: a shutdown need not wait
    /// for retries that will find the port closed too.
    pub(super) fn collector_down(&self) -> bool {
        self.unreachable.load(Ordering::Relaxed) && !self.reached.load(Ordering::Relaxed)
    }
}

/// An exporter that counts what the collector accepted.
#[derive(Debug)]
pub(super) struct Counted<E> {
    pub(super) inner: E,
    pub(super) tally: Arc<Tally>,
}

impl<E: SpanExporter> SpanExporter for Counted<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let count = batch.len() as u64;
        let result = self.inner.export(batch).await;
        if result.is_ok() {
            self.tally.spans_sent.fetch_add(count, Ordering::Relaxed);
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

impl<E: LogExporter> LogExporter for Counted<E> {
    async fn export(&self, batch: LogBatch<'_>) -> OTelSdkResult {
        let count = batch.iter().count() as u64;
        let result = self.inner.export(batch).await;
        if result.is_ok() {
            self.tally.logs_sent.fetch_add(count, Ordering::Relaxed);
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

impl<E: PushMetricExporter> PushMetricExporter for Counted<E> {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        let result = self.inner.export(metrics).await;
        self.tally
            .metrics_sent
            .store(result.is_ok(), Ordering::Relaxed);
        result
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn temporality(&self) -> Temporality {
        self.inner.temporality()
    }
}
