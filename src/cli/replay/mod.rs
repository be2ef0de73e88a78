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
//! (default false), `tool_iterations` (default: the number of calls before it) and
//! `session_id`; it fires PreToolUse and, unless a guard blocked, PostToolUse. A Stop line has
//! `stop` (one of the seven reasons) and optionally `total_tokens`. Any other event is a line
//! with `event` (its name, built-in or custom), optionally `session_id`, `tool` and `input`,
//! and its payload fields:
//!
//! ```text
//! {"event": "SessionStart", "session_id": "260215-173319", "source": "startup"}
//! {"event": "UserPromptSubmit", "prompt": "refactor the parser"}
//! {"event": "llm:pre_request", "model": "claude", "tokens": 1200}
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use hookhost::{Event, ToolCall};
use serde_json::{Value, json};

use super::render;

mod report;
mod session;

pub use report::percentile;
use report::{BlockedCall, Counts, HookStats, Progress, print_text, record};
use session::{CallLine, Line, StopLine, read_line};

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

pub async fn run(args: ReplayArgs) -> Result<ExitCode> {
    let scratch = tempfile::tempdir().context("cannot create a temporary state directory")?;
    let state_dir = args
        .state_dir
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let (path, runner) = args.config.load_runner(Some(state_dir), "replay")?;
    super::input::regular_file(&args.session, "session")?;
    let file = std::fs::File::open(&args.session)
        .with_context(|| format!("cannot open the session {}", args.session.display()))?;
    let total_bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut reader = std::io::BufReader::new(file);

    let mut stats: BTreeMap<(usize, String), HookStats> = BTreeMap::new();
    let mut blocked_calls = Vec::new();
    let mut bad_lines = Vec::new();
    let (mut calls, mut stops, mut events) = (0usize, 0usize, 0usize);
    let progress = Progress::new(total_bytes);
    let mut read_bytes = 0u64;
    let mut number = 0;
    loop {
        number += 1;
        let Some(line) = read_line(&mut reader, &mut read_bytes)? else {
            break;
        };
        progress.update(read_bytes);
        let parsed = line.and_then(|text| {
            if text.trim().is_empty() {
                Ok(None)
            } else {
                Line::parse(&text).map(Some)
            }
        });
        let line = match parsed {
            Ok(Some(line)) => line,
            Ok(None) => continue,
            Err(error) => {
                let problem = format!(
                    "{}:{number}: {}",
                    args.session.display(),
                    render::safe(&error.to_string())
                );
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
                session_id,
            }) => {
                let call = ToolCall {
                    tool: &tool,
                    input: &input,
                    tool_iterations: tool_iterations.unwrap_or(calls),
                };
                calls += 1;
                let with_session = |event: Event<'static>| match &session_id {
                    Some(id) => event.with_session(id.clone()),
                    None => event,
                };
                let pre = runner
                    .fire(&with_session(Event::new("PreToolUse")).with_tool(call))
                    .await;
                record(&mut stats, &pre.reports);
                if let Some(block) = pre.block() {
                    blocked_calls.push(BlockedCall {
                        line: number,
                        event: "PreToolUse".to_string(),
                        tool: Some(tool.clone()),
                        input: render::abbreviate(&input.to_string(), 80),
                        message: block.message(),
                    });
                    // A blocked tool never runs, so PostToolUse does not fire for it (R7).
                    continue;
                }
                let post_event = Event::post_tool_use(call, &result, is_error);
                let post_event = match &session_id {
                    Some(id) => post_event.with_session(id.as_str()),
                    None => post_event,
                };
                let post = runner.fire(&post_event).await;
                record(&mut stats, &post.reports);
            }
            Line::Stop(StopLine { stop, total_tokens }) => {
                stops += 1;
                let outcome = runner.stop(stop, calls, total_tokens).await;
                record(&mut stats, &outcome.reports);
                runner.clear_convergence_state().ok();
            }
            Line::Event(line) => {
                events += 1;
                let mut event =
                    Event::new(line.event.as_str()).with_payload(Value::Object(line.payload));
                if let Some(id) = &line.session_id {
                    event = event.with_session(id.as_str());
                }
                if let Some((tool, input)) = &line.tool {
                    event = event.with_tool(ToolCall {
                        tool,
                        input,
                        tool_iterations: calls,
                    });
                }
                let outcome = runner.fire(&event).await;
                record(&mut stats, &outcome.reports);
                if let Some(block) = outcome.block() {
                    blocked_calls.push(BlockedCall {
                        line: number,
                        event: line.event.clone(),
                        tool: line.tool.as_ref().map(|(tool, _)| tool.clone()),
                        input: line
                            .tool
                            .as_ref()
                            .map(|(_, input)| render::abbreviate(&input.to_string(), 80))
                            .unwrap_or_default(),
                        message: block.message(),
                    });
                }
            }
        }
    }
    record(
        &mut stats,
        &runner
            .flush(std::time::Duration::from_secs(30))
            .await
            .reports,
    );
    progress.finish();

    let counts = Counts {
        calls,
        stops,
        events,
    };
    if args.json {
        let hooks: Vec<Value> = stats
            .iter()
            .map(|((index, name), s)| {
                json!({
                    "name": name, "index": index, "kind": s.kind, "event": s.label,
                    "calls": s.seen, "blocked": s.blocked, "would_block": s.would_block, "asked": s.asked, "warned": s.warned,
                    "signalled": s.signalled, "failed": s.failed,
                    "p50_ms": percentile(&s.durations, 0.50).as_secs_f64() * 1000.0,
                    "p99_ms": percentile(&s.durations, 0.99).as_secs_f64() * 1000.0,
                })
            })
            .collect();
        let blocked: Vec<Value> = blocked_calls
            .iter()
            .map(|b| {
                json!({"line": b.line, "event": b.event, "tool": b.tool, "input": b.input, "message": b.message})
            })
            .collect();
        let out = json!({
            "session": args.session, "config": path, "calls": calls, "stops": stops, "events": events,
            "hooks": hooks, "blocked_calls": blocked, "bad_lines": bad_lines,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&args, &counts, &stats, &blocked_calls, &bad_lines);
    }
    Ok(ExitCode::SUCCESS)
}
