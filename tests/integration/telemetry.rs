//! Decision records exported over OTLP (feature `telemetry`) to a real receiver on loopback,
//! over HTTP and gRPC: the spans (names, parent and child, attributes, timing), the metrics,
//! the log records; configuration from the environment; and the bounds a refusing, dead or
//! silent collector must not push a shutdown past.

use std::time::{Duration, Instant};

use hookhost::Config;
use hookhost::telemetry::{Shutdown, Telemetry};
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{metric, number_data_point};
use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{Value, json};

#[path = "../common/otlp.rs"]
pub(crate) mod otlp;
use otlp::{Behaviour, Receiver};

/// Generous slack over a bound: the machine running the tests is loaded.
const SLACK: Duration = Duration::from_secs(2);

const BLOCK_ID: &str = "019abcde-f012-7345-8678-9abcdef01234";

fn records() -> Vec<Value> {
    vec![
        json!({
            "id": BLOCK_ID,
            "time": "2026-05-01T10:00:00.500Z",
            "us": 2500,
            "agent": "claude",
            "session": "s-42",
            "cwd": "/work/project",
            "event": "PreToolUse",
            "tool": "Bash",
            "decision": "block",
            "decided_by": "destructive-guard",
            "reason": "blocked by destructive-guard: rm -rf /",
            "input": {"command": "rm -rf /"},
            "hooks": [
                {"name": "destructive-guard", "layer": "project", "kind": "wasm",
                 "source": "guards/destructive.wasm", "sha256": "ab12", "signers": ["team"],
                 "phase": "guard", "mode": "enforce", "verdict": "block",
                 "reason": "rm -rf /", "us": 1500},
                {"name": "audit", "layer": "user", "kind": "command", "source": "audit.sh",
                 "phase": "observe", "mode": "monitor", "verdict": "allow", "us": 500}
            ],
            "monitored": [{"by": "audit", "would": "allow"}]
        }),
        json!({
            "id": "019abcde-f013-7345-8678-9abcdef01234",
            "time": "2026-05-01T10:00:01.000Z",
            "agent": null,
            "session": null,
            "cwd": "/work/project",
            "event": "PostToolUse",
            "tool": "Read",
            "decision": "allow",
            "decided_by": null,
            "reason": null,
            "hooks": [
                {"name": "slow-check", "layer": "project", "kind": "command", "source": "x.sh",
                 "phase": "observe", "mode": "enforce", "verdict": "failed",
                 "failure": "timeout", "reason": "timed out after 50ms", "us": 50000}
            ]
        }),
    ]
}

fn spec(text: &str) -> hookhost::config::TelemetrySpec {
    Config::parse(text, "hooks.toml")
        .unwrap()
        .telemetry
        .expect("a [telemetry] table")
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a any_value::Value> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|value| value.value.as_ref())
}

pub(crate) fn string<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    match attribute(attributes, key) {
        Some(any_value::Value::StringValue(text)) => Some(text),
        _ => None,
    }
}

pub(crate) fn spans(receiver: &Receiver) -> Vec<Span> {
    receiver.with(|received| {
        received
            .traces
            .iter()
            .flat_map(|request| &request.resource_spans)
            .flat_map(|resource| &resource.scope_spans)
            .flat_map(|scope| scope.spans.clone())
            .collect()
    })
}

/// The sum of a counter's data points whose attributes include every one of `with`.
fn counter(receiver: &Receiver, name: &str, with: &[(&str, &str)]) -> i64 {
    receiver.with(|received| {
        let mut total = 0;
        for metric in received
            .metrics
            .iter()
            .flat_map(|request| &request.resource_metrics)
            .flat_map(|resource| &resource.scope_metrics)
            .flat_map(|scope| &scope.metrics)
            .filter(|metric| metric.name == name)
        {
            let Some(metric::Data::Sum(sum)) = &metric.data else {
                panic!("{name} is not a sum");
            };
            assert_eq!(sum.aggregation_temporality, 1, "{name}: delta temporality");
            for point in &sum.data_points {
                if with
                    .iter()
                    .all(|(key, value)| string(&point.attributes, key) == Some(value))
                    && let Some(number_data_point::Value::AsInt(n)) = point.value
                {
                    total += n;
                }
            }
        }
        total
    })
}

fn histogram_count(receiver: &Receiver, name: &str, hook: &str) -> (u64, String) {
    receiver.with(|received| {
        let mut count = 0;
        let mut unit = String::new();
        for metric in received
            .metrics
            .iter()
            .flat_map(|request| &request.resource_metrics)
            .flat_map(|resource| &resource.scope_metrics)
            .flat_map(|scope| &scope.metrics)
            .filter(|metric| metric.name == name)
        {
            unit = metric.unit.clone();
            let Some(metric::Data::Histogram(histogram)) = &metric.data else {
                panic!("{name} is not a histogram");
            };
            count += histogram
                .data_points
                .iter()
                .filter(|point| string(&point.attributes, "hookhost.hook.name") == Some(hook))
                .map(|point| point.count)
                .sum::<u64>();
        }
        (count, unit)
    })
}

fn exported(protocol: &str) {
    let receiver = match protocol {
        "grpc" => Receiver::grpc(Behaviour::Accept),
        _ => Receiver::http(Behaviour::Accept),
    };
    let spec = spec(&format!(
        "[telemetry]\nendpoint = \"{}\"\nprotocol = \"{protocol}\"\nlogs = true\n\
         headers = {{ api-key = \"k1\" }}\nresource = {{ team = \"infra\" }}\n",
        receiver.url()
    ));
    let telemetry = Telemetry::new(Some(&spec), &no_env).unwrap().unwrap();
    telemetry.export(&records());
    telemetry.count_dropped(3);
    let shutdown = telemetry.shutdown(Duration::from_secs(10));
    assert_eq!(
        shutdown,
        Shutdown {
            spans_sent: 5,
            spans_lost: 0,
            logs_sent: 2,
            logs_lost: 0,
            metrics_sent: true,
            timed_out: false,
            elapsed: shutdown.elapsed,
        },
        "{protocol}"
    );
    assert_eq!(shutdown.warning(), None);

    // Spans: one per event, a child per hook, laid end to end inside it.
    let spans = spans(&receiver);
    assert_eq!(spans.len(), 5, "{protocol}: {spans:#?}");
    let event = spans
        .iter()
        .find(|span| span.name == "hookhost PreToolUse")
        .expect("the event's span");
    let id_bytes: Vec<u8> = (0..16)
        .map(|i| {
            let hex = BLOCK_ID.replace('-', "");
            u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()
        })
        .collect();
    assert_eq!(event.trace_id, id_bytes, "the trace id is the decision id");
    assert!(event.parent_span_id.is_empty());
    for (key, value) in [
        ("hookhost.decision", "block"),
        ("hookhost.decided_by", "destructive-guard"),
        ("hookhost.decision_id", BLOCK_ID),
        ("hookhost.agent", "claude"),
        ("session.id", "s-42"),
        ("gen_ai.conversation.id", "s-42"),
        ("gen_ai.tool.name", "Bash"),
        ("gen_ai.operation.name", "execute_tool"),
    ] {
        assert_eq!(string(&event.attributes, key), Some(value), "{key}");
    }
    assert_eq!(
        event.status.as_ref().map(|s| s.code),
        Some(2),
        "error status"
    );
    assert_eq!(
        event.events.len(),
        1,
        "the monitored hook's would-be answer"
    );
    let end = 1_777_629_600_500_000_000u64;
    assert_eq!(event.end_time_unix_nano, end);
    assert_eq!(event.start_time_unix_nano, end - 2_500_000);
    let guard = spans
        .iter()
        .find(|span| span.name == "destructive-guard")
        .unwrap();
    let audit = spans.iter().find(|span| span.name == "audit").unwrap();
    for child in [guard, audit] {
        assert_eq!(child.parent_span_id, event.span_id);
        assert_eq!(child.trace_id, event.trace_id);
    }
    assert_eq!(guard.start_time_unix_nano, event.start_time_unix_nano);
    assert_eq!(
        guard.end_time_unix_nano - guard.start_time_unix_nano,
        1_500_000
    );
    assert_eq!(audit.start_time_unix_nano, guard.end_time_unix_nano);
    assert_eq!(
        audit.end_time_unix_nano - audit.start_time_unix_nano,
        500_000
    );
    assert_eq!(
        string(&guard.attributes, "hookhost.hook.verdict"),
        Some("block")
    );
    assert_eq!(
        string(&guard.attributes, "hookhost.hook.sha256"),
        Some("ab12")
    );
    assert_eq!(
        string(&audit.attributes, "hookhost.hook.mode"),
        Some("monitor")
    );
    // Without a top-level `us`, the event lasts as long as its hooks.
    let post = spans
        .iter()
        .find(|span| span.name == "hookhost PostToolUse")
        .unwrap();
    assert_eq!(
        post.end_time_unix_nano - post.start_time_unix_nano,
        50_000_000
    );
    let slow = spans.iter().find(|span| span.name == "slow-check").unwrap();
    assert_eq!(
        string(&slow.attributes, "hookhost.hook.failure"),
        Some("timeout")
    );
    assert_eq!(slow.status.as_ref().map(|s| s.code), Some(2));

    // The resource and the headers.
    receiver.with(|received| {
        let resource = received.traces[0].resource_spans[0]
            .resource
            .as_ref()
            .unwrap();
        assert_eq!(
            string(&resource.attributes, "service.name"),
            Some("hookhost")
        );
        assert_eq!(string(&resource.attributes, "team"), Some("infra"));
        assert!(
            received
                .headers
                .iter()
                .any(|(name, value)| name == "api-key" && value == "k1"),
            "{:?}",
            received.headers
        );
    });

    // Metrics, exported at shutdown.
    let decisions = |decision| {
        counter(
            &receiver,
            "hookhost.decisions",
            &[("hookhost.decision", decision)],
        )
    };
    assert_eq!((decisions("block"), decisions("allow")), (1, 1));
    assert_eq!(
        counter(
            &receiver,
            "hookhost.hook.verdicts",
            &[
                ("hookhost.hook.name", "destructive-guard"),
                ("hookhost.event", "PreToolUse"),
                ("hookhost.hook.verdict", "block"),
                ("hookhost.hook.mode", "enforce"),
            ],
        ),
        1
    );
    assert_eq!(
        counter(
            &receiver,
            "hookhost.hook.failures",
            &[("hookhost.hook.failure", "timeout")]
        ),
        1
    );
    assert_eq!(counter(&receiver, "hookhost.records.dropped", &[]), 3);
    assert_eq!(
        histogram_count(&receiver, "hookhost.hook.duration", "audit"),
        (1, "s".to_string())
    );

    // Log records: the record as body, linked to its span.
    receiver.with(|received| {
        let logs: Vec<_> = received
            .logs
            .iter()
            .flat_map(|request| &request.resource_logs)
            .flat_map(|resource| &resource.scope_logs)
            .flat_map(|scope| &scope.log_records)
            .collect();
        assert_eq!(logs.len(), 2);
        let block = logs
            .iter()
            .find(|log| log.trace_id == event.trace_id)
            .expect("a log record linked to the event's trace");
        assert_eq!(block.span_id, event.span_id);
        assert_eq!(block.event_name, "hookhost.decision");
        let Some(any_value::Value::StringValue(body)) =
            block.body.as_ref().and_then(|body| body.value.as_ref())
        else {
            panic!("the body is the record's JSON");
        };
        let body: Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["id"], BLOCK_ID);
    });
}

#[test]
fn records_reach_an_otlp_http_collector() {
    exported("http/protobuf");
}

#[test]
fn records_reach_an_otlp_grpc_collector() {
    exported("grpc");
}

#[test]
fn the_environment_configures_the_export_and_overrides_the_table() {
    let receiver = Receiver::http(Behaviour::Accept);
    let url = receiver.url();
    let env = move |name: &str| match name {
        "OTEL_EXPORTER_OTLP_ENDPOINT" => Some(url.clone()),
        "OTEL_SERVICE_NAME" => Some("ci-agent".to_string()),
        "OTEL_EXPORTER_OTLP_HEADERS" => Some("api-key=from%20env".to_string()),
        "OTEL_RESOURCE_ATTRIBUTES" => Some("deployment.environment.name=ci".to_string()),
        _ => None,
    };
    // The table points elsewhere; the variable wins.
    let spec = spec("[telemetry]\nendpoint = \"http://127.0.0.1:9\"\nservice_name = \"file\"\n");
    let telemetry = Telemetry::new(Some(&spec), &env).unwrap().unwrap();
    telemetry.export(&records()[..1]);
    let shutdown = telemetry.shutdown(Duration::from_secs(10));
    assert_eq!((shutdown.spans_sent, shutdown.spans_lost), (3, 0));
    receiver.with(|received| {
        let resource = received.traces[0].resource_spans[0]
            .resource
            .as_ref()
            .unwrap();
        assert_eq!(
            string(&resource.attributes, "service.name"),
            Some("ci-agent")
        );
        assert_eq!(
            string(&resource.attributes, "deployment.environment.name"),
            Some("ci")
        );
        assert!(
            received
                .headers
                .iter()
                .any(|(name, value)| name == "api-key" && value == "from env")
        );
    });

    // Nothing asks for telemetry, or the SDK is disabled: none.
    assert!(Telemetry::new(None, &no_env).unwrap().is_none());
    let disabled = |name: &str| match name {
        "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://127.0.0.1:9".to_string()),
        "OTEL_SDK_DISABLED" => Some("true".to_string()),
        _ => None,
    };
    assert!(Telemetry::new(None, &disabled).unwrap().is_none());
    let wrong = |name: &str| match name {
        "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://127.0.0.1:9".to_string()),
        "OTEL_EXPORTER_OTLP_PROTOCOL" => Some("http/json".to_string()),
        _ => None,
    };
    let error = Telemetry::new(None, &wrong).unwrap_err().to_string();
    assert!(error.contains("OTEL_EXPORTER_OTLP_PROTOCOL"), "{error}");
}

/// Exports one record to `url` and shuts down within `exit`; returns the shutdown and how long
/// it took.
fn export_to(url: &str, protocol: &str, extra: &str, exit: Duration) -> (Shutdown, Duration) {
    let spec = spec(&format!(
        "[telemetry]\nendpoint = \"{url}\"\nprotocol = \"{protocol}\"\n{extra}"
    ));
    let telemetry = Telemetry::new(Some(&spec), &no_env).unwrap().unwrap();
    telemetry.export(&records()[..1]);
    let started = Instant::now();
    let shutdown = telemetry.shutdown(exit);
    (shutdown, started.elapsed())
}

#[test]
fn a_refusing_collector_is_retried_within_the_export_bound_and_the_loss_reported() {
    for protocol in ["http/protobuf", "grpc"] {
        let receiver = match protocol {
            "grpc" => Receiver::grpc(Behaviour::Refuse(0)),
            _ => Receiver::http(Behaviour::Refuse(0)),
        };
        // The export's bound (timeout_ms) stops the retries well before the exit bound.
        let (shutdown, took) = export_to(
            &receiver.url(),
            protocol,
            "timeout_ms = 400\n",
            Duration::from_secs(5),
        );
        assert!(
            took < Duration::from_millis(400) + SLACK,
            "{protocol}: {took:?}"
        );
        assert_eq!(
            (shutdown.spans_sent, shutdown.spans_lost),
            (0, 3),
            "{protocol}"
        );
        assert!(!shutdown.metrics_sent);
        let warning = shutdown.warning().unwrap();
        assert!(warning.contains("3 span(s)"), "{warning}");
        // Traces and metrics each tried more than once, and at most 1 + 3 retries each.
        let requests = receiver.with(|received| received.requests);
        assert!(
            (3..=8).contains(&requests),
            "{protocol}: {requests} requests"
        );
    }
}

#[test]
fn a_dead_collector_costs_at_most_the_exit_bound() {
    for protocol in ["http/protobuf", "grpc"] {
        let url = format!("http://{}", otlp::closed_port());
        let exit = Duration::from_millis(200);
        let (shutdown, took) = export_to(&url, protocol, "", exit);
        assert!(took < exit + SLACK, "{protocol}: {took:?}");
        assert_eq!(shutdown.spans_lost, 3, "{protocol}");
        assert!(shutdown.warning().is_some());
        // A refused connection ends the wait: retries would find the port closed too.
        assert!(!shutdown.timed_out, "{protocol}");
    }
}

#[test]
fn a_silent_collector_costs_at_most_the_exit_bound() {
    for protocol in ["http/protobuf", "grpc"] {
        let receiver = match protocol {
            "grpc" => Receiver::grpc(Behaviour::Hang),
            _ => Receiver::http(Behaviour::Hang),
        };
        let exit = Duration::from_millis(200);
        let (shutdown, took) = export_to(&receiver.url(), protocol, "", exit);
        assert!(took < exit + SLACK, "{protocol}: {took:?}");
        assert!(shutdown.timed_out, "{protocol}");
        assert_eq!(shutdown.spans_lost, 3, "{protocol}");
        let warning = shutdown.warning().unwrap();
        assert!(warning.contains("did not answer"), "{warning}");
    }
}
