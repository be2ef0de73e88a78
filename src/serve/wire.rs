//! What the client and the daemon say to each other on one connection: one request, one
//! answer, then the connection closes.
//!
//! ```text
//! client ──▶ frame(header JSON) frame(the agent's stdin bytes)
//! daemon ──▶ frame(answer JSON)
//! frame = u32 big-endian length, then that many bytes
//! ```
//!
//! Every length is checked against a bound before anything is allocated for it: a client that
//! sends garbage or a length of 4 GiB gets an error answer, never a 4 GiB buffer.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use crate::agent::AgentReply;

/// The protocol version a request carries; a daemon answers other versions with an error (the
/// client then answers in process).
pub const VERSION: u32 = 1;

/// The largest header a daemon reads.
pub const HEADER_MAX_BYTES: u32 = 1 << 20;

/// The largest answer a client reads: a reply is the agent's JSON plus diagnostics, far below.
pub const ANSWER_MAX_BYTES: u32 = 64 << 20;

/// What the client sends first: which agent and event, and the caller's context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestHeader {
    /// [`VERSION`].
    pub version: u32,
    /// The agent format's name (`claude`, `copilot`, `gemini`, `codex`, `cursor`).
    pub format: String,
    /// `--event`, when given.
    pub event: Option<String>,
    /// The caller's working directory, or why it could not be read.
    pub cwd: Result<String, String>,
    /// The caller's whole environment, in its order.
    pub env: Vec<(String, String)>,
}

/// The daemon's answer: the reply, or why it gives none (the client then answers in process).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// What `agent-hook` would have answered.
    Reply {
        /// The exit status.
        exit_code: u8,
        /// stdout, as `agent-hook` writes it.
        stdout: String,
        /// stderr.
        stderr: String,
    },
    /// The request was refused or could not be read.
    Error(String),
}

impl From<AgentReply> for Answer {
    fn from(reply: AgentReply) -> Answer {
        Answer::Reply {
            exit_code: reply.exit_code,
            stdout: reply.stdout,
            stderr: reply.stderr,
        }
    }
}

/// Writes one frame (blocking: the client's side).
pub fn write_frame(writer: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let length = u32::try_from(bytes.len())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "frame over 4 GiB"))?;
    writer.write_all(&length.to_be_bytes())?;
    writer.write_all(bytes)
}

/// Reads one frame of at most `limit` bytes (blocking: the client's side).
pub fn read_frame(reader: &mut impl Read, limit: u32) -> std::io::Result<Vec<u8>> {
    let mut length = [0; 4];
    reader.read_exact(&mut length)?;
    let length = u32::from_be_bytes(length);
    if length > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a frame of {length} bytes, over the limit of {limit}"),
        ));
    }
    let mut bytes = vec![0; length as usize];
    reader.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// Why the daemon could not read a request: said back to the client as [`Answer::Error`].
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The connection failed or closed before the whole request came.
    #[error("the request ended early or could not be read: send a header frame and a stdin frame")]
    Io(#[source] std::io::Error),
    /// A frame's length is over its bound.
    #[error("the {what} frame is {length} bytes, over the limit of {limit}")]
    TooLarge {
        /// Which frame.
        what: &'static str,
        /// Its announced length.
        length: u32,
        /// The bound.
        limit: u64,
    },
    /// The header is not the JSON of a [`RequestHeader`].
    #[error("the header is not a hookhost request: is the client a hookhost of another version?")]
    Header(#[source] serde_json::Error),
}

/// Reads one frame of at most `limit` bytes (async: the daemon's side).
pub async fn read_frame_async(
    reader: &mut (impl tokio::io::AsyncRead + Unpin),
    what: &'static str,
    limit: u64,
) -> Result<Vec<u8>, RequestError> {
    use tokio::io::AsyncReadExt as _;
    let length = reader.read_u32().await.map_err(RequestError::Io)?;
    if u64::from(length) > limit {
        return Err(RequestError::TooLarge {
            what,
            length,
            limit,
        });
    }
    // Grown as bytes come, not allocated from the announced length: a client that announces
    // 16 MiB and sends nothing holds no 16 MiB buffer.
    let mut bytes = Vec::with_capacity((length as usize).min(64 << 10));
    (&mut *reader)
        .take(u64::from(length))
        .read_to_end(&mut bytes)
        .await
        .map_err(RequestError::Io)?;
    if bytes.len() != length as usize {
        return Err(RequestError::Io(std::io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(bytes)
}

/// Reads a whole request: its header and the agent's stdin (at most `stdin_limit` bytes).
pub async fn read_request(
    reader: &mut (impl tokio::io::AsyncRead + Unpin),
    stdin_limit: u64,
) -> Result<(RequestHeader, Vec<u8>), RequestError> {
    let header = read_frame_async(reader, "header", u64::from(HEADER_MAX_BYTES)).await?;
    let header: RequestHeader = serde_json::from_slice(&header).map_err(RequestError::Header)?;
    let stdin = read_frame_async(reader, "stdin", stdin_limit).await?;
    Ok((header, stdin))
}

/// Writes the answer frame (async: the daemon's side).
pub async fn write_answer(
    writer: &mut (impl tokio::io::AsyncWrite + Unpin),
    answer: &Answer,
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt as _;
    let bytes = serde_json::to_vec(answer).map_err(std::io::Error::other)?;
    let length = u32::try_from(bytes.len()).map_err(std::io::Error::other)?;
    writer.write_all(&length.to_be_bytes()).await?;
    writer.write_all(&bytes).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_round_trips_and_bad_frames_are_named() {
        let header = RequestHeader {
            version: VERSION,
            format: "claude".into(),
            event: None,
            cwd: Ok("/p".into()),
            env: vec![("A".into(), "1".into())],
        };
        let mut bytes = Vec::new();
        write_frame(&mut bytes, &serde_json::to_vec(&header).unwrap()).unwrap();
        write_frame(&mut bytes, b"{}").unwrap();
        let (read, stdin) = read_request(&mut &bytes[..], 10).await.unwrap();
        assert_eq!((read, stdin), (header, b"{}".to_vec()));

        #[rustfmt::skip]
        let cases: [(&str, Vec<u8>, &str); 4] = [
            ("half a length", vec![0, 0], "ended early"),
            ("a huge header", vec![0xff, 0xff, 0xff, 0xff], "header frame is 4294967295 bytes, over the limit of 1048576"),
            ("garbage header", [&[0, 0, 0, 3][..], b"abc"].concat(), "not a hookhost request"),
            ("half a header", [&[0, 0, 0, 9][..], b"abc"].concat(), "ended early"),
        ];
        for (name, bytes, expected) in cases {
            let error = read_request(&mut &bytes[..], 10).await.unwrap_err();
            assert!(error.to_string().contains(expected), "{name}: {error}");
        }
    }
}
