//! Drop-in replacement for forgeflare's private `src/hooks.rs`: exactly the surface its
//! `main.rs` uses, as a thin layer over the native [`crate::HookRunner`]. Switching is one
//! line: `use hookhost::forgeflare::{HookRunner, PreToolResult, PostToolResult};`.
//!
//! Where forgeflare's own code differs from its spec, this follows the spec, and one thing
//! it deliberately does differently: a config file that exists but cannot be used does not
//! turn every guard off. It is reported on stderr once, and every PreToolUse call is blocked
//! with a message naming the problem until the file is fixed.

use serde::Deserialize;
use serde_json::Value;

use crate::config::{HookSource, HookSpec};
use crate::outcome::{GuardDecision, HookReport};
use crate::runner::RunnerOptions;
use crate::verdict::Verdict;
use crate::{ToolCall, error_chain};

/// The guard outcome forgeflare's loop acts on.
#[derive(Debug, PartialEq)]
pub enum PreToolResult {
    /// Run the tool.
    Allow,
    /// Do not run it; `reason` is the tool result the model sees.
    Block {
        /// The full message: `blocked by {hook}: {reason}` or `hook failed: ...`.
        reason: String,
        /// The hook (its name, by default its command) that blocked.
        blocked_by: String,
    },
}

/// So that forgeflare's loop counts R6's blocks with one call:
/// `blocks.record_guard(&result)` (see [`crate::BlockCounters::record_guard`]).
impl crate::counters::GuardResult for PreToolResult {
    fn is_block(&self) -> bool {
        matches!(self, PreToolResult::Block { .. })
    }
}

/// The PostToolUse outcome: a signal sets forgeflare's `signal_break` (R7).
#[derive(Debug, PartialEq)]
pub enum PostToolResult {
    /// Nothing to report.
    Continue,
    /// The first signal raised by the matching hooks.
    Signal {
        /// Its name.
        signal: String,
        /// The hook's reason.
        reason: String,
    },
}

/// One `[[hooks]]` entry as forgeflare declares it.
#[derive(Debug, Clone, Deserialize)]
pub struct HookConfig {
    /// `PreToolUse`, `PostToolUse` or `Stop`.
    pub event: String,
    /// The command run with `bash -c` (for a wasm hook: its path).
    pub command: String,
    /// Exact tool name, or every tool.
    pub match_tool: Option<String>,
    /// PreToolUse only: `guard` (when `None`) or `observe`.
    pub phase: Option<String>,
    /// Budget in milliseconds; `None` for the default.
    pub timeout_ms: Option<u64>,
}

impl From<&HookSpec> for HookConfig {
    fn from(spec: &HookSpec) -> HookConfig {
        let command = match &spec.source {
            HookSource::Command(command) => command.command.clone(),
            HookSource::Wasm(wasm) => wasm.path.display().to_string(),
        };
        HookConfig {
            event: spec.role.event_name().to_string(),
            command,
            match_tool: spec.match_tool.clone(),
            phase: spec.role.phase_name().map(str::to_string),
            timeout_ms: Some(spec.timeout_ms()),
        }
    }
}

/// forgeflare's hook runner.
#[derive(Debug, Clone)]
pub struct HookRunner {
    runner: crate::HookRunner,
}

impl HookRunner {
    /// Loads hooks from `config_path`; hooks run in `cwd` and convergence.json goes to
    /// `{cwd}/.forgeflare/`. A missing file is a runner that does nothing. An unusable file is
    /// reported on stderr once and makes every PreToolUse call block (fail closed).
    pub fn load(config_path: &str, cwd: &str) -> Self {
        let options = RunnerOptions::new(cwd);
        let runner = match crate::HookRunner::load(config_path, options.clone()) {
            Ok(runner) => runner,
            Err(error) => {
                eprintln!(
                    "[hooks] {}\n[hooks] every tool call will be blocked until the hook configuration is fixed",
                    error_chain(&error)
                );
                crate::HookRunner::fail_closed(error, options)
            }
        };
        HookRunner { runner }
    }

    /// Deletes a stale convergence.json at startup. Problems are warnings, never panics.
    pub fn clear_convergence_state(&self) {
        if let Err(error) = self.runner.clear_convergence_state() {
            eprintln!("[hooks] Warning: {}", error_chain(&error));
        }
    }

    /// True when any hook is configured (or the configuration is broken and guards block).
    pub fn has_hooks(&self) -> bool {
        self.runner.has_hooks()
    }

    /// The configured hooks, as forgeflare declares them.
    pub fn hooks(&self) -> Vec<HookConfig> {
        self.runner.hooks().map(HookConfig::from).collect()
    }

    /// PreToolUse: guards (fail closed), then observers (fail open).
    pub async fn run_pre_tool_use(
        &self,
        tool: &str,
        input: &Value,
        tool_iterations: usize,
    ) -> PreToolResult {
        let call = ToolCall {
            tool,
            input,
            tool_iterations,
        };
        let outcome = self.runner.pre_tool_use(call).await;
        log_failures(&outcome.reports);
        match outcome.decision {
            GuardDecision::Allow => PreToolResult::Allow,
            GuardDecision::Block(block) => PreToolResult::Block {
                reason: block.message(),
                blocked_by: block.blocked_by,
            },
        }
    }

    /// PostToolUse: every matching hook (fail open); the first signal wins; every signal is
    /// recorded in convergence.json.
    pub async fn run_post_tool_use(
        &self,
        tool: &str,
        input: &Value,
        result: &str,
        is_error: bool,
        tool_iterations: usize,
    ) -> PostToolResult {
        let call = ToolCall {
            tool,
            input,
            tool_iterations,
        };
        let outcome = self.runner.post_tool_use(call, result, is_error).await;
        log_failures(&outcome.reports);
        log_warnings(&outcome.warnings);
        match outcome.signal {
            Some(signal) => PostToolResult::Signal {
                signal: signal.signal,
                reason: signal.reason,
            },
            None => PostToolResult::Continue,
        }
    }

    /// Stop: every Stop hook (fail open), then `final` in convergence.json. A reason outside
    /// the seven is passed on as it is, with a warning.
    pub async fn run_stop(&self, reason: &str, tool_iterations: usize, total_tokens: u64) {
        if let Err(unknown) = reason.parse::<crate::StopReason>() {
            eprintln!("[hooks] Warning: {unknown}");
        }
        let outcome = self
            .runner
            .stop_with_reason(reason, tool_iterations, total_tokens)
            .await;
        log_failures(&outcome.reports);
        log_warnings(&outcome.warnings);
    }
}

/// Logs what the contract says to log: failures of hooks whose failures do not block, guard
/// failures (the block message says less than the detail), unrecognized Stop actions.
fn log_failures(reports: &[HookReport]) {
    for report in reports {
        let event = report.role.label();
        match &report.result {
            Err(failure) => eprintln!(
                "[hooks] {event} hook {} failed: {}",
                report.name,
                failure.detailed()
            ),
            Ok(Verdict::Stopped {
                unrecognized_action: Some(action),
            }) => eprintln!(
                "[hooks] Stop hook {} returned unrecognized action \"{action}\"; treated as continue",
                report.name
            ),
            Ok(_) => {}
        }
    }
}

fn log_warnings(warnings: &[String]) {
    for warning in warnings {
        eprintln!("[hooks] Warning: {warning}");
    }
}
