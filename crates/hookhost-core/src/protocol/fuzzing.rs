//! A protocol's writer and reader reached from outside the crate, for the fuzz harness
//! (`fuzz-harness`) and nothing else: the event's stdin as a hook of the protocol reads it, and
//! a finished hook process's output read back into a verdict, each exactly as the command
//! runtime calls them. Hidden from the docs; not API.

use super::exit_code::ExitCodes;
use super::{HookEvent, ProcessOutput, Protocol};
use crate::event::{Event, Phase, catalog};
use crate::verdict::{HookFailure, Verdict};

impl Protocol {
    /// The stdin a hook of this protocol reads for `event`, in `phase`, run in `cwd`.
    #[doc(hidden)]
    pub fn fuzz_stdin(self, event: &Event<'_>, phase: Phase, cwd: &str) -> Vec<u8> {
        self.stdin(&view(event, phase, cwd))
    }

    /// What this protocol reads from a hook of `event` that ended with `code` (`None`: killed
    /// by `signal`) after printing `stdout` and `stderr`.
    #[doc(hidden)]
    pub fn fuzz_answer(
        self,
        event: &Event<'_>,
        phase: Phase,
        (code, signal): (Option<i32>, Option<i32>),
        stdout: &[u8],
        stderr: &str,
    ) -> Result<Verdict, HookFailure> {
        let output = ProcessOutput {
            code,
            signal,
            stdout: stdout.to_vec(),
            stderr: stderr.to_string(),
        };
        self.answer(&view(event, phase, "/p"), &output, &ExitCodes::default())
    }
}

fn view<'a>(event: &'a Event<'a>, phase: Phase, cwd: &'a str) -> HookEvent<'a> {
    HookEvent {
        event,
        spec: catalog::spec(event.name()),
        call: event.tool_call(),
        phase,
        observed: None,
        cwd,
    }
}
