//! `matcher` by tool kind (`@shell`): what it reaches under every agent, the located error of
//! an unknown kind, and the proof that the matchers written before kinds existed keep their
//! exact meaning (no name is read as a kind).

use super::*;

fn hooks(text: &str) -> Vec<HookSpec> {
    Config::parse(text, "hooks.toml")
        .unwrap_or_else(|e| panic!("{e}"))
        .hooks
}

/// Every tool name of every agent the vocabulary knows, plus MCP spellings and strangers.
fn every_tool() -> Vec<&'static str> {
    let mut names: Vec<&str> = hookhost_tools::TOOLS.iter().map(|spec| spec.name).collect();
    names.extend([
        "mcp__github__get_issue",
        "mcp_github_get_issue",
        "MCP:query",
        "MyTool",
    ]);
    names.sort_unstable();
    names.dedup();
    names
}

fn reached(hook: &HookSpec) -> Vec<&'static str> {
    every_tool()
        .into_iter()
        .filter(|tool| hook.matches_tool(tool))
        .collect()
}

#[test]
fn a_kind_matcher_reaches_every_agents_tool_of_that_kind() {
    let hooks = hooks(
        r#"
[[hooks]]
name = "shells"
event = "PreToolUse"
matcher = "@shell"
command = "x"

[[hooks]]
name = "changes"
event = "PreToolUse"
matcher = "@write|@edit"
command = "x"

[[hooks]]
name = "mixed"
event = "PreToolUse"
matcher = "@shell|WebFetch"
command = "x"
"#,
    );
    let shells = reached(&hooks[0]);
    for tool in ["Bash", "bash", "run_shell_command", "Shell"] {
        assert!(shells.contains(&tool), "@shell misses {tool}: {shells:?}");
    }
    for tool in ["Read", "WebFetch", "Edit", "MyTool"] {
        assert!(!shells.contains(&tool), "@shell reaches {tool}");
    }
    let changes = reached(&hooks[1]);
    for tool in [
        "Write",
        "Edit",
        "MultiEdit",
        "write_file",
        "replace",
        "apply_patch",
    ] {
        assert!(
            changes.contains(&tool),
            "@write|@edit misses {tool}: {changes:?}"
        );
    }
    assert!(!changes.contains(&"Bash") && !changes.contains(&"Read"));
    let mixed = reached(&hooks[2]);
    assert!(mixed.contains(&"run_shell_command") && mixed.contains(&"WebFetch"));
    assert!(
        !mixed.contains(&"web_fetch"),
        "a name stays exact: {mixed:?}"
    );
    assert_eq!(hooks[2].matcher.to_string(), "@shell|WebFetch");
}

#[test]
fn matchers_written_before_kinds_match_exactly_what_they_matched() {
    // Each matcher and every tool name it reaches among all agents' tools: names stay exact
    // (`Bash` is not Copilot's `bash`), regexes stay unanchored, nothing becomes a kind.
    #[rustfmt::skip]
    let cases: &[(&str, &[&str])] = &[
        ("Bash", &["Bash"]),
        ("Edit|Write", &["Edit", "Write"]),
        ("Edit, Write", &["Edit", "Write"]),
        ("read_file", &["read_file"]),
        ("^mcp__", &["mcp__github__get_issue"]),
        ("Notebook.*", &["NotebookEdit", "NotebookRead"]),
        ("shell", &["shell"]),
    ];
    for (pattern, expected) in cases {
        let text = format!(
            "[[hooks]]\nname = \"h\"\nevent = \"PreToolUse\"\nmatcher = {pattern:?}\ncommand = \"x\"\n"
        );
        let hook = &hooks(&text)[0];
        let mut expected = expected.to_vec();
        expected.retain(|tool| every_tool().contains(tool));
        assert_eq!(reached(hook), expected, "matcher {pattern:?}");
        assert!(!hook.matcher.names_kinds(), "{pattern:?}");
    }
}

#[test]
fn an_unknown_kind_is_a_located_error_with_a_suggestion() {
    let text = "[[hooks]]\nname = \"g\"\nevent = \"PreToolUse\"\nmatcher = \"@shel|WebFetch\"\ncommand = \"x\"\n";
    let error = Config::parse(text, "hooks.toml").unwrap_err();
    let problems: Vec<String> = error.problems().iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("4:11: hook #1 (g): unknown tool kind `@shel`")
            && problems[0].ends_with("did you mean `@shell`?"),
        "{problems:?}"
    );
    let text = "[[hooks]]\nname = \"s\"\nevent = \"SessionStart\"\nmatcher = \"@shell\"\ncommand = \"x\"\n";
    let error = Config::parse(text, "hooks.toml").unwrap_err();
    assert!(
        error.problems()[0].to_string().contains(
            "a `@kind` matcher compares tools, but SessionStart's matcher compares `source`"
        ),
        "{error}"
    );
}
