//! Human output: aligned tables and one-line descriptions of verdicts.

use std::time::Duration;

use hookhost::{HookReport, Verdict};

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

/// What a hook answered, in a few words.
pub fn outcome(report: &HookReport) -> String {
    match &report.result {
        Ok(Verdict::Allow) => "allow".into(),
        Ok(Verdict::Block { reason }) => format!("block: {reason}"),
        Ok(Verdict::Observed) => "ok".into(),
        Ok(Verdict::Continue) => "continue".into(),
        Ok(Verdict::Signal(signal)) => format!("signal {}: {}", signal.signal, signal.reason),
        Ok(Verdict::Stopped {
            unrecognized_action: None,
        }) => "continue".into(),
        Ok(Verdict::Stopped {
            unrecognized_action: Some(action),
        }) => {
            format!("unrecognized action \"{action}\" (treated as continue)")
        }
        Err(failure) => format!("FAILED: {}", failure.detailed()),
    }
}
