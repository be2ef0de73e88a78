//! Drop-in replacement for forgeflare's private `src/hooks.rs`: exactly the surface its
//! `main.rs` uses, as a thin layer over the native [`crate::HookRunner`]. Switching is one
//! line: `use hookhost::forgeflare::{HookRunner, PreToolResult, PostToolResult};`.
//!
//! Where forgeflare's own code differs from its spec, this follows the spec, and one thing
//! it deliberately does differently: a config file that exists but cannot be used does not
//! turn every guard off. It is reported on stderr once, and every PreToolUse call is blocked
//! with a message naming the problem until the file is fixed.
//!
//! hookhost's wider answers reach forgeflare's two-valued interface this way: a warning allows
//! (and is logged); an "ask" blocks, since forgeflare's loop has nobody to ask; a rewritten
//! tool input blocks too, since `PreToolResult` cannot carry it and running the original input
//! would ignore the hook.

use serde::Deserialize;
use serde_json::Value;

use crate::ToolCall;
use crate::config::{HookSource, HookSpec};
use crate::outcome::{Decision, HookReport};
use crate::runner::RunnerOptions;
use crate::text::error_chain;
use crate::verdict::blocked_message;

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

/// What the file says, as forgeflare's parser would read it: `phase` and `timeout_ms` are
/// `None` where the file does not set them.
impl From<&HookSpec> for HookConfig {
    fn from(spec: &HookSpec) -> HookConfig {
        let command = match &spec.source {
            HookSource::Command(command) => command.command.clone(),
            HookSource::Wasm(wasm) => wasm.path.display().to_string(),
        };
        HookConfig {
            event: spec.events.to_string(),
            command,
            match_tool: spec.match_tool.clone(),
            phase: spec.phase_written.map(|phase| phase.as_str().to_string()),
            timeout_ms: spec.timeout.map(|timeout| timeout.as_millis() as u64),
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
    /// reported on stderr once and makes every PreToolUse call block (fail closed). On a
    /// machine with an organisation's managed file, its hooks come first and its
    /// `managed_only` holds ([`crate::HookRunner::load`]); without one, nothing differs.
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

    /// True when the file declares any hook, as forgeflare reports it (hooks with hookhost's
    /// `enabled = false`, a key forgeflare does not know, count). One difference on purpose: a
    /// broken file answers true, so that an agent that checks this before calling its hooks
    /// still gets the fail-closed block instead of skipping its guards.
    pub fn has_hooks(&self) -> bool {
        self.runner.has_hooks() || self.runner.configured_hooks().next().is_some()
    }

    /// The hooks the file declares, as forgeflare's parser reads them (disabled ones included).
    pub fn hooks(&self) -> Vec<HookConfig> {
        self.runner
            .configured_hooks()
            .map(HookConfig::from)
            .collect()
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
        for notice in &outcome.notices {
            eprintln!(
                "[hooks] PreToolUse hook {} warns: {}",
                crate::text::name(&notice.by),
                crate::text::line(&notice.reason)
            );
        }
        let block = |by: &str, reason: String| PreToolResult::Block {
            reason: blocked_message(by, &reason),
            blocked_by: by.to_string(),
        };
        match outcome.decision {
            Decision::Block(block) => PreToolResult::Block {
                reason: block.message(),
                blocked_by: block.blocked_by,
            },
            Decision::Ask(notice) => block(
                &notice.by,
                format!(
                    "asks for confirmation, which forgeflare cannot give: {}",
                    notice.reason
                ),
            ),
            _ if outcome.updated_input.is_some() => {
                let by = outcome
                    .reports
                    .iter()
                    .rev()
                    .find(|r| matches!(&r.result, Ok(v) if v.updated_input.is_some()))
                    .map_or("a hook", |r| r.name.as_str())
                    .to_string();
                block(
                    &by,
                    "rewrote the tool input, which forgeflare's hook interface cannot carry"
                        .to_string(),
                )
            }
            _ => PreToolResult::Allow,
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
        match outcome.signal() {
            Some(signal) => PostToolResult::Signal {
                signal: signal.signal.clone(),
                reason: signal.reason.clone(),
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
        let event = report.label();
        let name = crate::text::name(&report.name);
        match &report.result {
            Err(failure) => eprintln!(
                "[hooks] {event} hook {name} failed: {}",
                crate::text::line(&failure.detailed())
            ),
            Ok(verdict) => {
                if let Some(note) = &verdict.note {
                    eprintln!("[hooks] {event} hook {name} {}", crate::text::line(note));
                }
            }
        }
    }
}

fn log_warnings(warnings: &[String]) {
    for warning in warnings {
        eprintln!("[hooks] Warning: {}", crate::text::line(warning));
    }
}
