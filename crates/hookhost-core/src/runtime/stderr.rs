//! A hook's stderr, as every runtime reports it: forwarded live, line by line, under the
//! hook's name, and kept (up to a cap) for the hook's report. A command hook's pipe and a wasm
//! guest's `stderr` stream both end here.

use std::io::Write as _;
use std::sync::Mutex;

use tokio::io::{AsyncRead, AsyncReadExt as _};

/// Bytes of stderr forwarded and kept per call; the rest is drained and dropped.
pub const STDERR_CAP_BYTES: usize = 64 * 1024;

/// A hook's stderr: forwarded line by line to the host's stderr under the hook's name, and
/// kept (up to [`STDERR_CAP_BYTES`]) for the caller's report.
#[derive(Debug)]
pub struct StderrCapture<'a> {
    name: &'a str,
    forward: bool,
    state: Mutex<StderrState>,
}

#[derive(Debug, Default)]
struct StderrState {
    kept: Vec<u8>,
    pending_line: Vec<u8>,
    truncated: bool,
}

impl<'a> StderrCapture<'a> {
    pub fn new(name: &'a str, forward: bool) -> Self {
        StderrCapture {
            name,
            forward,
            state: Mutex::new(StderrState::default()),
        }
    }

    /// Reads `pipe` to its end, forwarding and keeping what it says.
    pub(crate) async fn drain(&self, pipe: Option<impl AsyncRead + Unpin>) {
        let Some(mut pipe) = pipe else { return };
        let mut buf = vec![0u8; 8192];
        loop {
            match pipe.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => self.push(&buf[..n]),
            }
        }
        self.flush_pending();
    }

    /// Adds bytes the hook wrote; forwards every complete line.
    pub fn push(&self, bytes: &[u8]) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let room = STDERR_CAP_BYTES.saturating_sub(state.kept.len());
        let (kept, dropped) = bytes.split_at(bytes.len().min(room));
        state.kept.extend_from_slice(kept);
        let mut rest = kept;
        while let Some(newline) = rest.iter().position(|&b| b == b'\n') {
            let mut line = std::mem::take(&mut state.pending_line);
            line.extend_from_slice(&rest[..newline]);
            self.forward_line(&line);
            rest = &rest[newline + 1..];
        }
        state.pending_line.extend_from_slice(rest);
        if !dropped.is_empty() && !state.truncated {
            state.truncated = true;
            let line = std::mem::take(&mut state.pending_line);
            if !line.is_empty() {
                self.forward_line(&line);
            }
            self.forward_line(
                format!("... (stderr cut after {STDERR_CAP_BYTES} bytes; the rest is dropped)")
                    .as_bytes(),
            );
        }
    }

    pub fn flush_pending(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let line = std::mem::take(&mut state.pending_line);
        if !line.is_empty() {
            self.forward_line(&line);
        }
    }

    fn forward_line(&self, line: &[u8]) {
        if self.forward {
            let line = String::from_utf8_lossy(line);
            let line = crate::text::line(line.trim_end_matches('\r'));
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "[hook {}] {line}", crate::text::name(self.name));
        }
    }

    /// What was kept so far, as text.
    pub(crate) fn text(&self) -> String {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&state.kept).into_owned()
    }

    /// What was kept, as text, and whether anything was cut.
    pub fn finish(self) -> (String, bool) {
        let state = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        (
            String::from_utf8_lossy(&state.kept).into_owned(),
            state.truncated,
        )
    }
}
