//! What an export needs, resolved once from `[telemetry]` and the standard `OTEL_*` variables.
//!
//! Precedence, per setting: a signal's own variable (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`),
//! then the general one (`OTEL_EXPORTER_OTLP_ENDPOINT`), then the table, then the default.
//! The environment wins over the file as it does in every OpenTelemetry program: the file is
//! the configured default, and an operator redirects one run without editing it.

use std::time::Duration;

use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::metrics::Temporality;

use super::TelemetryError;
use crate::config::{AttributeValue, OtlpProtocol, TelemetrySpec, check_endpoint};

/// The default bound on one export (OTLP's own default is 10 s; a hook host's exports are a
/// few kilobytes to a collector nearby).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// The default bound on the flush when the process ends: what a dead or silent collector may
/// add to an `agent-hook` call.
pub const DEFAULT_EXIT_TIMEOUT: Duration = Duration::from_millis(200);

/// The three OTLP signals hookhost exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Signal {
    Traces,
    Metrics,
    Logs,
}

impl Signal {
    fn upper(self) -> &'static str {
        match self {
            Signal::Traces => "TRACES",
            Signal::Metrics => "METRICS",
            Signal::Logs => "LOGS",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Signal::Traces => "/v1/traces",
            Signal::Metrics => "/v1/metrics",
            Signal::Logs => "/v1/logs",
        }
    }
}

/// Where and how one signal goes.
#[derive(Debug, Clone)]
pub(super) struct Route {
    /// The full URL: OTLP/HTTP's path included.
    pub(super) endpoint: String,
    pub(super) headers: Vec<(String, String)>,
    pub(super) timeout: Duration,
}

/// Everything the pipeline is built from.
#[derive(Debug, Clone)]
pub(super) struct Settings {
    pub(super) protocol: OtlpProtocol,
    pub(super) traces: Route,
    pub(super) metrics: Route,
    pub(super) logs: Option<Route>,
    pub(super) resource: Vec<KeyValue>,
    pub(super) temporality: Temporality,
    pub(super) exit_timeout: Duration,
}

type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// `None` when telemetry is off: `OTEL_SDK_DISABLED=true`, or neither a table nor an endpoint
/// variable asks for it.
pub(super) fn resolve(
    spec: Option<&TelemetrySpec>,
    env: Env<'_>,
) -> Result<Option<Settings>, TelemetryError> {
    let var = |name: &str| env(name).filter(|value| !value.trim().is_empty());
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Ok(None);
    }
    if spec.is_none()
        && var("OTEL_EXPORTER_OTLP_ENDPOINT").is_none()
        && var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_none()
    {
        return Ok(None);
    }
    let protocol = match var("OTEL_EXPORTER_OTLP_PROTOCOL") {
        Some(name) => OtlpProtocol::named(&name).ok_or_else(|| TelemetryError::Variable {
            name: "OTEL_EXPORTER_OTLP_PROTOCOL",
            value: name,
            expected: "\"http/protobuf\" or \"grpc\" (hookhost does not export http/json)",
        })?,
        None => spec
            .and_then(|s| s.protocol)
            .unwrap_or(OtlpProtocol::HttpProtobuf),
    };
    let base = match var("OTEL_EXPORTER_OTLP_ENDPOINT") {
        Some(url) => checked("OTEL_EXPORTER_OTLP_ENDPOINT", url)?,
        None => match (spec.and_then(|s| s.endpoint.clone()), protocol) {
            (Some(url), _) => url,
            (None, OtlpProtocol::HttpProtobuf) => "http://localhost:4318".to_string(),
            (None, OtlpProtocol::Grpc) => "http://localhost:4317".to_string(),
        },
    };
    let mut headers = spec.map(|s| s.headers.clone()).unwrap_or_default();
    if let Some(list) = var("OTEL_EXPORTER_OTLP_HEADERS") {
        merge_headers(&mut headers, "OTEL_EXPORTER_OTLP_HEADERS", &list)?;
    }
    let timeout = match var("OTEL_EXPORTER_OTLP_TIMEOUT") {
        Some(ms) => millis("OTEL_EXPORTER_OTLP_TIMEOUT", &ms)?,
        None => spec
            .and_then(|s| s.timeout_ms)
            .map_or(DEFAULT_TIMEOUT, Duration::from_millis),
    };
    let route = |signal: Signal| -> Result<Route, TelemetryError> {
        let own = |suffix: &str| var(&format!("OTEL_EXPORTER_OTLP_{}_{suffix}", signal.upper()));
        let endpoint = match own("ENDPOINT") {
            // A signal's own endpoint is used as written (the OTLP exporter specification).
            Some(url) => checked(signal_var(signal, "ENDPOINT"), url)?,
            None if protocol == OtlpProtocol::Grpc => base.clone(),
            None => format!("{}{}", base.trim_end_matches('/'), signal.path()),
        };
        let mut headers = headers.clone();
        if let Some(list) = own("HEADERS") {
            merge_headers(&mut headers, signal_var(signal, "HEADERS"), &list)?;
        }
        let timeout = match own("TIMEOUT") {
            Some(ms) => millis(signal_var(signal, "TIMEOUT"), &ms)?,
            None => timeout,
        };
        Ok(Route {
            endpoint,
            headers,
            timeout,
        })
    };
    let temporality = match var("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE") {
        None => Temporality::Delta,
        Some(name) => match name.trim().to_ascii_lowercase().as_str() {
            "delta" => Temporality::Delta,
            "cumulative" => Temporality::Cumulative,
            "lowmemory" => Temporality::LowMemory,
            _ => {
                return Err(TelemetryError::Variable {
                    name: "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
                    value: name,
                    expected: "\"delta\", \"cumulative\" or \"lowmemory\"",
                });
            }
        },
    };
    Ok(Some(Settings {
        protocol,
        traces: route(Signal::Traces)?,
        metrics: route(Signal::Metrics)?,
        logs: match spec.is_some_and(|s| s.logs) {
            true => Some(route(Signal::Logs)?),
            false => None,
        },
        resource: resource(spec, &var)?,
        temporality,
        exit_timeout: spec
            .and_then(|s| s.exit_timeout_ms)
            .map_or(DEFAULT_EXIT_TIMEOUT, Duration::from_millis),
    }))
}

/// `OTEL_EXPORTER_OTLP_{SIGNAL}_{suffix}`, as a static name for messages.
fn signal_var(signal: Signal, suffix: &str) -> &'static str {
    match (signal, suffix) {
        (Signal::Traces, "ENDPOINT") => "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        (Signal::Metrics, "ENDPOINT") => "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        (Signal::Logs, "ENDPOINT") => "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        (Signal::Traces, "HEADERS") => "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        (Signal::Metrics, "HEADERS") => "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
        (Signal::Logs, "HEADERS") => "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
        (Signal::Traces, _) => "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
        (Signal::Metrics, _) => "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
        (Signal::Logs, _) => "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
    }
}

fn checked(name: &'static str, url: String) -> Result<String, TelemetryError> {
    match check_endpoint(&url) {
        Ok(()) => Ok(url.trim().to_string()),
        Err(_) => Err(TelemetryError::Variable {
            name,
            value: url,
            expected: "an http:// or https:// URL with a host",
        }),
    }
}

fn millis(name: &'static str, text: &str) -> Result<Duration, TelemetryError> {
    match text.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(TelemetryError::Variable {
            name,
            value: text.to_string(),
            expected: "a positive whole number of milliseconds",
        }),
    }
}

/// `key1=value1,key2=value2`, values percent-encoded (the W3C Baggage format the variables
/// use); keys keep their case.
fn pairs(name: &'static str, list: &str) -> Result<Vec<(String, String)>, TelemetryError> {
    list.split(',')
        .filter(|pair| !pair.trim().is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                Ok((key.trim().to_string(), percent_decode(value.trim())))
            }
            _ => Err(TelemetryError::Variable {
                name,
                value: list.to_string(),
                expected: "a list of key=value pairs separated by commas",
            }),
        })
        .collect()
}

/// A variable's headers merged over `headers`: one replaces the table's of the same name.
fn merge_headers(
    headers: &mut Vec<(String, String)>,
    name: &'static str,
    list: &str,
) -> Result<(), TelemetryError> {
    for (key, value) in pairs(name, list)? {
        let key = key.to_ascii_lowercase();
        headers.retain(|(known, _)| !known.eq_ignore_ascii_case(&key));
        headers.push((key, value));
    }
    Ok(())
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The resource: the table's attributes, `OTEL_RESOURCE_ATTRIBUTES` over them, and
/// `service.name` from `OTEL_SERVICE_NAME`, else the attributes, else `service_name`, else
/// "hookhost".
fn resource(
    spec: Option<&TelemetrySpec>,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<KeyValue>, TelemetryError> {
    let mut attributes: Vec<(String, Value)> = Vec::new();
    fn set(attributes: &mut Vec<(String, Value)>, key: String, value: Value) {
        attributes.retain(|(known, _)| *known != key);
        attributes.push((key, value));
    }
    if let Some(spec) = spec {
        if let Some(name) = &spec.service_name {
            set(
                &mut attributes,
                "service.name".into(),
                Value::from(name.clone()),
            );
        }
        for (key, value) in &spec.resource {
            let value = match value {
                AttributeValue::String(text) => Value::from(text.clone()),
                AttributeValue::Int(n) => Value::I64(*n),
                AttributeValue::Float(f) => Value::F64(*f),
                AttributeValue::Bool(b) => Value::Bool(*b),
            };
            set(&mut attributes, key.clone(), value);
        }
    }
    if let Some(list) = var("OTEL_RESOURCE_ATTRIBUTES") {
        for (key, value) in pairs("OTEL_RESOURCE_ATTRIBUTES", &list)? {
            set(&mut attributes, key, Value::from(value));
        }
    }
    if let Some(name) = var("OTEL_SERVICE_NAME") {
        set(
            &mut attributes,
            "service.name".into(),
            Value::from(name.trim().to_string()),
        );
    }
    if !attributes.iter().any(|(key, _)| key == "service.name") {
        attributes.push(("service.name".into(), Value::from("hookhost")));
    }
    Ok(attributes
        .into_iter()
        .map(|(key, value)| KeyValue::new(key, value))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    }

    #[test]
    fn off_unless_a_table_or_an_endpoint_asks() {
        assert!(resolve(None, &env(&[])).unwrap().is_none());
        let on = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")];
        assert!(resolve(None, &env(&on)).unwrap().is_some());
        let disabled = [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
            ("OTEL_SDK_DISABLED", "TRUE"),
        ];
        assert!(resolve(None, &env(&disabled)).unwrap().is_none());
    }

    #[test]
    fn environment_overrides_the_table_and_signals_override_the_general_variable() {
        let spec = TelemetrySpec {
            endpoint: Some("http://file:4318/".into()),
            protocol: None,
            service_name: Some("from-file".into()),
            headers: vec![("api-key".into(), "file".into())],
            resource: vec![("team".into(), AttributeValue::String("a".into()))],
            logs: true,
            timeout_ms: Some(700),
            exit_timeout_ms: None,
            spool: false,
            location: Default::default(),
        };
        let vars = [
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:1/custom"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "Api-Key=env%20key,x-b=2"),
            ("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "90"),
            ("OTEL_RESOURCE_ATTRIBUTES", "team=b,Deploy.Env=ci"),
        ];
        let settings = resolve(Some(&spec), &env(&vars)).unwrap().unwrap();
        assert_eq!(settings.traces.endpoint, "http://file:4318/v1/traces");
        assert_eq!(settings.metrics.endpoint, "http://m:1/custom");
        assert_eq!(
            settings.traces.headers,
            [
                ("api-key".to_string(), "env key".to_string()),
                ("x-b".to_string(), "2".to_string())
            ]
        );
        assert_eq!(settings.traces.timeout, Duration::from_millis(700));
        assert_eq!(
            settings.logs.unwrap().timeout,
            Duration::from_millis(90),
            "a signal's own variable wins"
        );
        let resource: Vec<String> = settings
            .resource
            .iter()
            .map(|kv| format!("{}={}", kv.key, kv.value))
            .collect();
        assert_eq!(
            resource,
            ["service.name=from-file", "team=b", "Deploy.Env=ci"]
        );
        assert_eq!(settings.exit_timeout, DEFAULT_EXIT_TIMEOUT);
        assert_eq!(settings.temporality, Temporality::Delta);
    }

    #[test]
    fn bad_variables_are_errors_that_name_them() {
        type Vars<'a> = &'a [(&'a str, &'a str)];
        let cases: &[(&str, Vars<'_>, &str)] = &[
            (
                "protocol",
                &[
                    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
                    ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
                ],
                "OTEL_EXPORTER_OTLP_PROTOCOL",
            ),
            (
                "endpoint",
                &[("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318")],
                "OTEL_EXPORTER_OTLP_ENDPOINT",
            ),
            (
                "timeout",
                &[
                    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
                    ("OTEL_EXPORTER_OTLP_TIMEOUT", "1s"),
                ],
                "OTEL_EXPORTER_OTLP_TIMEOUT",
            ),
        ];
        for (name, vars, variable) in cases {
            let error = resolve(None, &env(vars)).unwrap_err().to_string();
            assert!(error.contains(variable), "{name}: {error}");
        }
    }
}
