//! `hookhost bench`: time each configured hook on a sample event.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result};
use hookhost::{HookReport, StopReason, ToolCall};
use serde_json::Value;

use super::fire::EventName;
use super::render;
use super::replay::percentile;

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    config: super::ConfigArgs,
    /// The event to time
    #[arg(long, value_enum, default_value = "PreToolUse")]
    event: EventName,
    /// Calls to time (after 10 % warm-up calls)
    #[arg(short = 'n', long, default_value_t = 200)]
    iterations: usize,
    /// The sample call's tool
    #[arg(long, default_value = "Bash")]
    tool: String,
    /// The sample call's input
    #[arg(
        long,
        value_name = "JSON",
        default_value = r#"{"command":"cargo test"}"#
    )]
    input: String,
    /// The sample call's result (PostToolUse)
    #[arg(long, default_value = "test result: ok. 42 passed; 0 failed")]
    result: String,
}

pub async fn run(args: BenchArgs) -> Result<ExitCode> {
    let scratch = tempfile::tempdir().context("cannot create a temporary state directory")?;
    let (_, runner) = args
        .config
        .load_runner(Some(scratch.path().to_path_buf()))?;
    let input: Value = serde_json::from_str(&args.input).context("--input is not valid JSON")?;
    let call = ToolCall {
        tool: &args.tool,
        input: &input,
        tool_iterations: 1,
    };
    let warmup = (args.iterations / 10).max(1);
    let mut samples: BTreeMap<(usize, String), (&'static str, Vec<Duration>)> = BTreeMap::new();
    for i in 0..warmup + args.iterations {
        let reports: Vec<HookReport> = match args.event {
            EventName::PreToolUse => runner.pre_tool_use(call).await.reports,
            EventName::PostToolUse => {
                runner
                    .post_tool_use(call, &args.result, false)
                    .await
                    .reports
            }
            EventName::Stop => runner.stop(StopReason::EndTurn, 1, 1000).await.reports,
        };
        if i < warmup {
            continue;
        }
        for report in reports {
            let entry = samples
                .entry((report.index, report.name))
                .or_insert((report.kind, Vec::new()));
            entry.1.push(report.duration);
        }
    }
    if samples.is_empty() {
        println!(
            "no hook matches {} for tool {}",
            label(args.event),
            args.tool
        );
        return Ok(ExitCode::SUCCESS);
    }
    let sample = match args.event {
        EventName::Stop => "reason=end_turn".to_string(),
        _ => format!("tool={} input={}", args.tool, args.input),
    };
    println!(
        "{} {sample} ({} calls after {warmup} warm-up)",
        label(args.event),
        args.iterations
    );
    let rows: Vec<Vec<String>> = samples
        .iter()
        .map(|((index, name), (kind, durations))| {
            vec![
                format!("#{}", index + 1),
                name.clone(),
                kind.to_string(),
                durations.len().to_string(),
                render::duration(percentile(durations, 0.50)),
                render::duration(percentile(durations, 0.99)),
            ]
        })
        .collect();
    print!(
        "{}",
        render::table(&["#", "HOOK", "KIND", "CALLS", "P50", "P99"], &rows)
    );
    Ok(ExitCode::SUCCESS)
}

fn label(event: EventName) -> &'static str {
    match event {
        EventName::PreToolUse => "PreToolUse",
        EventName::PostToolUse => "PostToolUse",
        EventName::Stop => "Stop",
    }
}
