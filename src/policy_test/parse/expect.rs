//! A case's `expect` table (and its `reply`): what must come out, checked so that it can fail:
//! known decisions, and nothing that cannot hold beside the decision it goes with.

use std::ops::Range;

use toml::de::DeValue;

use super::super::{Expect, ExpectReply};
use super::fields::Fields;
use super::{did_you_mean, named, texts};
use crate::config::{Problems, to_json};
use crate::dialect::AgentFormat;

const EXPECT_KEYS: &[&str] = &[
    "decision",
    "by",
    "reason",
    "hook_failed",
    "updated_input",
    "context",
    "signals",
    "ran",
    "did_not_run",
    "reply",
];
const REPLY_KEYS: &[&str] = &["exit_code", "json", "stdout", "stderr"];
const DECISIONS: &[&str] = &["allow", "approve", "warn", "ask", "block"];

pub(super) fn parse_expect(
    fields: &Fields<'_, '_>,
    agent: Option<AgentFormat>,
    span: &Range<usize>,
    sink: &mut Problems<'_>,
) -> Option<Expect> {
    let errors_before = sink.len();
    fields.unknown_keys(EXPECT_KEYS, sink);
    let decision = fields
        .string("decision", sink)
        .and_then(|(decision, span)| {
            if DECISIONS.contains(&decision.as_str()) {
                return Some(decision);
            }
            fields.problem(
                sink,
                &span,
                format!(
                    "unknown decision `{}`{} (decisions: {})",
                    crate::text::name(&decision),
                    did_you_mean(DECISIONS, &decision.to_ascii_lowercase()),
                    DECISIONS.join(", ")
                ),
            );
            None
        });
    let by = fields.string("by", sink);
    let by = named(by.into_iter().collect(), sink).pop();
    let ran = fields.strings("ran", sink);
    let ran = named(ran, sink);
    let did_not_run = fields.strings("did_not_run", sink);
    let did_not_run = named(did_not_run, sink);
    let expect = Expect {
        decision,
        by,
        reason: texts(fields.strings("reason", sink)),
        hook_failed: fields.bool("hook_failed", sink),
        updated_input: fields.json_object("updated_input", sink),
        context: texts(fields.strings("context", sink)),
        signals: fields
            .field("signals")
            .map(|_| texts(fields.strings("signals", sink))),
        ran,
        did_not_run,
        reply: fields.table("reply", sink).and_then(|(table, span)| {
            if agent.is_none() {
                fields.problem(
                    sink,
                    &span,
                    format!(
                        "`expect.reply` is what an agent reads back: say which agent with \
                         `agent` ({})",
                        super::agent_names()
                    ),
                );
            }
            parse_reply(&fields.nested(table, "`expect.reply`"), sink)
        }),
    };
    let allowed = matches!(expect.decision.as_deref(), Some("allow"));
    for (key, bad) in [
        ("by", allowed && expect.by.is_some()),
        (
            "reason",
            matches!(expect.decision.as_deref(), Some("allow" | "approve"))
                && !expect.reason.is_empty(),
        ),
        (
            "hook_failed",
            expect.hook_failed.is_some() && !matches!(expect.decision.as_deref(), Some("block")),
        ),
    ] {
        if bad && let Some((_, span)) = fields.key(key) {
            let decision = expect.decision.as_deref().unwrap_or_default();
            fields.problem(
                sink,
                &span,
                format!(
                    "`{key}` cannot hold with decision = \"{decision}\" ({}); remove one of them",
                    match key {
                        "hook_failed" => "only a block comes from a hook's failure",
                        "by" => "an allow is nobody's decision",
                        _ => "it has no reason",
                    }
                ),
            );
        }
    }
    if fields.table.is_empty() {
        fields.problem(
            sink,
            span,
            "`expect` checks nothing: say what must come out (decision, by, reason, ran, ...), \
             or the case could never fail"
                .to_string(),
        );
    }
    (sink.len() == errors_before).then_some(expect)
}

fn parse_reply(fields: &Fields<'_, '_>, sink: &mut Problems<'_>) -> Option<ExpectReply> {
    fields.unknown_keys(REPLY_KEYS, sink);
    let exit_code = fields.field("exit_code").and_then(|value| {
        let code = match value.get_ref() {
            DeValue::Integer(int) => u8::from_str_radix(int.as_str(), int.radix()).ok(),
            _ => None,
        };
        if code.is_none() {
            fields.problem(
                sink,
                &value.span(),
                "`exit_code` must be a whole number from 0 to 255".to_string(),
            );
        }
        code
    });
    let json = fields
        .field("json")
        .and_then(|value| match value.get_ref() {
            DeValue::String(text) => match serde_json::from_str(text) {
                Ok(json) => Some(json),
                Err(error) => {
                    fields.problem(
                        sink,
                        &value.span(),
                        format!("`json` is not JSON ({error}); write it as a TOML table"),
                    );
                    None
                }
            },
            other => Some(to_json(other)),
        });
    Some(ExpectReply {
        exit_code,
        json,
        stdout: texts(fields.strings("stdout", sink)),
        stderr: texts(fields.strings("stderr", sink)),
    })
}
