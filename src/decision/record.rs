//! One record: the event, the merged decision, and every hook that ran, masked.

use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use crate::config::{Layer, LogSpec};
use crate::event::Event;
use crate::outcome::{Decision, Outcome};

/// Where a hook comes from, as a record names it.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    /// The layer its configuration came from (none for an in-process hook).
    pub layer: Option<Layer>,
    /// Its command, its component's path or `oci://` reference, or `native`.
    pub source: String,
    /// The SHA-256 of its component, hex.
    pub sha256: Option<String>,
    /// The trusted keys whose signatures verified.
    pub signers: Vec<String>,
}

/// The record of `outcome`, for `event` as fired by `agent` in `cwd`; `hooks` gives each
/// hook's provenance by its index. `id` is the record's decision id.
pub fn record(
    id: &str,
    event: &Event<'_>,
    outcome: &Outcome,
    agent: Option<&str>,
    cwd: &str,
    hooks: &dyn Fn(usize) -> Option<Provenance>,
    spec: &LogSpec,
) -> Value {
    let (decision, decided_by, reason) = match &outcome.decision {
        Decision::Allow => ("allow", None, None),
        Decision::Approve(n) => ("approve", Some(n.by.as_str()), None),
        Decision::Warn(n) => ("warn", Some(n.by.as_str()), Some(n.reason.clone())),
        Decision::Ask(n) => ("ask", Some(n.by.as_str()), Some(n.reason.clone())),
        Decision::Block(b) => ("block", Some(b.blocked_by.as_str()), Some(b.message())),
    };
    let mut record = Map::new();
    record.insert("id".into(), json!(id));
    record.insert("time".into(), json!(now()));
    record.insert("agent".into(), json!(agent));
    record.insert("session".into(), json!(event.session_id()));
    record.insert("cwd".into(), json!(cwd));
    record.insert("event".into(), json!(event.name()));
    record.insert(
        "tool".into(),
        json!(event.tool_call().map(|call| call.tool)),
    );
    record.insert("decision".into(), json!(decision));
    record.insert("decided_by".into(), json!(decided_by));
    record.insert("reason".into(), json!(reason));
    if let Some(call) = event.tool_call() {
        record.insert("input".into(), call.input.clone());
    }
    let payload: Map<String, Value> = event
        .fields()
        .map(|(name, value)| (name.to_string(), value.clone()))
        .collect();
    if !payload.is_empty() {
        record.insert("payload".into(), Value::Object(payload));
    }
    let reports: Vec<Value> = outcome
        .reports
        .iter()
        .map(|report| {
            let origin = hooks(report.index).unwrap_or_default();
            let mut hook = Map::new();
            hook.insert("name".into(), json!(report.name));
            hook.insert("layer".into(), json!(origin.layer.map(Layer::as_str)));
            hook.insert("kind".into(), json!(report.kind));
            hook.insert("source".into(), json!(origin.source));
            if let Some(sha256) = origin.sha256 {
                hook.insert("sha256".into(), json!(sha256));
            }
            if !origin.signers.is_empty() {
                hook.insert("signers".into(), json!(origin.signers));
            }
            hook.insert("phase".into(), json!(report.phase.as_str()));
            hook.insert("mode".into(), json!(report.mode.as_str()));
            match &report.result {
                Ok(verdict) => {
                    hook.insert("verdict".into(), json!(verdict.answer.kind()));
                    if let Some(reason) = verdict.answer.reason() {
                        hook.insert("reason".into(), json!(reason));
                    }
                }
                Err(failure) => {
                    hook.insert("verdict".into(), json!("failed"));
                    hook.insert("failure".into(), json!(failure.kind()));
                    hook.insert("reason".into(), json!(failure.detailed()));
                }
            }
            hook.insert("us".into(), json!(report.duration.as_micros() as u64));
            Value::Object(hook)
        })
        .collect();
    record.insert("hooks".into(), Value::Array(reports));
    if !outcome.monitored.is_empty() {
        let monitored: Vec<Value> = outcome
            .monitored
            .iter()
            .map(|decision| match decision {
                Decision::Block(b) => {
                    json!({"by": b.blocked_by, "would": "block", "reason": b.message()})
                }
                Decision::Ask(n) => json!({"by": n.by, "would": "ask", "reason": n.reason}),
                Decision::Warn(n) => json!({"by": n.by, "would": "warn", "reason": n.reason}),
                Decision::Approve(n) => json!({"by": n.by, "would": "approve"}),
                Decision::Allow => json!({"would": "allow"}),
            })
            .collect();
        record.insert("monitored".into(), Value::Array(monitored));
    }
    let mut record = Value::Object(record);
    mask(&mut record, spec);
    record
}

/// Applies `drop` and `hash` to a record.
fn mask(record: &mut Value, spec: &LogSpec) {
    for pointer in &spec.drop {
        if let Some((parent, last)) = pointer.rsplit_once('/')
            && let Some(parent) = record.pointer_mut(parent)
        {
            let key = unescape(last);
            match parent {
                Value::Object(map) => {
                    map.remove(&key);
                }
                Value::Array(items) => {
                    if let Ok(index) = key.parse::<usize>()
                        && index < items.len()
                    {
                        items.remove(index);
                    }
                }
                _ => {}
            }
        }
    }
    for pointer in &spec.hash {
        if let Some(value) = record.pointer_mut(pointer) {
            let text = match &*value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let digest: String = Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            *value = json!(format!("sha256:{digest}"));
        }
    }
}

/// An RFC 6901 reference token, unescaped.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The time in RFC 3339, UTC, to the millisecond.
fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// A new decision id: a UUID v7 (a millisecond timestamp, then random bits), so that ids sort
/// by time.
pub(crate) fn new_id() -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut bytes = [0u8; 16];
    // Without randomness the ids still sort by time; they only lose uniqueness within a
    // millisecond, which the record's other fields then tell apart.
    let _ = getrandom::fill(&mut bytes[6..]);
    bytes[..6].copy_from_slice(&millis.to_be_bytes()[2..]);
    bytes[6] = (bytes[6] & 0x0f) | 0x70;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}
