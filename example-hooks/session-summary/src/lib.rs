//! session-summary: a Stop hook that appends one line summarising the run (time, reason,
//! iterations, tokens, workspace) to a file in a directory granted with `write`.

use hook_sdk::{Hook, StopEvent};
use serde::Deserialize;

/// The hook's `[hooks.config]`.
#[derive(Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The summary file; relative paths are relative to the workspace root.
    pub path: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            path: ".forgeflare/sessions.log".to_string(),
        }
    }
}

/// The hook.
#[derive(Debug)]
pub struct SessionSummary;

impl Hook for SessionSummary {
    fn stop(event: &StopEvent) {
        let config: Config = match hook_sdk::config() {
            Ok(config) => config,
            Err(error) => {
                return hook_sdk::log::error(format!("session-summary is misconfigured: {error}"));
            }
        };
        let line = summary(event, &hook_sdk::timestamp());
        if let Err(error) = hook_sdk::fs::append(&event.cwd, &config.path, &line) {
            hook_sdk::log::error(format!(
                "cannot append to {}: {error} (is its directory granted with `write`?)",
                config.path
            ));
        }
    }
}

hook_sdk::export!(SessionSummary);

/// The summary line, with its newline.
pub fn summary(event: &StopEvent, time: &str) -> String {
    format!(
        "{time} reason={} tool_iterations={} total_tokens={} cwd={}\n",
        event.reason.as_str(),
        event.tool_iterations,
        event.total_tokens,
        event.cwd
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_sdk::StopReason;

    #[test]
    fn one_line_per_run() {
        let event = StopEvent::new(StopReason::ConvergenceSignal, 22, 45_000);
        assert_eq!(
            summary(&event, "2026-02-13T19:30:00Z"),
            "2026-02-13T19:30:00Z reason=convergence_signal tool_iterations=22 total_tokens=45000 cwd=/workspace\n"
        );
    }
}
