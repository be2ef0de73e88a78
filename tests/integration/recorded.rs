//! Recorded events: the exact stdin each agent gives its hook command, one constant per kind
//! of event (`cwd` and the workspace filled in per project: `PROJECT`). `hookhost agent-hook`
//! is replayed on each of them through the real binary (`agents`, `agents_codex_cursor`) and
//! through the daemon (`serve`). Where each comes from is in docs/agents.md, "Recorded events".

// Claude Code, Copilot CLI and Gemini CLI: as each agent's hooks reference shows them.
pub(crate) const CLAUDE_PRE: &str = r#"{"session_id":"abc123","prompt_id":"550e8400-e29b","transcript_path":"/home/user/.claude/projects/x/transcript.jsonl","cwd":"PROJECT","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","description":"Run test suite","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01ABC123"}"#;
pub(crate) const CLAUDE_PERMISSION: &str = r#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"PROJECT","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf node_modules","description":"Remove node_modules directory"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm -rf node_modules"}],"behavior":"allow","destination":"localSettings"}]}"#;
pub(crate) const CLAUDE_PROMPT: &str = r#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"PROJECT","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"Write a function to calculate the factorial of a number"}"#;
pub(crate) const CLAUDE_POST: &str = r#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"PROJECT","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/path/to/file.txt","content":"file content"},"tool_response":{"filePath":"/path/to/file.txt","type":"create"},"tool_use_id":"toolu_01ABC123","duration_ms":12}"#;
pub(crate) const CLAUDE_STOP: &str = r#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"PROJECT","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"I've completed the refactoring...","background_tasks":[],"session_crons":[]}"#;
pub(crate) const CLAUDE_START: &str = r#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"PROJECT","hook_event_name":"SessionStart","source":"startup","model":"claude-opus-5"}"#;
pub(crate) const COPILOT_PRE: &str = r#"{"sessionId":"s1","timestamp":1704614600000,"cwd":"PROJECT","toolName":"bash","toolArgs":"{\"command\":\"rm -rf dist\",\"description\":\"Clean build directory\"}"}"#;
pub(crate) const COPILOT_POST: &str = r#"{"sessionId":"s1","timestamp":1704614700000,"cwd":"PROJECT","toolName":"bash","toolArgs":"{\"command\":\"npm test\"}","toolResult":{"resultType":"success","textResultForLlm":"All tests passed"}}"#;
pub(crate) const COPILOT_FAILURE: &str = r#"{"sessionId":"s1","timestamp":1704614700000,"cwd":"PROJECT","toolName":"bash","toolArgs":"{\"command\":\"npm test\"}","error":"Exit code 1"}"#;
pub(crate) const COPILOT_START: &str = r#"{"sessionId":"s1","timestamp":1704614500000,"cwd":"PROJECT","source":"new","initialPrompt":"fix the build"}"#;
pub(crate) const COPILOT_STOP: &str = r#"{"sessionId":"s1","timestamp":1704614800000,"cwd":"PROJECT","transcriptPath":"/t.jsonl","stopReason":"end_turn","stop_hook_active":false}"#;
pub(crate) const GEMINI_BEFORE_TOOL: &str = r#"{"session_id":"abc123","transcript_path":"/path/to/transcript.json","cwd":"PROJECT","hook_event_name":"BeforeTool","timestamp":"2025-12-01T10:30:00Z","tool_name":"run_shell_command","tool_input":{"command":"npm test","description":"tests","dir_path":"."}}"#;
pub(crate) const GEMINI_BEFORE_AGENT: &str = r#"{"session_id":"abc123","transcript_path":"/t.json","cwd":"PROJECT","hook_event_name":"BeforeAgent","timestamp":"2025-12-01T10:30:00Z","prompt":"refactor the parser"}"#;
pub(crate) const GEMINI_AFTER_AGENT: &str = r#"{"session_id":"abc123","transcript_path":"/t.json","cwd":"PROJECT","hook_event_name":"AfterAgent","timestamp":"2025-12-01T10:31:00Z","prompt":"refactor the parser","prompt_response":"Done.","stop_hook_active":false}"#;
pub(crate) const GEMINI_AFTER_TOOL: &str = r#"{"session_id":"abc123","transcript_path":"/t.json","cwd":"PROJECT","hook_event_name":"AfterTool","timestamp":"2025-12-01T10:30:05Z","tool_name":"read_file","tool_input":{"absolute_path":"/p/.env"},"tool_response":{"llmContent":"KEY=secret","returnDisplay":"KEY=secret"}}"#;

// Codex CLI: the stdin its source writes (`codex-rs/hooks/src/schema.rs`, the `*CommandInput`
// structs, fields in their order), with values like its schema fixtures'.
pub(crate) const CODEX_PRE: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":"/home/user/.codex/sessions/2026/05/20/rollout-2026-05-20T10-30-00-019a5e3c.jsonl","cwd":"PROJECT","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"call_Q7kX2mN9pR4tV1wY"}"#;
pub(crate) const CODEX_APPLY_PATCH: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"acceptEdits","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: src/main.rs\n@@\n-fn main() {}\n+fn main() { println!(\"hi\"); }\n*** End Patch\n"},"tool_use_id":"call_A3bC5dE7fG9hJ1kL"}"#;
pub(crate) const CODEX_PERMISSION: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"PermissionRequest","model":"gpt-5.5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"rm -rf node_modules","description":"Remove node_modules to reinstall"}}"#;
pub(crate) const CODEX_POST: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"PostToolUse","model":"gpt-5.5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_response":"Tests: 42 passed, 42 total\n","tool_use_id":"call_Q7kX2mN9pR4tV1wY"}"#;
pub(crate) const CODEX_PROMPT: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"UserPromptSubmit","model":"gpt-5.5","permission_mode":"default","prompt":"fix the failing test in parser.rs"}"#;
pub(crate) const CODEX_STOP: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"Stop","model":"gpt-5.5","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"I fixed the parser test."}"#;
pub(crate) const CODEX_START: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","transcript_path":null,"cwd":"PROJECT","hook_event_name":"SessionStart","model":"gpt-5.5","permission_mode":"default","source":"startup"}"#;
pub(crate) const CODEX_COMPACT: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"PreCompact","model":"gpt-5.5","trigger":"auto"}"#;
pub(crate) const CODEX_SUBAGENT_START: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"SubagentStart","model":"gpt-5.5","permission_mode":"default","agent_id":"019a5e41-0b6c-7e22-8d13-4f7a2c9e1b05","agent_type":"explorer"}"#;
pub(crate) const CODEX_SUBAGENT_STOP: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","agent_id":"019a5e41-0b6c-7e22-8d13-4f7a2c9e1b05","agent_type":"explorer","transcript_path":null,"agent_transcript_path":null,"cwd":"PROJECT","hook_event_name":"SubagentStop","model":"gpt-5.5","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"The parser is in src/parse.rs."}"#;
pub(crate) const CODEX_POST_COMPACT: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"PostCompact","model":"gpt-5.5","trigger":"manual"}"#;
pub(crate) const CODEX_SESSION_END: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"SessionEnd","reason":"other"}"#;
pub(crate) const CODEX_INTERRUPT: &str = r#"{"session_id":"019a5e3c-7f1e-7d30-9b52-2c1f0e6a4d11","turn_id":"019a5e3c-8a02-7c61-a3f4-5b0d9e2c7f18","transcript_path":null,"cwd":"PROJECT","hook_event_name":"Interrupt","model":"gpt-5.5","permission_mode":"default"}"#;
// Cursor: its hooks reference's input examples (cursor.com/docs/hooks, "Common schema" and
// each event's "Input"), with the common fields every hook gets.
pub(crate) const CURSOR_PRE: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","model_id":"claude-opus-4-7","tool_name":"Shell","tool_input":{"command":"npm install","working_directory":"PROJECT"},"tool_use_id":"abc123","cwd":"PROJECT","agent_message":"Installing dependencies...","hook_event_name":"preToolUse","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":"user@example.com","transcript_path":null}"#;
pub(crate) const CURSOR_SHELL: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","command":"git push --force origin main","cwd":"PROJECT","sandbox":false,"hook_event_name":"beforeShellExecution","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_MCP: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","tool_name":"database_query","tool_input":"{\"query\": \"DELETE FROM users\"}","url":"http://localhost:8811/mcp","hook_event_name":"beforeMCPExecution","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_POST: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","tool_name":"Shell","tool_input":{"command":"npm test"},"tool_output":"{\"exitCode\":0,\"stdout\":\"All tests passed\"}","tool_use_id":"abc123","cwd":"PROJECT","duration":5432,"hook_event_name":"postToolUse","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_PROMPT: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","prompt":"do something super duper awesome","attachments":[{"type":"file","file_path":"PROJECT/src/main.rb"}],"hook_event_name":"beforeSubmitPrompt","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_STOP: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","status":"completed","loop_count":0,"hook_event_name":"stop","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_START: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","model":"claude-opus-4-7-thinking-max","session_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","is_background_agent":false,"composer_mode":"agent","hook_event_name":"sessionStart","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_READ: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","file_path":"PROJECT/.env","content":"API_KEY=sk-live-123","attachments":[],"hook_event_name":"beforeReadFile","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;

pub(crate) const CURSOR_FAILURE: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","tool_name":"Shell","tool_input":{"command":"npm test"},"tool_use_id":"abc123","cwd":"PROJECT","error_message":"Command timed out after 30s","failure_type":"timeout","duration":5000,"is_interrupt":false,"hook_event_name":"postToolUseFailure","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_SUBAGENT_START: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","subagent_id":"abc-123","subagent_type":"generalPurpose","task":"Explore the authentication flow","parent_conversation_id":"conv-456","tool_call_id":"tc-789","subagent_model":"claude-sonnet-4-20250514","is_parallel_worker":false,"git_branch":"feature/auth","hook_event_name":"subagentStart","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_SUBAGENT_STOP: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","subagent_type":"generalPurpose","status":"completed","task":"Explore the authentication flow","description":"Exploring auth flow","summary":"The flow starts in src/auth.ts","duration_ms":45000,"message_count":12,"tool_call_count":8,"loop_count":0,"modified_files":["src/auth.ts"],"agent_transcript_path":"/path/to/subagent/transcript.txt","hook_event_name":"subagentStop","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_SESSION_END: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","session_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","reason":"user_close","duration_ms":45000,"is_background_agent":false,"final_status":"completed","hook_event_name":"sessionEnd","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_COMPACT: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","trigger":"auto","context_usage_percent":85,"context_tokens":120000,"context_window_size":128000,"message_count":45,"messages_to_compact":30,"is_first_compaction":true,"hook_event_name":"preCompact","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_AFTER_SHELL: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","command":"npm install express","output":"added 64 packages","duration":1234,"sandbox":false,"hook_event_name":"afterShellExecution","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_AFTER_MCP: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","tool_name":"database_query","tool_input":"{\"query\": \"SELECT 1\"}","result_json":"{\"rows\":[[1]]}","duration":1234,"hook_event_name":"afterMCPExecution","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_AFTER_EDIT: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","file_path":"PROJECT/src/main.ts","edits":[{"old_string":"const foo = 1","new_string":"const foo = 2"}],"hook_event_name":"afterFileEdit","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_TAB_READ: &str = r#"{"file_path":"PROJECT/.env","content":"API_KEY=sk-live-123","hook_event_name":"beforeTabFileRead","conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_TAB_EDIT: &str = r#"{"file_path":"PROJECT/src/main.ts","edits":[{"old_string":"foo","new_string":"bar","range":{"start_line_number":10,"start_column":5,"end_line_number":10,"end_column":20},"old_line":"let foo = 1;","new_line":"let bar = 1;"}],"hook_event_name":"afterTabFileEdit","conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_RESPONSE: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","text":"I fixed the bug in main.ts.","hook_event_name":"afterAgentResponse","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_THOUGHT: &str = r#"{"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"490b90b7-a2ce-4c2c-bb76-cb77b125df2f","model":"claude-opus-4-7-thinking-max","text":"I need to analyze the code structure...","duration_ms":5000,"hook_event_name":"afterAgentThought","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null,"transcript_path":null}"#;
pub(crate) const CURSOR_WORKSPACE_OPEN: &str = r#"{"hook_event_name":"workspaceOpen","cursor_version":"1.7.2","workspace_roots":["PROJECT"],"user_email":null}"#;

/// Every recorded event, as the agent's hook command gets it: the agent, `--event`, stdin.
pub(crate) const RECORDED: [(&str, Option<&str>, &str); 49] = [
    ("claude", None, CLAUDE_PRE),
    ("claude", None, CLAUDE_PERMISSION),
    ("claude", None, CLAUDE_PROMPT),
    ("claude", None, CLAUDE_POST),
    ("claude", None, CLAUDE_STOP),
    ("claude", None, CLAUDE_START),
    ("copilot", Some("preToolUse"), COPILOT_PRE),
    ("copilot", Some("postToolUse"), COPILOT_POST),
    ("copilot", Some("postToolUseFailure"), COPILOT_FAILURE),
    ("copilot", Some("sessionStart"), COPILOT_START),
    ("copilot", Some("agentStop"), COPILOT_STOP),
    ("gemini", None, GEMINI_BEFORE_TOOL),
    ("gemini", None, GEMINI_BEFORE_AGENT),
    ("gemini", None, GEMINI_AFTER_AGENT),
    ("gemini", None, GEMINI_AFTER_TOOL),
    ("codex", None, CODEX_PRE),
    ("codex", None, CODEX_APPLY_PATCH),
    ("codex", None, CODEX_PERMISSION),
    ("codex", None, CODEX_POST),
    ("codex", None, CODEX_PROMPT),
    ("codex", None, CODEX_STOP),
    ("codex", None, CODEX_START),
    ("codex", None, CODEX_COMPACT),
    ("codex", None, CODEX_SUBAGENT_START),
    ("codex", None, CODEX_SUBAGENT_STOP),
    ("codex", None, CODEX_POST_COMPACT),
    ("codex", None, CODEX_SESSION_END),
    ("codex", None, CODEX_INTERRUPT),
    ("cursor", None, CURSOR_PRE),
    ("cursor", None, CURSOR_SHELL),
    ("cursor", None, CURSOR_MCP),
    ("cursor", None, CURSOR_POST),
    ("cursor", None, CURSOR_PROMPT),
    ("cursor", None, CURSOR_STOP),
    ("cursor", None, CURSOR_START),
    ("cursor", None, CURSOR_READ),
    ("cursor", None, CURSOR_FAILURE),
    ("cursor", None, CURSOR_SUBAGENT_START),
    ("cursor", None, CURSOR_SUBAGENT_STOP),
    ("cursor", None, CURSOR_SESSION_END),
    ("cursor", None, CURSOR_COMPACT),
    ("cursor", None, CURSOR_AFTER_SHELL),
    ("cursor", None, CURSOR_AFTER_MCP),
    ("cursor", None, CURSOR_AFTER_EDIT),
    ("cursor", None, CURSOR_TAB_READ),
    ("cursor", None, CURSOR_TAB_EDIT),
    ("cursor", None, CURSOR_RESPONSE),
    ("cursor", None, CURSOR_THOUGHT),
    ("cursor", None, CURSOR_WORKSPACE_OPEN),
];
