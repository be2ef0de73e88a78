//! `hookhost replay`: run a recorded session through the configured hooks and report what
//! each hook would have done. This is how a team tries a policy on real sessions before it
//! rolls the policy out.
//!
//! The session format (JSON Lines, one object per line; blank lines are skipped):
//!
//! ```text
//! {"tool": "Bash", "input": {"command": "cargo test"}, "result": "test result: ok", "is_error": false}
//! {"tool": "Edit", "input": {"file_path": "src/lib.rs", "old_str": "a", "new_str": "b"}, "tool_iterations": 2}
//! {"stop": "end_turn", "total_tokens": 45000}
//! ```
//!
//! A tool call has `tool` and `input`, and optionally `result` (default empty), `is_error`
//! (default false) and `tool_iterations` (default: the number of calls before it). A Stop line
//! has `stop` (one of the seven reasons) and optionally `total_tokens`.

use std::collections::BTreeMap;
use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use hookhost::{GuardDecision, HookReport, StopReason, ToolCall, Verdict};
use serde::Deserialize;
use serde_json::{Value, json};

use super::render;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The recorded session (JSON Lines; see `hookhost replay --help`)
    session: PathBuf,
    #[command(flatten)]
    config: super::ConfigArgs,
    /// Report a bad line and go on, instead of stopping at it
    #[arg(long)]
    keep_going: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Where convergence.json goes during the replay [default: a temporary directory, removed
    /// afterwards, so that a replay never touches the project's state]
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
}

/// One line of a session.
enum Line {
    Call(CallLine),
    Stop(StopLine),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallLine {
    tool: String,
    input: Value,
    #[serde(default)]
    result: String,
    #[serde(default)]
    is_error: bool,
    #[serde(default)]
    tool_iterations: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StopLine {
    stop: StopReason,
    #[serde(default)]
    total_tokens: u64,
}

impl Line {
    fn parse(text: &str) -> Result<Line, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
        let object = value.as_object().ok_or("not a JSON object")?;
        let parsed = if object.contains_key("stop") {
            serde_json::from_value(value).map(Line::Stop)
        } else if object.contains_key("tool") {
            serde_json::from_value(value).map(Line::Call)
        } else {
            return Err("neither a tool call ({\"tool\": ..., \"input\": ...}) nor a stop ({\"stop\": ...})".to_string());
        };
        parsed.map_err(|e| e.to_string())
    }
}

/// What one hook did over the whole session.
#[derive(Default)]
struct HookStats {
    kind: &'static str,
    role: &'static str,
    seen: usize,
    blocked: usize,
    signalled: usize,
    failed: usize,
    durations: Vec<Duration>,
}

/// A call a guard blocked.
struct BlockedCall {
    line: usize,
    tool: String,
    input: String,
    message: String,
}

pub async fn run(args: ReplayArgs) -> Result<ExitCode> {
    let scratch = tempfile::tempdir().context("cannot create a temporary state directory")?;
    let state_dir = args
        .state_dir
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let (path, runner) = args.config.load_runner(Some(state_dir))?;
    let file = std::fs::File::open(&args.session)
        .with_context(|| format!("cannot open the session {}", args.session.display()))?;
    let lines: Vec<String> = std::io::BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot read the session {}", args.session.display()))?;

    let mut stats: BTreeMap<(usize, String), HookStats> = BTreeMap::new();
    let mut blocked_calls = Vec::new();
    let mut bad_lines = Vec::new();
    let (mut calls, mut stops) = (0usize, 0usize);
    let progress = Progress::new(lines.len());
    for (index, text) in lines.iter().enumerate() {
        let number = index + 1;
        progress.update(number);
        if text.trim().is_empty() {
            continue;
        }
        let line = match Line::parse(text) {
            Ok(line) => line,
            Err(error) => {
                let problem = format!("{}:{number}: {error}", args.session.display());
                if !args.keep_going {
                    progress.finish();
                    bail!("{problem}\n(pass --keep-going to skip bad lines)");
                }
                bad_lines.push(problem);
                continue;
            }
        };
        match line {
            Line::Call(CallLine {
                tool,
                input,
                result,
                is_error,
                tool_iterations,
            }) => {
                let call = ToolCall {
                    tool: &tool,
                    input: &input,
                    tool_iterations: tool_iterations.unwrap_or(calls),
                };
                calls += 1;
                let pre = runner.pre_tool_use(call).await;
                record(&mut stats, &pre.reports);
                if let GuardDecision::Block(block) = &pre.decision {
                    blocked_calls.push(BlockedCall {
                        line: number,
                        tool: tool.clone(),
                        input: abbreviate(&input.to_string(), 80),
                        message: block.message(),
                    });
                    // A blocked tool never runs, so PostToolUse does not fire for it (R7).
                    continue;
                }
                let post = runner.post_tool_use(call, &result, is_error).await;
                record(&mut stats, &post.reports);
            }
            Line::Stop(StopLine { stop, total_tokens }) => {
                stops += 1;
                let outcome = runner.stop(stop, calls, total_tokens).await;
                record(&mut stats, &outcome.reports);
                runner.clear_convergence_state().ok();
            }
        }
    }
    progress.finish();

    if args.json {
        let hooks: Vec<Value> = stats
            .iter()
            .map(|((index, name), s)| {
                json!({
                    "name": name, "index": index, "kind": s.kind, "event": s.role,
                    "calls": s.seen, "blocked": s.blocked, "signalled": s.signalled, "failed": s.failed,
                    "p50_ms": percentile(&s.durations, 0.50).as_secs_f64() * 1000.0,
                    "p99_ms": percentile(&s.durations, 0.99).as_secs_f64() * 1000.0,
                })
            })
            .collect();
        let blocked: Vec<Value> = blocked_calls
            .iter()
            .map(
                |b| json!({"line": b.line, "tool": b.tool, "input": b.input, "message": b.message}),
            )
            .collect();
        let out = json!({
            "session": args.session, "config": path, "calls": calls, "stops": stops,
            "hooks": hooks, "blocked_calls": blocked, "bad_lines": bad_lines,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&args, calls, stops, &stats, &blocked_calls, &bad_lines);
    }
    Ok(ExitCode::SUCCESS)
}

fn record(stats: &mut BTreeMap<(usize, String), HookStats>, reports: &[HookReport]) {
    for report in reports {
        let entry = stats
            .entry((report.index, report.name.clone()))
            .or_default();
        entry.kind = report.kind;
        entry.role = report.role.label();
        entry.seen += 1;
        entry.durations.push(report.duration);
        match &report.result {
            Ok(Verdict::Block { .. }) => entry.blocked += 1,
            Ok(Verdict::Signal(_)) => entry.signalled += 1,
            Ok(_) => {}
            Err(_) => entry.failed += 1,
        }
    }
}

/// The `q` quantile (nearest rank) of `samples`.
pub fn percentile(samples: &[Duration], q: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = samples.to_vec();
    sorted.sort();
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn abbreviate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}

fn print_text(
    args: &ReplayArgs,
    calls: usize,
    stops: usize,
    stats: &BTreeMap<(usize, String), HookStats>,
    blocked: &[BlockedCall],
    bad_lines: &[String],
) {
    println!(
        "replayed {}: {calls} tool call{}, {stops} stop{}",
        args.session.display(),
        if calls == 1 { "" } else { "s" },
        if stops == 1 { "" } else { "s" }
    );
    let rows: Vec<Vec<String>> = stats
        .iter()
        .map(|((index, name), s)| {
            vec![
                format!("#{}", index + 1),
                name.clone(),
                s.role.to_string(),
                s.kind.to_string(),
                s.seen.to_string(),
                s.blocked.to_string(),
                s.signalled.to_string(),
                s.failed.to_string(),
                render::duration(percentile(&s.durations, 0.50)),
                render::duration(percentile(&s.durations, 0.99)),
            ]
        })
        .collect();
    if rows.is_empty() {
        println!("\nno hook matched any call");
    } else {
        println!();
        print!(
            "{}",
            render::table(
                &[
                    "#",
                    "HOOK",
                    "EVENT",
                    "KIND",
                    "CALLS",
                    "BLOCKED",
                    "SIGNALLED",
                    "FAILED",
                    "P50",
                    "P99"
                ],
                &rows
            )
        );
    }
    if !blocked.is_empty() {
        println!("\nblocked calls:");
        for call in blocked {
            println!(
                "  line {}: {} {}\n    {}",
                call.line, call.tool, call.input, call.message
            );
        }
    }
    if !bad_lines.is_empty() {
        println!(
            "\nskipped {} bad line{}:",
            bad_lines.len(),
            if bad_lines.len() == 1 { "" } else { "s" }
        );
        for problem in bad_lines {
            println!("  {problem}");
        }
    }
}

/// A progress line on stderr, only when stderr is a terminal.
struct Progress {
    total: usize,
    enabled: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            enabled: std::io::stderr().is_terminal() && total >= 50,
        }
    }

    fn update(&self, done: usize) {
        if self.enabled && (done.is_multiple_of(25) || done == self.total) {
            let width = 30;
            let filled = width * done / self.total.max(1);
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r[{}{}] {done}/{} lines",
                "#".repeat(filled),
                " ".repeat(width - filled),
                self.total
            );
            let _ = err.flush();
        }
    }

    fn finish(&self) {
        if self.enabled {
            let _ = write!(std::io::stderr().lock(), "\r{}\r", " ".repeat(60));
        }
    }
}
