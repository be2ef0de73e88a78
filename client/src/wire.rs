//! What the client and the daemon say to each other on one connection: one request, one
//! answer, then the connection closes.
//!
//! ```text
//! client ──▶ frame(header) frame(the agent's stdin bytes)
//! daemon ──▶ frame(answer)
//! frame  = u32 big-endian length, then that many bytes
//! header = u32 version, bytes(format), option(bytes(event)), result(bytes(cwd), bytes(why)),
//!          u32 count, count × (bytes(name), bytes(value))
//! answer = 0, u8 exit status, bytes(stdout), bytes(stderr)   (the reply)
//!        | 1, bytes(message)                                  (no reply: answer in process)
//! bytes  = u32 big-endian length, then that many bytes;  option = 0 | 1, bytes;
//! result = 0, bytes (Ok) | 1, bytes (Err)
//! ```
//!
//! Binary rather than JSON: the client stays a few hundred lines of std, and the caller's
//! working directory and environment cross as the bytes they are (a variable that is not UTF-8
//! reaches a command hook unchanged). Every length is checked against what is left of its
//! frame, and every frame against a bound before anything is allocated for it.

use std::ffi::OsString;
use std::fmt;
use std::io::{Read, Write};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::PathBuf;

/// The protocol version a request carries; a daemon answers other versions with an error (the
/// client then answers in process).
pub const VERSION: u32 = 2;

/// The largest header a daemon reads: the caller's whole environment fits many times over.
pub const HEADER_MAX_BYTES: u32 = 1 << 20;

/// The largest answer a client reads: a reply is the agent's JSON plus diagnostics, far below.
pub const ANSWER_MAX_BYTES: u32 = 64 << 20;

/// The largest event an agent hook call reads on stdin (`hookhost agent-hook` refuses more,
/// naming this limit); the client sends nothing larger to the daemon.
pub const EVENT_MAX_BYTES: u64 = 16 << 20;

/// How much of a larger event is still read (and dropped) before the refusal is written: the
/// agent writes its whole event first, and a pipe closed under it can count as a failed hook.
pub const DRAIN_MAX_BYTES: u64 = 1 << 30;

/// One call: which agent and event, and the caller's context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The agent's format (`claude`, `copilot`, `gemini`, ...), as `agent-hook --format` takes.
    pub format: String,
    /// `--event`, when given.
    pub event: Option<String>,
    /// The caller's working directory, or why it could not be read.
    pub cwd: Result<PathBuf, String>,
    /// The caller's whole environment, in its order.
    pub env: Vec<(OsString, OsString)>,
}

/// What `hookhost agent-hook` answers: stdout, stderr and the exit status, as the agent reads
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The exit status.
    pub exit_code: u8,
    /// stdout, byte for byte.
    pub stdout: String,
    /// stderr.
    pub stderr: String,
}

/// The daemon's answer: the reply, or why it gives none (the client then answers in process).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// What `agent-hook` would have answered.
    Reply(Reply),
    /// The request was refused or could not be read.
    Error(String),
}

/// A header or answer that does not decode: what is wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    what: &'static str,
    problem: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {}: {}", self.what, self.problem)
    }
}

impl std::error::Error for DecodeError {}

impl Request {
    /// The header frame's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            64 + self
                .env
                .iter()
                .map(|(name, value)| 8 + name.len() + value.len())
                .sum::<usize>(),
        );
        out.extend_from_slice(&VERSION.to_be_bytes());
        put(&mut out, self.format.as_bytes());
        match &self.event {
            None => out.push(0),
            Some(event) => {
                out.push(1);
                put(&mut out, event.as_bytes());
            }
        }
        match &self.cwd {
            Ok(cwd) => {
                out.push(0);
                put(&mut out, cwd.as_os_str().as_bytes());
            }
            Err(why) => {
                out.push(1);
                put(&mut out, why.as_bytes());
            }
        }
        let count = u32::try_from(self.env.len()).unwrap_or(u32::MAX);
        out.extend_from_slice(&count.to_be_bytes());
        for (name, value) in &self.env {
            put(&mut out, name.as_bytes());
            put(&mut out, value.as_bytes());
        }
        out
    }

    /// A header frame read back; its version is checked first, so a client of another
    /// version is told so rather than that its bytes are garbage.
    pub fn decode(bytes: &[u8]) -> Result<Request, DecodeError> {
        let mut reader = Reader::new("header", bytes);
        let version = reader.u32()?;
        if version != VERSION {
            return Err(reader.error(format!(
                "the request is version {version}, this daemon speaks version {VERSION}: restart \
                 the daemon with this hookhost"
            )));
        }
        let format = reader.text("format")?;
        let event = match reader.tag("event")? {
            0 => None,
            _ => Some(reader.text("event")?),
        };
        let cwd = match reader.tag("cwd")? {
            0 => Ok(PathBuf::from(OsString::from_vec(reader.bytes()?.to_vec()))),
            _ => Err(reader.text("cwd")?),
        };
        let count = reader.u32()?;
        // Each variable takes at least 8 bytes: a count the frame cannot hold is refused
        // before anything is reserved for it.
        if u64::from(count) * 8 > reader.left() as u64 {
            return Err(reader.error(format!(
                "{count} variables announced, and only {} bytes left",
                reader.left()
            )));
        }
        let mut env = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let name = OsString::from_vec(reader.bytes()?.to_vec());
            let value = OsString::from_vec(reader.bytes()?.to_vec());
            env.push((name, value));
        }
        reader.end()?;
        Ok(Request {
            format,
            event,
            cwd,
            env,
        })
    }
}

impl Answer {
    /// The answer frame's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Answer::Reply(reply) => {
                out.reserve(10 + reply.stdout.len() + reply.stderr.len());
                out.push(0);
                out.push(reply.exit_code);
                put(&mut out, reply.stdout.as_bytes());
                put(&mut out, reply.stderr.as_bytes());
            }
            Answer::Error(message) => {
                out.push(1);
                put(&mut out, message.as_bytes());
            }
        }
        out
    }

    /// An answer frame read back.
    pub fn decode(bytes: &[u8]) -> Result<Answer, DecodeError> {
        let mut reader = Reader::new("answer", bytes);
        let answer = match reader.tag("answer")? {
            0 => {
                let exit_code = reader.u8()?;
                let stdout = reader.text("stdout")?;
                let stderr = reader.text("stderr")?;
                Answer::Reply(Reply {
                    exit_code,
                    stdout,
                    stderr,
                })
            }
            _ => Answer::Error(reader.text("message")?),
        };
        reader.end()?;
        Ok(answer)
    }
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    // Frames are bounded far below 4 GiB; a longer field would be refused by the frame.
    let length = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(bytes);
}

/// Reads fields off a frame, each checked against what is left.
struct Reader<'a> {
    what: &'static str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(what: &'static str, bytes: &'a [u8]) -> Reader<'a> {
        Reader { what, bytes, at: 0 }
    }

    fn error(&self, problem: String) -> DecodeError {
        DecodeError {
            what: self.what,
            problem,
        }
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.left() {
            return Err(self.error(format!(
                "ends early: {n} bytes wanted at byte {}, {} left (is the client a hookhost of \
                 another version?)",
                self.at,
                self.left()
            )));
        }
        let taken = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(taken)
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        let bytes = self.take(4)?;
        Ok(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn tag(&mut self, field: &str) -> Result<u8, DecodeError> {
        match self.u8()? {
            tag @ (0 | 1) => Ok(tag),
            other => Err(self.error(format!("{field}: tag {other}, expected 0 or 1"))),
        }
    }

    fn bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let length = self.u32()?;
        self.take(length as usize)
    }

    fn text(&mut self, field: &str) -> Result<String, DecodeError> {
        let bytes = self.bytes()?;
        String::from_utf8(bytes.to_vec())
            .map_err(|error| self.error(format!("{field} is not UTF-8: {error}")))
    }

    fn end(&self) -> Result<(), DecodeError> {
        match self.left() {
            0 => Ok(()),
            left => Err(self.error(format!("{left} bytes after its last field"))),
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
    // Grown as bytes arrive, not sized from the announced length: a peer that announces the
    // limit and sends nothing costs no allocation of it (found by fuzzing, `wire`).
    let mut bytes = Vec::with_capacity((length as usize).min(64 << 10));
    reader.take(u64::from(length)).read_to_end(&mut bytes)?;
    if bytes.len() != length as usize {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("a frame of {length} bytes ended after {}", bytes.len()),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> Request {
        Request {
            format: "claude".into(),
            event: Some("PreToolUse".into()),
            cwd: Ok(PathBuf::from(OsString::from_vec(b"/p/caf\xe9".to_vec()))),
            env: vec![
                ("A".into(), "1".into()),
                ("EMPTY".into(), "".into()),
                (
                    OsString::from_vec(b"NOT_UTF8".to_vec()),
                    OsString::from_vec(b"\xff\xfe".to_vec()),
                ),
            ],
        }
    }

    #[test]
    fn requests_and_answers_round_trip_byte_for_byte() {
        let requests = [
            request(),
            Request {
                event: None,
                cwd: Err("No such file or directory".into()),
                env: Vec::new(),
                ..request()
            },
        ];
        for request in requests {
            assert_eq!(Request::decode(&request.encode()), Ok(request.clone()));
        }
        let answers = [
            Answer::Reply(Reply {
                exit_code: 2,
                stdout: "{\"decision\":\"block\"}\n".into(),
                stderr: "blocked by guard: rm -rf /\n".into(),
            }),
            Answer::Error("refused: this daemon serves uid 0 only".into()),
        ];
        for answer in answers {
            assert_eq!(Answer::decode(&answer.encode()), Ok(answer.clone()));
        }
    }

    #[test]
    fn a_bad_header_is_named_and_allocates_nothing_it_was_promised() {
        let good = request().encode();
        let mut huge_count = 2u32.to_be_bytes().to_vec();
        huge_count.extend_from_slice(&[0, 0, 0, 1, b'c', 0, 0]);
        huge_count.extend_from_slice(&[0, 0, 0, 0]);
        huge_count.extend_from_slice(&u32::MAX.to_be_bytes());
        #[rustfmt::skip]
        let cases: [(&str, Vec<u8>, &str); 7] = [
            ("empty", Vec::new(), "the header: ends early: 4 bytes wanted at byte 0, 0 left"),
            ("JSON of version 1", br#"{"version":1}"#.to_vec(), "the request is version 2065856101, this daemon speaks version 2"),
            ("another version", 3u32.to_be_bytes().to_vec(), "the request is version 3, this daemon speaks version 2: restart the daemon"),
            ("cut", good[..good.len() - 1].to_vec(), "ends early"),
            ("trailing bytes", [&good[..], b"x"].concat(), "1 bytes after its last field"),
            ("a bad tag", [&good[..14], &[7], &good[15..]].concat(), "event: tag 7, expected 0 or 1"),
            ("4 billion variables", huge_count, "4294967295 variables announced, and only 0 bytes left"),
        ];
        for (name, bytes, expected) in cases {
            let error = Request::decode(&bytes).unwrap_err().to_string();
            assert!(error.contains(expected), "{name}: {error}");
        }
        let not_utf8 = [&[0u8, 0][..], &[0, 0, 0, 1, 0xff], &[0, 0, 0, 0]].concat();
        let error = Answer::decode(&not_utf8).unwrap_err().to_string();
        assert!(error.contains("the answer: stdout is not UTF-8"), "{error}");
    }

    #[test]
    fn frames_over_their_bound_are_refused_before_reading() {
        let mut bytes = Vec::new();
        write_frame(&mut bytes, b"hello").unwrap();
        assert_eq!(read_frame(&mut &bytes[..], 5).unwrap(), b"hello");
        let error = read_frame(&mut &bytes[..], 4).unwrap_err();
        assert_eq!(error.to_string(), "a frame of 5 bytes, over the limit of 4");
    }
}
