//! `hookhost agent-hook --format claude|copilot|gemini [--event NAME]`: the one hook command
//! Claude Code, Copilot CLI or Gemini CLI runs. A thin layer over `hookhost::agent`: read the
//! agent's event (bounded), run the layered configuration of the event's cwd, answer in the
//! agent's format and exit status.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use hookhost::agent::{self, AgentFormat, AgentReply};
use hookhost::{HookRunner, Layers, RunnerOptions};

use super::input::{INPUT_MAX_BYTES, read_bounded};

/// How long async hooks may still run after the answer is decided: a one-shot process has no
/// background to leave them in.
const DRAIN: Duration = Duration::from_secs(10);

#[derive(clap::Args)]
pub struct AgentHookArgs {
    /// The agent whose hook protocol to speak
    #[arg(long, value_name = "AGENT", value_parser = ["claude", "copilot", "gemini"])]
    format: String,
    /// The event, when the payload does not name it (Copilot CLI: preToolUse, agentStop, ...);
    /// it wins over the payload's name
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
}

pub async fn run(args: AgentHookArgs) -> Result<ExitCode> {
    let format = AgentFormat::from_name(&args.format).expect("clap checks the format");
    let reply = answer(format, args.event.as_deref()).await;
    match reply.stdout.ends_with('\n') || reply.stdout.is_empty() {
        true => print!("{}", reply.stdout),
        false => println!("{}", reply.stdout),
    }
    eprint!("{}", reply.stderr);
    Ok(ExitCode::from(reply.exit_code))
}

async fn answer(format: AgentFormat, event_arg: Option<&str>) -> AgentReply {
    let stdin = match read_bounded(std::io::stdin().lock(), INPUT_MAX_BYTES, "event on stdin") {
        Ok(text) => text,
        Err(error) => {
            let name = event_arg.and_then(|given| agent::event_name(format, "", Some(given)));
            return agent::input_failure_reply(format, name.as_deref(), &format!("{error:#}"));
        }
    };
    let event = match agent::parse_event(format, &stdin, event_arg) {
        Ok(event) => event,
        Err(error) => {
            let name = agent::event_name(format, &stdin, event_arg);
            let problem = hookhost::text::error_chain(&error);
            return agent::input_failure_reply(format, name.as_deref(), &problem);
        }
    };
    let cwd = match event
        .cwd
        .clone()
        .map(Ok)
        .unwrap_or_else(std::env::current_dir)
    {
        Ok(cwd) => std::path::absolute(&cwd).unwrap_or(cwd),
        Err(error) => {
            let problem = format!("cannot read the current directory: {error}");
            return agent::input_failure_reply(format, Some(&event.name), &problem);
        }
    };
    let layers = Layers::discover(&cwd);
    if layers.is_empty() {
        // Unconfigured: no hooks, nothing to say.
        return AgentReply::default();
    }
    let mut options = RunnerOptions::new(&cwd);
    options.forward_stderr = false;
    options.env = project_dir_env(format, &cwd);
    // One event: its hooks run one after another, async ones beside them.
    options.wasm_instances = u32::try_from(options.background_limit)
        .unwrap_or(u32::MAX)
        .saturating_add(1);
    let runner = match HookRunner::load_layers(&layers, options.clone()) {
        Ok(runner) => runner,
        Err(error) => {
            // The reply says what is broken; the decision log (when a file that loads
            // configures one) records the block.
            let reply = agent::config_failure_reply(format, Some(&event.name), &error);
            let failed = HookRunner::fail_closed_in(&layers, error, options);
            failed.fire(&event.event()).await;
            return reply;
        }
    };
    let mut outcome = runner.fire(&event.event()).await;
    let flushed = runner.flush(DRAIN).await;
    outcome.reports.extend(flushed.reports);
    agent::render_outcome(&event, &outcome)
}

/// The project-directory variables an imported script may use, where the agent did not set
/// them (Gemini CLI sets both to the cwd; Claude Code sets `CLAUDE_PROJECT_DIR`).
fn project_dir_env(format: AgentFormat, cwd: &std::path::Path) -> Vec<(String, String)> {
    format
        .project_dir_variables()
        .iter()
        .filter(|name| std::env::var_os(name).is_none())
        .map(|name| (name.to_string(), cwd.display().to_string()))
        .collect()
}
