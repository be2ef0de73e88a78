//! `hookhost log`: read the decision log `[log]` configures (or `--file`): the records a filter
//! keeps, oldest first, as a table or as JSON Lines, or a summary per hook. Rotated files are
//! read too. A line that is not a record (cut by a killed writer, or foreign) is skipped and
//! counted, so a log being written, or one with a torn last line, reads fine.

use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::{Context as _, Result, bail};
use serde_json::Value;

use super::render;
use super::replay::percentile;

#[derive(clap::Args)]
pub struct LogArgs {
    #[command(flatten)]
    config: super::ConfigArgs,
    /// The log file [default: the one `[log]` configures]
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// Only events that were blocked
    #[arg(long)]
    blocked: bool,
    /// Only events where a hook in monitor mode would have blocked or asked
    #[arg(long)]
    would_block: bool,
    /// Only events this hook ran for
    #[arg(long, value_name = "NAME")]
    hook: Option<String>,
    /// Only this event
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// Only this session
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Only records newer than this (`30m`, `2h`, `7d`)
    #[arg(long, value_name = "AGE", value_parser = humantime::parse_duration)]
    since: Option<Duration>,
    /// Print the records as JSON Lines
    #[arg(long, conflicts_with = "summary")]
    json: bool,
    /// Print one row per hook: calls, blocks, warnings, would-blocks, failures, p50/p99 time
    #[arg(long)]
    summary: bool,
    /// Send the records not sent yet to the collector of your `[telemetry]` (with `spool =
    /// true`, processes leave them in the log for this), then remember how far it got
    #[arg(long, conflicts_with_all = ["file", "blocked", "would_block", "hook", "event", "session", "since", "json", "summary"])]
    export: bool,
}

pub fn run(args: LogArgs) -> Result<ExitCode> {
    if args.export {
        #[cfg(feature = "telemetry")]
        return super::export::run(&args.config.layers()?);
        #[cfg(not(feature = "telemetry"))]
        bail!("hookhost was built without the `telemetry` feature: --export needs it");
    }
    let files = match &args.file {
        Some(file) => vec![file.clone()],
        None => {
            let layers = args.config.layers()?;
            let Some(log) = layers.decision_log()? else {
                bail!(
                    "no decision log is configured: add a [log] table with a `path` to the user's \
                     hooks.toml (or the project's), or pass --file PATH"
                );
            };
            log.files()
        }
    };
    let since = args.since.map(|age| {
        SystemTime::now()
            .checked_sub(age)
            .unwrap_or(SystemTime::UNIX_EPOCH)
    });
    let mut kept = Vec::new();
    let mut skipped = 0usize;
    let mut read_any = false;
    for path in &files {
        let file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => {
                return Err(error).with_context(|| format!("cannot read {}", path.display()));
            }
        };
        read_any = true;
        for line in std::io::BufReader::new(file).split(b'\n') {
            let line = line.with_context(|| format!("cannot read {}", path.display()))?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Value>(&line) {
                Ok(record) if hookhost::decision::is_record(&record) => {
                    if keeps(&args, since, &record) {
                        kept.push(record);
                    }
                }
                _ => skipped += 1,
            }
        }
    }
    if !read_any {
        bail!(
            "the decision log {} does not exist yet (no event has reached a hook since it was \
             configured)",
            files
                .last()
                .map_or(String::new(), |p| p.display().to_string())
        );
    }
    if args.json {
        for record in &kept {
            println!("{record}");
        }
    } else if args.summary {
        print_summary(&kept);
    } else {
        print_records(&kept);
    }
    if skipped > 0 {
        eprintln!(
            "skipped {skipped} line(s) that are not decision records (cut by a writer that was \
             killed, or not hookhost's)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether `record` passes every filter of `args`.
fn keeps(args: &LogArgs, since: Option<SystemTime>, record: &Value) -> bool {
    let text = |key: &str| record.get(key).and_then(Value::as_str);
    let hooks = record["hooks"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let would_block = record["monitored"].as_array().is_some_and(|m| {
        m.iter()
            .any(|d| matches!(d["would"].as_str(), Some("block" | "ask")))
    });
    (!args.blocked || text("decision") == Some("block"))
        && (!args.would_block || would_block)
        && args
            .event
            .as_deref()
            .is_none_or(|event| text("event") == Some(event))
        && args
            .session
            .as_deref()
            .is_none_or(|id| text("session") == Some(id))
        && args
            .hook
            .as_deref()
            .is_none_or(|name| hooks.iter().any(|h| h["name"].as_str() == Some(name)))
        && since.is_none_or(|since| {
            text("time")
                .and_then(|time| humantime::parse_rfc3339_weak(time).ok())
                .is_some_and(|time| time >= since)
        })
}

fn print_records(records: &[Value]) {
    let field =
        |record: &Value, key: &str| record[key].as_str().map(render::safe).unwrap_or_default();
    let rows: Vec<Vec<String>> = records
        .iter()
        .map(|record| {
            let decision = match record["monitored"].as_array().map(Vec::len) {
                Some(n) if n > 0 => format!("{} (+{n} monitored)", field(record, "decision")),
                _ => field(record, "decision"),
            };
            vec![
                field(record, "time"),
                field(record, "event"),
                field(record, "tool"),
                decision,
                field(record, "decided_by"),
                render::abbreviate(&field(record, "reason"), 80),
            ]
        })
        .collect();
    print_rows(
        &["TIME", "EVENT", "TOOL", "DECISION", "BY", "REASON"],
        &rows,
    );
}

/// What one hook did over the records.
#[derive(Default)]
struct HookSummary {
    calls: usize,
    blocks: usize,
    warnings: usize,
    would_block: usize,
    failures: usize,
    durations: Vec<Duration>,
}

fn print_summary(records: &[Value]) {
    let mut hooks: BTreeMap<String, HookSummary> = BTreeMap::new();
    for record in records {
        for hook in record["hooks"].as_array().into_iter().flatten() {
            let name = hook["name"].as_str().unwrap_or("?").to_string();
            let entry = hooks.entry(name).or_default();
            entry.calls += 1;
            let monitored = hook["mode"].as_str() == Some("monitor");
            match hook["verdict"].as_str() {
                Some("block" | "ask") if monitored => entry.would_block += 1,
                Some("block") => entry.blocks += 1,
                Some("warn") => entry.warnings += 1,
                Some("failed") => entry.failures += 1,
                _ => {}
            }
            if let Some(us) = hook["us"].as_u64() {
                entry.durations.push(Duration::from_micros(us));
            }
        }
    }
    let rows: Vec<Vec<String>> = hooks
        .iter()
        .map(|(name, s)| {
            vec![
                render::safe(name),
                s.calls.to_string(),
                s.blocks.to_string(),
                s.warnings.to_string(),
                s.would_block.to_string(),
                s.failures.to_string(),
                render::duration(percentile(&s.durations, 0.50)),
                render::duration(percentile(&s.durations, 0.99)),
            ]
        })
        .collect();
    print_rows(
        &[
            "HOOK",
            "CALLS",
            "BLOCKED",
            "WARNED",
            "WOULD BLOCK",
            "FAILED",
            "P50",
            "P99",
        ],
        &rows,
    );
}

/// `rows` under `header`, or a line saying no record matched the filters.
fn print_rows(header: &[&str], rows: &[Vec<String>]) {
    if rows.is_empty() {
        println!("no record matches");
    } else {
        print!("{}", render::table(header, rows));
    }
}
