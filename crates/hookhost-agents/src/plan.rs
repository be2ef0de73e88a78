//! What an outcome asks of the agent, cut to what the agent reads on the event: the part of
//! rendering every format shares. The formats then only spell it.

use serde_json::Value;

use super::{AgentEventSpec, BlockAs, ContextAs};
use crate::outcome::{Block, Decision, Notice, Outcome};
use crate::verdict::HookFailure;

/// Events whose block reason is the model's next instruction rather than a refusal: the model
/// reads the hook's own words, not `blocked by ...`.
const INSTRUCTION_EVENTS: &[&str] = &["Stop", "SubagentStop"];

/// What to tell the agent, in hookhost's terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Refuse, with this reason (the model reads it, or the user where the agent says so).
    pub block: Option<String>,
    /// Ask the user, with this reason.
    pub ask: Option<String>,
    /// A guard gave explicit permission (and none objected).
    pub approve: bool,
    /// Run the tool with this input instead.
    pub rewrite: Option<Value>,
    /// Who rewrote the input, for messages.
    pub rewritten_by: Vec<String>,
    /// The tool input as the agent sent it.
    pub original: Option<Value>,
    /// Context for the model.
    pub context: Option<String>,
    /// End the agent's run, with this reason.
    pub stop: Option<String>,
    /// A message for the user.
    pub message: Option<String>,
    /// What the agent cannot read on this event: said on stderr, never lost silently.
    pub dropped: Vec<String>,
    /// Messages for the user on an event where the agent shows none: said on stderr.
    pub unshown: Vec<String>,
}

impl Plan {
    /// The permission decision of an agent that answers `deny` / `ask` / `allow` (Claude
    /// Code's `permissionDecision`, Copilot CLI's): the decision and its reason, or `None`
    /// when no guard said either (the agent decides as it would without hooks).
    pub fn permission(&self) -> (Option<&'static str>, Option<&String>) {
        match (&self.block, &self.ask) {
            (Some(reason), _) => (Some("deny"), Some(reason)),
            (None, Some(reason)) => (Some("ask"), Some(reason)),
            (None, None) if self.approve => (Some("allow"), None),
            (None, None) => (None, None),
        }
    }

    /// What `outcome` asks of an agent that reads `spec` on this event. A rewrite the agent
    /// cannot apply becomes a block where the agent can be refused: the tool must not run with
    /// an input no guard approved.
    pub fn new(spec: &AgentEventSpec, original: Option<&Value>, outcome: &Outcome) -> Plan {
        let mut plan = Plan {
            original: original.cloned(),
            ..Plan::default()
        };
        let mut said: Option<&Notice> = None;
        match &outcome.decision {
            Decision::Block(block) => plan.refuse(spec, block_text(spec.hookhost, block)),
            Decision::Ask(notice) if spec.ask => {
                plan.ask = Some(words(notice));
                said = Some(notice);
            }
            // A permission request without an answer goes to the agent's own dialog: asking
            // is what the agent does anyway.
            Decision::Ask(_) if spec.block == BlockAs::Behavior => {}
            // A tool call the agent can refuse but not ask about (Codex's PreToolUse, Cursor's
            // preToolUse, Gemini's BeforeTool): refused, never run unconfirmed, never left
            // waiting for a confirmation nobody can give.
            Decision::Ask(notice)
                if matches!(spec.block, BlockAs::Permission | BlockAs::Decision) =>
            {
                plan.refuse(
                    spec,
                    format!(
                        "hookhost: {} asks to confirm this call, which the agent cannot ask its user on {}; refused rather than run unconfirmed",
                        words(notice),
                        spec.agent
                    ),
                );
                said = Some(notice);
            }
            Decision::Ask(notice) => plan.dropped.push(format!("an ask ({})", words(notice))),
            Decision::Approve(_) => plan.approve = spec.approve,
            Decision::Allow | Decision::Warn(_) => {}
        }
        if let (None, Some(input)) = (&plan.block, &outcome.updated_input) {
            for report in &outcome.reports {
                let rewrote = matches!(&report.result, Ok(v) if v.updated_input.is_some());
                // A guard shown the final input again reports twice.
                if rewrote && !plan.rewritten_by.contains(&report.name) {
                    plan.rewritten_by.push(report.name.clone());
                }
            }
            if spec.rewrite {
                plan.rewrite = Some(input.clone());
            } else {
                let reason = format!(
                    "hookhost: {} rewrote the tool input, which the agent cannot apply on {}; the call is refused rather than run with an input no guard approved",
                    plan.rewriters(),
                    spec.agent
                );
                plan.refuse(spec, reason);
            }
        }
        if let Some(context) = outcome.context_text() {
            plan.add_context(spec, context);
        }
        if let Some(stop) = &outcome.stop {
            match spec.stop {
                true => plan.stop = Some(words(stop)),
                false => plan.dropped.push(format!("a stop ({})", words(stop))),
            }
        }
        let messages: Vec<String> = outcome
            .notices
            .iter()
            .filter(|notice| Some(*notice) != said)
            .map(words)
            .collect();
        match (messages.is_empty(), spec.message) {
            (true, _) => {}
            (false, true) => plan.message = Some(messages.join("\n")),
            (false, false) => plan.unshown = messages,
        }
        plan
    }

    /// Refuses the event with `reason`, in the way the agent hears it.
    pub fn refuse(&mut self, spec: &AgentEventSpec, reason: String) {
        self.rewrite = None;
        self.ask = None;
        self.approve = false;
        match spec.block {
            BlockAs::Nothing => self.dropped.push(format!("a block ({reason})")),
            // The tool already ran: the model reads the reason as context.
            BlockAs::Context => self.add_context(spec, reason),
            _ => self.block = Some(reason),
        }
    }

    fn add_context(&mut self, spec: &AgentEventSpec, context: String) {
        match (spec.context, &mut self.context) {
            (ContextAs::Nothing, _) => self.dropped.push(format!("context ({context})")),
            (_, Some(existing)) => {
                existing.push_str("\n\n");
                existing.push_str(&context);
            }
            (_, slot) => *slot = Some(context),
        }
    }

    /// The hooks that rewrote the input, for a message (`a guard` when no report names one).
    pub fn rewriters(&self) -> String {
        if self.rewritten_by.is_empty() {
            "a guard".to_string()
        } else {
            self.rewritten_by.join(", ")
        }
    }

    /// Lines for stderr: what the agent cannot read here, the notices it has no channel for,
    /// hooks that failed without blocking, and hookhost's own warnings.
    pub(super) fn diagnostics(&self, agent: &str, event: &str, outcome: &Outcome) -> Vec<String> {
        let mut lines: Vec<String> = self
            .dropped
            .iter()
            .map(|what| format!("hookhost: {agent} does not read {what} on {event}"))
            .collect();
        lines.extend(
            self.unshown
                .iter()
                .map(|message| format!("hookhost: {message}")),
        );
        for report in &outcome.reports {
            if let Err(HookFailure::NotAllowed { reason }) = &report.result
                && report.is_skipped()
            {
                lines.push(format!("hookhost: hook {} skipped: {reason}", report.name));
            } else if let Err(failure) = &report.result {
                lines.push(format!(
                    "hookhost: hook {} failed: {}",
                    report.name,
                    failure.detailed()
                ));
            }
        }
        lines.extend(
            outcome
                .warnings
                .iter()
                .map(|w| format!("hookhost: warning: {w}")),
        );
        lines
    }
}

/// `hook: reason`.
fn words(notice: &Notice) -> String {
    if notice.reason.is_empty() {
        notice.by.clone()
    } else {
        format!("{}: {}", notice.by, notice.reason)
    }
}

/// The reason the agent reads for a block: `blocked by {hook}: {reason}` (or the failure
/// message), except where the reason is the model's next instruction.
fn block_text(event: &str, block: &Block) -> String {
    if INSTRUCTION_EVENTS.contains(&event) && block.failure.is_none() {
        block.reason.clone()
    } else {
        block.message()
    }
}
