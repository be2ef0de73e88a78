//! `hookhost fire`: run one event through the configured hooks and show what happened.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::{GuardDecision, HookReport, StopReason, ToolCall, Verdict};
use serde_json::{Value, json};

use super::{EXIT_BLOCKED, EXIT_SIGNALLED, render};

#[derive(Clone, Copy, clap::ValueEnum)]
#[value(rename_all = "verbatim")]
pub enum EventName {
    PreToolUse,
    PostToolUse,
    Stop,
}

#[derive(clap::Args)]
pub struct FireArgs {
    /// The event to fire
    #[arg(value_enum)]
    event: EventName,
    #[command(flatten)]
    config: super::ConfigArgs,
    /// The tool's name (PreToolUse, PostToolUse)
    #[arg(long, default_value = "Bash")]
    tool: String,
    /// The tool's input as JSON
    #[arg(long, value_name = "JSON", conflicts_with = "input_file")]
    input: Option<String>,
    /// Read the tool's input JSON from a file ("-" for stdin)
    #[arg(long, value_name = "FILE")]
    input_file: Option<PathBuf>,
    /// The tool's result (PostToolUse)
    #[arg(long, value_name = "TEXT", default_value = "")]
    result: String,
    /// The tool's result is an error (PostToolUse)
    #[arg(long)]
    is_error: bool,
    /// The agent's batch counter
    #[arg(long, default_value_t = 0)]
    tool_iterations: usize,
    /// Why the run ended (Stop)
    #[arg(long, default_value = "end_turn")]
    reason: String,
    /// Tokens used by the run (Stop)
    #[arg(long, default_value_t = 0)]
    total_tokens: u64,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

pub async fn run(args: FireArgs) -> Result<ExitCode> {
    // Hook stderr is shown in the report, under each hook, instead of interleaved.
    let (path, runner) = args.config.load_runner(None)?;
    let input = read_input(&args)?;
    let call = ToolCall {
        tool: &args.tool,
        input: &input,
        tool_iterations: args.tool_iterations,
    };

    let (reports, summary, code) = match args.event {
        EventName::PreToolUse => {
            let outcome = runner.pre_tool_use(call).await;
            match outcome.decision {
                GuardDecision::Allow => (outcome.reports, json!({"decision": "allow"}), 0),
                GuardDecision::Block(block) => (
                    outcome.reports,
                    json!({
                        "decision": "block",
                        "blocked_by": block.blocked_by,
                        "message": block.message(),
                        "hook_failed": block.failure.is_some(),
                    }),
                    EXIT_BLOCKED,
                ),
            }
        }
        EventName::PostToolUse => {
            let outcome = runner
                .post_tool_use(call, &args.result, args.is_error)
                .await;
            warn_all(&outcome.warnings, args.json);
            match outcome.signal {
                None => (outcome.reports, json!({"decision": "continue"}), 0),
                Some(signal) => (
                    outcome.reports,
                    json!({"decision": "signal", "signal": signal.signal, "reason": signal.reason}),
                    EXIT_SIGNALLED,
                ),
            }
        }
        EventName::Stop => {
            let reason: StopReason = args.reason.parse()?;
            let outcome = runner
                .stop(reason, args.tool_iterations, args.total_tokens)
                .await;
            warn_all(&outcome.warnings, args.json);
            (
                outcome.reports,
                json!({"decision": "stopped", "reason": reason}),
                0,
            )
        }
    };

    let event = event_label(args.event);
    if args.json {
        let hooks: Vec<Value> = reports.iter().map(report_json).collect();
        let mut out = json!({"event": event, "config": path, "hooks": hooks});
        out.as_object_mut()
            .expect("object")
            .extend(summary.as_object().expect("object").clone());
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(event, &args, &reports, &summary);
    }
    Ok(ExitCode::from(code))
}

fn read_input(args: &FireArgs) -> Result<Value> {
    let text = match (&args.input, &args.input_file) {
        (Some(text), _) => text.clone(),
        (None, Some(file)) if file.as_os_str() == "-" => {
            std::io::read_to_string(std::io::stdin()).context("cannot read the input from stdin")?
        }
        (None, Some(file)) => std::fs::read_to_string(file)
            .with_context(|| format!("cannot read the input file {}", file.display()))?,
        (None, None) => return Ok(json!({})),
    };
    match serde_json::from_str(&text) {
        Ok(value) => Ok(value),
        Err(error) => bail!(
            "the tool input is not valid JSON ({error}); pass an object such as --input '{{\"command\":\"ls\"}}'"
        ),
    }
}

fn event_label(event: EventName) -> &'static str {
    match event {
        EventName::PreToolUse => "PreToolUse",
        EventName::PostToolUse => "PostToolUse",
        EventName::Stop => "Stop",
    }
}

fn warn_all(warnings: &[String], json: bool) {
    for warning in warnings {
        if json {
            eprintln!("warning: {warning}");
        } else {
            println!("warning: {warning}");
        }
    }
}

fn print_text(event: &str, args: &FireArgs, reports: &[HookReport], summary: &Value) {
    match event {
        "Stop" => println!("{event} reason={}", args.reason),
        _ => println!(
            "{event} tool={} input={}",
            args.tool,
            args.input.as_deref().unwrap_or("{}")
        ),
    }
    if reports.is_empty() {
        println!("  (no hook matched)");
    }
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            vec![
                format!("#{}", r.index + 1),
                r.name.clone(),
                r.role.label().to_string(),
                render::duration(r.duration),
                render::outcome(r),
            ]
        })
        .collect();
    if !rows.is_empty() {
        let table = render::table(&["#", "HOOK", "EVENT", "TIME", "VERDICT"], &rows);
        for (i, line) in table.lines().enumerate() {
            println!("  {line}");
            // Row i (after the header) belongs to report i - 1.
            if let Some(report) = i.checked_sub(1).and_then(|r| reports.get(r)) {
                for stderr_line in report.stderr.lines() {
                    println!("      stderr| {stderr_line}");
                }
                if report.stderr_truncated {
                    println!("      stderr| ... (cut)");
                }
            }
        }
    }
    let verdict = match summary["decision"].as_str() {
        Some("allow") => "ALLOWED".to_string(),
        Some("block") => format!(
            "BLOCKED: {}",
            summary["message"].as_str().unwrap_or_default()
        ),
        Some("signal") => format!(
            "SIGNAL {}: {}",
            summary["signal"].as_str().unwrap_or_default(),
            summary["reason"].as_str().unwrap_or_default()
        ),
        Some("continue") => "CONTINUE".to_string(),
        _ => "STOPPED".to_string(),
    };
    println!("=> {verdict}");
}

fn report_json(report: &HookReport) -> Value {
    let mut out = json!({
        "name": report.name,
        "index": report.index,
        "event": report.role.event_name(),
        "phase": report.role.phase_name(),
        "kind": report.kind,
        "duration_ms": report.duration.as_secs_f64() * 1000.0,
        "stderr": report.stderr,
        "stderr_truncated": report.stderr_truncated,
    });
    let verdict = match &report.result {
        Ok(Verdict::Allow) => json!({"verdict": "allow"}),
        Ok(Verdict::Block { reason }) => json!({"verdict": "block", "reason": reason}),
        Ok(Verdict::Observed) => json!({"verdict": "observed"}),
        Ok(Verdict::Continue) => json!({"verdict": "continue"}),
        Ok(Verdict::Signal(signal)) => {
            json!({"verdict": "signal", "signal": signal.signal, "reason": signal.reason})
        }
        Ok(Verdict::Stopped {
            unrecognized_action,
        }) => {
            json!({"verdict": "continue", "unrecognized_action": unrecognized_action})
        }
        Err(failure) => json!({"verdict": "failed", "failure": failure.detailed()}),
    };
    out.as_object_mut()
        .expect("object")
        .extend(verdict.as_object().expect("object").clone());
    out
}
