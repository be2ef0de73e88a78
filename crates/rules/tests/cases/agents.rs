//! Rules written with Claude Code's names hold for the other agents' equivalents.

use hookhost_rules::ToolKind;

use super::{Case, run};

const DENY_RM: &[&str] = &["deny Bash(rm *)"];
const DENY_ENV: &[&str] = &["deny Read(./.env)"];
const SRC: &[&str] = &["allow Edit(src/**)", "deny Edit(//etc/**)"];

#[test]
fn by_name() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("Copilot CLI's bash", DENY_RM, "bash", r#"{"command":"rm -rf /","description":"d"}"#, "deny Bash(rm *)"),
        ("Gemini CLI's run_shell_command", DENY_RM, "run_shell_command", r#"{"command":"rm -rf /"}"#, "deny Bash(rm *)"),
        ("Cursor's Shell", DENY_RM, "Shell", r#"{"command":"rm -rf /","working_directory":"/p"}"#, "deny Bash(rm *)"),
        ("Codex CLI's Bash", DENY_RM, "Bash", r#"{"command":"rm -rf /"}"#, "deny Bash(rm *)"),
        ("Codex CLI's exec_command", DENY_RM, "exec_command", r#"{"cmd":"rm -rf /"}"#, "deny Bash(rm *)"),
        ("Codex CLI's argv through bash -lc", DENY_RM, "shell", r#"{"command":["bash","-lc","rm -rf /"]}"#, "deny Bash(rm *)"),
        ("Gemini CLI's read_file", DENY_ENV, "read_file", r#"{"file_path":".env"}"#, "deny Read(./.env)"),
        ("Copilot CLI's view", DENY_ENV, "view", r#"{"path":"/home/u/project/.env"}"#, "deny Read(./.env)"),
        ("Cursor's Read", DENY_ENV, "Read", r#"{"target_file":".env"}"#, "deny Read(./.env)"),
        ("Copilot CLI's create", SRC, "create", r#"{"path":"src/a.ts","file_text":"x"}"#, "allow Edit(src/**)"),
        ("Gemini CLI's replace", SRC, "replace", r#"{"file_path":"/etc/hosts","old_string":"a","new_string":"b"}"#, "deny Edit(//etc/**)"),
        ("Codex CLI's apply_patch", SRC, "apply_patch", r#"{"command":"*** Begin Patch\n*** Update File: /etc/hosts\n@@\n-a\n+b\n*** End Patch"}"#, "deny Edit(//etc/**)"),
        ("a patch's every file must be allowed", SRC, "apply_patch", r#"{"command":"*** Begin Patch\n*** Add File: src/a.ts\n+x\n*** Add File: b.ts\n+y\n*** End Patch"}"#, "none"),
        ("Gemini CLI's web_fetch reads URLs in its prompt", &["allow WebFetch(domain:docs.rs)"], "web_fetch", r#"{"prompt":"summarise https://docs.rs/regex and https://evil.example/x"}"#, "none"),
        ("every URL allowed", &["allow WebFetch(domain:docs.rs)"], "web_fetch", r#"{"prompt":"summarise https://docs.rs/regex"}"#, "allow WebFetch(domain:docs.rs)"),
        ("Gemini CLI's google_web_search", &["allow WebSearch"], "google_web_search", r#"{"query":"x"}"#, "allow WebSearch"),
    ];
    run(cases, None);
}

#[test]
fn by_kind() {
    #[rustfmt::skip]
    let shells: &[Case] = &[
        ("an embedder's shell", DENY_RM, "my_shell", r#"{"command":"rm -rf /"}"#, "deny Bash(rm *)"),
        ("a PowerShell is not bash", DENY_RM, "my_powershell", r#"{"command":"rm -rf /"}"#, "none"),
    ];
    run(shells, Some(ToolKind::Shell));
    #[rustfmt::skip]
    let fetches: &[Case] = &[
        ("an embedder's fetch", &["deny WebFetch(domain:evil.example)"], "get_url", r#"{"url":"https://evil.example/"}"#, "deny WebFetch(domain:evil.example)"),
        ("a fetch without a URL is a search", &["allow WebFetch"], "search_web", r#"{"query":"x"}"#, "none"),
    ];
    run(fetches, Some(ToolKind::Fetch));
}
