//! The keys of the lifecycle model (events, matchers, protocols, async) and what validation
//! promises about hostile files: located problems, a cap, escaped text, warnings that switch
//! nothing off.

use super::*;
use crate::event::Phase;
use crate::protocol::Protocol;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, "hooks.toml")
}

fn only_problem(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("expected an invalid config:\n{text}"),
        Err(error) => {
            let problems = error.problems();
            assert_eq!(problems.len(), 1, "{problems:?}");
            problems[0].to_string()
        }
    }
}

fn warnings(text: &str) -> Vec<String> {
    parse(text)
        .unwrap_or_else(|e| panic!("{e}"))
        .warnings
        .iter()
        .map(|w| w.to_string())
        .collect()
}

#[test]
fn seed_000_phase_on_post_tool_use_and_stop_is_accepted_and_ignored() {
    for (event, phase) in [("PostToolUse", "guard"), ("Stop", "observe")] {
        let text =
            format!("[[hooks]]\nevent = \"{event}\"\nphase = \"{phase}\"\ncommand = \"x\"\n");
        let config = parse(&text).unwrap();
        let hook = &config.hooks[0];
        assert_eq!(hook.phase, Phase::Guard, "{event}: the phase has no effect");
        assert!(
            hook.phase_written.is_some(),
            "{event}: but the file said it"
        );
        let warnings = warnings(&text);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("3:9: hook #1 (x): `phase` is ignored on"),
            "{warnings:?}"
        );
    }
}

/// A case name, a hooks.toml line, and which events it reaches.
type EventCase<'a> = (&'a str, &'a str, &'a [(&'a str, bool)]);

#[test]
fn event_forms() {
    #[rustfmt::skip]
    let cases: &[EventCase<'_>] = &[
        ("a list", r#"event = ["SessionStart", "SessionEnd"]"#, &[("SessionStart", true), ("SessionEnd", true), ("Stop", false)]),
        ("a comma list", r#"event = "session:start,session:end""#, &[("session:start", true), ("session:end", true)]),
        ("a glob", r#"event = "tool:*""#, &[("tool:pre_execute", true), ("llm:pre_request", false)]),
        ("a custom name", r#"event = "started""#, &[("started", true), ("finished", false)]),
    ];
    for (name, line, expectations) in cases {
        let config = parse(&format!("[[hooks]]\n{line}\ncommand = \"x\"\n")).unwrap();
        for (event, reached) in *expectations {
            assert_eq!(
                config.hooks[0].events.matches(event, None),
                *reached,
                "{name}: {event}"
            );
        }
    }
}

#[test]
fn new_keys_are_validated_where_they_are() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str)] = &[
        ("lookalike event", "event = \"PreToolUSE\"\ncommand = \"x\"", "2:9: hook #1 (x): unknown event \"PreToolUSE\"; did you mean \"PreToolUse\"?"),
        ("copilot spelling", "event = \"preToolUse\"\ncommand = \"x\"", "did you mean \"PreToolUse\"?"),
        ("empty list", "event = []\ncommand = \"x\"", "`event` must be a name or a non-empty list"),
        ("bad regex", "event = \"PreToolUse\"\nmatcher = \"Edit(\"\ncommand = \"x\"", "3:11: hook #1 (x): \"Edit(\" is not a valid regular expression"),
        ("bad glob", "event = \"PreToolUse\"\nmatcher = { glob = \"mcp__[\" }\ncommand = \"x\"", "3:11: hook #1 (x): glob \"mcp__[\" has a `[` without its `]`"),
        ("matcher table", "event = \"PreToolUse\"\nmatcher = { prefix = \"mcp\" }\ncommand = \"x\"", "`matcher` is a string (Claude Code's semantics"),
        ("both matchers", "event = \"PreToolUse\"\nmatch_tool = \"Bash\"\nmatcher = \"Bash\"\ncommand = \"x\"", "4:1: hook #1 (x): a hook takes `match_tool`"),
        ("unknown protocol", "event = \"PreToolUse\"\nprotocol = \"opencode\"\ncommand = \"x\"", "3:12: hook #1 (x): unknown protocol \"opencode\"; a command hook speaks forgeflare (the default), claude, exit-code, copilot, gemini, codex or cursor"),
        ("protocol on wasm", "event = \"PreToolUse\"\nprotocol = \"claude\"\nwasm = \"x.wasm\"", "`protocol` applies only to command hooks"),
        ("async guard", "event = \"PreToolUse\"\nasync = true\nphase = \"guard\"\ncommand = \"x\"", "an `async = true` hook runs in the background"),
        ("async fails open", "event = \"PostToolUse\"\nasync = true\non_failure = \"block\"\ncommand = \"x\"", "`on_failure` applies only to guard hooks"),
        ("on_failure where nothing blocks", "event = \"Notification\"\non_failure = \"block\"\ncommand = \"x\"", "`on_failure` applies only to guard hooks"),
        ("empty command", "event = \"PreToolUse\"\ncommand = \"\"", "a guard would block every call"),
        ("exit_codes without the protocol", "event = \"started\"\ncommand = \"x\"\nexit_codes = { 1 = \"block\" }", "4:1: hook #1 (x): `exit_codes` applies only to `protocol = \"exit-code\"` hooks"),
        ("exit_codes bad status", "event = \"started\"\ncommand = \"x\"\nprotocol = \"exit-code\"\nexit_codes = { one = \"block\" }", "`exit_codes` key `one` is not an exit status"),
        ("exit_codes bad meaning", "event = \"started\"\ncommand = \"x\"\nprotocol = \"exit-code\"\nexit_codes = { 1 = \"stop\" }", "an exit status means one of allow, warn, ask, block, error"),
        ("zero timeout", "event = \"PreToolUse\"\ncommand = \"x\"\ntimeout_ms = 0", "0 would time every call out at once"),
    ];
    for (name, body, expected) in cases {
        let got = only_problem(&format!("[[hooks]]\n{body}\n"));
        assert!(got.contains(expected), "{name}: {got:?} lacks {expected:?}");
    }
}

#[test]
fn matchers_protocols_and_async_parse() {
    let config = parse(
        r#"
[[hooks]]
event = "PreToolUse"
matcher = "Edit|Write"
command = "claude-guard.sh"
protocol = "claude"

[[hooks]]
event = "PostToolUse"
matcher = { glob = "mcp__*" }
command = "audit.sh"
async = true

[[hooks]]
event = "started"
command = ".fresher/hooks/started"
protocol = "exit-code"
"#,
    )
    .unwrap();
    let [claude, audit, fresher] = config.hooks.as_slice() else {
        panic!()
    };
    assert!(claude.matches_tool("Write") && !claude.matches_tool("NotebookEdit"));
    assert!(matches!(&claude.source, HookSource::Command(c) if c.protocol == Protocol::Claude));
    assert!(audit.background && audit.phase == Phase::Observe);
    assert!(audit.matches_tool("mcp__memory__read") && !audit.matches_tool("Bash"));
    assert!(matches!(&fresher.source, HookSource::Command(c) if c.protocol == Protocol::ExitCode));
    assert_eq!(fresher.label(), "started/guard");
}

#[test]
fn what_switches_nothing_off_is_a_warning() {
    let text = "[hook_defaults]\ntimeout = 3\n\n[[hooks]]\nevent = \"Stop\"\nmatcher = \"Bash\"\ncommand = \"x\"\n";
    let warnings = warnings(text);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("1:2: unknown top-level key `hook_defaults` is ignored"));
    assert!(warnings[1].contains("the matcher is ignored: Stop hooks always fire"));
    // ... but a table that holds hooks under another name is an error: they would never run.
    let problem = only_problem("[[guards]]\nevent = \"PreToolUse\"\ncommand = \"x\"\n");
    assert!(
        problem.starts_with("1:3: unknown top-level key `guards`; hooks must be"),
        "{problem}"
    );
}

#[test]
fn problems_are_capped_with_a_count_of_the_rest() {
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!(
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"x{i}\"\nextra = 1\n"
        ));
    }
    let error = parse(&text).unwrap_err();
    let problems = error.problems();
    assert_eq!(problems.len(), fields::MAX_PROBLEMS + 1);
    assert_eq!(problems[0].location, Location { line: 4, column: 1 });
    let last = problems.last().unwrap();
    assert!(
        last.message
            .starts_with("... and 2900 more (only the first 100 are listed"),
        "{last:?}"
    );
    assert_eq!(
        last.location,
        Location {
            line: 404,
            column: 1
        }
    );
}

#[test]
fn quoted_file_text_cannot_forge_lines_or_repaint_the_terminal() {
    let text = "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\n\"evil\\n  hooks.toml:9:9: ok\" = 1\n\"\\u001b[2J all hooks OK\" = 2\nevent2 = \"\\u001b[31m\"\n";
    let error = parse(text).unwrap_err();
    let rendered = error.to_string();
    assert!(!rendered.contains('\u{1b}'), "{rendered:?}");
    assert_eq!(
        rendered.lines().count(),
        1 + error.problems().len(),
        "one line per problem: {rendered}"
    );
    assert!(
        rendered.contains("evil\\n  hooks.toml:9:9: ok"),
        "{rendered}"
    );
    let long_key = format!(
        "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\n{} = 1\n",
        "k".repeat(1 << 20)
    );
    let problem = only_problem(&long_key);
    assert!(problem.len() < 2000, "a 1 MB key is cut in the message");
}

#[test]
fn a_stop_hook_matcher_is_ignored_and_a_long_timeout_is_capped_not_refused() {
    let text = "[[hooks]]\nevent = \"Stop\"\nmatch_tool = \"Bash\"\ncommand = \"x\"\ntimeout_ms = 7200000\n";
    let config = parse(text).unwrap();
    assert_eq!(
        config.hooks[0].timeout,
        Some(std::time::Duration::from_secs(3600))
    );
    let warnings = warnings(text);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("the matcher is ignored")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("`timeout_ms` = 7200000 is capped at 3600000")),
        "{warnings:?}"
    );
}

#[test]
fn a_matcher_over_events_that_compare_different_things_is_a_warning() {
    let text = "[[hooks]]\nevent = [\"SessionStart\", \"PreToolUse\"]\nmatcher = \"Write|Edit\"\ncommand = \"x\"\n";
    let warnings = warnings(text);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("the matcher compares different things on these events: SessionStart (`source`), PreToolUse (the tool's name)"),
        "{warnings:?}"
    );
}
