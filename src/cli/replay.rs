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
use std::io::{BufRead, Read as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use hookhost::{Answer, Event, HookReport, StopReason, ToolCall};
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
    Event(EventLine),
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
    #[serde(default)]
    session_id: Option<String>,
}

/// Any other event: its name, optional session and tool call, and its payload.
struct EventLine {
    event: String,
    session_id: Option<String>,
    tool: Option<(String, Value)>,
    payload: serde_json::Map<String, Value>,
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
        if object.contains_key("event") {
            return EventLine::parse(value).map(Line::Event);
        }
        let parsed = if object.contains_key("stop") {
            serde_json::from_value(value).map(Line::Stop)
        } else if object.contains_key("tool") {
            serde_json::from_value(value).map(Line::Call)
        } else {
            return Err("neither a tool call ({\"tool\": ..., \"input\": ...}), a stop ({\"stop\": ...}) nor an event ({\"event\": ...})".to_string());
        };
        parsed.map_err(|e| e.to_string())
    }
}

impl EventLine {
    fn parse(value: Value) -> Result<EventLine, String> {
        let Value::Object(mut object) = value else {
            return Err("not a JSON object".to_string());
        };
        let event = match object.remove("event") {
            Some(Value::String(name)) if !name.trim().is_empty() => name,
            _ => return Err("`event` must be a non-empty string".to_string()),
        };
        if let Some(meant) = hookhost::event::catalog::lookalike(&event) {
            return Err(format!(
                "unknown event {event:?}; did you mean {:?}?",
                meant.name
            ));
        }
        let session_id = match object.remove("session_id") {
            None => None,
            Some(Value::String(id)) => Some(id),
            Some(_) => return Err("`session_id` must be a string".to_string()),
        };
        let tool = match (object.remove("tool"), object.remove("input")) {
            (Some(Value::String(tool)), input) => Some((tool, input.unwrap_or(json!({})))),
            (None, None) => None,
            (None, Some(_)) => return Err("`input` without `tool`".to_string()),
            (Some(_), _) => return Err("`tool` must be a string".to_string()),
        };
        Ok(EventLine {
            event,
            session_id,
            tool,
            payload: object,
        })
    }
}

/// What one hook did over the whole session.
#[derive(Default)]
struct HookStats {
    kind: &'static str,
    label: String,
    seen: usize,
    blocked: usize,
    asked: usize,
    warned: usize,
    signalled: usize,
    failed: usize,
    durations: Vec<Duration>,
}

/// An event a guard blocked.
struct BlockedCall {
    line: usize,
    event: String,
    tool: Option<String>,
    input: String,
    message: String,
}

/// The longest line of a session hookhost reads.
const LINE_MAX_BYTES: usize = 16 << 20;

pub async fn run(args: ReplayArgs) -> Result<ExitCode> {
    let scratch = tempfile::tempdir().context("cannot create a temporary state directory")?;
    let state_dir = args
        .state_dir
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let (path, runner) = args.config.load_runner(Some(state_dir))?;
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
                    "calls": s.seen, "blocked": s.blocked, "asked": s.asked, "warned": s.warned,
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

/// What a session held.
struct Counts {
    calls: usize,
    stops: usize,
    events: usize,
}

/// Reads one line of at most [`LINE_MAX_BYTES`]; `Ok(None)` at the end. A line that is too long
/// or not UTF-8 is an `Ok(Some(Err(..)))`, so that `--keep-going` can skip it.
fn read_line(
    reader: &mut impl BufRead,
    read_bytes: &mut u64,
) -> Result<Option<Result<String, String>>> {
    let mut bytes = Vec::new();
    let read = reader
        .by_ref()
        .take(LINE_MAX_BYTES as u64 + 1)
        .read_until(b'\n', &mut bytes)
        .context("cannot read the session")?;
    *read_bytes += read as u64;
    if read == 0 {
        return Ok(None);
    }
    if bytes.len() > LINE_MAX_BYTES && !bytes.ends_with(b"\n") {
        // Skip the rest of the line.
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let more = reader
                .by_ref()
                .take(1 << 20)
                .read_until(b'\n', &mut rest)
                .context("cannot read the session")?;
            *read_bytes += more as u64;
            if more == 0 || rest.ends_with(b"\n") {
                break;
            }
        }
        return Ok(Some(Err(format!(
            "the line is longer than {LINE_MAX_BYTES} bytes"
        ))));
    }
    Ok(Some(String::from_utf8(bytes).map_err(|error| {
        format!(
            "the line is not UTF-8 (invalid byte at offset {})",
            error.utf8_error().valid_up_to()
        )
    })))
}

fn record(stats: &mut BTreeMap<(usize, String), HookStats>, reports: &[HookReport]) {
    for report in reports {
        let entry = stats
            .entry((report.index, report.name.clone()))
            .or_default();
        entry.kind = report.kind;
        entry.label = format!(
            "{}{}",
            report.label(),
            if report.background { " (async)" } else { "" }
        );
        entry.seen += 1;
        entry.durations.push(report.duration);
        match &report.result {
            Ok(verdict) => {
                match verdict.answer {
                    Answer::Block(_) => entry.blocked += 1,
                    Answer::Ask(_) => entry.asked += 1,
                    Answer::Warn(_) => entry.warned += 1,
                    Answer::Allow | Answer::Approve => {}
                }
                if verdict.signal.is_some() {
                    entry.signalled += 1;
                }
            }
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

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn print_text(
    args: &ReplayArgs,
    counts: &Counts,
    stats: &BTreeMap<(usize, String), HookStats>,
    blocked: &[BlockedCall],
    bad_lines: &[String],
) {
    let mut summary = format!(
        "replayed {}: {}, {}",
        args.session.display(),
        plural(counts.calls, "tool call"),
        plural(counts.stops, "stop")
    );
    if counts.events > 0 {
        summary.push_str(&format!(", {}", plural(counts.events, "other event")));
    }
    println!("{summary}");
    let rows: Vec<Vec<String>> = stats
        .iter()
        .map(|((index, name), s)| {
            vec![
                format!("#{}", index + 1),
                render::safe(name),
                render::safe(&s.label),
                s.kind.to_string(),
                s.seen.to_string(),
                s.blocked.to_string(),
                s.signalled.to_string(),
                s.failed.to_string(),
                s.asked.to_string(),
                s.warned.to_string(),
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
                    "ASKED",
                    "WARNED",
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
            let subject = match &call.tool {
                Some(tool) => format!("{tool} {}", call.input),
                None => call.event.clone(),
            };
            println!(
                "  line {}: {}\n    {}",
                call.line,
                render::safe(&subject),
                render::safe(&call.message)
            );
        }
    }
    if !bad_lines.is_empty() {
        println!("\nskipped {}:", plural(bad_lines.len(), "bad line"));
        for problem in bad_lines {
            println!("  {problem}");
        }
    }
}

/// A progress bar on stderr for a large session. indicatif draws it only when stderr is a
/// terminal, at most a few times a second, and clears it when it is finished or dropped (a
/// replay that fails part way leaves no half-drawn line before its error).
struct Progress(indicatif::ProgressBar);

impl Progress {
    fn new(total: u64) -> Progress {
        if total < 64 * 1024 {
            return Progress(indicatif::ProgressBar::hidden());
        }
        let style = indicatif::ProgressStyle::with_template(
            "[{bar:30}] {binary_bytes}/{binary_total_bytes}",
        )
        .expect("a valid template")
        .progress_chars("## ");
        Progress(
            indicatif::ProgressBar::new(total)
                .with_style(style)
                .with_finish(indicatif::ProgressFinish::AndClear),
        )
    }

    fn update(&self, done: u64) {
        self.0.set_position(done);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}
