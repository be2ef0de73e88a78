//! `hookhost bench`: time each configured hook on a sample event.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result};

use super::event::EventArgs;
use super::render::{self, safe};
use super::replay::percentile;

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    config: super::ConfigArgs,
    /// Calls to time (after 10 % warm-up calls)
    #[arg(short = 'n', long, default_value_t = 200)]
    iterations: usize,
    #[command(flatten)]
    event: EventArgs,
    /// The event to time (same as EVENT; kept for older scripts)
    #[arg(long = "event", value_name = "EVENT", hide = true)]
    event_option: Option<String>,
}

pub async fn run(mut args: BenchArgs) -> Result<ExitCode> {
    let event = &mut args.event;
    event.event = event
        .event
        .take()
        .or(args.event_option.take())
        .or(Some("PreToolUse".to_string()));
    if event.input.is_none() && event.input_file.is_none() {
        event.input = Some(r#"{"command":"cargo test"}"#.to_string());
    }
    if event.result.is_empty() {
        event.result = "test result: ok. 42 passed; 0 failed".to_string();
    }
    let sample = args.event.sample()?;
    let scratch = tempfile::tempdir().context("cannot create a temporary state directory")?;
    let (_, runner) = args
        .config
        .load_runner(Some(scratch.path().to_path_buf()), "bench")?;
    // A measurement's thousands of calls are not decisions a team should find in its log.
    let runner = runner.without_recording();
    let warmup = (args.iterations / 10).max(1);
    let mut samples: BTreeMap<(usize, String), (&'static str, Vec<Duration>)> = BTreeMap::new();
    for i in 0..warmup + args.iterations {
        let outcome = super::fire::fire(&runner, &sample).await;
        if i < warmup {
            continue;
        }
        for report in outcome.reports {
            let entry = samples
                .entry((report.index, report.name))
                .or_insert((report.kind, Vec::new()));
            entry.1.push(report.duration);
        }
    }
    // Async hooks report through the background; their times count too.
    for report in runner.flush(Duration::from_secs(30)).await.reports {
        let entry = samples
            .entry((report.index, report.name))
            .or_insert((report.kind, Vec::new()));
        entry.1.push(report.duration);
    }
    if samples.is_empty() {
        println!("no hook matches {}", sample.describe());
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} ({} calls after {warmup} warm-up)",
        sample.describe(),
        args.iterations
    );
    let rows: Vec<Vec<String>> = samples
        .iter()
        .map(|((index, name), (kind, durations))| {
            vec![
                format!("#{}", index + 1),
                safe(name),
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
