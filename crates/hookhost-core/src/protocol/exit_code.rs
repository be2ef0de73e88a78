//! The exit-code protocol (`protocol = "exit-code"`), Fresher's convention: the exit status is
//! the answer, and the event reaches the script in environment variables (`HOOKHOST_EVENT`,
//! `HOOKHOST_SESSION_ID`, the agent's own such as `FRESHER_ITERATION`) as well as on stdin.
//!
//! | exit | answer |
//! |---|---|
//! | 0 | go on |
//! | 1 | warn (Fresher: a warning, or skip the iteration) |
//! | 2 | block (Fresher: abort the loop) |
//! | 3 and above, or a signal | a hook failure: logged, and blocks only a fail-closed guard |
//!
//! Other conventions say so with `exit_codes` in hooks.toml: Code-Forge's "any non-zero exit
//! blocks" is `exit_codes = { 1 = "block" }` (each code maps to `allow`, `warn`, `ask`,
//! `block` or `error`; codes not named keep the table above).
//!
//! The reason of a warn, ask or block is the last non-empty line of stderr, or else of stdout
//! (Fresher's and Code-Forge's templates `echo` their reason).

use std::collections::BTreeMap;

use super::ProcessOutput;
use crate::verdict::{HookFailure, Verdict};

/// What an exit status means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitMeaning {
    /// Go on.
    Allow,
    /// Go on, with the reason.
    Warn,
    /// Defer to the user, with the reason.
    Ask,
    /// Block, with the reason.
    Block,
    /// A hook failure.
    Error,
}

impl ExitMeaning {
    /// Every meaning, with its hooks.toml spelling.
    pub const ALL: [(ExitMeaning, &'static str); 5] = [
        (ExitMeaning::Allow, "allow"),
        (ExitMeaning::Warn, "warn"),
        (ExitMeaning::Ask, "ask"),
        (ExitMeaning::Block, "block"),
        (ExitMeaning::Error, "error"),
    ];

    /// The meaning spelled `name`.
    pub fn from_name(name: &str) -> Option<ExitMeaning> {
        ExitMeaning::ALL
            .iter()
            .find(|(_, spelled)| *spelled == name)
            .map(|(meaning, _)| *meaning)
    }
}

/// `exit_codes`: what each exit status means, on top of the defaults (0 allow, 1 warn,
/// 2 block, anything else an error).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExitCodes {
    overrides: BTreeMap<i32, ExitMeaning>,
}

impl ExitCodes {
    /// The defaults with `overrides` on top.
    pub fn new(overrides: BTreeMap<i32, ExitMeaning>) -> ExitCodes {
        ExitCodes { overrides }
    }

    /// What exit status `code` means.
    pub fn meaning(&self, code: i32) -> ExitMeaning {
        if let Some(meaning) = self.overrides.get(&code) {
            return *meaning;
        }
        match code {
            0 => ExitMeaning::Allow,
            1 => ExitMeaning::Warn,
            2 => ExitMeaning::Block,
            _ => ExitMeaning::Error,
        }
    }
}

/// Reads a finished exit-code hook.
pub(crate) fn answer(output: &ProcessOutput, codes: &ExitCodes) -> Result<Verdict, HookFailure> {
    let failure = || Err(output.failure().unwrap_or(HookFailure::Exited { code: -1 }));
    let Some(code) = output.code else {
        return failure();
    };
    let reason = |kind: &str| reason(output, &format!("{kind} (exit status {code})"));
    match codes.meaning(code) {
        ExitMeaning::Allow => Ok(Verdict::allow()),
        ExitMeaning::Warn => Ok(Verdict::warn(reason("warning"))),
        ExitMeaning::Ask => Ok(Verdict::ask(reason("asks for confirmation"))),
        ExitMeaning::Block => Ok(Verdict::block(reason("abort"))),
        ExitMeaning::Error if code == 0 => Err(HookFailure::Exited { code: 0 }),
        ExitMeaning::Error => failure(),
    }
}

fn reason(output: &ProcessOutput, default: &str) -> String {
    let last_line = |text: &str| {
        text.lines()
            .map(str::trim)
            .rfind(|line| !line.is_empty())
            .map(str::to_string)
    };
    last_line(&output.stderr)
        .or_else(|| last_line(&String::from_utf8_lossy(&output.stdout)))
        .unwrap_or_else(|| default.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(code: Option<i32>, stdout: &str, stderr: &str) -> ProcessOutput {
        ProcessOutput {
            code,
            signal: code.is_none().then_some(9),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.to_string(),
        }
    }

    #[test]
    fn code_forge_blocks_on_any_non_zero_exit() {
        let codes = ExitCodes::new(BTreeMap::from([(1, ExitMeaning::Block)]));
        let blocked = answer(
            &out(Some(1), "Blocked: sudo commands not allowed\n", ""),
            &codes,
        );
        assert_eq!(
            blocked,
            Ok(Verdict::block("Blocked: sudo commands not allowed"))
        );
        assert_eq!(answer(&out(Some(0), "", ""), &codes), Ok(Verdict::allow()));
        assert_eq!(
            answer(&out(Some(2), "", ""), &codes),
            Ok(Verdict::block("abort (exit status 2)"))
        );
    }

    #[test]
    fn fresher_exit_codes() {
        #[rustfmt::skip]
        let cases: &[(&str, ProcessOutput, Result<Verdict, &str>)] = &[
            ("0 continues", out(Some(0), "Starting iteration 3\n", ""), Ok(Verdict::allow())),
            ("1 warns with stdout's last line", out(Some(1), "Starting iteration 3\nNo pending tasks, skipping iteration\n", ""), Ok(Verdict::warn("No pending tasks, skipping iteration"))),
            ("2 blocks with stderr", out(Some(2), "noise\n", "ERROR: No IMPLEMENTATION_PLAN.md found.\n"), Ok(Verdict::block("ERROR: No IMPLEMENTATION_PLAN.md found."))),
            ("2 without output", out(Some(2), "", ""), Ok(Verdict::block("abort (exit status 2)"))),
            ("1 without output", out(Some(1), "", ""), Ok(Verdict::warn("warning (exit status 1)"))),
            ("3 is an error", out(Some(3), "", ""), Err("exited with code 3")),
            ("124 is an error", out(Some(124), "", ""), Err("exited with code 124")),
            ("a signal is an error", out(None, "", ""), Err("killed by signal 9 (SIGKILL)")),
        ];
        for (name, output, expected) in cases {
            let got = answer(output, &ExitCodes::default()).map_err(|failure| failure.to_string());
            assert_eq!(got, expected.clone().map_err(str::to_string), "{name}");
        }
    }
}
