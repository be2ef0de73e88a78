//! One record: the event, the merged decision, and every hook that ran, masked.
//!
//! Taken in two steps so that the calling path pays little: a [`Draft`] copies what the
//! record needs out of the event and the outcome (the tool input and payload without the
//! fields `drop` removes whole), and the log's writer turns drafts into JSON records later.
//!
//! Longer than 400 lines: a record's two steps (the draft taken on the calling path, the JSON
//! the writer makes of it) and the masks applied between them are one format, kept in one place
//! so that a field is never written by one and dropped by the other.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::SystemTime;

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use crate::config::{Layer, LogSpec};
use crate::event::{Event, Phase};
use crate::outcome::{Decision, Outcome};
use crate::verdict::{HookFailure, Mode};

use super::{contents, redaction};

pub use crate::recording::Provenance;

/// What one record says, copied out of an event and its outcome: no JSON built yet.
#[derive(Debug, Clone)]
pub struct Draft {
    time: SystemTime,
    us: u64,
    agent: Option<String>,
    session: Option<String>,
    cwd: Arc<str>,
    event: std::borrow::Cow<'static, str>,
    tool: Option<String>,
    input: Option<Value>,
    payload: Map<String, Value>,
    decision: Decision,
    hooks: Vec<HookPart>,
    monitored: Vec<Decision>,
}

/// One hook's part of a record.
#[derive(Debug, Clone)]
struct HookPart {
    name: String,
    origin: Option<Arc<Provenance>>,
    kind: &'static str,
    phase: Phase,
    mode: Mode,
    verdict: &'static str,
    failure: Option<&'static str>,
    reason: Option<String>,
    us: u64,
}

/// Where a draft's parts come from besides the event and the outcome.
pub(crate) type Context<'a> = crate::recording::RecordContext<'a>;

impl Draft {
    /// The draft of `outcome`'s record. The input and payload fields that `spec.drop` removes
    /// whole are not copied (a Write's content, a tool's response).
    pub(crate) fn new(
        event: &Event<'_>,
        outcome: &Outcome,
        context: &Context<'_>,
        masks: &Masks,
    ) -> Draft {
        let call = event.tool_call();
        // The table is read only when contents are dropped, and once per record.
        let input_contents = call
            .filter(|_| masks.contents)
            .map(|call| contents::Contents::of_tool(call.tool));
        let payload_contents = masks
            .contents
            .then(|| contents::Contents::of_event(&outcome.event));
        let input = call.and_then(|call| match call.input {
            Value::Object(fields) => Some(Value::Object(
                fields
                    .iter()
                    .filter(|(name, _)| {
                        let dropped = masks.input.iter().any(|dropped| dropped == *name)
                            || input_contents.as_ref().is_some_and(|c| c.holds(name));
                        !dropped
                    })
                    .map(|(name, value)| (name.clone(), value.clone()))
                    .collect(),
            )),
            Value::String(_) if input_contents.as_ref().is_some_and(|c| c.is_whole_input()) => None,
            other => Some(other.clone()),
        });
        let payload = event
            .fields()
            .filter(|(name, _)| {
                let dropped = masks.payload.iter().any(|dropped| dropped == name)
                    || payload_contents.as_ref().is_some_and(|c| c.holds(name));
                !dropped
            })
            .map(|(name, value)| (name.to_string(), value.clone()))
            .collect();
        let hooks = outcome
            .reports
            .iter()
            .map(|report| {
                let (verdict, failure, reason) = match &report.result {
                    // It never ran: the organisation's `managed_only` (the reason says so).
                    Err(HookFailure::NotAllowed { reason }) if report.is_skipped() => {
                        ("skipped", None, Some(reason.clone()))
                    }
                    Ok(verdict) => (
                        verdict.answer.kind(),
                        None,
                        verdict.answer.reason().map(str::to_string),
                    ),
                    Err(failure) => ("failed", Some(failure.kind()), Some(failure.detailed())),
                };
                HookPart {
                    name: report.name.clone(),
                    origin: (context.hooks)(report.index),
                    kind: report.kind,
                    phase: report.phase,
                    mode: report.mode,
                    verdict,
                    failure,
                    reason,
                    us: report.duration.as_micros() as u64,
                }
            })
            .collect();
        Draft {
            time: SystemTime::now(),
            us: context.us,
            agent: context.agent.map(str::to_string),
            session: event.session_id().map(str::to_string),
            cwd: context.cwd.clone(),
            // The outcome's name: borrowed from the catalog for a built-in event.
            event: outcome.event.clone(),
            tool: call.map(|call| call.tool.to_string()),
            input,
            payload,
            decision: outcome.decision.clone(),
            hooks,
            monitored: outcome.monitored.clone(),
        }
    }

    /// When the event finished.
    pub fn time(&self) -> SystemTime {
        self.time
    }

    /// The record: `id` is its decision id; `masks` are `[log]`'s.
    pub(crate) fn to_record(&self, id: &str, masks: &Masks) -> Value {
        self.with_shape(id, masks, |shape| {
            serde_json::to_value(shape).unwrap_or_default()
        })
    }

    /// The record as the line that holds it (JSON, without its newline).
    pub(crate) fn to_line(&self, id: &str, masks: &Masks) -> Vec<u8> {
        let mut line = Vec::new();
        self.write_line(id, masks, &mut line);
        line
    }

    /// Appends the record's line to `out`: what the log's writer does, serializing without
    /// building the record as a JSON value first.
    pub(crate) fn write_line(&self, id: &str, masks: &Masks, out: &mut Vec<u8>) {
        let start = out.len();
        self.with_shape(id, masks, |shape| {
            if serde_json::to_writer(&mut *out, shape).is_err() {
                out.truncate(start);
            }
        })
    }

    /// Calls `f` with the record's shape. The tool input and the payload are copied only when
    /// `masks` have more to do than the draft did (drop a field deeper than the first level,
    /// hash one).
    fn with_shape<T>(&self, id: &str, masks: &Masks, f: impl FnOnce(&Shape<'_>) -> T) -> T {
        let time = rfc3339(self.time);
        let payload = (!self.payload.is_empty()).then_some(&self.payload);
        // Secrets are looked for before anything is copied: most records have none.
        let secrets = masks.redact
            && (self.input.as_ref().is_some_and(redaction::has_secret)
                || self.payload.values().any(redaction::has_secret));
        if masks.drop.is_empty() && masks.hash.is_empty() && !secrets {
            return f(&self.shape(id, &time, self.input.as_ref(), payload, masks.redact));
        }
        let mut user = Map::new();
        if let Some(input) = &self.input {
            user.insert("input".into(), input.clone());
        }
        if let Some(payload) = payload {
            user.insert("payload".into(), Value::Object(payload.clone()));
        }
        let mut user = Value::Object(user);
        masks.apply(&mut user, secrets);
        f(&self.shape(
            id,
            &time,
            user.get("input"),
            user.get("payload").and_then(Value::as_object),
            masks.redact,
        ))
    }

    fn shape<'a>(
        &'a self,
        id: &'a str,
        time: &'a str,
        input: Option<&'a Value>,
        payload: Option<&'a Map<String, Value>>,
        redact: bool,
    ) -> Shape<'a> {
        // A reason may quote what it refused (a command with its token).
        let clean = |reason: String| match redaction::redact(&reason) {
            Cow::Borrowed(_) => reason,
            Cow::Owned(clean) => clean,
        };
        let clean = |reason: Option<String>| if redact { reason.map(clean) } else { reason };
        let clean_str = |reason: Option<&'a str>| match reason {
            Some(reason) if redact => Some(redaction::redact(reason)),
            other => other.map(Cow::Borrowed),
        };
        let (decision, decided_by, reason) = match &self.decision {
            Decision::Allow => ("allow", None, None),
            Decision::Approve(n) => ("approve", Some(n.by.as_str()), None),
            Decision::Warn(n) => ("warn", Some(n.by.as_str()), Some(n.reason.clone())),
            Decision::Ask(n) => ("ask", Some(n.by.as_str()), Some(n.reason.clone())),
            Decision::Block(b) => ("block", Some(b.blocked_by.as_str()), Some(b.message())),
        };
        Shape {
            id,
            time,
            us: self.us,
            agent: self.agent.as_deref(),
            session: self.session.as_deref(),
            cwd: &self.cwd,
            event: &self.event,
            tool: self.tool.as_deref(),
            decision,
            decided_by,
            reason: clean(reason),
            input,
            payload,
            hooks: self
                .hooks
                .iter()
                .map(|part| {
                    let origin = part.origin.as_deref();
                    HookShape {
                        name: &part.name,
                        layer: origin.and_then(|o| o.layer).map(Layer::as_str),
                        kind: part.kind,
                        source: origin.map_or("", |o| o.source.as_str()),
                        sha256: origin.and_then(|o| o.sha256.as_deref()),
                        signers: origin.map_or(&[][..], |o| &o.signers[..]),
                        phase: part.phase.as_str(),
                        mode: part.mode.as_str(),
                        verdict: part.verdict,
                        failure: part.failure,
                        reason: clean_str(part.reason.as_deref()),
                        us: part.us,
                    }
                })
                .collect(),
            monitored: self
                .monitored
                .iter()
                .map(|decision| match decision {
                    Decision::Block(b) => Monitored {
                        by: Some(&b.blocked_by),
                        would: "block",
                        reason: Some(b.message()),
                    },
                    Decision::Ask(n) => Monitored {
                        by: Some(&n.by),
                        would: "ask",
                        reason: Some(n.reason.clone()),
                    },
                    Decision::Warn(n) => Monitored {
                        by: Some(&n.by),
                        would: "warn",
                        reason: Some(n.reason.clone()),
                    },
                    Decision::Approve(n) => Monitored {
                        by: Some(&n.by),
                        would: "approve",
                        reason: None,
                    },
                    Decision::Allow => Monitored {
                        by: None,
                        would: "allow",
                        reason: None,
                    },
                })
                .map(|monitored| Monitored {
                    reason: clean(monitored.reason),
                    ..monitored
                })
                .collect(),
        }
    }
}

/// A record as it is serialized (docs/hooks-toml.md, "The decision log").
#[derive(Serialize)]
struct Shape<'a> {
    id: &'a str,
    time: &'a str,
    us: u64,
    agent: Option<&'a str>,
    session: Option<&'a str>,
    cwd: &'a str,
    event: &'a str,
    tool: Option<&'a str>,
    decision: &'static str,
    decided_by: Option<&'a str>,
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    payload: Option<&'a Map<String, Value>>,
    hooks: Vec<HookShape<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    monitored: Vec<Monitored<'a>>,
}

#[derive(Serialize)]
struct HookShape<'a> {
    name: &'a str,
    layer: Option<&'static str>,
    kind: &'static str,
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sha256: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    signers: &'a [String],
    phase: &'static str,
    mode: &'static str,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<Cow<'a, str>>,
    us: u64,
}

#[derive(Serialize)]
struct Monitored<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    by: Option<&'a str>,
    would: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// The record of `outcome`, for `event` as fired by `agent` in `cwd`; `hooks` gives each
/// hook's provenance by its index. `id` is the record's decision id. (A [`Draft`] and its
/// record in one step.)
pub fn record(
    id: &str,
    event: &Event<'_>,
    outcome: &Outcome,
    agent: Option<&str>,
    cwd: &str,
    hooks: &dyn Fn(usize) -> Option<Provenance>,
    spec: &LogSpec,
) -> Value {
    let cwd: Arc<str> = cwd.into();
    let hooks = |index: usize| hooks(index).map(Arc::new);
    let us = outcome
        .reports
        .iter()
        .map(|report| report.duration.as_micros() as u64)
        .sum();
    let context = Context {
        agent,
        cwd: &cwd,
        hooks: &hooks,
        us,
    };
    let masks = Masks::new(spec);
    Draft::new(event, outcome, &context, &masks).to_record(id, &masks)
}

/// `[log]`'s masks, read once: the fields of the tool input and of the payload that `drop`
/// removes whole (`/input/NAME`, `/payload/NAME`: a draft does not copy them), and the other
/// pointers as their unescaped tokens.
#[derive(Debug, Clone, Default)]
pub(crate) struct Masks {
    input: Vec<String>,
    payload: Vec<String>,
    drop: Vec<Vec<String>>,
    hash: Vec<Vec<String>>,
    /// `drop_contents`: every agent's file contents, by the tool vocabulary.
    contents: bool,
    /// `redact`: secrets in strings and reasons.
    redact: bool,
}

impl Masks {
    pub(crate) fn new(spec: &LogSpec) -> Masks {
        let mut masks = Masks::default();
        for pointer in &spec.drop {
            let tokens = tokens(pointer);
            match tokens.as_slice() {
                [under, name] if under == "input" => masks.input.push(name.clone()),
                [under, name] if under == "payload" => masks.payload.push(name.clone()),
                _ => masks.drop.push(tokens),
            }
        }
        masks.hash = spec.hash.iter().map(|pointer| tokens(pointer)).collect();
        masks.contents = spec.drop_contents;
        masks.redact = spec.redact;
        masks
    }

    /// Applies the pointers a draft left to `user` (`{"input": ..., "payload": ...}`): drops,
    /// then redacts secrets when `secrets` (found there), then hashes (a value becomes
    /// `sha256:HEX` of its text, or of its JSON).
    fn apply(&self, user: &mut Value, secrets: bool) {
        for tokens in &self.drop {
            let Some((last, parent)) = tokens.split_last() else {
                continue;
            };
            match find(user, parent) {
                Some(Value::Object(map)) => {
                    map.remove(last);
                }
                Some(Value::Array(items)) => {
                    if let Ok(index) = last.parse::<usize>()
                        && index < items.len()
                    {
                        items.remove(index);
                    }
                }
                _ => {}
            }
        }
        if secrets {
            redaction::redact_value(user);
        }
        for tokens in &self.hash {
            if let Some(value) = find(user, tokens) {
                let text = match &*value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                let digest: String = Sha256::digest(text.as_bytes())
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                *value = Value::String(format!("sha256:{digest}"));
            }
        }
    }
}

/// The value `tokens` (a JSON pointer's) lead to from `value`.
fn find<'v>(mut value: &'v mut Value, tokens: &[String]) -> Option<&'v mut Value> {
    for token in tokens {
        value = match value {
            Value::Object(map) => map.get_mut(token)?,
            Value::Array(items) => items.get_mut(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(value)
}

/// A JSON pointer's reference tokens, unescaped.
fn tokens(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(unescape).collect()
}

/// An RFC 6901 reference token, unescaped.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// `time` in RFC 3339, UTC, to the millisecond.
fn rfc3339(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}

/// A new decision id for a record of `time`: a UUID v7 (RFC 9562) whose 74 bits after the
/// millisecond timestamp count up from a random start drawn once per process (its method 2),
/// so that ids sort by time, within a process even inside one millisecond, and processes do
/// not collide.
pub(crate) fn new_id(time: SystemTime) -> String {
    static NEXT: std::sync::Mutex<Option<u128>> = std::sync::Mutex::new(None);
    let millis = time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let counter = {
        let mut next = NEXT.lock().unwrap_or_else(|e| e.into_inner());
        let value = *next.get_or_insert_with(|| {
            let mut seed = [0u8; 16];
            // Without randomness ids still sort by time; they only lose their uniqueness
            // across processes within a millisecond, which the record's other fields then
            // tell apart.
            let _ = getrandom::fill(&mut seed);
            // The top bit stays clear: room to count before the 74 bits wrap.
            u128::from_le_bytes(seed) & ((1 << 73) - 1)
        });
        *next = Some((value + 1) & ((1 << 74) - 1));
        value
    };
    let rand_a = (counter >> 62) as u16 & 0x0fff;
    let rand_b = counter as u64 & ((1 << 62) - 1);
    let uuid: u128 = (u128::from(millis & ((1 << 48) - 1)) << 80)
        | (0x7 << 76)
        | (u128::from(rand_a) << 64)
        | (0b10 << 62)
        | u128::from(rand_b);
    let hex = format!("{uuid:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}
