//! Decision-log lines, as `hookhost log` and `hookhost log --export` read them back: a file
//! split into lines, each parsed, kept when it is a record (`decision::is_record`), and the
//! records exported over OTLP (`Telemetry::export`: a span per event and per hook, metrics, a
//! log record), which reads every field a record may have, with whatever type it has.
//!
//! Input: `[0, log...]` (the seeds: lines as hookhost writes them, a torn last line, foreign
//! lines), or `[1, arbitrary...]`: records built from the log's keys and values.
//!
//! Properties: no panic (the exporter's own `catch_unwind` does not hide one here: the fuzz
//! build aborts on panic); the exporter queues a bounded amount whatever the records say.
//! The collector is a closed port: nothing is sent.

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use hookhost::telemetry::Telemetry;
use serde_json::Value;

use crate::json::{self, Words};

const KEYS: &[&str] = &[
    "id",
    "time",
    "event",
    "tool",
    "decision",
    "decided_by",
    "reason",
    "session",
    "agent",
    "cwd",
    "us",
    "hooks",
    "monitored",
    "input",
    "payload",
    "name",
    "verdict",
    "mode",
    "phase",
    "failure",
    "kind",
    "layer",
    "source",
    "signers",
    "would",
    "hook",
    "by",
];

const STRINGS: &[&str] = &[
    "allow",
    "approve",
    "ask",
    "block",
    "warn",
    "failed",
    "skipped",
    "enforce",
    "monitor",
    "guard",
    "observe",
    "PreToolUse",
    "Stop",
    "Bash",
    "2026-02-13T19:30:00Z",
    "2026-02-13T19:30:00.123456Z",
    "9999-12-31T23:59:59Z",
    "0000-01-01T00:00:00Z",
    "01939a4e-8c2b-7d3e-9f10-23456789abcd",
    "00000000-0000-0000-0000-000000000000",
    "",
];

fn words() -> Words {
    Words {
        keys: KEYS,
        strings: STRINGS,
    }
}

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => {
            run(rest);
            Ok(())
        }
        _ => structured(rest),
    };
}

fn structured(rest: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(rest);
    let mut log = Vec::new();
    for _ in 0..u.int_in_range(0..=4)? {
        let mut record = json::object(&mut u, words(), 3)?;
        if u.ratio(3, 4)? {
            record.insert("id".into(), Value::String(json::string(&mut u, words())?));
            let len = u.int_in_range(0..=3)?;
            let mut hooks = Vec::new();
            for _ in 0..len {
                hooks.push(Value::Object(json::object(&mut u, words(), 1)?));
            }
            record.insert("hooks".into(), Value::Array(hooks));
        }
        log.extend_from_slice(Value::Object(record).to_string().as_bytes());
        log.push(b'\n');
    }
    run(&log);
    Ok(())
}

/// The exporter every execution feeds: records go to a closed port, with log records on.
fn telemetry() -> &'static Telemetry {
    static TELEMETRY: OnceLock<Telemetry> = OnceLock::new();
    TELEMETRY.get_or_init(|| {
        let config = hookhost::Config::parse(
            "[telemetry]\nendpoint = \"http://127.0.0.1:9\"\nlogs = true\ntimeout_ms = 100\n",
            "hooks.toml",
        )
        .expect("the harness's [telemetry]");
        Telemetry::new(config.telemetry.as_ref(), &|_| None)
            .expect("telemetry starts")
            .expect("telemetry is configured")
    })
}

/// `log` read as `hookhost log` reads a file, and its records exported.
pub fn run(log: &[u8]) {
    let records: Vec<Value> = log
        .split(|b| *b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter(hookhost::decision::is_record)
        .collect();
    telemetry().export(&records);
}
