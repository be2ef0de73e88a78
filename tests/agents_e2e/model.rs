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

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

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
    /// `POST /v1/messages?beta=true`.
    pub line: String,
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

    /// Forgets the requests so far (a new agent run starts).
    pub fn clear(&self) {
        self.requests.lock().unwrap().clear();
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
        recorded.lock().unwrap().push(Request {
            line: line.clone(),
            body: body.clone(),
        });
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

/// The request line, the lowercased headers and the body (by content-length or chunked).
fn read_request(reader: &mut impl BufRead) -> Option<(String, Vec<(String, String)>, Vec<u8>)> {
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
enum Turn {
    /// Call `tool` with `command`.
    Run { tool: String, command: String },
    /// Answer with text.
    Text(String),
}

/// The conversation as the script reads it: the text the user wrote, the tool calls the model
/// made so far, and the shell tool it was offered.
fn next_turn(user_text: &str, calls_so_far: usize, tools: &[String]) -> Turn {
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

/// The tool's arguments for `command`, as each agent's shell tool takes them.
fn arguments(tool: &str, command: &str) -> Value {
    match tool {
        "exec_command" => json!({ "cmd": command }),
        "shell" => json!({ "command": ["bash", "-lc", command] }),
        "bash" => json!({ "command": command, "description": "run the command" }),
        "view" => json!({ "path": command }),
        _ => json!({ "command": command }),
    }
}

/// Status, content type and body for one request.
fn answer(line: &str, _headers: &[(String, String)], body: &str) -> (String, String, Vec<u8>) {
    let path = line.split_whitespace().nth(1).unwrap_or("");
    let Ok(request) = serde_json::from_str::<Value>(body) else {
        return not_found();
    };
    let path = path.split('?').next().unwrap_or(path);
    if path.ends_with("/messages/count_tokens") {
        return ok_json(json!({ "input_tokens": 10 }));
    }
    if path.ends_with("/messages") {
        return anthropic(&request);
    }
    if path.ends_with("/chat/completions") {
        return completions(&request);
    }
    if path.ends_with("/responses") {
        return responses(&request);
    }
    if path.contains(":streamGenerateContent") || path.contains(":generateContent") {
        return gemini(&request, path.contains(":stream"));
    }
    not_found()
}

fn not_found() -> (String, String, Vec<u8>) {
    (
        "404 Not Found".into(),
        "application/json".into(),
        br#"{"error":{"message":"the scripted model does not serve this"}}"#.to_vec(),
    )
}

fn ok_json(value: Value) -> (String, String, Vec<u8>) {
    (
        "200 OK".into(),
        "application/json".into(),
        value.to_string().into_bytes(),
    )
}

fn sse(events: Vec<String>) -> (String, String, Vec<u8>) {
    (
        "200 OK".into(),
        "text/event-stream".into(),
        events.concat().into_bytes(),
    )
}

/// The text of a message's content: a string, or the `text` of its parts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn names(tools: Option<&Value>, pointer: &str) -> Vec<String> {
    tools
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tool| tool.pointer(pointer).and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// Anthropic's Messages API (Claude Code), streamed.
fn anthropic(request: &Value) -> (String, String, Vec<u8>) {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let user: String = messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| text_of(&m["content"]))
        .collect::<Vec<_>>()
        .join("\n");
    let calls = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|part| part["type"] == "tool_use")
        .count();
    let turn = next_turn(&user, calls, &names(request.get("tools"), "/name"));
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let (block, delta, stop) = match &turn {
        Turn::Run { tool, command } => (
            json!({"type": "tool_use", "id": format!("toolu_{calls}"), "name": tool, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": arguments(tool, command).to_string()}),
            "tool_use",
        ),
        Turn::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
    };
    if request["stream"] != true {
        let content = match &turn {
            Turn::Run { tool, command } => {
                json!([{"type": "tool_use", "id": format!("toolu_{calls}"), "name": tool, "input": arguments(tool, command)}])
            }
            Turn::Text(text) => json!([{"type": "text", "text": text}]),
        };
        return ok_json(json!({
            "id": "msg_scripted", "type": "message", "role": "assistant", "model": request["model"],
            "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5}
        }));
    }
    sse(vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": "msg_scripted", "type": "message", "role": "assistant", "model": request["model"],
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
        ),
        event("message_stop", json!({"type": "message_stop"})),
    ])
}

/// OpenAI's Chat Completions API (Copilot CLI's BYOK provider), streamed.
fn completions(request: &Value) -> (String, String, Vec<u8>) {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let user: String = messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| text_of(&m["content"]))
        .collect::<Vec<_>>()
        .join("\n");
    let calls = messages
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .map(Vec::len)
        .sum();
    let turn = next_turn(&user, calls, &names(request.get("tools"), "/function/name"));
    let chunk = |delta: Value, finish: Value| {
        let data = json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1,
            "model": request["model"], "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {data}\n\n")
    };
    let (delta, finish) = match &turn {
        Turn::Run { tool, command } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": format!("call_{calls}"),
                "type": "function", "function": {"name": tool, "arguments": arguments(tool, command).to_string()}}]}),
            "tool_calls",
        ),
        Turn::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
    };
    if request["stream"] != true {
        let mut message = delta.clone();
        if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
            for call in calls {
                call.as_object_mut().unwrap().remove("index");
            }
        }
        return ok_json(
            json!({"id": "chatcmpl-scripted", "object": "chat.completion", "created": 1,
            "model": request["model"], "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
        );
    }
    let usage = json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1,
        "model": request["model"], "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    sse(vec![
        chunk(delta, Value::Null),
        chunk(json!({}), json!(finish)),
        format!("data: {usage}\n\n"),
        "data: [DONE]\n\n".to_string(),
    ])
}

/// OpenAI's Responses API (Codex CLI's `model_providers`), streamed.
fn responses(request: &Value) -> (String, String, Vec<u8>) {
    let items = request["input"].as_array().cloned().unwrap_or_default();
    let user: String = items
        .iter()
        .filter(|item| item["role"] == "user")
        .map(|item| text_of(&item["content"]))
        .collect::<Vec<_>>()
        .join("\n");
    let calls = items
        .iter()
        .filter(|item| {
            ["function_call", "custom_tool_call", "local_shell_call"]
                .contains(&item["type"].as_str().unwrap_or(""))
        })
        .count();
    let turn = next_turn(&user, calls, &names(request.get("tools"), "/name"));
    let item = match &turn {
        Turn::Run { tool, command } => json!({"type": "function_call", "id": format!("fc_{calls}"),
            "call_id": format!("call_{calls}"), "name": tool,
            "arguments": arguments(tool, command).to_string(), "status": "completed"}),
        Turn::Text(text) => {
            json!({"type": "message", "id": format!("msg_{calls}"), "role": "assistant",
            "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]})
        }
    };
    let event = |data: Value| {
        format!(
            "event: {}\ndata: {data}\n\n",
            data["type"].as_str().unwrap()
        )
    };
    sse(vec![
        event(json!({"type": "response.created", "response": {"id": "resp_scripted"}})),
        event(json!({"type": "response.output_item.done", "output_index": 0, "item": item})),
        event(
            json!({"type": "response.completed", "response": {"id": "resp_scripted",
            "usage": {"input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
                "output_tokens_details": null, "total_tokens": 15}}}),
        ),
    ])
}

/// Gemini's `generateContent` (Gemini CLI with `GOOGLE_GEMINI_BASE_URL`), streamed or not. A
/// request for JSON (Gemini's own checks, such as who speaks next) gets an object that fits its
/// schema.
fn gemini(request: &Value, stream: bool) -> (String, String, Vec<u8>) {
    let contents = request["contents"].as_array().cloned().unwrap_or_default();
    let user: String = contents
        .iter()
        .filter(|c| c["role"] == "user")
        .filter_map(|c| c["parts"].as_array())
        .flatten()
        .filter_map(|part| part["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let calls = contents
        .iter()
        .filter_map(|c| c["parts"].as_array())
        .flatten()
        .filter(|part| part.get("functionCall").is_some())
        .count();
    let tools: Vec<String> = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["functionDeclarations"].as_array())
        .flatten()
        .filter_map(|f| f["name"].as_str().map(str::to_string))
        .collect();
    let config = &request["generationConfig"];
    let schema = config
        .get("responseJsonSchema")
        .or_else(|| config.get("responseSchema"));
    let part = match (schema, next_turn(&user, calls, &tools)) {
        (Some(schema), _) => json!({"text": fitting(schema).to_string()}),
        (None, Turn::Run { tool, command }) => {
            json!({"functionCall": {"name": tool, "args": arguments(&tool, &command)}})
        }
        (None, Turn::Text(text)) => json!({"text": text}),
    };
    let reply = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "scripted"
    });
    if stream {
        sse(vec![format!("data: {reply}\r\n\r\n")])
    } else {
        ok_json(reply)
    }
}

/// A value that fits a JSON schema (Gemini's upper-case types too): an enum's first value, an
/// object with every property.
fn fitting(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|values| values.first()) {
        return first.clone();
    }
    match schema["type"]
        .as_str()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("object") => Value::Object(
            schema["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(key, property)| (key.clone(), fitting(property)))
                .collect(),
        ),
        Some("array") => json!([]),
        Some("integer" | "number") => json!(1),
        Some("boolean") => json!(false),
        _ => json!("scripted"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
