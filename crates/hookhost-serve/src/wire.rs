//! The daemon's side of the wire: frames read from a connection with a bound and a deadline,
//! answers written back. What the bytes mean (the request's header, the answer) is
//! `hookhost_client::wire`, shared with the client binary, which is re-exported here.
//!
//! Every length is checked against a bound before anything is allocated for it: a client that
//! sends garbage or a length of 4 GiB gets an error answer, never a 4 GiB buffer.

pub use hookhost_client::wire::{
    ANSWER_MAX_BYTES, Answer, DecodeError, HEADER_MAX_BYTES, Reply, Request, VERSION, read_frame,
    write_frame,
};

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
    /// The header is not a request of this version.
    #[error("not a hookhost request")]
    Header(#[source] DecodeError),
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
) -> Result<(Request, Vec<u8>), RequestError> {
    let header = read_frame_async(reader, "header", u64::from(HEADER_MAX_BYTES)).await?;
    let header = Request::decode(&header).map_err(RequestError::Header)?;
    let stdin = read_frame_async(reader, "stdin", stdin_limit).await?;
    Ok((header, stdin))
}

/// Writes the answer frame (async: the daemon's side).
pub async fn write_answer(
    writer: &mut (impl tokio::io::AsyncWrite + Unpin),
    answer: &Answer,
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt as _;
    let bytes = answer.encode();
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
        let header = Request {
            format: "claude".into(),
            event: None,
            cwd: Ok("/p".into()),
            env: vec![("A".into(), "1".into())],
        };
        let mut bytes = Vec::new();
        write_frame(&mut bytes, &header.encode()).unwrap();
        write_frame(&mut bytes, b"{}").unwrap();
        let (read, stdin) = read_request(&mut &bytes[..], 10).await.unwrap();
        assert_eq!((read, stdin), (header, b"{}".to_vec()));

        #[rustfmt::skip]
        let cases: [(&str, Vec<u8>, &str); 5] = [
            ("half a length", vec![0, 0], "ended early"),
            ("a huge header", vec![0xff, 0xff, 0xff, 0xff], "header frame is 4294967295 bytes, over the limit of 1048576"),
            ("garbage header", [&[0, 0, 0, 3][..], b"abc"].concat(), "not a hookhost request: the header: ends early"),
            ("half a header", [&[0, 0, 0, 9][..], b"abc"].concat(), "ended early"),
            ("a stdin over its bound", [&bytes[..bytes.len() - 6], &[0, 0, 0, 11]].concat(), "the stdin frame is 11 bytes, over the limit of 10"),
        ];
        for (name, bytes, expected) in cases {
            let error = read_request(&mut &bytes[..], 10).await.unwrap_err();
            let error = crate::text::error_chain(&error);
            assert!(error.contains(expected), "{name}: {error}");
        }
    }
}
