//! Rules that are not rules: the column (1-based, in characters) of the mistake, what the
//! message says, and the suggestion, one line each.

use std::path::PathBuf;

use hookhost_rules::{Action, Origin, Rule, Rules};

#[test]
fn mistakes_are_located_and_explained() {
    // (rule, action, column, part of the message, suggestion)
    #[rustfmt::skip]
    let cases: &[(&str, Action, usize, &str, Option<&str>)] = &[
        ("", Action::Deny, 1, "cannot be empty", None),
        (" Bash", Action::Deny, 1, "no spaces around it", None),
        ("Bash ", Action::Deny, 5, "no spaces around it", None),
        ("bash(rm *)", Action::Deny, 1, "Copilot CLI's name for Claude Code's `Bash`", Some("Bash(rm *)")),
        ("Webfetch(domain:x.com)", Action::Deny, 1, "unknown tool `Webfetch`", Some("WebFetch(domain:x.com)")),
        ("Reed(.env)", Action::Deny, 1, "unknown tool `Reed`", Some("Read(.env)")),
        ("run_shell_command(rm *)", Action::Deny, 1, "Gemini CLI's name", Some("Bash(rm *)")),
        ("Stop Task", Action::Deny, 5, "a tool name has no spaces", None),
        ("Bash(rm *", Action::Deny, 5, "`(` is never closed", None),
        ("Bash)", Action::Deny, 5, "`)` without an opening `(`", None),
        ("Bash(rm) -rf", Action::Deny, 9, "nothing may follow the closing `)`", None),
        ("Bash()", Action::Deny, 5, "empty parentheses", Some("Bash")),
        ("Bash(:*)", Action::Deny, 6, "needs a command before `:*`", None),
        ("Bash(command:rm *)", Action::Deny, 6, "write `Bash(rm *)`", None),
        ("Read(src/:*)", Action::Deny, 10, "`:*` is only for Bash prefix rules", None),
        ("Read(ä/:*)", Action::Deny, 8, "`:*` is only for Bash prefix rules", None),
        ("Read(./)", Action::Deny, 6, "names no file", None),
        ("Read(!secret)", Action::Deny, 6, "negated patterns", None),
        ("Read(file_path:/etc/passwd)", Action::Deny, 6, "write `Read(/etc/passwd)`", None),
        ("WebFetch(domian:x.com)", Action::Deny, 10, "unknown specifier prefix `domian:`", Some("WebFetch(domain:x.com)")),
        ("WebFetch(https://x.com/a)", Action::Deny, 10, "not a URL", Some("WebFetch(domain:x.com)")),
        ("WebFetch(x.com)", Action::Deny, 10, "take `domain:HOST`", Some("WebFetch(domain:x.com)")),
        ("WebFetch(domain:)", Action::Deny, 17, "needs a host", None),
        ("WebFetch(domain:x.com/a)", Action::Deny, 22, "a host has no path", None),
        ("WebSearch(foo*)", Action::Deny, 14, "without `*` or `?`", None),
        ("mcp__github(x)", Action::Deny, 12, "MCP rules take no parentheses", None),
        ("mcp__", Action::Deny, 1, "names a server", None),
        ("Skill(deploy)", Action::Deny, 7, "hookhost reads no specifier for `Skill`", None),
        ("*", Action::Allow, 1, "may use `*` only after a literal `mcp__<server>__`", None),
        ("Bas*", Action::Allow, 4, "may use `*` only after", None),
        ("mcp__*", Action::Allow, 6, "may use `*` only after", None),
        ("Skill(skill:deploy)", Action::Allow, 7, "are for deny and ask", None),
        ("PowerShell(Get-ChildItem *)", Action::Allow, 12, "no PowerShell command", None),
    ];
    let origin = || Origin {
        file: PathBuf::from("hooks.toml"),
        line: 1,
        column: 1,
        dir: PathBuf::from("/p"),
    };
    let mut failures = Vec::new();
    for (text, action, column, message, suggestion) in cases {
        match Rules::new().add(*action, text, "r", origin()) {
            Ok(_) => failures.push(format!("{text:?} ({action:?}) was accepted")),
            Err(error) => {
                let got = (
                    error.column,
                    error.message.contains(message),
                    error.suggestion.as_deref(),
                );
                if got != (*column, true, *suggestion) {
                    failures.push(format!("{text:?}: expected column {column}, `{message}`, {suggestion:?}\n    got {error:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn claude_codes_forms_are_accepted() {
    for text in [
        "Bash",
        "Bash(*)",
        "Bash(git push --force:*)",
        "Bash(npm run test:*)",
        "Bash(git * main)",
        "Bash(echo \\(x\\))",
        "Read(./.env)",
        "Read(~/.ssh/**)",
        "Edit(src/**)",
        "Write(//etc/**)",
        "Edit(/docs/**)",
        "Read(**/.env)",
        "WebFetch(domain:example.com)",
        "WebFetch(domain:*.example.com)",
        "WebSearch",
        "mcp__github",
        "mcp__github__*",
        "mcp__github__create_issue",
        "mcp__github__get_*",
        "Agent(Explore)",
        "Task",
        "Bash(run_in_background:true)",
        "Agent(model:opus)",
        "NotebookEdit",
        "MultiEdit(src/**)",
    ] {
        for action in Action::ALL {
            let mut rules = Rules::new();
            let accepted = rules.add(
                action,
                text,
                "",
                Origin {
                    file: "h".into(),
                    line: 1,
                    column: 1,
                    dir: "/p".into(),
                },
            );
            assert!(
                accepted.is_ok(),
                "{text} ({action:?}): {:?}",
                accepted.err()
            );
        }
    }
}

#[test]
fn rules_that_do_less_than_they_say_warn() {
    for (text, warning) in [
        ("Write(src/**)", "never consults `Write(path)`"),
        ("Glob(src/**)", "as `Read(src/**)` for deny and ask"),
        ("Bash(git * main:*)", "the `*` is literal"),
        ("Bash(git:* push)", "not at the end"),
        ("Cd(~/code/*)", "/cd command"),
    ] {
        let rule = Rule::parse(text).unwrap();
        assert!(
            rule.warnings().iter().any(|w| w.contains(warning)),
            "{text}: {:?}",
            rule.warnings()
        );
    }
    assert!(Rule::parse("Edit(src/**)").unwrap().warnings().is_empty());
    assert_eq!(
        Rule::parse("Bash(rm:*)").unwrap().hook_name(),
        "rule: Bash(rm:*)"
    );
}
