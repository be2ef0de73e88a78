#![allow(dead_code)] // Each includer uses a part of it.

//! A real OTLP receiver on loopback, for the telemetry tests and measurements (each includes
//! this file with `#[path]`): OTLP/HTTP (POST /v1/traces, /v1/metrics, /v1/logs, protobuf
//! bodies) on a small HTTP/1.1 server of its own, and OTLP/gRPC on tonic with the official
//! services. It decodes what it gets with opentelemetry-proto and keeps it; it can be told to
//! refuse (HTTP 503 with Retry-After, gRPC UNAVAILABLE) or to hang (accept, never answer).
//! There is no OpenTelemetry Collector to install here; this is the part of one a test needs.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::logs::v1::logs_service_server::{
    LogsService, LogsServiceServer,
};
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message as _;

/// How the receiver answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Stores the export and answers success.
    Accept,
    /// Answers HTTP 503 with `Retry-After: {0}` (seconds), or gRPC UNAVAILABLE.
    Refuse(u32),
    /// Reads the request and never answers.
    Hang,
}

/// What the receiver got.
#[derive(Debug, Default)]
pub struct Received {
    pub traces: Vec<ExportTraceServiceRequest>,
    pub metrics: Vec<ExportMetricsServiceRequest>,
    pub logs: Vec<ExportLogsServiceRequest>,
    /// Every export request, refused and hung ones included.
    pub requests: usize,
    /// The headers (HTTP) or metadata (gRPC) of the last request, lowercased names.
    pub headers: Vec<(String, String)>,
}

#[derive(Debug)]
struct State {
    behaviour: Behaviour,
    received: Received,
}

/// A receiver listening on 127.0.0.1; it stops serving when the process ends.
#[derive(Debug, Clone)]
pub struct Receiver {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
}

impl Receiver {
    /// The base URL an exporter is given: `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn set(&self, behaviour: Behaviour) {
        self.state.lock().unwrap().behaviour = behaviour;
    }

    /// Runs `f` on what was received so far.
    pub fn with<T>(&self, f: impl FnOnce(&Received) -> T) -> T {
        f(&self.state.lock().unwrap().received)
    }

    /// Waits up to `timeout` for `done` to hold.
    pub fn wait_for(&self, timeout: Duration, done: impl Fn(&Received) -> bool) -> bool {
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            if self.with(&done) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.with(&done)
    }

    fn new(addr: SocketAddr, behaviour: Behaviour) -> Receiver {
        Receiver {
            addr,
            state: Arc::new(Mutex::new(State {
                behaviour,
                received: Received::default(),
            })),
        }
    }

    /// An OTLP/HTTP receiver.
    pub fn http(behaviour: Behaviour) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let receiver = Receiver::new(listener.local_addr().unwrap(), behaviour);
        let shared = receiver.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = shared.clone();
                std::thread::spawn(move || shared.serve_http(stream));
            }
        });
        receiver
    }

    /// Serves one connection: HTTP/1.1 requests with a Content-Length body, kept alive.
    fn serve_http(&self, stream: TcpStream) {
        // A collector answers at once; without this a delayed ACK can add 40 ms to a request.
        let _ = stream.set_nodelay(true);
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut stream = stream;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let mut headers = Vec::new();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 {
                    return;
                }
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':') {
                    headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
                }
            }
            let length: usize = headers
                .iter()
                .find(|(name, _)| name == "content-length")
                .and_then(|(_, value)| value.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            let behaviour = {
                let mut state = self.state.lock().unwrap();
                state.received.requests += 1;
                state.received.headers = headers;
                if state.behaviour == Behaviour::Accept {
                    let received = &mut state.received;
                    match path.as_str() {
                        "/v1/traces" => received
                            .traces
                            .push(ExportTraceServiceRequest::decode(&body[..]).unwrap()),
                        "/v1/metrics" => received
                            .metrics
                            .push(ExportMetricsServiceRequest::decode(&body[..]).unwrap()),
                        "/v1/logs" => received
                            .logs
                            .push(ExportLogsServiceRequest::decode(&body[..]).unwrap()),
                        _ => {}
                    }
                }
                state.behaviour
            };
            let answer = match behaviour {
                Behaviour::Accept => "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n".to_string(),
                Behaviour::Refuse(seconds) => format!(
                    "HTTP/1.1 503 Service Unavailable\r\nretry-after: {seconds}\r\ncontent-length: 0\r\n\r\n"
                ),
                Behaviour::Hang => {
                    // Holds the connection open, answering nothing, for longer than any test.
                    std::thread::sleep(Duration::from_secs(600));
                    return;
                }
            };
            if stream.write_all(answer.as_bytes()).is_err() {
                return;
            }
        }
    }

    /// An OTLP/gRPC receiver (tonic, on a runtime thread of its own).
    pub fn grpc(behaviour: Behaviour) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let receiver = Receiver::new(listener.local_addr().unwrap(), behaviour);
        let service = Grpc(receiver.clone());
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                tonic::transport::Server::builder()
                    .add_service(TraceServiceServer::new(service.clone()))
                    .add_service(MetricsServiceServer::new(service.clone()))
                    .add_service(LogsServiceServer::new(service))
                    .serve_with_incoming(
                        tonic::transport::server::TcpIncoming::from(listener)
                            .with_nodelay(Some(true)),
                    )
                    .await
                    .unwrap();
            });
        });
        receiver
    }

    /// Counts a gRPC request and says how to answer it; stores `store`'s message when it is
    /// accepted.
    async fn grpc_answer(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        store: impl FnOnce(&mut Received),
    ) -> Result<(), tonic::Status> {
        let behaviour = {
            let mut state = self.state.lock().unwrap();
            state.received.requests += 1;
            state.received.headers = metadata
                .iter()
                .filter_map(|entry| match entry {
                    tonic::metadata::KeyAndValueRef::Ascii(key, value) => Some((
                        key.as_str().to_string(),
                        value.to_str().unwrap_or_default().to_string(),
                    )),
                    _ => None,
                })
                .collect();
            if state.behaviour == Behaviour::Accept {
                store(&mut state.received);
            }
            state.behaviour
        };
        match behaviour {
            Behaviour::Accept => Ok(()),
            Behaviour::Refuse(_) => Err(tonic::Status::unavailable("refusing, as told")),
            Behaviour::Hang => std::future::pending().await,
        }
    }
}

#[derive(Debug, Clone)]
struct Grpc(Receiver);

#[tonic::async_trait]
impl TraceService for Grpc {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let metadata = request.metadata().clone();
        let message = request.into_inner();
        self.0
            .grpc_answer(&metadata, |received| received.traces.push(message))
            .await?;
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Grpc {
    async fn export(
        &self,
        request: tonic::Request<ExportMetricsServiceRequest>,
    ) -> Result<tonic::Response<ExportMetricsServiceResponse>, tonic::Status> {
        let metadata = request.metadata().clone();
        let message = request.into_inner();
        self.0
            .grpc_answer(&metadata, |received| received.metrics.push(message))
            .await?;
        Ok(tonic::Response::new(ExportMetricsServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl LogsService for Grpc {
    async fn export(
        &self,
        request: tonic::Request<ExportLogsServiceRequest>,
    ) -> Result<tonic::Response<ExportLogsServiceResponse>, tonic::Status> {
        let metadata = request.metadata().clone();
        let message = request.into_inner();
        self.0
            .grpc_answer(&metadata, |received| received.logs.push(message))
            .await?;
        Ok(tonic::Response::new(ExportLogsServiceResponse::default()))
    }
}

/// A port nothing listens on: bound, then closed (connection refused).
pub fn closed_port() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}
