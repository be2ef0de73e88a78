//! Running a test file's cases, each as an agent's call would run: its layers loaded afresh
//! (`HookRunner::load_exact`: these files and no others, nothing recorded), the environment
//! the case's agent gives its hooks, the event fired, async hooks drained, and, for an
//! agent, the reply it would read rendered. Nothing is stubbed.

use std::path::Path;
use std::time::{Duration, Instant};

use super::expect::compare;
use super::{Case, CaseEvent, CaseFile, CaseResult, Named, Status};
use crate::agent::{self, AgentEvent, Caller};
use crate::event::{Event, ToolCall};
use crate::load::Layers;
use crate::outcome::{Decision, Outcome};
use crate::runner::{HookRunner, RunnerOptions};

/// How long a case's async hooks may run after its answer (as `agent-hook` drains them).
const DRAIN: Duration = Duration::from_secs(10);

/// Runs every case of `file`, in order. `base` is what the cases' runners start from (the
/// compile cache, the shell, a compile observer); `state_dir` is where each case gets a fresh
/// directory for convergence.json (a case never sees another's state, nor the project's).
pub async fn run_file(file: &CaseFile, base: &RunnerOptions, state_dir: &Path) -> Vec<CaseResult> {
    let mut results = Vec::with_capacity(file.cases.len());
    for (index, case) in file.cases.iter().enumerate() {
        let state = state_dir.join(format!("case-{}", index + 1));
        results.push(run_case(file, case, base, &state).await);
    }
    results
}

async fn run_case(file: &CaseFile, case: &Case, base: &RunnerOptions, state: &Path) -> CaseResult {
    let mut result = CaseResult {
        name: case.name.clone(),
        location: case.location,
        event: describe(case),
        actual: None,
        duration: Duration::ZERO,
        status: Status::Passed,
    };
    let runner = match load(case, base, state) {
        Ok(runner) => runner,
        Err(message) => {
            result.status = Status::Error(message);
            return result;
        }
    };
    if let Err(message) = known_names(file, case, &runner) {
        result.status = Status::Error(message);
        return result;
    }
    let agent_event = match agent_event(case) {
        Ok(event) => event,
        Err(message) => {
            result.status = Status::Error(message);
            return result;
        }
    };
    let started = Instant::now();
    let outcome = {
        let mut event = match &agent_event {
            Some(agent_event) => agent_event.event(),
            None => plain_event(&case.event),
        };
        for (name, value) in &case.env {
            event = event.with_env(name.as_str(), value.as_str());
        }
        let mut outcome = runner.fire(&event).await;
        outcome.reports.extend(runner.flush(DRAIN).await.reports);
        outcome
    };
    result.duration = started.elapsed();
    let reply = agent_event
        .as_ref()
        .map(|event| agent::render_outcome(event, &outcome));
    result.actual = Some(summary(&outcome));
    let mismatches = compare(&case.expect, &outcome, reply.as_ref());
    if !mismatches.is_empty() {
        result.status = Status::Failed(mismatches);
    }
    result
}

/// The case's runner: its layers and no others, the environment its agent gives hooks.
fn load(case: &Case, base: &RunnerOptions, state: &Path) -> Result<HookRunner, String> {
    let mut options = base.clone();
    options.cwd = case.cwd.clone();
    options.state_dir = Some(state.to_path_buf());
    options.forward_stderr = false;
    options.protocol_agent_env = true;
    // One event: its hooks one after another, async ones beside them (as agent-hook sizes it).
    #[cfg(feature = "wasm")]
    {
        options.wasm_instances = u32::try_from(options.background_limit)
            .unwrap_or(u32::MAX)
            .saturating_add(1);
    }
    match case.agent {
        Some(format) => options.env.extend(agent::project_dir_env(
            format,
            &case.cwd,
            &Caller::this_process(),
        )),
        None if std::env::var_os("HOOKHOST_AGENT").is_none() => options
            .env
            .push(("HOOKHOST_AGENT".to_string(), "hookhost test".to_string())),
        None => {}
    }
    let layers = Layers {
        user: case.layers.user.clone(),
        project: case.layers.project.clone(),
        local: case.layers.local.clone(),
        approvals: None,
    };
    HookRunner::load_exact(&layers, case.layers.managed.as_deref(), options)
        .map_err(|error| format!("the case's layers do not load: {error}"))
}

/// Every hook name the case expects is a hook of its layers: a misspelt name must not make
/// `did_not_run` hold for ever, nor `ran` fail for the wrong reason.
fn known_names(file: &CaseFile, case: &Case, runner: &HookRunner) -> Result<(), String> {
    let rules = runner.rules();
    let names: Vec<&str> = runner
        .configured_hooks()
        .map(|hook| hook.name.as_str())
        .chain(rules.iter().map(|rule| rule.name.as_str()))
        .collect();
    let expect = &case.expect;
    let written = expect
        .by
        .iter()
        .map(|named| ("by", named))
        .chain(expect.ran.iter().map(|named| ("ran", named)))
        .chain(
            expect
                .did_not_run
                .iter()
                .map(|named| ("did_not_run", named)),
        );
    for (key, Named { name, location }) in written {
        if names.contains(&name.as_str()) {
            continue;
        }
        let close = names
            .iter()
            .find(|known| crate::event::catalog::within_two_edits(known, name))
            .map(|known| format!("did you mean {}? ", crate::text::quote(known)))
            .unwrap_or_default();
        return Err(format!(
            "{}:{location}: `{key}` names {}, which is not a hook of the case's layers ({close}its \
             hooks: {})",
            file.path.display(),
            crate::text::quote(name),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    }
    Ok(())
}

/// The agent's event, for a case an agent sends: read from its own JSON, or made from the
/// case's fields.
fn agent_event(case: &Case) -> Result<Option<AgentEvent>, String> {
    let Some(format) = case.agent else {
        return Ok(None);
    };
    match &case.event {
        CaseEvent::Stdin { text, event } => agent::parse_event(format, text, event.as_deref())
            .map(|mut event| {
                // The case says where hooks run, whatever the recorded event's cwd was.
                event.cwd = Some(case.cwd.clone());
                Some(event)
            })
            .map_err(|error| {
                format!(
                    "{} cannot read the case's stdin: {}",
                    format.agent(),
                    crate::text::error_chain(&error)
                )
            }),
        CaseEvent::Fields {
            name,
            tool,
            payload,
            session_id,
        } => Ok(Some(AgentEvent {
            format,
            name: name.clone(),
            session_id: session_id.clone(),
            cwd: Some(case.cwd.clone()),
            tool: tool.clone(),
            fields: payload.clone(),
        })),
    }
}

/// The event of a case no agent sends.
fn plain_event(event: &CaseEvent) -> Event<'_> {
    let CaseEvent::Fields {
        name,
        tool,
        payload,
        session_id,
    } = event
    else {
        // The parser refuses `stdin` without an agent.
        return Event::new("");
    };
    let mut fired = Event::new(name.as_str());
    if let Some((tool, input)) = tool {
        fired = fired.with_tool(ToolCall {
            tool,
            input,
            tool_iterations: 0,
        });
    }
    if let Some(id) = session_id {
        fired = fired.with_session(id.as_str());
    }
    for (key, value) in payload {
        fired = fired.with_field(key.as_str(), value.clone());
    }
    fired
}

/// `PreToolUse Bash`, `Stop`, `claude stdin`.
fn describe(case: &Case) -> String {
    let mut parts = Vec::new();
    if let Some(format) = case.agent {
        parts.push(format!("{format}:"));
    }
    match &case.event {
        CaseEvent::Fields { name, tool, .. } => {
            parts.push(name.clone());
            if let Some((tool, _)) = tool {
                parts.push(tool.clone());
            }
        }
        CaseEvent::Stdin { event, .. } => {
            parts.push(event.clone().unwrap_or_else(|| "stdin".to_string()))
        }
    }
    crate::text::line(&parts.join(" ")).into_owned()
}

/// What came out, in a few words: `block by destructive-guard`, `allow`, `+ signal converged`.
fn summary(outcome: &Outcome) -> String {
    let mut text = outcome.decision.kind().to_string();
    match &outcome.decision {
        Decision::Block(block) => text.push_str(&format!(" by {}", block.blocked_by)),
        Decision::Ask(notice) | Decision::Warn(notice) | Decision::Approve(notice) => {
            text.push_str(&format!(" by {}", notice.by))
        }
        Decision::Allow => {}
    }
    for signal in &outcome.signals {
        text.push_str(&format!(", signal {}", signal.signal));
    }
    if outcome.updated_input.is_some() {
        text.push_str(", input rewritten");
    }
    crate::text::line(&text).into_owned()
}
