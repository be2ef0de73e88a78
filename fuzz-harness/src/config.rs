//! hooks.toml: `Config::parse` (every table: hooks, `when`, sources, `[trust]`, `[projects]`,
//! `[log]`, `[telemetry]`, ...) and `config::toml_to_json`.
//!
//! Input: `[0, text...]` (the seeds: the repository's hooks.toml files), or `[1, arbitrary...]`:
//! a TOML document assembled from hooks.toml's tables, keys and words.
//!
//! Properties: no panic; every refusal is a `ConfigError` naming the file.

use arbitrary::Unstructured;

use crate::toml_doc::{self, Vocabulary};

const KEYS: &[&str] = &[
    "hooks",
    "event",
    "phase",
    "command",
    "wasm",
    "matcher",
    "match",
    "match_tool",
    "timeout_ms",
    "on_failure",
    "mode",
    "protocol",
    "async",
    "name",
    "when",
    "env",
    "config",
    "exit_codes",
    "cwd",
    "enabled",
    "canary",
    "ratio",
    "shard",
    "all_of",
    "any_of",
    "input",
    "tool",
    "regex",
    "glob",
    "exact",
    "sha256",
    "read",
    "write",
    "fuel",
    "max_memory_mb",
    "trust",
    "keys",
    "id",
    "key",
    "file",
    "kind",
    "revoked",
    "require_signed",
    "keyless",
    "identity",
    "identity_regex",
    "issuer",
    "issuer_regex",
    "trusted_root",
    "require_sct",
    "rules",
    "signers",
    "policy",
    "projects",
    "ceiling",
    "managed_only",
    "disable",
    "log",
    "path",
    "max_bytes",
    "keep",
    "level",
    "drop",
    "telemetry",
    "endpoint",
    "headers",
    "resource",
    "service_name",
    "logs",
    "spool",
    "exit_timeout_ms",
    "runtime",
    "hash",
    "team",
    "ci",
    "value",
    "min",
    "strict",
];

const STRINGS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "tool:*",
    "PreToolUse,PostToolUse",
    "*",
    "guard",
    "observe",
    "block",
    "allow",
    "enforce",
    "monitor",
    "warn",
    "forgeflare",
    "claude",
    "copilot",
    "gemini",
    "codex",
    "cursor",
    "exit-code",
    "Bash",
    "Edit|Write",
    "mcp__.*",
    "^(",
    "echo hi",
    "guard.wasm",
    "oci://registry.example/team/guard:1.0.0",
    "oci://registry.example/team/guard@sha256:",
    "minisign",
    "cosign",
    "approve",
    "sandboxed",
    "http://127.0.0.1:4318",
    "grpc",
    "http/protobuf",
    "decisions.jsonl",
    "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3",
    "https://token.actions.githubusercontent.com",
    "30s",
    "../x",
    "/etc/passwd",
    "",
];

const VOCABULARY: Vocabulary = Vocabulary {
    arrays: &["hooks"],
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

/// Parses `text` as a project's hooks.toml.
pub fn run(text: &str) {
    if let Err(error) = hookhost::Config::parse(text, "hooks.toml") {
        let message = error.to_string();
        assert!(
            message.contains("hooks.toml"),
            "an error that names no file: {message}"
        );
    }
    let _ = hookhost::config::toml_to_json(text);
}
