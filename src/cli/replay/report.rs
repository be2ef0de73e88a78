//! What a replay found: per hook, how often it ran, blocked, asked, warned, signalled and
//! failed, and how long it took; the calls a guard blocked; as a table, with a progress bar
//! while it runs.

use std::collections::BTreeMap;
use std::time::Duration;

use hookhost::Mode;
use hookhost::{Answer, HookReport};

use super::ReplayArgs;
use crate::cli::render;

/// What one hook did over the whole session.
#[derive(Default)]
pub(super) struct HookStats {
    pub(super) kind: &'static str,
    pub(super) label: String,
    pub(super) seen: usize,
    pub(super) blocked: usize,
    /// Blocks (and asks) of a hook in `monitor` mode: what it would have blocked.
    pub(super) would_block: usize,
    pub(super) asked: usize,
    pub(super) warned: usize,
    pub(super) signalled: usize,
    pub(super) failed: usize,
    pub(super) durations: Vec<Duration>,
}

/// An event a guard blocked.
pub(super) struct BlockedCall {
    pub(super) line: usize,
    pub(super) event: String,
    pub(super) tool: Option<String>,
    pub(super) input: String,
    pub(super) message: String,
}

/// What a session held.
pub(super) struct Counts {
    pub(super) calls: usize,
    pub(super) stops: usize,
    pub(super) events: usize,
}

pub(super) fn record(stats: &mut BTreeMap<(usize, String), HookStats>, reports: &[HookReport]) {
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
            Ok(verdict) if report.mode == Mode::Monitor => {
                if matches!(verdict.answer, Answer::Block(_) | Answer::Ask(_)) {
                    entry.would_block += 1;
                }
            }
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

pub(super) fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

pub(super) fn print_text(
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
                // Last, so that the columns before it stay where scripts read them.
                s.would_block.to_string(),
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
                    "P99",
                    "WOULD BLOCK"
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
pub(super) struct Progress(indicatif::ProgressBar);

impl Progress {
    pub(super) fn new(total: u64) -> Progress {
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

    pub(super) fn update(&self, done: u64) {
        self.0.set_position(done);
    }

    pub(super) fn finish(&self) {
        self.0.finish_and_clear();
    }
}
