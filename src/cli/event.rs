//! The event a command fires (`fire`, `bench`): any built-in or custom event, built from
//! command-line options the same way an agent builds it.

use std::path::PathBuf;

use anyhow::{Context as _, Result, bail};
use hookhost::event::catalog;
use hookhost::{Event, StopReason, ToolCall};
use serde_json::{Value, json};

use super::{UsageError, input};

/// Options that describe one event.
#[derive(clap::Args, Clone)]
pub struct EventArgs {
    /// The event: built-in (PreToolUse, PostToolUse, Stop, SessionStart, UserPromptSubmit, ...)
    /// or custom (started, llm:pre_request, ...)
    pub event: Option<String>,
    /// The tool's name (tool events; default Bash). Given for a custom event, the event carries
    /// a tool call
    #[arg(long)]
    pub tool: Option<String>,
    /// The tool's input as JSON
    #[arg(long, value_name = "JSON", conflicts_with = "input_file")]
    pub input: Option<String>,
    /// Read the tool's input JSON from a file ("-" for stdin)
    #[arg(long, value_name = "FILE")]
    pub input_file: Option<PathBuf>,
    /// The tool's result (PostToolUse)
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub result: String,
    /// The tool's result is an error (PostToolUse)
    #[arg(long)]
    pub is_error: bool,
    /// The tool's error (PostToolUseFailure)
    #[arg(long, value_name = "TEXT")]
    pub error: Option<String>,
    /// The user's prompt (UserPromptSubmit)
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// Why the run ended: Stop takes one of the seven reasons (default end_turn); other events
    /// get it as a `reason` field (SessionEnd: clear, logout, prompt_input_exit, other)
    #[arg(long)]
    pub reason: Option<String>,
    /// The agent's batch counter
    #[arg(long, default_value_t = 0)]
    pub tool_iterations: usize,
    /// Tokens used by the run (Stop)
    #[arg(long, default_value_t = 0)]
    pub total_tokens: u64,
    /// The agent's session id
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// The event's payload as a JSON object (custom events, extra fields)
    #[arg(long, value_name = "JSON")]
    pub payload: Option<String>,
    /// One payload field; VALUE is read as JSON when it parses, else as a string (repeatable)
    #[arg(long = "field", value_name = "KEY=VALUE")]
    pub fields: Vec<String>,
    /// A variable for the command hooks of this event (repeatable)
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
}

/// An event built from [`EventArgs`], owning its data.
pub struct Sample {
    pub name: String,
    pub tool: Option<String>,
    pub input: Value,
    /// The input as the user wrote it, for headers.
    pub input_text: String,
    pub fields: Vec<(String, Value)>,
    pub session_id: Option<String>,
    pub env: Vec<(String, String)>,
    /// Stop: forgeflare's reason, when the event is Stop.
    pub stop: Option<StopReason>,
    pub tool_iterations: usize,
    pub total_tokens: u64,
}

impl EventArgs {
    /// The event, checked: a name that looks like a built-in one but is not is refused (it
    /// would fire a custom event that no hook listens to).
    pub fn sample(&self) -> Result<Sample> {
        let Some(event) = &self.event else {
            return Err(UsageError(
                "which event? pass one, such as PreToolUse or SessionStart (see --help)"
                    .to_string(),
            )
            .into());
        };
        let name = event.trim().to_string();
        if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(UsageError(format!(
                "the event name {event:?} is empty or has whitespace or control characters"
            ))
            .into());
        }
        if let Some(meant) = catalog::lookalike(&name) {
            return Err(UsageError(format!(
                "unknown event {name:?}; did you mean {:?}? (event names are case-sensitive; custom events must not look like built-in ones)",
                meant.name
            ))
            .into());
        }
        let spec = catalog::spec(&name);
        let input_text = input::tool_input(self.input.as_deref(), self.input_file.as_deref())?;
        let input: Value = match serde_json::from_str(&input_text) {
            Ok(value) => value,
            Err(error) => bail!(
                "the tool input is not valid JSON ({error}); pass an object such as --input '{{\"command\":\"ls\"}}'"
            ),
        };
        let tool = match (&self.tool, spec.has_tool() && !spec.is_custom()) {
            (Some(tool), _) => Some(tool.clone()),
            (None, true) => Some("Bash".to_string()),
            (None, false) => None,
        };
        let mut fields: Vec<(String, Value)> = Vec::new();
        let mut set = |key: &str, value: Value| match fields.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => fields.push((key.to_string(), value)),
        };
        let mut stop = None;
        match name.as_str() {
            "PostToolUse" => {
                set("result", json!(self.result));
                set("is_error", json!(self.is_error));
            }
            "PostToolUseFailure" => set("error", json!(self.error.clone().unwrap_or_default())),
            "UserPromptSubmit" => set("prompt", json!(self.prompt.clone().unwrap_or_default())),
            "SessionStart" => set("source", json!("startup")),
            "SessionEnd" => set("reason", json!(self.reason.as_deref().unwrap_or("other"))),
            "Stop" => {
                let reason: StopReason = self.reason.as_deref().unwrap_or("end_turn").parse()?;
                stop = Some(reason);
            }
            _ => {
                if let Some(reason) = &self.reason {
                    set("reason", json!(reason));
                }
            }
        }
        if let Some(payload) = &self.payload {
            let payload: Value = serde_json::from_str(payload).context(
                "--payload is not valid JSON; pass an object such as '{\"mode\":\"building\"}'",
            )?;
            let Value::Object(object) = payload else {
                bail!("--payload must be a JSON object, such as '{{\"mode\":\"building\"}}'");
            };
            for (key, value) in object {
                set(&key, value);
            }
        }
        for field in &self.fields {
            let (key, value) = split_pair(field, "--field", "KEY=VALUE")?;
            let value = serde_json::from_str(value).unwrap_or_else(|_| json!(value));
            set(key, value);
        }
        let env = self
            .env
            .iter()
            .map(|pair| {
                split_pair(pair, "--env", "NAME=VALUE").map(|(k, v)| (k.to_string(), v.to_string()))
            })
            .collect::<Result<_>>()?;
        Ok(Sample {
            name,
            tool,
            input,
            input_text,
            fields,
            session_id: self.session_id.clone(),
            env,
            stop,
            tool_iterations: self.tool_iterations,
            total_tokens: self.total_tokens,
        })
    }
}

fn split_pair<'a>(pair: &'a str, option: &str, form: &str) -> Result<(&'a str, &'a str)> {
    match pair.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, value)),
        _ => bail!("{option} takes {form}, got {pair:?}"),
    }
}

impl Sample {
    /// The event, borrowing from this sample.
    pub fn event(&self) -> Event<'_> {
        let mut event = match self.stop {
            Some(reason) => Event::stop(reason, self.tool_iterations, self.total_tokens),
            None => Event::new(self.name.as_str()),
        };
        if let Some(tool) = &self.tool {
            event = event.with_tool(ToolCall {
                tool,
                input: &self.input,
                tool_iterations: self.tool_iterations,
            });
        }
        if let Some(id) = &self.session_id {
            event = event.with_session(id.as_str());
        }
        for (key, value) in &self.fields {
            event = event.with_field(key.as_str(), value.clone());
        }
        for (name, value) in &self.env {
            event = event.with_env(name.as_str(), value.as_str());
        }
        event
    }

    /// One line naming the event, for headers.
    pub fn describe(&self) -> String {
        let mut parts = vec![self.name.clone()];
        if let Some(reason) = self.stop {
            parts.push(format!("reason={reason}"));
        }
        if let Some(id) = &self.session_id {
            parts.push(format!("session={id}"));
        }
        if let Some(tool) = &self.tool {
            parts.push(format!("tool={tool}"));
            parts.push(format!(
                "input={}",
                super::render::abbreviate(&self.input_text, 200)
            ));
        }
        for (key, value) in &self.fields {
            if key != "result" || !value.as_str().unwrap_or_default().is_empty() {
                parts.push(format!(
                    "{key}={}",
                    super::render::abbreviate(&value.to_string(), 80)
                ));
            }
        }
        hookhost_text_line(&parts.join(" "))
    }
}

/// Untrusted text (an input file) on one line, control characters escaped.
fn hookhost_text_line(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() && c != '\t' {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}
