//! Event patterns and tool matchers, case by case: what each form matches, and the message a
//! bad one gets.

use super::*;

#[test]
fn matcher_forms_and_where_they_differ() {
    let forms: &[(&str, ToolMatcher)] = &[
        ("match_tool Bash", ToolMatcher::Exact("Bash".into())),
        ("claude Bash", ToolMatcher::claude("Bash").unwrap()),
        (
            "claude Edit|Write",
            ToolMatcher::claude("Edit|Write").unwrap(),
        ),
        (
            "claude Edit, Write",
            ToolMatcher::claude("Edit, Write").unwrap(),
        ),
        (
            "claude Notebook.*",
            ToolMatcher::claude("Notebook.*").unwrap(),
        ),
        ("claude ^Edit$", ToolMatcher::claude("^Edit$").unwrap()),
        ("claude mcp__*", ToolMatcher::claude("mcp__*").unwrap()),
        ("claude *", ToolMatcher::claude("*").unwrap()),
        ("claude empty", ToolMatcher::claude("").unwrap()),
        ("glob mcp__*", ToolMatcher::glob("mcp__*").unwrap()),
        ("regex ^mcp__", ToolMatcher::regex("^mcp__").unwrap()),
    ];
    let tools = [
        "Bash",
        "BashOutput",
        "Edit",
        "NotebookEdit",
        "Write",
        "MyNotebookX",
        "mcp__memory__read",
        "xmcp_tool",
    ];
    #[rustfmt::skip]
    let expected: &[(&str, [bool; 8])] = &[
        //                      Bash   BashOut Edit   NbEdit Write  MyNbX  mcp__m xmcp_
        ("match_tool Bash",     [true, false, false, false, false, false, false, false]),
        ("claude Bash",         [true, false, false, false, false, false, false, false]),
        ("claude Edit|Write",   [false, false, true, false, true, false, false, false]),
        ("claude Edit, Write",  [false, false, true, false, true, false, false, false]),
        ("claude Notebook.*",   [false, false, false, true, false, true, false, false]),
        ("claude ^Edit$",       [false, false, true, false, false, false, false, false]),
        // Claude Code's regex is unanchored: `mcp__*` is "mcp_" followed by any `_`s.
        ("claude mcp__*",       [false, false, false, false, false, false, true, true]),
        ("claude *",            [true; 8]),
        ("claude empty",        [true; 8]),
        // The glob is the whole name: only real MCP tools.
        ("glob mcp__*",         [false, false, false, false, false, false, true, false]),
        ("regex ^mcp__",        [false, false, false, false, false, false, true, false]),
    ];
    for ((name, matcher), (expected_name, row)) in forms.iter().zip(expected) {
        assert_eq!(name, expected_name);
        for (tool, want) in tools.iter().zip(row) {
            assert_eq!(matcher.matches(Some(tool)), *want, "{name} on {tool}");
        }
        assert_eq!(
            matcher.matches(None),
            matcher.is_any(),
            "{name} without a subject"
        );
    }
}

#[test]
fn invalid_patterns_say_why() {
    let error = ToolMatcher::claude("Edit(").unwrap_err();
    assert!(error.contains("not a valid regular expression"), "{error}");
    let error = ToolMatcher::claude("(?=x)Edit").unwrap_err();
    assert!(error.contains("no look-around"), "{error}");
    assert!(
        ToolMatcher::glob("mcp__[a")
            .unwrap_err()
            .contains("without its `]`")
    );
}

#[test]
fn event_patterns() {
    let cases: &[(&[&str], &str, Option<&str>, bool)] = &[
        (&["PreToolUse"], "PreToolUse", Some("Bash"), true),
        (&["PreToolUse"], "PostToolUse", Some("Bash"), false),
        (&["PreToolUse", "PostToolUse"], "PostToolUse", None, true),
        (&["session:start,session:end"], "session:end", None, true),
        (
            &["session:start, session:end"],
            "session:message",
            None,
            false,
        ),
        (&["tool:*"], "tool:pre_execute", Some("bash"), true),
        (&["tool:*"], "llm:pre_request", None, false),
        (
            &["tool:pre_execute:bash"],
            "tool:pre_execute",
            Some("bash"),
            true,
        ),
        (
            &["tool:pre_execute:bash"],
            "tool:pre_execute",
            Some("write"),
            false,
        ),
        (&["tool:*:write"], "tool:post_execute", Some("write"), true),
        (&["*"], "anything", None, true),
        (&["started"], "started", None, true),
    ];
    for (items, name, tool, expected) in cases {
        let pattern = EventPattern::parse(items.iter().copied()).unwrap();
        assert_eq!(
            pattern.matches(name, *tool),
            *expected,
            "{items:?} on {name} {tool:?}"
        );
    }
    let error = EventPattern::parse(["PreToolUSE"]).unwrap_err();
    assert!(error.contains("did you mean \"PreToolUse\""), "{error}");
    assert!(EventPattern::parse(["a,,b"]).is_err());
    assert!(EventPattern::parse(["a b"]).is_err());
    let pattern = EventPattern::parse(["Pre*"]).unwrap();
    let names: Vec<_> = pattern.builtins().iter().map(|s| s.name).collect();
    assert_eq!(names, ["PreToolUse", "PreCompact"]);
    assert!(pattern.reaches_custom());
    assert!(!EventPattern::parse(["Stop"]).unwrap().reaches_custom());
}

#[test]
fn glob_edge_cases() {
    let cases = [
        ("a*b*c", "abc", true),
        ("a*b*c", "aXXbYYc", true),
        ("a*b*c", "aXXbYY", false),
        ("*", "", true),
        ("?", "", false),
        ("[a-c]x", "bx", true),
        ("[!a-c]x", "bx", false),
        ("[]]", "]", true),
        ("a**", "abc", true),
    ];
    for (glob, text, expected) in cases {
        assert_eq!(
            Glob::new(glob).unwrap().matches(text),
            expected,
            "{glob} {text}"
        );
    }
    // Bounded work on a long adversarial name.
    let long = "a".repeat(5000);
    assert!(!Glob::new("*a*a*a*b").unwrap().matches(&long));
}
