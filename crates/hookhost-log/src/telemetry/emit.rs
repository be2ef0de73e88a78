//! One decision record as OpenTelemetry sees it: a span for the event with a child span per
//! hook, laid end to end; the metrics it adds to; and, when asked, a log record carrying the
//! record itself, linked to the span.

use std::time::{Duration, SystemTime};

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, Severity};
use opentelemetry::metrics::{Counter, Histogram, Meter};
use opentelemetry::trace::{
    Span as _, SpanKind, Status, TraceContextExt as _, TraceId, Tracer as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::logs::SdkLogger;
use opentelemetry_sdk::trace::SdkTracer;
use serde_json::Value;

use super::pipeline::next_trace_id;

/// The instruments every record adds to.
#[derive(Debug)]
pub(super) struct Instruments {
    decisions: Counter<u64>,
    event_duration: Histogram<f64>,
    hook_verdicts: Counter<u64>,
    hook_duration: Histogram<f64>,
    hook_failures: Counter<u64>,
    pub(super) dropped: Counter<u64>,
}

/// Bucket bounds in seconds, from 100 µs (a native hook) to 10 s (a slow command hook): the
/// SDK's default bounds are for milliseconds.
const DURATION_BOUNDS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

impl Instruments {
    pub(super) fn new(meter: &Meter) -> Instruments {
        let seconds = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(DURATION_BOUNDS.to_vec())
                .build()
        };
        Instruments {
            decisions: meter
                .u64_counter("hookhost.decisions")
                .with_unit("{decision}")
                .with_description("Events decided, by event and merged decision")
                .build(),
            event_duration: seconds(
                "hookhost.event.duration",
                "Time an event took, every hook included",
            ),
            hook_verdicts: meter
                .u64_counter("hookhost.hook.verdicts")
                .with_unit("{verdict}")
                .with_description("Hook answers, by hook, event, verdict and mode")
                .build(),
            hook_duration: seconds("hookhost.hook.duration", "Time one hook call took"),
            hook_failures: meter
                .u64_counter("hookhost.hook.failures")
                .with_unit("{failure}")
                .with_description("Hook calls that failed, by hook and failure kind")
                .build(),
            dropped: meter
                .u64_counter("hookhost.records.dropped")
                .with_unit("{record}")
                .with_description("Decision records the decision log could not write")
                .build(),
        }
    }
}

fn text<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

fn micros(value: &Value) -> u64 {
    value.get("us").and_then(Value::as_u64).unwrap_or(0)
}

/// The record's decision id as a trace id (a UUID's 16 bytes), when it is one.
fn trace_id(id: &str) -> Option<TraceId> {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    let id = u128::from_str_radix(&hex, 16)
        .ok()
        .filter(|_| hex.len() == 32)?;
    (id != 0).then(|| TraceId::from_bytes(id.to_be_bytes()))
}

/// Emits one record; returns how many spans and log records it made.
pub(super) fn emit(
    record: &Value,
    tracer: &SdkTracer,
    logger: Option<&SdkLogger>,
    instruments: &Instruments,
) -> (u64, u64) {
    let hooks: &[Value] = record
        .get("hooks")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let event = text(record, "event").unwrap_or("event");
    let decision = text(record, "decision").unwrap_or("allow");
    let total = Duration::from_micros(match record.get("us").and_then(Value::as_u64) {
        Some(us) => us,
        None => hooks.iter().map(micros).sum(),
    });
    let end = text(record, "time")
        .and_then(|time| humantime::parse_rfc3339_weak(time).ok())
        .unwrap_or_else(SystemTime::now);
    let start = end.checked_sub(total).unwrap_or(end);

    let mut attributes = vec![
        KeyValue::new("hookhost.event", event.to_string()),
        KeyValue::new("hookhost.decision", decision.to_string()),
    ];
    let mut optional = |key: &'static str, field: &str| {
        if let Some(value) = text(record, field) {
            attributes.push(KeyValue::new(key, value.to_string()));
        }
    };
    optional("hookhost.decision_id", "id");
    optional("hookhost.decided_by", "decided_by");
    optional("hookhost.reason", "reason");
    optional("hookhost.agent", "agent");
    optional("hookhost.cwd", "cwd");
    optional("session.id", "session");
    optional("gen_ai.conversation.id", "session");
    if let Some(tool) = text(record, "tool") {
        attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_string()));
    }

    next_trace_id(text(record, "id").and_then(trace_id));
    let mut span = tracer
        .span_builder(format!("hookhost {event}"))
        .with_kind(SpanKind::Internal)
        .with_start_time(start)
        .with_attributes(attributes)
        .start(tracer);
    next_trace_id(None);
    if decision == "block" {
        span.set_status(Status::error(
            text(record, "reason").unwrap_or("blocked").to_string(),
        ));
    }
    for monitored in record
        .get("monitored")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let mut attributes = Vec::new();
        for (key, field) in [
            ("hookhost.monitored.by", "by"),
            ("hookhost.monitored.would", "would"),
            ("hookhost.monitored.reason", "reason"),
        ] {
            if let Some(value) = text(monitored, field) {
                attributes.push(KeyValue::new(key, value.to_string()));
            }
        }
        span.add_event_with_timestamp("hookhost.monitored", end, attributes);
    }
    let span_context = span.span_context().clone();
    let parent = Context::new().with_span(span);

    let mut spans = 1;
    let mut at = start;
    for hook in hooks {
        let name = text(hook, "name").unwrap_or("hook");
        let took = Duration::from_micros(micros(hook));
        let hook_end = at.checked_add(took).map_or(end, |t| t.min(end).max(at));
        let verdict = text(hook, "verdict").unwrap_or("allow");
        let mut attributes = vec![KeyValue::new("hookhost.hook.name", name.to_string())];
        for (key, field) in [
            ("hookhost.hook.layer", "layer"),
            ("hookhost.hook.kind", "kind"),
            ("hookhost.hook.source", "source"),
            ("hookhost.hook.sha256", "sha256"),
            ("hookhost.hook.phase", "phase"),
            ("hookhost.hook.mode", "mode"),
            ("hookhost.hook.verdict", "verdict"),
            ("hookhost.hook.failure", "failure"),
            ("hookhost.hook.reason", "reason"),
        ] {
            if let Some(value) = text(hook, field) {
                attributes.push(KeyValue::new(key, value.to_string()));
            }
        }
        if let Some(signers) = hook.get("signers").and_then(Value::as_array) {
            let signers: Vec<opentelemetry::StringValue> = signers
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.to_string().into())
                .collect();
            attributes.push(KeyValue::new(
                "hookhost.hook.signers",
                opentelemetry::Value::Array(signers.into()),
            ));
        }
        let mut child = tracer.build_with_context(
            tracer
                .span_builder(name.to_string())
                .with_kind(SpanKind::Internal)
                .with_start_time(at)
                .with_attributes(attributes),
            &parent,
        );
        if verdict == "failed" {
            child.set_status(Status::error(
                text(hook, "failure").unwrap_or("failed").to_string(),
            ));
        }
        child.end_with_timestamp(hook_end);
        spans += 1;
        at = hook_end;

        let mode = text(hook, "mode").unwrap_or("enforce");
        let who = [
            KeyValue::new("hookhost.hook.name", name.to_string()),
            KeyValue::new("hookhost.event", event.to_string()),
        ];
        instruments.hook_verdicts.add(
            1,
            &[
                who[0].clone(),
                who[1].clone(),
                KeyValue::new("hookhost.hook.verdict", verdict.to_string()),
                KeyValue::new("hookhost.hook.mode", mode.to_string()),
            ],
        );
        instruments.hook_duration.record(took.as_secs_f64(), &who);
        if verdict == "failed" {
            instruments.hook_failures.add(
                1,
                &[
                    who[0].clone(),
                    who[1].clone(),
                    KeyValue::new(
                        "hookhost.hook.failure",
                        text(hook, "failure").unwrap_or("failed").to_string(),
                    ),
                ],
            );
        }
    }
    parent.span().end_with_timestamp(end);

    let mut by_decision = vec![
        KeyValue::new("hookhost.event", event.to_string()),
        KeyValue::new("hookhost.decision", decision.to_string()),
    ];
    if let Some(tool) = text(record, "tool") {
        by_decision.push(KeyValue::new("gen_ai.tool.name", tool.to_string()));
    }
    instruments.decisions.add(1, &by_decision);
    instruments
        .event_duration
        .record(total.as_secs_f64(), &by_decision[..2]);

    let Some(logger) = logger else {
        return (spans, 0);
    };
    let mut log = logger.create_log_record();
    log.set_event_name("hookhost.decision");
    log.set_timestamp(end);
    log.set_observed_timestamp(SystemTime::now());
    let (severity, severity_text) = match decision {
        "allow" | "approve" => (Severity::Info, "INFO"),
        _ => (Severity::Warn, "WARN"),
    };
    log.set_severity_number(severity);
    log.set_severity_text(severity_text);
    log.set_body(AnyValue::String(record.to_string().into()));
    log.add_attribute("hookhost.event", event.to_string());
    log.add_attribute("hookhost.decision", decision.to_string());
    log.set_trace_context(
        span_context.trace_id(),
        span_context.span_id(),
        Some(span_context.trace_flags()),
    );
    logger.emit(log);
    (spans, 1)
}
