//! What the protocols' unit tests share: a guard's view of an event, and a process's output.

use super::{HookEvent, ProcessOutput};
use crate::Event;
use crate::event::{Phase, catalog};

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
