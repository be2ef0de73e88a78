//! convergence-check: a PostToolUse hook that signals `converged` after N consecutive
//! successful test runs, so a Ralph loop stops when the work is done.
//!
//! Every call runs in a fresh instance, so the streak lives in hookhost's `state` interface
//! (per hook, for the agent session): no file grant is needed, and nothing is left on disk.

use hook_sdk::{Hook, Post, PostEvent, state};
use serde::Deserialize;

/// The hook's `[hooks.config]`.
#[derive(Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// A Bash command containing this (after collapsing whitespace) is a test run.
    pub command: String,
    /// Consecutive successes needed.
    pub threshold: u32,
    /// When set, a successful run's output must also contain this.
    pub success: Option<String>,
    /// The signal's name.
    pub signal: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            command: "cargo test".to_string(),
            threshold: 3,
            success: None,
            signal: "converged".to_string(),
        }
    }
}

const STREAK: &str = "streak";

/// The hook.
#[derive(Debug)]
pub struct ConvergenceCheck;

impl Hook for ConvergenceCheck {
    fn post(event: &PostEvent) -> Post {
        let config: Config = match hook_sdk::config() {
            Ok(config) => config,
            Err(error) => {
                hook_sdk::log::error(format!("convergence-check is misconfigured: {error}"));
                return Post::Continue;
            }
        };
        let streak: u32 = state::get_json(STREAK).unwrap_or(0);
        let (streak, post) = step(event, &config, streak);
        if let Err(error) = state::set_json(STREAK, &streak) {
            hook_sdk::log::error(format!("cannot keep the streak: {error}"));
        }
        post
    }
}

hook_sdk::export!(ConvergenceCheck);

/// The new streak and the answer for one PostToolUse event.
pub fn step(event: &PostEvent, config: &Config, streak: u32) -> (u32, Post) {
    // Any agent's shell tool, not only Claude Code's `Bash`.
    let Some(shell) = event.call.shell() else {
        return (streak, Post::Continue);
    };
    let command = shell
        .command
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let wanted = config
        .command
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if wanted.is_empty() || !command.contains(&wanted) {
        return (streak, Post::Continue);
    }
    let passed = !event.is_error
        && config
            .success
            .as_ref()
            .is_none_or(|s| event.result.contains(s.as_str()));
    if !passed {
        return (0, Post::Continue);
    }
    let streak = streak + 1;
    if streak >= config.threshold {
        let reason = format!("{streak} consecutive clean runs of `{wanted}`");
        (streak, Post::signal(config.signal.clone(), reason))
    } else {
        (streak, Post::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_sdk::ToolCall;

    fn run(command: &str, ok: bool) -> PostEvent {
        PostEvent::new(
            ToolCall::bash_command(command),
            if ok { "test result: ok" } else { "FAILED" },
            !ok,
        )
    }

    #[test]
    fn signals_after_the_threshold_and_resets_on_failure() {
        hook_sdk::testing::reset();
        let sequence = [
            (run("cargo test", true), false),
            (run("cargo  test --release", true), false),
            (run("ls", true), false), // not a test run: the streak stays
            (run("cargo test", false), false), // failure: back to zero
            (run("cargo test", true), false),
            (run("cargo test", true), false),
            (run("cargo test", true), true),
        ];
        for (i, (event, signals)) in sequence.iter().enumerate() {
            let post = ConvergenceCheck::post(event);
            assert_eq!(
                matches!(post, Post::Signal { .. }),
                *signals,
                "step {i}: {post:?}"
            );
        }
        assert_eq!(
            ConvergenceCheck::post(&run("cargo test", true)),
            Post::signal("converged", "4 consecutive clean runs of `cargo test`")
        );
    }

    #[test]
    fn success_pattern_and_config() {
        let config = Config {
            success: Some("0 failed".into()),
            threshold: 1,
            ..Config::default()
        };
        let event = PostEvent::new(
            ToolCall::bash_command("cargo test"),
            "test result: ok. 3 passed; 0 failed",
            false,
        );
        assert!(matches!(step(&event, &config, 0), (1, Post::Signal { .. })));
        let noisy = PostEvent::new(
            ToolCall::bash_command("cargo test"),
            "error: could not compile",
            false,
        );
        assert_eq!(step(&noisy, &config, 5), (0, Post::Continue));
    }
}
