//! The scripted model: an HTTP server on loopback that speaks the four APIs the agents call
//! (Anthropic's Messages, OpenAI's Chat Completions and Responses, Gemini's
//! `generateContent`), streams its replies as server-sent events, and records every request.
//!
//! It plays one script whatever the API: the user's prompt lists commands, one per line, as
//! `RUN: <command>`; the model calls the agent's shell tool with the first command it has not
//! yet called in this conversation (it counts the tool calls already in the history), and
//! answers `DONE` once none is left. That is enough to drive an agent through a guard's deny,
//! an allowed call, a rewrite and an ask in one run, and to see what reached the model after
//! each: the request that follows a tool call carries its result, the reason of a refusal, and
//! the context hooks added.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

mod apis;

use apis::answer;

/// Every shell tool name the agents give their models, in the order they are looked for.
const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "bash",
    "run_shell_command",
    "exec_command",
    "shell_command",
    "shell",
];

/// The text the model answers when it has nothing left to run.
pub const DONE: &str = "DONE";

/// One request as the model received it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The body, as sent.
    pub body: String,
}

/// The server; it stops accepting when dropped (the threads of open connections end with
/// them).
#[derive(Debug)]
pub struct ModelServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl ModelServer {
    /// Serves on `listener` (bound to 127.0.0.1 by the caller, inside the namespace the agents
    /// run in) from a thread of its own.
    pub fn serve(listener: TcpListener) -> ModelServer {
        let addr = listener.local_addr().expect("the model's address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let recorded = Arc::clone(&recorded);
                std::thread::spawn(move || connection(stream, &recorded));
            }
        });
        ModelServer { addr, requests }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

/// Answers the requests of one keep-alive connection until the client closes it.
fn connection(stream: TcpStream, recorded: &Mutex<Vec<Request>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
    let mut writer = stream;
    loop {
        let Some((line, headers, body)) = read_request(&mut reader) else {
            return;
        };
        let body = String::from_utf8_lossy(&body).into_owned();
        recorded
            .lock()
            .unwrap()
            .push(Request { body: body.clone() });
        let (status, content_type, reply) = answer(&line, &headers, &body);
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\ncache-control: no-cache\r\n\r\n",
            reply.len()
        );
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(&reply).is_err() {
            return;
        }
    }
}

/// A request as read: its request line, its lowercased headers and its body.
type RawRequest = (String, Vec<(String, String)>, Vec<u8>);

/// The request line, the lowercased headers and the body (by content-length or chunked).
fn read_request(reader: &mut impl BufRead) -> Option<RawRequest> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let line = line.trim_end().to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let mut body = Vec::new();
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(length, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some((line, headers, body))
}

/// What the model says next in a conversation.
#[derive(Debug, PartialEq)]
pub(super) enum Turn {
    /// Call `tool` with `command`.
    Run { tool: String, command: String },
    /// Answer with text.
    Text(String),
}

/// The conversation as the script reads it: the text the user wrote, the tool calls the model
/// made so far, and the shell tool it was offered.
pub(super) fn next_turn(user_text: &str, calls_so_far: usize, tools: &[String]) -> Turn {
    let mut commands: Vec<&str> = Vec::new();
    for line in user_text.lines() {
        // Agents wrap the prompt in their own markup (`<user_query>...`): the command ends
        // at the line's end or at a `<`.
        if let Some((_, command)) = line.split_once("RUN: ") {
            let command = command.split('<').next().unwrap_or_default().trim();
            if !commands.contains(&command) {
                commands.push(command);
            }
        }
    }
    let shell = SHELL_TOOLS
        .iter()
        .find(|name| tools.iter().any(|tool| tool == *name));
    match (commands.get(calls_so_far), shell) {
        // Copilot CLI's shell reports a failing command as a success: only another tool's
        // failure fires postToolUseFailure, so a `cat` is its `view`.
        (Some(command), Some(_))
            if command.starts_with("cat ") && tools.iter().any(|tool| tool == "view") =>
        {
            Turn::Run {
                tool: "view".to_string(),
                command: command["cat ".len()..].to_string(),
            }
        }
        (Some(command), Some(tool)) => Turn::Run {
            tool: tool.to_string(),
            command: command.to_string(),
        },
        _ => Turn::Text(DONE.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apis::fitting;
    use serde_json::json;

    #[test]
    fn the_script_runs_each_command_once_then_is_done() {
        let tools = vec!["Read".to_string(), "Bash".to_string()];
        let prompt = "do this\nRUN: touch a\nRUN: touch b\n";
        let run = |command: &str| Turn::Run {
            tool: "Bash".into(),
            command: command.into(),
        };
        assert_eq!(next_turn(prompt, 0, &tools), run("touch a"));
        assert_eq!(next_turn(prompt, 1, &tools), run("touch b"));
        assert_eq!(next_turn(prompt, 2, &tools), Turn::Text(DONE.into()));
        assert_eq!(next_turn("no commands", 0, &tools), Turn::Text(DONE.into()));
        assert_eq!(next_turn(prompt, 0, &[]), Turn::Text(DONE.into()));
    }

    #[test]
    fn a_json_request_gets_an_object_that_fits_its_schema() {
        let schema = json!({"type": "OBJECT", "properties": {
            "reasoning": {"type": "STRING"}, "next_speaker": {"type": "STRING", "enum": ["user", "model"]}}});
        assert_eq!(
            fitting(&schema),
            json!({"reasoning": "scripted", "next_speaker": "user"})
        );
    }
}
