//! The four APIs' shapes: each request read into the script's terms (the user's text, the tool
//! calls so far, the tools offered) and the script's next turn written back as that API
//! streams it.

use serde_json::{Value, json};

use super::{Turn, next_turn};

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
pub(super) fn answer(
    line: &str,
    _headers: &[(String, String)],
    body: &str,
) -> (String, String, Vec<u8>) {
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
pub(super) fn fitting(schema: &Value) -> Value {
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
