//! `[telemetry]`: what each key means, and the located problem every mistake gets.

use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, "proj/.forgeflare/hooks.toml")
}

/// Every problem of an invalid file, as `line:col: message` strings.
fn problems(text: &str) -> Vec<String> {
    match parse(text) {
        Ok(_) => panic!("expected an invalid config:\n{text}"),
        Err(error) => error.problems().iter().map(|p| p.to_string()).collect(),
    }
}

#[cfg(feature = "telemetry")]
#[test]
fn telemetry_table_reads_every_key() {
    let config = parse(
        r#"
[telemetry]
endpoint = "http://127.0.0.1:4318"
protocol = "grpc"
service_name = "agent-ci"
headers = { api-key = "secret", x-team = "infra" }
resource = { team = "infra", shard = 3, ratio = 0.5, canary = true }
logs = true
timeout_ms = 500
exit_timeout_ms = 150
"#,
    )
    .unwrap();
    let spec = config.telemetry.unwrap();
    assert_eq!(spec.endpoint.as_deref(), Some("http://127.0.0.1:4318"));
    assert_eq!(spec.protocol, Some(OtlpProtocol::Grpc));
    assert_eq!(spec.service_name.as_deref(), Some("agent-ci"));
    assert_eq!(
        spec.headers,
        [
            ("api-key".to_string(), "secret".to_string()),
            ("x-team".to_string(), "infra".to_string())
        ]
    );
    assert_eq!(
        spec.resource,
        [
            ("canary".to_string(), AttributeValue::Bool(true)),
            ("ratio".to_string(), AttributeValue::Float(0.5)),
            ("shard".to_string(), AttributeValue::Int(3)),
            ("team".to_string(), AttributeValue::String("infra".into())),
        ]
    );
    assert!(spec.logs);
    assert_eq!(
        (spec.timeout_ms, spec.exit_timeout_ms),
        (Some(500), Some(150))
    );
    assert_eq!(spec.location.line, 2);
}

#[cfg(feature = "telemetry")]
#[test]
fn an_empty_telemetry_table_leaves_everything_to_the_environment() {
    let spec = parse("[telemetry]\n").unwrap().telemetry.unwrap();
    assert_eq!(
        (
            spec.endpoint,
            spec.protocol,
            spec.logs,
            spec.exit_timeout_ms
        ),
        (None, None, false, None)
    );
}

#[cfg(feature = "telemetry")]
#[test]
fn telemetry_mistakes_are_located() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "unknown key, close to one",
            "[telemetry]\nendpiont = \"http://localhost:4318\"\n",
            "2:1: unknown key `telemetry.endpiont`; did you mean `endpoint`? [telemetry] takes endpoint, protocol",
        ),
        (
            "endpoint without a scheme",
            "[telemetry]\nendpoint = \"localhost:4318\"\n",
            "2:12: `telemetry.endpoint` \"localhost:4318\" must start with http:// or https://",
        ),
        (
            "endpoint with a bad port",
            "[telemetry]\nendpoint = \"http://localhost:43x8\"\n",
            "2:12: `telemetry.endpoint` \"http://localhost:43x8\" has a port that is not a number",
        ),
        (
            "endpoint without a host",
            "[telemetry]\nendpoint = \"http:///v1\"\n",
            "2:12: `telemetry.endpoint` \"http:///v1\" needs a host",
        ),
        (
            "endpoint not a string",
            "[telemetry]\nendpoint = 4318\n",
            "2:12: `telemetry.endpoint` must be a URL such as \"http://localhost:4318\", found integer",
        ),
        (
            "bad protocol",
            "[telemetry]\nprotocol = \"http/json\"\n",
            "2:12: `telemetry.protocol` must be \"http/protobuf\" or \"grpc\", found \"http/json\"",
        ),
        (
            "zero timeout",
            "[telemetry]\ntimeout_ms = 0\n",
            "2:14: `telemetry.timeout_ms` must be between 1 and 60000 (milliseconds), found 0",
        ),
        (
            "exit timeout too long",
            "[telemetry]\nexit_timeout_ms = 600000\n",
            "2:19: `telemetry.exit_timeout_ms` must be between 1 and 60000 (milliseconds), found 600000",
        ),
        (
            "timeout as a string",
            "[telemetry]\ntimeout_ms = \"1s\"\n",
            "2:14: `telemetry.timeout_ms` must be a whole number of milliseconds, found string",
        ),
        (
            "logs not a boolean",
            "[telemetry]\nlogs = \"yes\"\n",
            "2:8: `telemetry.logs` must be true or false, found string",
        ),
        (
            "header with a space in its name",
            "[telemetry]\nheaders = { \"api key\" = \"x\" }\n",
            "2:13: `telemetry.headers.api key` is not a valid HTTP header",
        ),
        (
            "header not a string",
            "[telemetry]\nheaders = { api-key = 3 }\n",
            "2:23: `telemetry.headers.api-key` must be a string, found integer",
        ),
        (
            "resource attribute of a table",
            "[telemetry]\nresource = { team = { a = 1 } }\n",
            "2:21: `telemetry.resource.team` must be a string, a number or a boolean, found table",
        ),
        (
            "telemetry not a table",
            "telemetry = true\n",
            "1:13: `telemetry` must be a table: write it as `[telemetry]`",
        ),
    ];
    for (name, text, expected) in cases {
        let found = problems(text);
        assert!(
            found.iter().any(|p| p.starts_with(expected)),
            "{name}: expected a problem starting with\n  {expected}\nfound\n  {found:?}"
        );
    }
}

#[cfg(not(feature = "telemetry"))]
#[test]
fn without_the_feature_a_telemetry_table_is_an_error_naming_it() {
    let found = problems("[telemetry]\nendpoint = \"http://localhost:4318\"\n");
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("1:2: `[telemetry]`") && p.contains("`telemetry` cargo feature")),
        "{found:?}"
    );
}

#[cfg(feature = "telemetry")]
#[test]
fn spool_keeps_records_in_the_log_of_the_same_file() {
    let config = parse(
        "[log]\npath = \"decisions.jsonl\"\n\n[telemetry]\nendpoint = \"http://127.0.0.1:4318\"\nspool = true\n",
    )
    .unwrap();
    assert!(config.telemetry.unwrap().spool);
    assert_eq!(
        problems("[telemetry]\nendpoint = \"http://127.0.0.1:4318\"\nspool = true\n"),
        [
            "1:2: `telemetry.spool = true` keeps records in the decision log until `hookhost log --export` sends them: add a [log] table with a `path` to this file"
        ]
    );
    assert_eq!(
        problems("[log]\npath = \"d.jsonl\"\n[telemetry]\nspool = \"yes\"\n"),
        ["4:9: `telemetry.spool` must be true or false, found string"]
    );
}
