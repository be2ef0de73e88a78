//! The OTLP pipeline: one runtime thread that carries every request (HTTP through reqwest, gRPC
//! through tonic), the SDK's batch processors and periodic reader on top, and exporters that
//! count what reached the collector so that a shutdown can say what was lost.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _, WithTonicConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::logs::SdkLoggerProvider;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator, SdkTracerProvider};

use super::TelemetryError;
use super::settings::{Route, Settings};
use super::tally::{Counted, Tally};
use crate::config::OtlpProtocol;

/// The thread every request runs on: a current-thread tokio runtime, started once per process
/// (a few tens of microseconds) and stopped at shutdown, which cancels what is still in flight.
#[derive(Debug)]
pub(super) struct RuntimeThread {
    pub(super) handle: tokio::runtime::Handle,
    stop: std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl RuntimeThread {
    pub(super) fn start() -> Result<RuntimeThread, TelemetryError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(TelemetryError::Runtime)?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("hookhost-otlp".into())
            .spawn(move || {
                runtime.block_on(async {
                    let _ = stopped.await;
                });
                // Never waits on a blocked DNS lookup: the process may be on its way out.
                runtime.shutdown_background();
            })
            .map_err(TelemetryError::Runtime)?;
        Ok(RuntimeThread {
            handle,
            stop: std::sync::Mutex::new(Some(stop)),
        })
    }

    pub(super) fn stop(&self) {
        if let Some(stop) = self.stop.lock().ok().and_then(|mut stop| stop.take()) {
            let _ = stop.send(());
        }
    }
}

impl Drop for RuntimeThread {
    fn drop(&mut self) {
        self.stop();
    }
}

/// OTLP/HTTP's client: reqwest (already in the tree through the registry client), its requests
/// run on the runtime thread, since the SDK's batch processors call exporters from plain
/// threads of their own.
#[derive(Debug)]
struct SpawnedClient {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
    tally: Arc<Tally>,
}

/// A collector's answer is a few bytes; more is a misbehaving endpoint.
const MAX_RESPONSE_BYTES: usize = 1 << 20;

#[async_trait::async_trait]
impl HttpClient for SpawnedClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self.client.clone();
        let tally = self.tally.clone();
        let task = self.runtime.spawn(async move {
            let mut response = match client.execute(request.try_into()?).await {
                Ok(response) => response,
                Err(error) => {
                    if error.is_connect() {
                        tally.unreachable.store(true, Ordering::Relaxed);
                    }
                    return Err(error.into());
                }
            };
            tally.reached.store(true, Ordering::Relaxed);
            let status = response.status();
            let headers = std::mem::take(response.headers_mut());
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
                    return Err::<_, HttpError>("the collector's response is over 1 MiB".into());
                }
                body.extend_from_slice(&chunk);
            }
            let mut answer = Response::builder().status(status).body(Bytes::from(body))?;
            *answer.headers_mut() = headers;
            Ok(answer)
        });
        task.await?
    }
}

/// The providers an export feeds.
#[derive(Debug)]
pub(super) struct Providers {
    pub(super) traces: SdkTracerProvider,
    pub(super) metrics: SdkMeterProvider,
    pub(super) logs: Option<SdkLoggerProvider>,
}

/// Builds the exporters and providers, on `runtime` (tonic's channel spawns its worker there).
pub(super) fn build(
    settings: &Settings,
    runtime: &RuntimeThread,
    tally: &Arc<Tally>,
) -> Result<Providers, TelemetryError> {
    let _entered = runtime.handle.enter();
    let resource = Resource::builder_empty()
        .with_attributes(settings.resource.iter().cloned())
        .with_attributes([
            opentelemetry::KeyValue::new("telemetry.sdk.name", "opentelemetry"),
            opentelemetry::KeyValue::new("telemetry.sdk.language", "rust"),
        ])
        .build();
    let http = match settings.protocol {
        OtlpProtocol::HttpProtobuf => Some(http_client(&runtime.handle, settings, tally)?),
        OtlpProtocol::Grpc => None,
    };
    let spans = match &http {
        Some(client) => opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_shared_http_client(client.clone())
            .with_endpoint(&settings.traces.endpoint)
            .with_timeout(settings.traces.timeout)
            .with_headers(headers(&settings.traces))
            .build(),
        None => grpc(
            opentelemetry_otlp::SpanExporter::builder().with_tonic(),
            &settings.traces,
            tally,
        )?
        .with_timeout(settings.traces.timeout)
        .with_metadata(metadata(&settings.traces)?)
        .build(),
    }
    .map_err(TelemetryError::Exporter)?;
    let metrics = match &http {
        Some(client) => opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_shared_http_client(client.clone())
            .with_endpoint(&settings.metrics.endpoint)
            .with_timeout(settings.metrics.timeout)
            .with_headers(headers(&settings.metrics))
            .with_temporality(settings.temporality)
            .build(),
        None => grpc(
            opentelemetry_otlp::MetricExporter::builder().with_tonic(),
            &settings.metrics,
            tally,
        )?
        .with_timeout(settings.metrics.timeout)
        .with_metadata(metadata(&settings.metrics)?)
        .with_temporality(settings.temporality)
        .build(),
    }
    .map_err(TelemetryError::Exporter)?;
    let logs = match &settings.logs {
        None => None,
        Some(route) => Some(
            match &http {
                Some(client) => opentelemetry_otlp::LogExporter::builder()
                    .with_http()
                    .with_shared_http_client(client.clone())
                    .with_endpoint(&route.endpoint)
                    .with_timeout(route.timeout)
                    .with_headers(headers(route))
                    .build(),
                None => grpc(
                    opentelemetry_otlp::LogExporter::builder().with_tonic(),
                    route,
                    tally,
                )?
                .with_timeout(route.timeout)
                .with_metadata(metadata(route)?)
                .build(),
            }
            .map_err(TelemetryError::Exporter)?,
        ),
    };
    let traces = SdkTracerProvider::builder()
        .with_resource(resource.clone())
        .with_id_generator(DecisionIds::default())
        .with_batch_exporter(Counted {
            inner: spans,
            tally: tally.clone(),
        })
        .build();
    // A long interval: a short-lived process exports its metrics once, at shutdown (the
    // reader's shutdown collects and exports); a long-lived one every minute.
    let reader = PeriodicReader::builder(Counted {
        inner: metrics,
        tally: tally.clone(),
    })
    .with_interval(Duration::from_secs(60))
    .build();
    let metrics = SdkMeterProvider::builder()
        .with_resource(resource.clone())
        .with_reader(reader)
        .build();
    let logs = logs.map(|exporter| {
        SdkLoggerProvider::builder()
            .with_resource(resource)
            .with_batch_exporter(Counted {
                inner: exporter,
                tally: tally.clone(),
            })
            .build()
    });
    Ok(Providers {
        traces,
        metrics,
        logs,
    })
}

fn http_client(
    runtime: &tokio::runtime::Handle,
    settings: &Settings,
    tally: &Arc<Tally>,
) -> Result<Arc<dyn HttpClient>, TelemetryError> {
    // reqwest is built without a default crypto provider (Cargo.toml); ring, as for the
    // registry client. An error means another provider is installed already: it is used.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let routes = || {
        [&settings.traces, &settings.metrics]
            .into_iter()
            .chain(settings.logs.as_ref())
    };
    let longest = routes()
        .map(|route| route.timeout)
        .max()
        .unwrap_or(super::settings::DEFAULT_TIMEOUT);
    let mut builder = reqwest::Client::builder()
        .timeout(longest)
        .connect_timeout(longest);
    if routes().all(|route| route.endpoint.starts_with("http://")) {
        // Plain HTTP (a collector on the machine or its pod): no certificate verifier, whose
        // setup (the platform's roots) costs milliseconds a short-lived process would pay.
        builder = builder.tls_certs_only([]);
    }
    let client = builder
        .build()
        .map_err(|error| TelemetryError::Client(Box::new(error)))?;
    Ok(Arc::new(SpawnedClient {
        client,
        runtime: runtime.clone(),
        tally: tally.clone(),
    }))
}

/// A gRPC exporter's endpoint. A plain `http://` one gets a channel over a TCP connector of
/// hookhost's, which notes a refused connection (a shutdown then stops waiting) and sets
/// TCP_NODELAY; `https://` goes through the exporter's own channel and TLS.
fn grpc<B: opentelemetry_otlp::WithExportConfig + opentelemetry_otlp::WithTonicConfig>(
    builder: B,
    route: &Route,
    tally: &Arc<Tally>,
) -> Result<B, TelemetryError> {
    use tonic::transport::{Endpoint, Uri};
    if !route.endpoint.starts_with("http://") {
        return Ok(builder.with_endpoint(&route.endpoint));
    }
    let endpoint = Endpoint::from_shared(route.endpoint.clone())
        .map_err(|error| TelemetryError::Client(Box::new(error)))?
        .timeout(route.timeout)
        .connect_timeout(route.timeout);
    let tally = tally.clone();
    let connector = tower::service_fn(move |uri: Uri| {
        let tally = tally.clone();
        async move {
            let host = uri.host().unwrap_or("localhost");
            let host = host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string();
            let port = uri.port_u16().unwrap_or(80);
            match tokio::net::TcpStream::connect((host.as_str(), port)).await {
                Ok(stream) => {
                    let _ = stream.set_nodelay(true);
                    tally.reached.store(true, Ordering::Relaxed);
                    Ok(hyper_util::rt::TokioIo::new(stream))
                }
                Err(error) => {
                    if error.kind() == std::io::ErrorKind::ConnectionRefused {
                        tally.unreachable.store(true, Ordering::Relaxed);
                    }
                    Err(error)
                }
            }
        }
    });
    Ok(builder.with_channel(endpoint.connect_with_connector_lazy(connector)))
}

fn headers(route: &Route) -> std::collections::HashMap<String, String> {
    route.headers.iter().cloned().collect()
}

fn metadata(route: &Route) -> Result<tonic::metadata::MetadataMap, TelemetryError> {
    let mut map = tonic::metadata::MetadataMap::new();
    for (key, value) in &route.headers {
        let key = tonic::metadata::MetadataKey::from_bytes(key.as_bytes())
            .map_err(|error| TelemetryError::Client(Box::new(error)))?;
        let value = value
            .parse()
            .map_err(|error| TelemetryError::Client(Box::new(error)))?;
        map.insert(key, value);
    }
    Ok(map)
}

thread_local! {
    /// The trace id the next root span takes: its record's decision id.
    static NEXT_TRACE_ID: std::cell::Cell<Option<opentelemetry::trace::TraceId>> =
        const { std::cell::Cell::new(None) };
}

/// Sets the trace id of the next root span started on this thread.
pub(super) fn next_trace_id(id: Option<opentelemetry::trace::TraceId>) {
    NEXT_TRACE_ID.with(|next| next.set(id));
}

/// Trace ids are decision ids (both 128 bits; a UUID v7's low 74 bits are random, as a W3C
/// trace id's should be), so that a trace is found from a record and back. Span ids, and
/// the trace id of a record without a valid id, are random.
#[derive(Debug, Default)]
struct DecisionIds {
    random: RandomIdGenerator,
}

impl IdGenerator for DecisionIds {
    fn new_trace_id(&self) -> opentelemetry::trace::TraceId {
        NEXT_TRACE_ID
            .with(|next| next.take())
            .unwrap_or_else(|| self.random.new_trace_id())
    }

    fn new_span_id(&self) -> opentelemetry::trace::SpanId {
        self.random.new_span_id()
    }
}
