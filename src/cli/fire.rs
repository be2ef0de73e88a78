//! `hookhost fire`: run one event (any built-in or custom event) through the configured hooks
//! and show what each hook did and what the agent should do.

use std::process::ExitCode;

use anyhow::Result;
use hookhost::{Decision, HookRunner, Outcome};
use serde_json::{Value, json};

use super::event::{EventArgs, Sample};
use super::{EXIT_ASKED, EXIT_BLOCKED, EXIT_SIGNALLED, render};

#[derive(clap::Args)]
pub struct FireArgs {
    #[command(flatten)]
    event: EventArgs,
    #[command(flatten)]
    config: super::ConfigArgs,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

pub async fn run(args: FireArgs) -> Result<ExitCode> {
    let sample = args.event.sample()?;
    // Hook stderr is shown in the report, under each hook, instead of interleaved.
    let (path, runner) = args.config.load_runner(None, "fire")?;
    let outcome = fire(&runner, &sample).await;
    let code = exit_code(&outcome);
    if args.json {
        let mut out = json!({
            "event": sample.name,
            "config": path,
            "hooks": outcome.reports.iter().map(render::report_json).collect::<Vec<Value>>(),
        });
        out.as_object_mut()
            .expect("object")
            .extend(summary(&outcome).as_object().expect("object").clone());
        println!("{}", serde_json::to_string_pretty(&out)?);
        for warning in &outcome.warnings {
            eprintln!("warning: {}", render::safe(warning));
        }
    } else {
        print_text(&sample, &outcome);
    }
    Ok(ExitCode::from(code))
}

/// Fires `sample`: forgeflare's Stop also writes `final` to convergence.json.
pub async fn fire(runner: &HookRunner, sample: &Sample) -> Outcome {
    match sample.stop {
        Some(reason) => {
            runner
                .stop(reason, sample.tool_iterations, sample.total_tokens)
                .await
        }
        None => runner.fire(&sample.event()).await,
    }
}

/// 0 allowed, 2 blocked, 3 a signal (and not blocked), 4 the hooks ask the user.
pub fn exit_code(outcome: &Outcome) -> u8 {
    match &outcome.decision {
        Decision::Block(_) => EXIT_BLOCKED,
        Decision::Ask(_) => EXIT_ASKED,
        _ if !outcome.signals.is_empty() => EXIT_SIGNALLED,
        _ => 0,
    }
}

/// The outcome as JSON fields. `decision` keeps forgeflare's words where they apply
/// (PostToolUse: `continue` or `signal`; Stop: `stopped`).
pub fn summary(outcome: &Outcome) -> Value {
    let decision = match (&outcome.decision, outcome.event.as_ref()) {
        (Decision::Allow, "PostToolUse") if outcome.signal().is_some() => "signal",
        (Decision::Allow, "PostToolUse") => "continue",
        (Decision::Allow, "Stop") => "stopped",
        (decision, _) => decision.kind(),
    };
    let mut out = json!({ "decision": decision });
    let fields = out.as_object_mut().expect("object");
    match &outcome.decision {
        Decision::Block(block) => {
            fields.insert("blocked_by".into(), json!(block.blocked_by));
            fields.insert("message".into(), json!(block.message()));
            fields.insert("hook_failed".into(), json!(block.failure.is_some()));
        }
        Decision::Ask(notice) | Decision::Warn(notice) => {
            fields.insert("decided_by".into(), json!(notice.by));
            fields.insert("reason".into(), json!(notice.reason));
        }
        Decision::Approve(notice) => {
            fields.insert("decided_by".into(), json!(notice.by));
        }
        Decision::Allow => {}
    }
    if let Some(signal) = outcome.signal() {
        fields.insert("signal".into(), json!(signal.signal));
        fields.insert("signal_reason".into(), json!(signal.reason));
    }
    let signals: Vec<Value> = outcome
        .signals
        .iter()
        .map(|s| json!({"signal": s.signal, "reason": s.reason}))
        .collect();
    fields.insert("signals".into(), json!(signals));
    if let Some(input) = &outcome.updated_input {
        fields.insert("updated_input".into(), input.clone());
    }
    if let Some(context) = outcome.context_text() {
        fields.insert("context".into(), json!(context));
    }
    if let Some(stop) = &outcome.stop {
        fields.insert("stop".into(), json!({"by": stop.by, "reason": stop.reason}));
    }
    let notices: Vec<Value> = outcome
        .notices
        .iter()
        .map(|n| json!({"by": n.by, "reason": n.reason}))
        .collect();
    fields.insert("notices".into(), json!(notices));
    let monitored: Vec<String> = outcome.monitored.iter().map(render::monitored).collect();
    fields.insert("monitored".into(), json!(monitored));
    out
}

fn print_text(sample: &Sample, outcome: &Outcome) {
    println!("{}", sample.describe());
    if outcome.reports.is_empty() {
        println!("  (no hook matched)");
    }
    render::print_reports(&outcome.reports, "  ");
    for warning in &outcome.warnings {
        println!("warning: {}", render::safe(warning));
    }
    for notice in &outcome.notices {
        println!(
            "notice from {}: {}",
            render::safe(&notice.by),
            render::safe(&notice.reason)
        );
    }
    for decision in &outcome.monitored {
        println!(
            "monitor mode, not enforced: {}",
            render::monitored(decision)
        );
    }
    if let Some(input) = &outcome.updated_input {
        println!("updated input: {}", render::safe(&input.to_string()));
    }
    if let Some(context) = outcome.context_text() {
        println!("context for the model:");
        for line in context.lines() {
            println!("  | {}", render::safe(line));
        }
    }
    if let Some(stop) = &outcome.stop {
        println!(
            "stop the run (asked by {}): {}",
            render::safe(&stop.by),
            render::safe(&stop.reason)
        );
    }
    let verdict = match &outcome.decision {
        Decision::Block(block) => format!("BLOCKED: {}", render::safe(&block.message())),
        Decision::Ask(notice) => format!(
            "ASK the user ({}): {}",
            render::safe(&notice.by),
            render::safe(&notice.reason)
        ),
        _ if outcome.signal().is_some() => {
            let signal = outcome.signal().expect("checked");
            format!(
                "SIGNAL {}: {}",
                render::safe(&signal.signal),
                render::safe(&signal.reason)
            )
        }
        Decision::Warn(notice) => format!(
            "ALLOWED with a warning from {}: {}",
            render::safe(&notice.by),
            render::safe(&notice.reason)
        ),
        Decision::Approve(notice) => format!("APPROVED by {}", render::safe(&notice.by)),
        Decision::Allow => match sample.name.as_str() {
            "PostToolUse" => "CONTINUE".to_string(),
            "Stop" => "STOPPED".to_string(),
            _ => "ALLOWED".to_string(),
        },
    };
    println!("=> {verdict}");
    let spec = hookhost::event::catalog::spec(&sample.name);
    if outcome.block().is_some() && !matches!(sample.name.as_str(), "PreToolUse") {
        println!("   (a block on {}: {})", sample.name, spec.block_means);
    }
}
