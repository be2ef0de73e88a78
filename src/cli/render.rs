//! Human output: aligned tables, one-line descriptions of verdicts, and the JSON of a report.
//! Everything a hook or a configuration wrote goes through [`safe`] first.

use std::time::Duration;

use hookhost::Mode;
use hookhost::{Answer, HookFailure, HookReport};
use serde_json::{Value, json};

/// Untrusted text on one line: control characters escaped, so that a hook's output or a
/// repository's file cannot repaint the terminal or forge a line.
pub fn safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Rows of cells printed with every column padded to its widest cell.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(&widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `12.3ms`, `850µs`, `2.10s`.
pub fn duration(d: Duration) -> String {
    let micros = d.as_micros();
    if micros < 1000 {
        format!("{micros}µs")
    } else if micros < 1_000_000 {
        format!("{:.1}ms", micros as f64 / 1000.0)
    } else {
        format!("{:.2}s", d.as_secs_f64())
    }
}

/// `text`, cut to `max` characters with an ellipsis.
pub fn abbreviate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// What a hook answered, in a few words; for a hook in `monitor` mode, what it would have
/// done (`would block: ...`), and in `warn` mode, that its block was only a warning.
pub fn outcome(report: &HookReport) -> String {
    let verdict = match &report.result {
        Err(HookFailure::NotAllowed { reason }) if report.is_skipped() => {
            return format!("SKIPPED: {}", safe(reason));
        }
        Err(failure) if report.mode == Mode::Monitor => {
            return format!("(monitor) FAILED: {}", safe(&failure.detailed()));
        }
        Err(failure) => return format!("FAILED: {}", safe(&failure.detailed())),
        Ok(verdict) => verdict,
    };
    let mut parts = vec![match (&verdict.answer, report.mode) {
        (Answer::Allow, _) if report.phase == hookhost::Phase::Observe => "ok".to_string(),
        (Answer::Allow, _) => match report.event.as_str() {
            "PostToolUse" | "Stop" => "continue".to_string(),
            _ => "allow".to_string(),
        },
        (Answer::Approve, Mode::Monitor) => "would approve".to_string(),
        (Answer::Approve, _) => "approve".to_string(),
        (Answer::Warn(reason) | Answer::Ask(reason) | Answer::Block(reason), Mode::Monitor) => {
            format!("would {}: {}", verdict.answer.kind(), safe(reason))
        }
        (Answer::Ask(reason) | Answer::Block(reason), Mode::Warn) => {
            format!("{}, as a warning: {}", verdict.answer.kind(), safe(reason))
        }
        (Answer::Warn(reason) | Answer::Ask(reason) | Answer::Block(reason), _) => {
            format!("{}: {}", verdict.answer.kind(), safe(reason))
        }
    }];
    if let Some(signal) = &verdict.signal {
        parts = vec![format!(
            "signal {}: {}",
            safe(&signal.signal),
            safe(&signal.reason)
        )];
    }
    if verdict.updated_input.is_some() {
        parts.push("+ updated input".to_string());
    }
    if verdict.context.is_some() {
        parts.push("+ context".to_string());
    }
    if let Some(stop) = &verdict.stop {
        parts.push(format!("+ stop: {}", safe(stop)));
    }
    if let Some(note) = &verdict.note {
        parts.push(format!("({})", safe(note)));
    }
    parts.join(" ")
}

/// The table of a call's reports, with each hook's stderr under its row.
pub fn print_reports(reports: &[HookReport], indent: &str) {
    if reports.is_empty() {
        return;
    }
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            vec![
                format!("#{}", r.index + 1),
                safe(&r.name),
                format!(
                    "{}{}",
                    r.label(),
                    if r.background { " (async)" } else { "" }
                ),
                duration(r.duration),
                outcome(r),
            ]
        })
        .collect();
    let table = table(&["#", "HOOK", "EVENT", "TIME", "VERDICT"], &rows);
    for (i, line) in table.lines().enumerate() {
        println!("{indent}{line}");
        // Row i (after the header) belongs to report i - 1.
        if let Some(report) = i.checked_sub(1).and_then(|r| reports.get(r)) {
            for stderr_line in report.stderr.lines() {
                println!("{indent}    stderr| {}", safe(stderr_line));
            }
            if report.stderr_truncated {
                println!("{indent}    stderr| ... (cut)");
            }
        }
    }
}

/// One report as JSON.
pub fn report_json(report: &HookReport) -> Value {
    let mut out = json!({
        "name": report.name,
        "index": report.index,
        "event": report.event,
        "phase": report.phase.as_str(),
        "kind": report.kind,
        "async": report.background,
        "mode": report.mode.as_str(),
        "duration_ms": report.duration.as_secs_f64() * 1000.0,
        "stderr": report.stderr,
        "stderr_truncated": report.stderr_truncated,
    });
    let fields = out.as_object_mut().expect("object");
    match &report.result {
        Err(HookFailure::NotAllowed { reason }) if report.is_skipped() => {
            fields.insert("verdict".into(), json!("skipped"));
            fields.insert("reason".into(), json!(reason));
        }
        Err(failure) => {
            fields.insert("verdict".into(), json!("failed"));
            fields.insert("failure".into(), json!(failure.detailed()));
        }
        Ok(verdict) => {
            let kind = match (&verdict.answer, report.event.as_str()) {
                (Answer::Allow, _) if report.phase == hookhost::Phase::Observe => "observed",
                (Answer::Allow, "PostToolUse" | "Stop") if verdict.signal.is_none() => "continue",
                (Answer::Allow, _) if verdict.signal.is_some() => "signal",
                (answer, _) => answer.kind(),
            };
            fields.insert("verdict".into(), json!(kind));
            if let Some(reason) = verdict.answer.reason() {
                fields.insert("reason".into(), json!(reason));
            }
            if let Some(signal) = &verdict.signal {
                fields.insert("signal".into(), json!(signal.signal));
                fields.insert("reason".into(), json!(signal.reason));
            }
            if let Some(input) = &verdict.updated_input {
                fields.insert("updated_input".into(), input.clone());
            }
            if let Some(context) = &verdict.context {
                fields.insert("context".into(), json!(context));
            }
            if let Some(stop) = &verdict.stop {
                fields.insert("stop".into(), json!(stop));
            }
            if let Some(message) = &verdict.message {
                fields.insert("message".into(), json!(message));
            }
            if let Some(note) = &verdict.note {
                fields.insert("note".into(), json!(note));
            }
        }
    }
    out
}

/// What a hook in `monitor` mode would have decided: `destructive-guard would block: ...`.
pub fn monitored(decision: &hookhost::Decision) -> String {
    use hookhost::Decision;
    match decision {
        Decision::Block(block) => format!(
            "{} would block: {}",
            safe(&block.blocked_by),
            safe(&block.message())
        ),
        Decision::Ask(n) => format!("{} would ask: {}", safe(&n.by), safe(&n.reason)),
        Decision::Warn(n) => format!("{} would warn: {}", safe(&n.by), safe(&n.reason)),
        Decision::Approve(n) => format!("{} would approve", safe(&n.by)),
        Decision::Allow => "allow".to_string(),
    }
}
