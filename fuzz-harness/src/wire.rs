//! The daemon's wire, both directions: the request header and stdin frames the daemon reads
//! from a client (`serve::wire::read_request`, async), the answer frame a client reads from the
//! daemon (`hookhost_client::wire::read_frame`, blocking), and the header and answer codecs
//! both sides share.
//!
//! Input: `[0, limit, bytes...]`: a connection's bytes, read as the daemon and as the client
//! would read them; `[1, arbitrary...]`: a request or an answer built field by field (its frame
//! round-trips) or a valid frame header with a fuzzed body.
//!
//! Properties: no panic; nothing allocated past what the frame's bound and the bytes that
//! came allow (the fuzz script's `-malloc_limit_mb` is below a frame's bound); what decodes
//! encodes back to the same bytes; what is encoded decodes to the same value.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt as _;
use std::path::PathBuf;

use arbitrary::{Arbitrary, Result, Unstructured};
use hookhost::serve::wire::{
    ANSWER_MAX_BYTES, Answer, HEADER_MAX_BYTES, Reply, Request, read_frame, read_request,
    write_frame,
};

/// The bounds a connection is read with: the daemon's stdin bound is the agent's event limit.
const STDIN_LIMITS: [u64; 3] = [0, 64, hookhost::agent::EVENT_MAX_BYTES];

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    let _ = match mode % 2 {
        0 => raw(rest),
        _ => structured(rest),
    };
}

fn raw(rest: &[u8]) -> Result<()> {
    let [limit, bytes @ ..] = rest else {
        return Ok(());
    };
    connection(bytes, crate::pick(&STDIN_LIMITS, *limit));
    Ok(())
}

/// `bytes` as a whole connection, read by the daemon (a request) and by the client (an
/// answer frame).
pub fn connection(bytes: &[u8], stdin_limit: u64) {
    if let Ok((request, stdin)) = crate::block_on(read_request(&mut &bytes[..], stdin_limit)) {
        assert!(stdin.len() as u64 <= stdin_limit);
        assert_eq!(Request::decode(&request.encode()), Ok(request));
    }
    let mut reader = bytes;
    if let Ok(frame) = read_frame(&mut reader, ANSWER_MAX_BYTES) {
        decodes_back(&frame);
    }
    decodes_back(bytes);
}

/// Whatever decodes, as a header or an answer, encodes to the same bytes.
fn decodes_back(bytes: &[u8]) {
    if let Ok(request) = Request::decode(bytes) {
        assert_eq!(request.encode(), bytes, "a header re-encodes differently");
    }
    if let Ok(answer) = Answer::decode(bytes) {
        assert_eq!(answer.encode(), bytes, "an answer re-encodes differently");
    }
}

#[derive(Debug, Arbitrary)]
enum Shape {
    /// A request built field by field.
    Request {
        format: String,
        event: Option<String>,
        cwd: std::result::Result<Vec<u8>, String>,
        env: Vec<(Vec<u8>, Vec<u8>)>,
        stdin: Vec<u8>,
    },
    /// A reply.
    Reply {
        exit_code: u8,
        stdout: String,
        stderr: String,
    },
    /// An error answer.
    Error(String),
    /// A frame whose length is right, around fuzzed bytes; then the rest of the connection.
    Framed {
        body: Vec<u8>,
        rest: Vec<u8>,
        limit: u8,
    },
}

fn structured(rest: &[u8]) -> Result<()> {
    match Shape::arbitrary_take_rest(Unstructured::new(rest))? {
        Shape::Request {
            format,
            event,
            cwd,
            env,
            stdin,
        } => {
            let request = Request {
                format,
                event,
                cwd: cwd.map(|bytes| PathBuf::from(OsString::from_vec(bytes))),
                env: env
                    .into_iter()
                    .map(|(n, v)| (OsString::from_vec(n), OsString::from_vec(v)))
                    .collect(),
            };
            let header = request.encode();
            assert_eq!(Request::decode(&header).as_ref(), Ok(&request));
            let mut bytes = Vec::new();
            write_frame(&mut bytes, &header).expect("a frame in memory");
            write_frame(&mut bytes, &stdin).expect("a frame in memory");
            let read = crate::block_on(read_request(&mut &bytes[..], stdin.len() as u64));
            if header.len() <= HEADER_MAX_BYTES as usize {
                let (read, read_stdin) = read.expect("a whole request reads back");
                assert_eq!((read, read_stdin), (request, stdin));
            } else {
                assert!(read.is_err(), "a header over its bound was read");
            }
        }
        Shape::Reply {
            exit_code,
            stdout,
            stderr,
        } => answer_round_trip(Answer::Reply(Reply {
            exit_code,
            stdout,
            stderr,
        })),
        Shape::Error(message) => answer_round_trip(Answer::Error(message)),
        Shape::Framed { body, rest, limit } => {
            let mut bytes = Vec::new();
            write_frame(&mut bytes, &body).expect("a frame in memory");
            bytes.extend_from_slice(&rest);
            connection(&bytes, crate::pick(&STDIN_LIMITS, limit));
        }
    }
    Ok(())
}

fn answer_round_trip(answer: Answer) {
    let bytes = answer.encode();
    assert_eq!(Answer::decode(&bytes).as_ref(), Ok(&answer));
    let mut framed = Vec::new();
    write_frame(&mut framed, &bytes).expect("a frame in memory");
    let read = read_frame(&mut &framed[..], ANSWER_MAX_BYTES).expect("a frame reads back");
    assert_eq!(read, bytes);
}
