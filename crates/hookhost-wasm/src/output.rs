//! A guest's stdout, stderr and log messages, captured in one ordered buffer with a cap per
//! stream. Past the cap, writes still succeed (a chatty guest is not a failing guest) and the
//! bytes are dropped; the report says the output was cut.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

/// Bytes kept per stream and call: stdout, and stderr plus log messages.
pub(crate) const OUTPUT_CAP_BYTES: usize = 64 * 1024;

#[derive(Clone, Copy, Debug)]
enum Stream {
    Stdout,
    Stderr,
}

/// The output of one call. Clones share the buffer.
#[derive(Clone, Debug, Default)]
pub(crate) struct GuestOutput {
    inner: Arc<Mutex<Captured>>,
}

#[derive(Debug, Default)]
struct Captured {
    text: Vec<u8>,
    stdout_len: usize,
    stderr_len: usize,
    truncated: bool,
}

impl GuestOutput {
    fn write(&self, stream: Stream, bytes: &[u8]) {
        let mut captured = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let used = match stream {
            Stream::Stdout => &mut captured.stdout_len,
            Stream::Stderr => &mut captured.stderr_len,
        };
        let room = OUTPUT_CAP_BYTES.saturating_sub(*used);
        let kept = &bytes[..bytes.len().min(room)];
        *used += kept.len();
        let truncated = kept.len() < bytes.len();
        captured.text.extend_from_slice(kept);
        captured.truncated |= truncated;
    }

    /// A log message from the `host.log` import, as one line.
    pub(crate) fn log(&self, level: &str, message: &str) {
        let mut line = format!("{level}: {message}");
        if !line.ends_with('\n') {
            line.push('\n');
        }
        self.write(Stream::Stderr, line.as_bytes());
    }

    /// The stream to give the guest as stdout.
    pub(crate) fn stdout(&self) -> GuestStream {
        GuestStream {
            output: self.clone(),
            stream: Stream::Stdout,
        }
    }

    /// The stream to give the guest as stderr.
    pub(crate) fn stderr(&self) -> GuestStream {
        GuestStream {
            output: self.clone(),
            stream: Stream::Stderr,
        }
    }

    /// Forgets everything captured (an abandoned attempt's output).
    pub(crate) fn clear(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = Captured::default();
    }

    /// Everything captured, and whether anything was cut.
    pub(crate) fn take(&self) -> (Vec<u8>, bool) {
        let mut captured = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        (std::mem::take(&mut captured.text), captured.truncated)
    }
}

/// One of a guest's output streams.
#[derive(Clone, Debug)]
pub(crate) struct GuestStream {
    output: GuestOutput,
    stream: Stream,
}

impl IsTerminal for GuestStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for GuestStream {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

impl OutputStream for GuestStream {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.output.write(self.stream, &bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        // Always ready: what does not fit is dropped, not refused.
        Ok(OUTPUT_CAP_BYTES)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for GuestStream {
    async fn ready(&mut self) {}
}

impl tokio::io::AsyncWrite for GuestStream {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.output.write(self.stream, buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
