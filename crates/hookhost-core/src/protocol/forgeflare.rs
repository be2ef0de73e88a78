//! forgeflare's protocol (seed 000, R3), widened to every event: the event as JSON on stdin,
//! `{"action": ...}` on stdout after exit 0.
//!
//! For forgeflare's three events the JSON is the spec's, field for field and in its order:
//! hook scripts parse it with `jq`, and agents diff it in logs. Other events follow the same
//! shape: `event`, `phase` (events whose hooks have phases), `session_id` (when the agent gives
//! one), `tool` and `input` (tool events), what the guards decided (observers), the event's own
//! fields in order, `tool_iterations` (tool events) and `cwd`.
//!
//! The answer's `action` is one of the event's words for "no objection" (`allow` for
//! PreToolUse, `continue` for PostToolUse and Stop, either elsewhere) or `block`, `ask`, `warn`,
//! `approve`, `signal`, where the event takes them; optional keys: `reason`, `signal`,
//! `updated_input`, `context`, `stop`, `message`. Unknown keys are ignored (forward
//! compatibility); an unknown action is invalid output, except for Stop, where R3 says to log
//! it and continue. An agent's Stop (Claude Code's, Copilot CLI's agentStop, Gemini CLI's
//! AfterAgent, Codex CLI's, Cursor's stop) takes `block` as well: there it keeps the agent
//! going, as it does under the agents' own protocols.

use serde_json::Value;

use super::{HookEvent, ProcessOutput};
use crate::dialect::{AgentFormat, BlockAs};
use crate::event::{Answers, Phase};
use crate::outcome::Decision;
use crate::verdict::{Answer, HookFailure, Signal, Verdict};

/// The stdin JSON of a hook.
pub(crate) fn stdin(view: &HookEvent<'_>) -> Vec<u8> {
    super::to_json(view, write)
}

fn write(view: &HookEvent<'_>, map: &mut super::Entries<'_, '_>) -> serde_json::Result<()> {
    let event = view.event;
    map.serialize_entry("event", event.name())?;
    if view.spec.gate {
        map.serialize_entry("phase", view.phase.as_str())?;
    }
    map.session("session_id", event.session_id())?;
    if let Some(call) = view.call {
        map.serialize_entry("tool", call.tool)?;
        map.serialize_entry("input", call.input)?;
    }
    if let (Phase::Observe, Some(decision)) = (view.phase, view.observed) {
        match decision {
            Decision::Block(block) => {
                map.serialize_entry("blocked", &true)?;
                map.serialize_entry("blocked_by", &block.blocked_by)?;
                map.serialize_entry("block_reason", &block.reason)?;
            }
            Decision::Allow => map.serialize_entry("blocked", &false)?,
            Decision::Approve(notice) | Decision::Warn(notice) | Decision::Ask(notice) => {
                map.serialize_entry("blocked", &false)?;
                map.serialize_entry("decision", decision.kind())?;
                map.serialize_entry("decided_by", &notice.by)?;
                map.serialize_entry("decision_reason", &notice.reason)?;
            }
        }
    }
    let mut has_iterations = false;
    for (name, value) in event.fields() {
        has_iterations |= name == "tool_iterations";
        // `cwd` is written last (an agent's event may carry its tool's own).
        if name != "cwd" {
            map.serialize_entry(name, value)?;
        }
    }
    if let (Some(call), false) = (view.call, has_iterations) {
        map.serialize_entry("tool_iterations", &call.tool_iterations)?;
    }
    map.serialize_entry("cwd", view.cwd)?;
    Ok(())
}

#[derive(serde::Deserialize)]
struct RawOutput {
    action: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    signal: Option<String>,
    #[serde(default)]
    updated_input: Option<Value>,
    #[serde(default)]
    context: Option<String>,
    #[serde(default)]
    stop: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

/// Reads a finished hook: a non-zero exit is a failure, else stdout is the answer.
pub(crate) fn answer(view: &HookEvent<'_>, output: &ProcessOutput) -> Result<Verdict, HookFailure> {
    if let Some(failure) = output.failure() {
        return Err(failure);
    }
    parse(view, &output.stdout)
}

/// Parses a hook's stdout into a verdict for its event and phase.
pub(crate) fn parse(view: &HookEvent<'_>, stdout: &[u8]) -> Result<Verdict, HookFailure> {
    // R4: an observer's output is read and discarded.
    if view.phase == Phase::Observe {
        return Ok(Verdict::allow());
    }
    let spec = view.spec;
    let output: RawOutput = serde_json::from_slice(stdout).map_err(|error| {
        let shown = String::from_utf8_lossy(&stdout[..stdout.len().min(200)]).into_owned();
        HookFailure::InvalidOutput {
            detail: if stdout.iter().all(u8::is_ascii_whitespace) {
                format!(
                    "stdout was empty; print a JSON object such as {{\"action\":\"{}\"}}",
                    spec.no_objection[0]
                )
            } else {
                format!("{error} in {}", crate::text::quote(&shown))
            },
        }
    })?;
    let action = output.action.as_str();
    if spec.no_objection.contains(&action) {
        return Ok(extras(Verdict::allow(), output));
    }
    if spec.lenient && !(action == "block" && agent_reads_a_block(view)) {
        // R3: logged, and treated as "continue".
        return Ok(Verdict {
            note: Some(format!(
                "returned unrecognized action {}; treated as {}",
                crate::text::quote(action),
                spec.no_objection[0]
            )),
            ..Verdict::allow()
        });
    }
    let reason = |default: &str| output.reason.clone().unwrap_or_else(|| default.to_string());
    let (verdict, needs) = match action {
        "block" => (Verdict::block(reason("no reason provided")), Answers::BLOCK),
        "ask" => (Verdict::ask(reason("no reason provided")), Answers::ASK),
        "warn" => (Verdict::warn(reason("")), Answers::WARN),
        "approve" => (Verdict::approve(), Answers::APPROVE),
        "signal" if spec.answers.allows(Answers::SIGNAL) => match &output.signal {
            Some(signal) if !signal.is_empty() => (
                Verdict {
                    signal: Some(Signal {
                        signal: signal.clone(),
                        reason: output.reason.clone().unwrap_or_default(),
                    }),
                    ..Verdict::allow()
                },
                Answers::SIGNAL,
            ),
            _ => {
                return Err(HookFailure::InvalidOutput {
                    detail: "action \"signal\" without a \"signal\" name".to_string(),
                });
            }
        },
        _ => (Verdict::allow(), Answers::ALL),
    };
    if needs == Answers::ALL || !spec.answers.allows(needs) {
        let who = match view.event.name() {
            "PreToolUse" => "a guard".to_string(),
            name if spec.gate => format!("a {name} guard"),
            name => format!("a {name} hook"),
        };
        return Err(HookFailure::InvalidOutput {
            detail: format!(
                "unknown action {}; {who} answers {}",
                crate::text::quote(action),
                words(view)
            ),
        });
    }
    Ok(extras(verdict, output))
}

/// Whether the event comes from an agent whose own event takes a block (`agent-hook` marks its
/// events with `HOOKHOST_AGENT`): there a Stop hook's `block` keeps the agent going, with the
/// reason as its next instruction. R3 is forgeflare's contract (its loop has ended, a Stop
/// hook's answer is logged only), so under forgeflare and the library's own `Event::stop`
/// every action but `continue` is still logged and treated as `continue`.
fn agent_reads_a_block(view: &HookEvent<'_>) -> bool {
    view.event.env().any(|(name, value)| {
        name == "HOOKHOST_AGENT"
            && AgentFormat::from_name(value)
                .is_some_and(|format| format.spec(view.event.name()).block != BlockAs::Nothing)
    })
}

/// The actions the event takes, for messages: `"allow" or "block"` (forgeflare's own events
/// keep the spec's two words).
fn words(view: &HookEvent<'_>) -> String {
    let spec = view.spec;
    let mut words: Vec<String> = spec
        .no_objection
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect();
    let forgeflare_words: &[&str] = match view.event.name() {
        "PreToolUse" => &["block"],
        "PostToolUse" => &["signal"],
        _ => &["block", "ask", "warn", "approve", "signal"],
    };
    for (flag, word) in [
        (Answers::BLOCK, "block"),
        (Answers::ASK, "ask"),
        (Answers::WARN, "warn"),
        (Answers::APPROVE, "approve"),
        (Answers::SIGNAL, "signal"),
    ] {
        if spec.answers.allows(flag) && forgeflare_words.contains(&word) {
            words.push(format!("\"{word}\""));
        }
    }
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn extras(mut verdict: Verdict, output: RawOutput) -> Verdict {
    verdict.updated_input = output.updated_input;
    verdict.context = output.context;
    verdict.stop = output.stop;
    verdict.message = output.message;
    if matches!(verdict.answer, Answer::Warn(ref reason) if reason.is_empty()) {
        verdict.answer = Answer::Warn("no reason provided".to_string());
    }
    verdict
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::event::catalog;
    use crate::outcome::{Block, Notice};
    use crate::{Event, ToolCall};

    const CWD: &str = "/home/user/project";

    fn view<'a>(
        event: &'a Event<'a>,
        phase: Phase,
        observed: Option<&'a Decision>,
    ) -> HookEvent<'a> {
        HookEvent {
            event,
            spec: catalog::spec(event.name()),
            call: event.tool_call(),
            phase,
            observed,
            cwd: CWD,
        }
    }

    fn text(view: HookEvent<'_>) -> String {
        String::from_utf8(stdin(&view)).unwrap()
    }

    fn parsed(view: HookEvent<'_>) -> Value {
        serde_json::from_slice(&stdin(&view)).unwrap()
    }

    #[test]
    fn guard_json_matches_spec_field_for_field() {
        let input = json!({"command": "cargo test --release"});
        let event = Event::pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 3,
        });
        assert_eq!(
            text(view(&event, Phase::Guard, None)),
            r#"{"event":"PreToolUse","phase":"guard","tool":"Bash","input":{"command":"cargo test --release"},"tool_iterations":3,"cwd":"/home/user/project"}"#
        );
    }

    #[test]
    fn observe_json_after_block_and_after_allow() {
        let input = json!({"command": "rm -rf /"});
        let event = Event::pre_tool_use(ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 3,
        });
        let blocked = Decision::Block(Block::decided(
            "ralph-guard.sh",
            "destructive command detected".into(),
        ));
        assert_eq!(
            text(view(&event, Phase::Observe, Some(&blocked))),
            r#"{"event":"PreToolUse","phase":"observe","tool":"Bash","input":{"command":"rm -rf /"},"blocked":true,"blocked_by":"ralph-guard.sh","block_reason":"destructive command detected","tool_iterations":3,"cwd":"/home/user/project"}"#
        );
        let allowed = parsed(view(&event, Phase::Observe, Some(&Decision::Allow)));
        assert_eq!(allowed["blocked"], json!(false));
        assert!(allowed.get("blocked_by").is_none());
        assert!(allowed.get("block_reason").is_none());
        let warned = Decision::Warn(Notice {
            by: "w".into(),
            reason: "careful".into(),
        });
        let warned = parsed(view(&event, Phase::Observe, Some(&warned)));
        assert_eq!(
            (
                &warned["blocked"],
                &warned["decision"],
                &warned["decided_by"]
            ),
            (&json!(false), &json!("warn"), &json!("w"))
        );
    }

    #[test]
    fn post_and_stop_json_match_spec() {
        let input = json!({"command": "cargo test --release"});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 3,
        };
        let post = Event::post_tool_use(call, "test result: ok. 42 passed; 0 failed", false);
        assert_eq!(
            text(view(&post, Phase::Guard, None)),
            r#"{"event":"PostToolUse","tool":"Bash","input":{"command":"cargo test --release"},"result":"test result: ok. 42 passed; 0 failed","is_error":false,"tool_iterations":3,"cwd":"/home/user/project"}"#
        );
        let stop = Event::stop(crate::StopReason::EndTurn, 7, 45000);
        assert_eq!(
            text(view(&stop, Phase::Guard, None)),
            r#"{"event":"Stop","reason":"end_turn","tool_iterations":7,"total_tokens":45000,"cwd":"/home/user/project"}"#
        );
    }

    #[test]
    fn new_and_custom_events_share_the_shape() {
        let start = Event::session_start("startup").with_session("260215-173319");
        assert_eq!(
            text(view(&start, Phase::Guard, None)),
            r#"{"event":"SessionStart","phase":"guard","session_id":"260215-173319","source":"startup","cwd":"/home/user/project"}"#
        );
        let custom = Event::new("llm:pre_request").with_payload(json!({"model": "m", "tokens": 3}));
        assert_eq!(
            text(view(&custom, Phase::Guard, None)),
            r#"{"event":"llm:pre_request","phase":"guard","model":"m","tokens":3,"cwd":"/home/user/project"}"#
        );
    }

    #[test]
    fn parses_each_event() {
        let input = json!({});
        let call = ToolCall {
            tool: "Bash",
            input: &input,
            tool_iterations: 1,
        };
        let pre = Event::pre_tool_use(call);
        let post = Event::post_tool_use(call, "", false);
        let stop = Event::stop(crate::StopReason::EndTurn, 1, 1);
        let prompt = Event::user_prompt_submit("hi");
        let guard = view(&pre, Phase::Guard, None);
        let post = view(&post, Phase::Guard, None);
        let stop = view(&stop, Phase::Guard, None);
        let prompt = view(&prompt, Phase::Guard, None);
        let observer = HookEvent {
            phase: Phase::Observe,
            ..guard
        };
        #[rustfmt::skip]
        let table: &[(&str, HookEvent<'_>, &str, Result<Verdict, ()>)] = &[
            ("allow", guard, r#"{"action":"allow"}"#, Ok(Verdict::allow())),
            ("block", guard, r#"{"action":"block","reason":"nope"}"#, Ok(Verdict::block("nope"))),
            ("block without reason", guard, r#"{"action":"block"}"#, Ok(Verdict::block("no reason provided"))),
            ("trailing newline", guard, "{\"action\":\"allow\"}\n", Ok(Verdict::allow())),
            ("extra fields", guard, r#"{"action":"allow","note":1}"#, Ok(Verdict::allow())),
            ("unknown guard action", guard, r#"{"action":"deny"}"#, Err(())),
            ("continue is not a guard's word", guard, r#"{"action":"continue"}"#, Err(())),
            ("signal is not a guard's word", guard, r#"{"action":"signal","signal":"x"}"#, Err(())),
            ("ask", guard, r#"{"action":"ask","reason":"sure?"}"#, Ok(Verdict::ask("sure?"))),
            ("warn", guard, r#"{"action":"warn","reason":"hmm"}"#, Ok(Verdict::warn("hmm"))),
            ("rewrite", guard, r#"{"action":"allow","updated_input":{"command":"ls"}}"#, Ok(Verdict::allow().with_updated_input(json!({"command":"ls"})))),
            ("empty", guard, "", Err(())),
            ("not json", guard, "allow", Err(())),
            ("two objects", guard, r#"{"action":"allow"}{"action":"block"}"#, Err(())),
            ("continue", post, r#"{"action":"continue"}"#, Ok(Verdict::allow())),
            ("signal", post, r#"{"action":"signal","signal":"converged","reason":"3 runs"}"#, Ok(Verdict::signal("converged", "3 runs"))),
            ("signal without name", post, r#"{"action":"signal"}"#, Err(())),
            ("allow is not a post word", post, r#"{"action":"allow"}"#, Err(())),
            ("stop continue", stop, r#"{"action":"continue"}"#, Ok(Verdict::allow())),
            ("stop garbage", stop, "nope", Err(())),
            ("prompt allows either word", prompt, r#"{"action":"continue","context":"c"}"#, Ok(Verdict::allow().with_context("c"))),
            ("observe ignores output", observer, "garbage", Ok(Verdict::allow())),
        ];
        for (name, view, stdout, expected) in table {
            let got = parse(view, stdout.as_bytes()).map_err(|_| ());
            assert_eq!(&got, expected, "case {name}");
        }
        // R3: an unrecognized Stop action is logged and treated as continue; so is `block`
        // under forgeflare (its run has ended) ...
        let ignored = parse(&stop, br#"{"action":"block","reason":"go on"}"#).unwrap();
        assert_eq!(ignored.answer, Answer::Allow);
        assert!(
            ignored
                .note
                .unwrap()
                .contains("unrecognized action \"block\"")
        );
        // ... but an agent's Stop reads it: the agent goes on, with the reason.
        for agent in ["claude", "copilot", "gemini", "codex", "cursor"] {
            let agents_stop = Event::new("Stop").with_env("HOOKHOST_AGENT", agent);
            let agents_stop = view(&agents_stop, Phase::Guard, None);
            let read = parse(&agents_stop, br#"{"action":"block","reason":"go on"}"#);
            assert_eq!(read, Ok(Verdict::block("go on")), "{agent}");
            let garbage = parse(&agents_stop, br#"{"action":"signal"}"#).unwrap();
            assert_eq!(garbage.answer, Answer::Allow, "{agent}");
        }
        let fired = Event::new("Stop").with_env("HOOKHOST_AGENT", "hookhost fire");
        let fired = view(&fired, Phase::Guard, None);
        let logged = parse(&fired, br#"{"action":"block"}"#).unwrap();
        assert_eq!(logged.answer, Answer::Allow);
        let signal = parse(&stop, br#"{"action":"signal"}"#).unwrap();
        assert_eq!(signal.answer, Answer::Allow);
        assert!(
            signal
                .note
                .unwrap()
                .contains("unrecognized action \"signal\"")
        );
        // The spec's guard words stay the message.
        let error = parse(&guard, br#"{"action":"deny"}"#).unwrap_err();
        assert_eq!(
            error.detailed(),
            "returned invalid JSON: unknown action \"deny\"; a guard answers \"allow\" or \"block\""
        );
    }
}
