//! The `[telemetry]` table: where decision records are exported over OTLP (a span per event, a
//! child span per hook, metrics, and optionally a log record), how, and how long an export and
//! the flush at exit may take. The standard `OTEL_*` variables override what the table says
//! (the `telemetry` module resolves them); this module only checks what the file wrote.

use toml::Spanned;
use toml::de::DeValue;

use super::Location;
use super::fields::{Problems, close_to};

/// `[telemetry]` of a hooks.toml. Every field left out falls back to the `OTEL_*` environment,
/// then to the default.
#[derive(Debug, Clone, PartialEq)]
pub struct TelemetrySpec {
    /// The collector's base URL (`endpoint`): `http://host:4318` for OTLP/HTTP (the exporter
    /// adds `/v1/traces`, `/v1/metrics`, `/v1/logs`), `http://host:4317` for gRPC.
    pub endpoint: Option<String>,
    /// How records travel (`protocol`): "http/protobuf" (the default) or "grpc".
    pub protocol: Option<OtlpProtocol>,
    /// `service.name` of the resource (`service_name`; default "hookhost").
    pub service_name: Option<String>,
    /// Headers sent with every export (`headers`), such as an API key.
    pub headers: Vec<(String, String)>,
    /// Resource attributes (`resource`), added to those of `OTEL_RESOURCE_ATTRIBUTES`.
    pub resource: Vec<(String, AttributeValue)>,
    /// Whether each record is also exported as an OTel log record (`logs`, default false).
    pub logs: bool,
    /// The bound on one export, retries included (`timeout_ms`).
    pub timeout_ms: Option<u64>,
    /// The bound on the flush when the process ends (`exit_timeout_ms`).
    pub exit_timeout_ms: Option<u64>,
    /// Whether records wait in the decision log for `hookhost log --export` instead of being
    /// sent by the process that made them (`spool`, default false; needs `[log]` in the same
    /// file).
    pub spool: bool,
    /// Where the table is.
    pub location: Location,
}

/// OTLP's two transports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtlpProtocol {
    /// Protobuf bodies POSTed over HTTP ("http/protobuf").
    HttpProtobuf,
    /// gRPC ("grpc").
    Grpc,
}

impl OtlpProtocol {
    /// The protocol named as `OTEL_EXPORTER_OTLP_PROTOCOL` names it.
    pub fn named(name: &str) -> Option<OtlpProtocol> {
        match name.trim() {
            "http/protobuf" => Some(OtlpProtocol::HttpProtobuf),
            "grpc" => Some(OtlpProtocol::Grpc),
            _ => None,
        }
    }

    /// "http/protobuf" or "grpc".
    pub fn as_str(self) -> &'static str {
        match self {
            OtlpProtocol::HttpProtobuf => "http/protobuf",
            OtlpProtocol::Grpc => "grpc",
        }
    }
}

/// A resource attribute's value as the table wrote it.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeValue {
    /// A string.
    String(String),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

/// The largest `timeout_ms` and `exit_timeout_ms`: a minute. Past that an agent's tool call
/// waits on its telemetry.
pub const MAX_TELEMETRY_TIMEOUT_MS: u64 = 60_000;

const KEYS: &[&str] = &[
    "endpoint",
    "protocol",
    "service_name",
    "headers",
    "resource",
    "logs",
    "timeout_ms",
    "exit_timeout_ms",
    "spool",
];

pub(super) fn parse_telemetry(
    value: &Spanned<DeValue<'_>>,
    sink: &mut Problems<'_>,
) -> Option<TelemetrySpec> {
    let location = sink.lines.locate(value.span().start);
    let DeValue::Table(table) = value.get_ref() else {
        sink.push(
            &value.span(),
            None,
            "`telemetry` must be a table: write it as `[telemetry]`".to_string(),
        );
        return None;
    };
    let errors = sink.len();
    let mut spec = TelemetrySpec {
        endpoint: None,
        protocol: None,
        service_name: None,
        headers: Vec::new(),
        resource: Vec::new(),
        logs: false,
        timeout_ms: None,
        exit_timeout_ms: None,
        spool: false,
        location,
    };
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        let mut wrong = |expected: &str| {
            sink.push(
                &value.span(),
                None,
                format!(
                    "`telemetry.{name}` must be {expected}, found {}",
                    value.get_ref().type_str()
                ),
            )
        };
        match (name, value.get_ref()) {
            ("endpoint", DeValue::String(url)) => match check_endpoint(url) {
                Ok(()) => spec.endpoint = Some(url.trim().to_string()),
                Err(message) => sink.push(&value.span(), None, message),
            },
            ("endpoint", _) => wrong("a URL such as \"http://localhost:4318\""),
            ("protocol", DeValue::String(protocol)) => match OtlpProtocol::named(protocol) {
                Some(protocol) => spec.protocol = Some(protocol),
                None => sink.push(
                    &value.span(),
                    None,
                    format!(
                        "`telemetry.protocol` must be \"http/protobuf\" or \"grpc\", found {}",
                        crate::text::quote(protocol)
                    ),
                ),
            },
            ("protocol", _) => wrong("\"http/protobuf\" or \"grpc\""),
            ("service_name", DeValue::String(service)) if !service.trim().is_empty() => {
                spec.service_name = Some(service.to_string());
            }
            ("service_name", _) => wrong("a non-empty string"),
            ("headers", DeValue::Table(headers)) => {
                for (header, item) in headers.iter() {
                    let header_name = header.get_ref().as_ref();
                    match item.get_ref() {
                        DeValue::String(text) if valid_header(header_name, text) => spec
                            .headers
                            .push((header_name.to_string(), text.to_string())),
                        DeValue::String(_) => sink.push(
                            &header.span(),
                            None,
                            format!(
                                "`telemetry.headers.{}` is not a valid HTTP header: a name of \
                                 letters, digits and `-`, a value of visible characters",
                                crate::text::name(header_name)
                            ),
                        ),
                        other => sink.push(
                            &item.span(),
                            None,
                            format!(
                                "`telemetry.headers.{}` must be a string, found {}",
                                crate::text::name(header_name),
                                other.type_str()
                            ),
                        ),
                    }
                }
            }
            ("headers", _) => wrong("a table of strings, like headers = { api-key = \"...\" }"),
            ("resource", DeValue::Table(attributes)) => {
                for (attribute, item) in attributes.iter() {
                    let attribute_name = attribute.get_ref().as_ref();
                    match attribute_value(item.get_ref()) {
                        Some(value) => spec.resource.push((attribute_name.to_string(), value)),
                        None => sink.push(
                            &item.span(),
                            None,
                            format!(
                                "`telemetry.resource.{}` must be a string, a number or a \
                                 boolean, found {}",
                                crate::text::name(attribute_name),
                                item.get_ref().type_str()
                            ),
                        ),
                    }
                }
            }
            ("resource", _) => wrong("a table of attributes, like resource = { team = \"infra\" }"),
            ("logs", DeValue::Boolean(logs)) => spec.logs = *logs,
            ("spool", DeValue::Boolean(spool)) => spec.spool = *spool,
            ("spool", _) => wrong("true or false"),
            ("logs", _) => wrong("true or false"),
            ("timeout_ms" | "exit_timeout_ms", DeValue::Integer(n)) => {
                match u64::from_str_radix(n.as_str(), n.radix()) {
                    Ok(ms) if (1..=MAX_TELEMETRY_TIMEOUT_MS).contains(&ms) => {
                        if name == "timeout_ms" {
                            spec.timeout_ms = Some(ms);
                        } else {
                            spec.exit_timeout_ms = Some(ms);
                        }
                    }
                    _ => sink.push(
                        &value.span(),
                        None,
                        format!(
                            "`telemetry.{name}` must be between 1 and {MAX_TELEMETRY_TIMEOUT_MS} \
                             (milliseconds), found {}",
                            n.as_str()
                        ),
                    ),
                }
            }
            ("timeout_ms" | "exit_timeout_ms", _) => wrong("a whole number of milliseconds"),
            (other, _) => {
                let meant = close_to(KEYS, other)
                    .map(|k| format!("did you mean `{k}`? "))
                    .unwrap_or_default();
                sink.push(
                    &key.span(),
                    None,
                    format!(
                        "unknown key `telemetry.{}`; {meant}[telemetry] takes {}",
                        crate::text::name(other),
                        KEYS.join(", ")
                    ),
                );
            }
        }
    }
    (sink.len() == errors).then_some(spec)
}

/// An OTLP endpoint: `http://` or `https://`, a host, an optional port and path, nothing else.
/// (The full URL grammar is the exporter's; this catches what a person gets wrong.)
pub fn check_endpoint(url: &str) -> Result<(), String> {
    let shown = crate::text::quote(url);
    let url = url.trim();
    let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    else {
        return Err(format!(
            "`telemetry.endpoint` {shown} must start with http:// or https:// (gRPC endpoints \
             too: \"http://localhost:4317\")"
        ));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
            if port.parse::<u16>().is_err() {
                return Err(format!(
                    "`telemetry.endpoint` {shown} has a port that is not a number from 0 to 65535"
                ));
            }
            host
        }
        _ => authority,
    };
    if host.is_empty() || host.contains('@') || url.chars().any(char::is_whitespace) {
        return Err(format!(
            "`telemetry.endpoint` {shown} needs a host, such as \"http://localhost:4318\" (no \
             spaces, no user name)"
        ));
    }
    Ok(())
}

/// An HTTP header name (a token) and a value of visible ASCII and spaces.
fn valid_header(name: &str, value: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        && value
            .bytes()
            .all(|b| b == b' ' || b == b'\t' || b.is_ascii_graphic())
}

fn attribute_value(value: &DeValue<'_>) -> Option<AttributeValue> {
    match value {
        DeValue::String(text) => Some(AttributeValue::String(text.to_string())),
        DeValue::Integer(n) => i64::from_str_radix(n.as_str(), n.radix())
            .ok()
            .map(AttributeValue::Int),
        DeValue::Float(f) => f
            .as_str()
            .replace('_', "")
            .parse()
            .ok()
            .map(AttributeValue::Float),
        DeValue::Boolean(b) => Some(AttributeValue::Bool(*b)),
        _ => None,
    }
}
