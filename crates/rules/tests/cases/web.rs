//! `WebFetch(domain:...)`, `WebSearch`, MCP rules and tool-name patterns.

use super::{Case, run};

#[test]
fn web_fetch_domains() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("the host", &["deny WebFetch(domain:example.com)"], "WebFetch", r#"{"url":"https://example.com/a","prompt":"p"}"#, "deny WebFetch(domain:example.com)"),
        ("not a subdomain", &["deny WebFetch(domain:example.com)"], "WebFetch", r#"{"url":"https://api.example.com/a"}"#, "none"),
        ("case and a trailing dot", &["allow WebFetch(domain:example.com)"], "WebFetch", r#"{"url":"https://EXAMPLE.com./a"}"#, "allow WebFetch(domain:example.com)"),
        ("*. is any subdomain", &["allow WebFetch(domain:*.example.com)"], "WebFetch", r#"{"url":"https://a.b.example.com/"}"#, "allow WebFetch(domain:*.example.com)"),
        ("*. is not the domain itself", &["allow WebFetch(domain:*.example.com)"], "WebFetch", r#"{"url":"https://example.com/"}"#, "none"),
        ("* elsewhere stays in its label", &["allow WebFetch(domain:example.*)"], "WebFetch", r#"{"url":"https://example.evil.com/"}"#, "none"),
        ("a user part is not the host", &["allow WebFetch(domain:example.com)"], "WebFetch", r#"{"url":"https://evil.example\\@example.com/"}"#, "none"),
        ("a percent-encoded host: denied", &["deny WebFetch(domain:evil.com)"], "WebFetch", r#"{"url":"https://%65vil.com/"}"#, "deny WebFetch(domain:evil.com)"),
        ("a percent-encoded host: never approved", &["allow WebFetch(domain:evil.com)"], "WebFetch", r#"{"url":"https://%65vil.com/"}"#, "none"),
        ("bare WebFetch", &["deny WebFetch"], "WebFetch", r#"{"url":"https://x.example/"}"#, "deny WebFetch"),
        ("domain:* is every host", &["allow WebFetch(domain:*)"], "WebFetch", r#"{"url":"https://x.example/"}"#, "allow WebFetch(domain:*)"),
        ("WebSearch by query", &["deny WebSearch(leaked keys)"], "WebSearch", r#"{"query":"leaked keys"}"#, "deny WebSearch(leaked keys)"),
    ];
    run(cases, None);
}

#[test]
fn mcp_and_tool_names() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("one tool", &["deny mcp__github__create_issue"], "mcp__github__create_issue", "{}", "deny mcp__github__create_issue"),
        ("another tool", &["deny mcp__github__create_issue"], "mcp__github__delete_repo", "{}", "none"),
        ("a server", &["allow mcp__github"], "mcp__github__get_issue", "{}", "allow mcp__github"),
        ("a server's tools", &["allow mcp__github__*"], "mcp__github__get_issue", "{}", "allow mcp__github__*"),
        ("a glob on the tool", &["allow mcp__github__get_*"], "mcp__github__delete_repo", "{}", "none"),
        ("another server", &["deny mcp__github"], "mcp__githubx__a", "{}", "none"),
        ("every MCP tool", &["deny mcp__*"], "mcp__slack__post", "{}", "deny mcp__*"),
        ("every tool", &["ask *"], "Bash", r#"{"command":"ls"}"#, "ask *"),
        ("a tool-name glob sees Claude Code's name", &["deny Web*"], "web_fetch", r#"{"url":"https://a.example/"}"#, "deny Web*"),
        ("a legacy name", &["deny Task"], "Agent", r#"{"subagent_type":"Explore"}"#, "deny Task"),
        ("a subagent", &["deny Agent(Explore)"], "Agent", r#"{"subagent_type":"Explore","prompt":"p"}"#, "deny Agent(Explore)"),
        ("a parameter", &["deny Agent(model:opus)"], "Agent", r#"{"subagent_type":"x","model":"opus"}"#, "deny Agent(model:opus)"),
        ("a parameter with *", &["ask Agent(isolation:*)"], "Agent", r#"{"isolation":"worktree"}"#, "ask Agent(isolation:*)"),
        ("an absent parameter", &["ask Agent(isolation:*)"], "Agent", r#"{"prompt":"p"}"#, "none"),
        ("another tool of its own", &["allow Frobnicate"], "Frobnicate", "{}", "allow Frobnicate"),
    ];
    run(cases, None);
}
