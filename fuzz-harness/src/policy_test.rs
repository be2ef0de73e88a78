//! hooks.test.toml: `policy_test::CaseFile::parse` (cases, layers, events, expectations).
//!
//! Input: `[0, text...]` (the seeds: the example hooks' test files), or `[1, arbitrary...]`: a
//! TOML document assembled from a test file's tables, keys and words.
//!
//! Properties: no panic; every refusal is an error naming the file.

use arbitrary::Unstructured;
use hookhost::policy_test::CaseFile;

use crate::toml_doc::{self, Vocabulary};

const KEYS: &[&str] = &[
    "layers",
    "cwd",
    "cases",
    "name",
    "event",
    "agent",
    "tool",
    "input",
    "payload",
    "stdin",
    "session_id",
    "env",
    "expect",
    "managed",
    "user",
    "project",
    "local",
    "decision",
    "reason",
    "context",
    "updated_input",
    "signals",
    "stop",
    "exit_code",
    "stdout",
    "stderr",
    "json",
    "reply",
    "ran",
    "did_not_run",
    "hook_failed",
    "held",
    "by",
    "strict",
    "command",
    "result",
    "is_error",
    "value",
    "syntax",
];

const STRINGS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "UserPromptSubmit",
    "BeforeTool",
    "preToolUse",
    "claude",
    "copilot",
    "gemini",
    "codex",
    "cursor",
    "allow",
    "approve",
    "ask",
    "warn",
    "block",
    "deny",
    "continue",
    "Bash",
    "rm -rf /",
    "ls",
    "../hooks.toml",
    "hooks.toml",
    "guard",
    "/.*/",
    "",
];

const VOCABULARY: Vocabulary = Vocabulary {
    arrays: &["cases"],
    keys: KEYS,
    strings: STRINGS,
};

/// One execution.
pub fn fuzz(data: &[u8]) {
    let (mode, rest) = crate::split_mode(data);
    match mode % 2 {
        0 => {
            if let Some(text) = crate::text(rest) {
                run(text);
            }
        }
        _ => {
            if let Ok(Some(text)) = toml_doc::document(&mut Unstructured::new(rest), VOCABULARY) {
                run(&text);
            }
        }
    }
}

/// Parses `text` as a test file beside the harness's scratch project.
pub fn run(text: &str) {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = crate::scratch::subdir("policy-test");
        std::fs::write(dir.join("hooks.toml"), "").expect("the project the cases load");
        dir
    });
    let path = dir.join("hooks.test.toml");
    if let Err(error) = CaseFile::parse(text, &path) {
        let message = error.to_string();
        assert!(
            message.contains("hooks.test.toml"),
            "an error that names no file: {message}"
        );
    }
}
