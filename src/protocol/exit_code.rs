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
//! The reason of a warn or block is the last non-empty line of stderr, or else of stdout
//! (Fresher's templates `echo` their reason).

use super::ProcessOutput;
use crate::verdict::{HookFailure, Verdict};

/// Reads a finished exit-code hook.
pub(crate) fn answer(output: &ProcessOutput) -> Result<Verdict, HookFailure> {
    match output.code {
        Some(0) => Ok(Verdict::allow()),
        Some(1) => Ok(Verdict::warn(reason(output, "warning (exit status 1)"))),
        Some(2) => Ok(Verdict::block(reason(output, "abort (exit status 2)"))),
        _ => Err(output.failure().unwrap_or(HookFailure::Exited { code: -1 })),
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
    fn fresher_exit_codes() {
        #[rustfmt::skip]
        let cases: &[(&str, ProcessOutput, Result<Verdict, &str>)] = &[
            ("0 continues", out(Some(0), "Starting iteration 3\n", ""), Ok(Verdict::allow())),
            ("1 warns with stdout's last line", out(Some(1), "Starting iteration 3\nNo pending tasks, skipping iteration\n", ""), Ok(Verdict::warn("No pending tasks, skipping iteration"))),
            ("2 blocks with stderr", out(Some(2), "noise\n", "ERROR: No IMPLEMENTATION_PLAN.md found.\n"), Ok(Verdict::block("ERROR: No IMPLEMENTATION_PLAN.md found."))),
            ("2 without output", out(Some(2), "", ""), Ok(Verdict::block("abort (exit status 2)"))),
            ("3 is an error", out(Some(3), "", ""), Err("exited with code 3")),
            ("124 is an error", out(Some(124), "", ""), Err("exited with code 124")),
            ("a signal is an error", out(None, "", ""), Err("killed by signal 9 (SIGKILL)")),
        ];
        for (name, output, expected) in cases {
            let got = answer(output).map_err(|failure| failure.to_string());
            assert_eq!(got, expected.clone().map_err(str::to_string), "{name}");
        }
    }
}
