//! What the protocols' unit tests share: a guard's view of an event, and a process's output.

use super::{HookEvent, ProcessOutput};
use crate::Event;
use crate::event::{Phase, catalog};
use crate::verdict::{HookFailure, Verdict};

/// A protocol's reading of a finished hook.
pub(super) type Answer = fn(&HookEvent<'_>, &ProcessOutput) -> Result<Verdict, HookFailure>;

/// Asserts what `answer` reads from each case's process, as a guard of the event sees it: the
/// verdict (its note aside), or `Err(())` for a failure.
pub(super) fn assert_answers(
    answer: Answer,
    cases: Vec<(&str, &Event<'_>, ProcessOutput, Result<Verdict, ()>)>,
) {
    for (name, event, output, expected) in cases {
        let got = answer(&view(event), &output)
            .map(|mut verdict| {
                verdict.note = None;
                verdict
            })
            .map_err(|_| ());
        assert_eq!(got, expected, "{name}");
    }
}

/// The event as a guard of the `/p` project sees it.
pub(super) fn view<'a>(event: &'a Event<'a>) -> HookEvent<'a> {
    HookEvent {
        event,
        spec: catalog::spec(event.name()),
        call: event.tool_call(),
        phase: Phase::Guard,
        observed: None,
        cwd: "/p",
    }
}

/// A hook process that exited with `code`.
pub(super) fn out(code: i32, stdout: &str, stderr: &str) -> ProcessOutput {
    ProcessOutput {
        code: Some(code),
        signal: None,
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.to_string(),
    }
}
