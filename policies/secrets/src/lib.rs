//! The `secrets` policy: a secret in a prompt (UserPromptSubmit), in a tool's input
//! (PreToolUse) or in a tool's output (PostToolUse) is blocked, asked about or warned of
//! (`action`), and never repeated: the reason names the kind and a masked form
//! (`GitHub token ghp_…(40 chars)`). Detection is `hookhost-redact`'s, which hookhost's decision
//! log uses too.

use hook_sdk::{Event, Hook, Phase, Verdict};
use hookhost_redact::{Finding, KINDS, find};
use policy_common::options::{OptionError, Options, misconfigured};
use policy_common::wildcard::matches as glob;
use serde_json::Value;

/// The options the policy takes.
pub const OPTIONS: &[&str] = &["action", "allow"];

/// What to do when a secret is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Refuse (the prompt is dropped, the tool does not run, the model is told of the output).
    Block,
    /// Let the user decide (PreToolUse); elsewhere, where no agent can ask, block.
    Ask,
    /// Go on and say so.
    Warn,
}

/// The policy, configured.
#[derive(Debug, Clone)]
pub struct Secrets {
    action: Action,
    allow_kinds: Vec<String>,
    allow: Vec<String>,
}

impl Default for Secrets {
    fn default() -> Secrets {
        Secrets {
            action: Action::Block,
            allow_kinds: Vec::new(),
            allow: Vec::new(),
        }
    }
}

impl Secrets {
    /// The policy configured by `[hooks.config]` (JSON text).
    pub fn from_config(json: &str) -> Result<Secrets, OptionError> {
        let options = Options::parse(json, OPTIONS)?;
        let action = match options
            .choice("action", &["block", "ask", "warn"])?
            .as_deref()
        {
            Some("ask") => Action::Ask,
            Some("warn") => Action::Warn,
            _ => Action::Block,
        };
        let mut secrets = Secrets {
            action,
            ..Secrets::default()
        };
        for entry in options.strings("allow")?.unwrap_or_default() {
            if entry.trim().is_empty() {
                return Err(OptionError("option `allow` holds an empty pattern".into()));
            }
            if let Some(kind) = entry.strip_prefix("kind:") {
                if !KINDS.contains(&kind) {
                    return Err(OptionError(format!(
                        "unknown kind `{kind}` in `allow`{}; the kinds are: {}",
                        policy_common::options::hint(kind, KINDS),
                        KINDS.join(", ")
                    )));
                }
                secrets.allow_kinds.push(kind.to_string());
            } else {
                secrets.allow.push(entry);
            }
        }
        Ok(secrets)
    }

    /// The secrets of `text` the options do not allow.
    pub fn scan(&self, text: &str) -> Vec<Finding> {
        find(text)
            .into_iter()
            .filter(|f| !self.allow_kinds.iter().any(|k| k == f.kind))
            .filter(|f| {
                !self
                    .allow
                    .iter()
                    .any(|pattern| glob(pattern, &text[f.start..f.end]))
            })
            .collect()
    }

    /// The answer for `findings` in `place` ("the prompt", "the Bash input", ...), on an event
    /// that can ask or not.
    pub fn verdict(&self, place: &str, findings: &[Finding], can_ask: bool) -> Verdict {
        let Some(first) = findings.first() else {
            return Verdict::allow();
        };
        let more = match findings.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        let reason = format!("secret in {place}: {}{more}", first.describe());
        match self.action {
            Action::Block => Verdict::block(reason),
            Action::Ask if can_ask => Verdict::ask(reason),
            Action::Ask => Verdict::block(reason),
            Action::Warn => Verdict::warn(reason),
        }
    }
}

/// Every string in a JSON value, joined by newlines (a tool's input or output). The text an
/// edit replaces (`old_string`) is left out: removing a hard-coded secret is what an agent
/// should be able to do.
pub fn strings_of(value: &Value) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(text) => {
                out.push_str(text);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => map
                .iter()
                .filter(|(key, _)| !matches!(key.as_str(), "old_string" | "old_str" | "oldString"))
                .for_each(|(_, v)| walk(v, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    walk(value, &mut out);
    out
}

/// The component.
#[derive(Debug)]
pub struct SecretsPolicy;

impl Hook for SecretsPolicy {
    fn handle(event: &Event) -> Verdict {
        if event.phase() != Phase::Guard {
            return Verdict::allow();
        }
        let (place, text, can_ask) = match event.name() {
            "UserPromptSubmit" => (
                "the prompt".to_string(),
                event.str_field("prompt").unwrap_or_default(),
                false,
            ),
            "PreToolUse" => match event.tool_call() {
                Some(call) => (
                    format!("the {} input", call.tool),
                    strings_of(&call.input),
                    true,
                ),
                None => return Verdict::allow(),
            },
            "PostToolUse" => {
                let tool = event.tool_name().unwrap_or("tool").to_string();
                let output = event
                    .field("result")
                    .or_else(|| event.field("tool_response"))
                    .unwrap_or(Value::Null);
                (format!("the {tool} output"), strings_of(&output), false)
            }
            _ => return Verdict::allow(),
        };
        let secrets = match Secrets::from_config(&hook_sdk::config_json()) {
            Ok(secrets) => secrets,
            Err(error) => return Verdict::block(misconfigured("secrets", &error)),
        };
        secrets.verdict(&place, &secrets.scan(&text), can_ask)
    }
}

hook_sdk::export!(SecretsPolicy);

#[cfg(test)]
mod tests;
